// The `tally` command-line tool: dispatches to its subcommands.
//
//   tally --help | --version
//   tally verify [options]     check tally against CUB on this GPU      (verify.cu)
//   tally bench  [options]     time tally against CUB, Thrust, the floor (bench.cu)
//   tally plot FILE.json -o DIR   charts of a bench run                  (plot.cu)
//   tally tune   [options]     search launch shapes, write a tuning table (tune.cu)
//
// Exit codes: 0 success, 1 a check failed or CUDA failed, 2 bad command line.

#include "commands.hpp"

#include <tally/version.hpp>

#include <iostream>
#include <string>

namespace {

void print_help(std::ostream& out) {
  out << "usage: tally <command> [options]\n"
         "\n"
         "commands:\n"
         "  verify    check every algorithm on every backend against CUB on this GPU, with\n"
         "            timings (the host backend's self-check when there is no GPU)\n"
         "  bench     time tally (each backend and automatic) against CUB, Thrust and the\n"
         "            bandwidth floor; a table, and --json / --csv files\n"
         "  plot      PNG charts (time and GB/s against n) from a `tally bench --json` file\n"
         "            (needs Python 3 with matplotlib)\n"
         "  tune      search backend x threads x items per thread on this GPU and write a\n"
         "            tuning table (include/tally/tuning/sm90.cuh's format)\n"
         "\n"
         "options:\n"
         "  -h, --help     this text ('tally <command> --help' for a command's options)\n"
         "  --version      print tally's version\n";
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
  if (command == "tune") return tally_tool::tune_main(argc - 2, argv + 2);

  std::cerr << "tally: " << (command.rfind("-", 0) == 0 ? "unknown option '" : "unknown command '") << command
            << "' (see 'tally --help')\n";
  return 2;
}
