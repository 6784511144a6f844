// The `tally` command-line tool: dispatches to its subcommands.
//
//   tally --help | --version
//   tally verify [options]     (tally verify --help)
//
// Exit codes: 0 success, 1 a check failed or CUDA failed, 2 bad command line.

#include "verify.hpp"

#include <tally/version.hpp>

#include <iostream>
#include <string>

namespace {

void print_help(std::ostream& out) {
  out << "usage: tally <command> [options]\n"
         "\n"
         "commands:\n"
         "  verify    check tally against CUB on this GPU for every backend, with timings\n"
         "            (the host backend's self-check when there is no GPU)\n"
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

  std::cerr << "tally: " << (command.rfind("-", 0) == 0 ? "unknown option '" : "unknown command '") << command
            << "' (see 'tally --help')\n";
  return 2;
}
