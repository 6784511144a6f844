// `tally bench`: the front end of the benchmarks. The one harness is the Google Benchmark
// executables in benchmarks/ (bench_reduce, bench_max_element, bench_top_k, bench_copy_if:
// benchmarks/README.md says what each times and why it is the one). This command finds
// them in the build tree (<build dir>/benchmarks/, beside this tool at <build dir>/tally),
// maps its options onto theirs (bench.hpp), runs them one after another and gathers their
// --json rows into one file, the input of `tally plot`.

#include "bench.hpp"
#include "bench_args.hpp"
#include "commands.hpp"
#include "tool_common.hpp"

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <string>
#include <vector>

#include <sys/wait.h>
#include <unistd.h>

namespace tally_tool {
namespace {

void print_help(std::ostream& out) {
  out << "usage: tally bench [options] [-- ARGS for every benchmark]\n"
         "\n"
         "Runs the benchmark executables of the build tree (<build dir>/benchmarks/bench_reduce,\n"
         "bench_max_element, bench_top_k, bench_copy_if; benchmarks/README.md), one after\n"
         "another: tally on every backend and `automatic` against CUB, Thrust and the floor\n"
         "(one read of the input), each row checked against CUB before it is timed. Each\n"
         "prints Google Benchmark's lines and Markdown tables (µs per call, GB/s, speed-up vs\n"
         "CUB; bench_top_k and bench_copy_if their targets tables too) and writes them to\n"
         "<name>.md. Exit code 0; 1 when a row was wrong, CUDA failed or the benchmarks are not\n"
         "built (cmake --build <build dir> --target tally_benchmarks); 2 for a bad command line.\n"
         "\n"
         "options:\n"
         "  --algo LIST     reduce_sum, reduce_max, max_element, min_element, top_k2, top_k8,\n"
         "                  top_k32, copy_if, or the groups reduce, extrema, top_k, all\n"
         "                  (default: all). The top_k keys all run bench_top_k's cases, which\n"
         "                  time K = 2, 8 and 32 together\n"
         "  --type LIST     int32, float, double (default: all; not every algorithm has each)\n"
         "  --sizes LIST    item counts: 1000, 2^20, 2^16+3, ranges of powers of two\n"
         "                  2^10..2^28 (each) or 2^10..2^28:2 (every other; the default)\n"
         "  --json FILE     every row as JSON Lines, all the executables' in one file (the\n"
         "                  input of `tally plot`)\n"
         "  --md-dir DIR    where the Markdown tables go (default: the current directory)\n"
         "  --device N      run on CUDA device N (default: CUDA's default device)\n"
         "  --markdown      accepted; the tables are always Markdown\n"
         "  -- ARGS         passed to every executable, e.g. -- --benchmark_filter=automatic\n"
         "  -h, --help      this text\n"
         "\n"
         "Gone with the former built-in harness: --csv (Google Benchmark's own\n"
         "--benchmark_out=FILE --benchmark_out_format=csv after --), --loops (7, the anchors'\n"
         "method), --no-progress, and the free-memory check of each size before running.\n";
}

/// Runs `exe args...` and waits; its exit code (1 when it could not run or was killed).
int run_and_wait(const std::string& exe, const std::vector<std::string>& args) {
  std::vector<char*> argv;
  argv.push_back(const_cast<char*>(exe.c_str()));
  for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  std::cout << std::flush;
  std::cerr << std::flush;
  const pid_t pid = fork();
  if (pid < 0) {
    std::cerr << "tally bench: cannot start " << exe << ": " << std::strerror(errno) << "\n";
    return 1;
  }
  if (pid == 0) {
    execv(exe.c_str(), argv.data());
    std::fprintf(stderr, "tally bench: cannot run %s: %s\n", exe.c_str(), std::strerror(errno));
    _exit(1);
  }
  int status = 0;
  while (waitpid(pid, &status, 0) < 0)
    if (errno != EINTR) return 1;
  return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
}

/// Appends the file `part` to `out` and removes it (a missing part adds nothing: its
/// executable stopped before writing).
void append_part(const std::string& part, std::ofstream& out) {
  std::ifstream in(part);
  if (!in) return;
  out << in.rdbuf();
  in.close();
  std::remove(part.c_str());
}

int run(const bench_options& o) {
  const std::vector<bench_invocation> plan = bench_plan(o);
  const std::string root = tool_directory().empty() ? "." : tool_directory();
  const std::string dir = root + "/benchmarks";

  std::vector<std::string> missing;
  for (const auto& b : plan)
    if (access((dir + "/" + b.executable).c_str(), X_OK) != 0) missing.push_back(b.executable);
  if (!missing.empty()) {
    std::cerr << "tally bench: the benchmarks are not built (no " << join_bar(missing) << " in " << dir
              << "); build them with\n  cmake --build " << root
              << " --target tally_benchmarks\n(in a build configured with -DTALLY_BUILD_BENCHMARKS=ON, the default "
                 "when tally is the top-level project; they need Google Benchmark)\n";
    return 1;
  }
  if (!o.md_dir.empty()) std::filesystem::create_directories(o.md_dir);
  // The rows' commit: the executables read $TALLY_COMMIT (they do not look for git).
  if (const char* c = std::getenv("TALLY_COMMIT"); c == nullptr || *c == '\0')
    setenv("TALLY_COMMIT", current_commit().c_str(), 1);

  std::ofstream json;
  if (!o.json.empty()) {
    json.open(o.json, std::ios::trunc);
    if (!json) throw usage_error("--json: cannot write '" + o.json + "'");
  }
  int worst = 0;
  std::vector<std::string> failed;
  for (const auto& b : plan) {
    std::cout << "\n=== tally bench: " << b.executable;
    for (const auto& a : b.args) std::cout << " " << a;
    std::cout << "\n";
    const int code = run_and_wait(dir + "/" + b.executable, b.args);
    if (!b.json_part.empty()) append_part(b.json_part, json);
    if (code != 0) {
      failed.push_back(b.executable + " (exit " + std::to_string(code) + ")");
      worst = (code == 2 || worst == 2) ? 2 : 1;
    }
  }
  if (json.is_open()) {
    json.close();
    if (!json) {
      std::cerr << "tally bench: writing " << o.json << " failed\n";
      worst = worst ? worst : 1;
    } else {
      std::cout << "tally bench: rows written to " << o.json << "\n";
    }
  }
  if (!failed.empty()) {
    std::cerr << "tally bench: failed:";
    for (std::size_t i = 0; i < failed.size(); ++i) std::cerr << (i ? ", " : " ") << failed[i];
    std::cerr << "\n";
  }
  return worst;
}

}  // namespace

int bench_main(int argc, char** argv) {
  try {
    const bench_options o = parse_bench_args(argc, argv);
    if (o.help) {
      print_help(std::cout);
      return 0;
    }
    return run(o);
  } catch (const usage_error& e) {
    std::cerr << "tally bench: " << e.what() << " (see 'tally bench --help')\n";
    return 2;
  } catch (const std::exception& e) {
    std::cerr << "tally bench: " << e.what() << "\n";
    return 1;
  }
}

}  // namespace tally_tool
