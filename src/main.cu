// The `tally` command-line tool: dispatches to its subcommands.
//
//   tally --help | --version
//   tally verify [options]     check tally against CUB on this GPU      (verify.cu)
//   tally bench  [options]     time tally against CUB, Thrust, the floor: runs the
//                              benchmarks/bench_* executables of the build tree (bench.cu;
//                              built with target tally_benchmarks)
//   tally plot FILE.json -o DIR   charts of a bench run                  (plot.cu)
//   tally tune   [options]     search launch shapes, write a tuning table: runs the
//                              executable tally-tune beside this one (tune.cu, tune_main.cu;
//                              built on request: target tally_tune)
//
// Exit codes: 0 success, 1 a check failed or CUDA failed, 2 bad command line.

#include "commands.hpp"

#include <tally/version.hpp>

#include <cerrno>
#include <cstring>
#include <iostream>
#include <string>
#include <vector>

#include <limits.h>
#include <unistd.h>

namespace tally_tool {

std::string tool_directory() {
  char path[PATH_MAX];
  const ssize_t length = readlink("/proc/self/exe", path, sizeof path - 1);
  if (length <= 0) return "";
  const std::string self(path, std::size_t(length));
  const std::size_t slash = self.rfind('/');
  return slash == std::string::npos ? "" : self.substr(0, slash);
}

}  // namespace tally_tool

namespace {

void print_help(std::ostream& out) {
  out << "usage: tally <command> [options]\n"
         "\n"
         "commands:\n"
         "  verify    check every algorithm on every backend against CUB on this GPU, with\n"
         "            timings (the host backend's self-check when there is no GPU)\n"
         "  bench     time tally (each backend and automatic) against CUB, Thrust and the\n"
         "            bandwidth floor: runs the benchmark executables (Google Benchmark) of\n"
         "            the build tree, built with cmake --build <build dir> --target\n"
         "            tally_benchmarks; Markdown tables, and a --json file\n"
         "  plot      PNG charts (time and GB/s against n) from a `tally bench --json` file\n"
         "            (needs Python 3 with matplotlib)\n"
         "  tune      search backend x threads x items per thread on this GPU and write a\n"
         "            tuning table (include/tally/tuning/sm90.cuh's format); runs tally-tune,\n"
         "            built on request (cmake --build <build dir> --target tally_tune)\n"
         "\n"
         "options:\n"
         "  -h, --help     this text ('tally <command> --help' for a command's options)\n"
         "  --version      print tally's version\n";
}

/// `tally tune ARGS`: execs tally-tune ARGS from this executable's directory (the build
/// dir's root, where both are built). The tuner is its own target, left out of the
/// default build: its candidate kernels would dominate the tool's compile time.
int run_tune(int argc, char** argv) {
  const std::string dir = tally_tool::tool_directory();
  const std::string tuner = (dir.empty() ? std::string(".") : dir) + "/tally-tune";
  if (access(tuner.c_str(), X_OK) != 0) {
    std::cerr << "tally tune is built on request: cmake --build " << (dir.empty() ? "<build dir>" : dir)
              << " --target tally_tune\n";
    return 1;
  }
  std::vector<char*> args;
  args.push_back(const_cast<char*>(tuner.c_str()));
  for (int i = 0; i < argc; ++i) args.push_back(argv[i]);
  args.push_back(nullptr);
  execv(tuner.c_str(), args.data());
  std::cerr << "tally tune: cannot run " << tuner << ": " << std::strerror(errno) << "\n";
  return 1;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    print_help(std::cerr);
    return 2;
  }
  const std::string command = argv[1];
  if (command == "-h" || command == "--help" || command == "help") {
    print_help(std::cout);
    return 0;
  }
  if (command == "--version") {
    std::cout << "tally " << TALLY_VERSION_MAJOR << "." << TALLY_VERSION_MINOR << "." << TALLY_VERSION_PATCH << "\n";
    return 0;
  }
  if (command == "verify") return tally_tool::verify_main(argc - 2, argv + 2);
  if (command == "bench") return tally_tool::bench_main(argc - 2, argv + 2);
  if (command == "plot") return tally_tool::plot_main(argc - 2, argv + 2);
  if (command == "tune") return run_tune(argc - 2, argv + 2);

  std::cerr << "tally: " << (command.rfind("-", 0) == 0 ? "unknown option '" : "unknown command '") << command
            << "' (see 'tally --help')\n";
  return 2;
}
