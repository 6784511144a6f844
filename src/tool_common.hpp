#pragma once
// What the tally tool's subcommands share: the command-line reader's names
// (support/tally_support/args.hpp), the --device flag, where a run was made (the
// commit), whether an input fits in device memory, and the progress bar on stderr.

#include <tally_support/args.hpp>

#include <cuda_runtime.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <string>
#include <unistd.h>

namespace tally_tool {

using tally_support::usage_error;

/// Makes `device` current (-1: leave CUDA's default). usage_error when there is no
/// such device; the message says how many there are.
inline void select_device(int device) {
  if (device < 0) return;
  int count = 0;
  const cudaError_t e = cudaGetDeviceCount(&count);
  if (e != cudaSuccess) count = 0;
  if (device >= count)
    throw usage_error("--device " + std::to_string(device) + ": no such CUDA device (this machine has " +
                      std::to_string(count) + (count == 1 ? " device" : " devices") +
                      (count > 0 ? ", numbered from 0)" : ")"));
  if (cudaSetDevice(device) != cudaSuccess)
    throw usage_error("--device " + std::to_string(device) + ": cudaSetDevice failed");
}

/// The commit a run was made at: $TALLY_COMMIT, else `git rev-parse --short HEAD` in the
/// source tree the tool was built from (TALLY_SOURCE_DIR; with "+changes" when that tree
/// differs from its commit), whatever the current directory, else "unknown".
inline std::string current_commit() {
  if (const char* env = std::getenv("TALLY_COMMIT"); env != nullptr && *env != '\0') return env;
#ifdef TALLY_SOURCE_DIR
  const std::string git = std::string("git -C '") + TALLY_SOURCE_DIR + "' ";
#else
  const std::string git = "git ";
#endif
  std::string out;
  if (FILE* p = popen((git + "rev-parse --short HEAD 2>/dev/null").c_str(), "r")) {
    char buf[64];
    while (std::fgets(buf, sizeof buf, p)) out += buf;
    pclose(p);
  }
  while (!out.empty() && (out.back() == '\n' || out.back() == '\r')) out.pop_back();
  if (out.empty()) return "unknown";
  if (std::system((git + "diff --quiet HEAD >/dev/null 2>&1").c_str()) != 0) out += "+changes";
  return out;
}

/// "1.50 GB"
inline std::string gigabytes(double bytes) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.2f GB", bytes / 1e9);
  return buf;
}

/// Free device memory on the current device (bytes); 0 when CUDA cannot say.
inline double free_device_bytes() {
  std::size_t free_bytes = 0, total = 0;
  if (cudaMemGetInfo(&free_bytes, &total) != cudaSuccess) return 0;
  return double(free_bytes);
}

/// A progress bar on stderr: "[#####-----] 12/40 what"; redrawn in place on a terminal,
/// one line every tenth of the way otherwise (logs stay short). Off: prints nothing.
class progress_bar {
 public:
  progress_bar(long total, bool on) : total_(total > 0 ? total : 1), on_(on), tty_(isatty(2) != 0) {}
  void step(const std::string& what) {
    ++done_;
    if (!on_) return;
    const int width = 30;
    const int filled = int(double(done_) / double(total_) * width);
    const std::string bar = "[" + std::string(std::size_t(filled), '#') + std::string(std::size_t(width - filled), '-') +
                            "] " + std::to_string(done_) + "/" + std::to_string(total_) + " ";
    if (tty_) {
      std::string line = bar + what;
      if (line.size() < last_width_) line += std::string(last_width_ - line.size(), ' ');
      last_width_ = line.size();
      std::cerr << "\r" << line << std::flush;
    } else if (done_ * 10 / total_ != (done_ - 1) * 10 / total_ || done_ == total_) {
      std::cerr << bar << what << "\n" << std::flush;
    }
  }
  void finish() {
    if (on_ && tty_) std::cerr << "\n" << std::flush;
  }

 private:
  long total_, done_ = 0;
  bool on_, tty_;
  std::size_t last_width_ = 0;
};

}  // namespace tally_tool
