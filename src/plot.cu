// `tally plot FILE.json -o DIR`: PNG charts of a `tally bench --json` run (the JSON Lines
// rows the benchmarks write, support/tally_support/bench_report.hpp), drawn by
// scripts/plot_bench.py (Python 3 with matplotlib; optional: the rest of the tool does
// not need it). The tool only finds the script and Python and runs them.

#include "commands.hpp"

#include <tally_support/args.hpp>

#include <cstdlib>
#include <fstream>
#include <iostream>
#include <string>
#include <sys/wait.h>

#ifndef TALLY_PLOT_SCRIPT
#define TALLY_PLOT_SCRIPT "scripts/plot_bench.py"
#endif

namespace tally_tool {

using tally_support::arg_list;
using tally_support::usage_error;

namespace {

void print_help(std::ostream& out) {
  out << "usage: tally plot FILE.json -o DIR\n"
         "\n"
         "Draws PNG charts from a `tally bench --json FILE.json` run (JSON Lines, one row a\n"
         "line; a benchmark's own --json=FILE is the same) into DIR: for each benchmark and\n"
         "case, time per call and GB/s against n (log scales), one line per row of the\n"
         "table, with the floor (one read of the input) and the measured copy\n"
         "bandwidth drawn. Needs Python 3 with matplotlib (optional: nothing else in tally\n"
         "does); the script is scripts/plot_bench.py, which can also be run by hand.\n"
         "\n"
         "options:\n"
         "  -o, --out DIR    where the PNG files go (created if missing)\n"
         "  --python EXE     the Python to run (default: python3, or $TALLY_PYTHON)\n"
         "  -h, --help       this text\n"
         "environment: TALLY_PLOT_SCRIPT overrides where the script is.\n";
}

std::string quoted(const std::string& s) {
  std::string out = "'";
  for (char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

}  // namespace

int plot_main(int argc, char** argv) {
  std::string input, dir, python = std::getenv("TALLY_PYTHON") ? std::getenv("TALLY_PYTHON") : "python3";
  try {
    arg_list args(argc, argv);
    std::string value;
    while (!args.done()) {
      if (args.take_switch("--help") || args.take_switch("-h")) {
        print_help(std::cout);
        return 0;
      } else if (args.take_value("-o", value) || args.take_value("--out", value)) {
        dir = value;
      } else if (args.take_value("--python", value)) {
        python = value;
      } else if (args.current().rfind("-", 0) == 0) {
        throw usage_error("unknown option '" + args.current() + "'");
      } else if (input.empty()) {
        input = args.current();
        args.skip();
      } else {
        throw usage_error("unexpected argument '" + args.current() + "' (one JSON file)");
      }
    }
    if (input.empty()) throw usage_error("no input: give the JSON file of `tally bench --json FILE`");
    if (dir.empty()) throw usage_error("no output directory: give -o DIR");
    if (!std::ifstream(input)) throw usage_error("cannot read '" + input + "'");
  } catch (const usage_error& e) {
    std::cerr << "tally plot: " << e.what() << " (see 'tally plot --help')\n";
    return 2;
  }
  const char* env_script = std::getenv("TALLY_PLOT_SCRIPT");
  const std::string script = env_script && *env_script ? env_script : TALLY_PLOT_SCRIPT;
  if (!std::ifstream(script)) {
    std::cerr << "tally plot: the plotting script " << script << " is missing (set TALLY_PLOT_SCRIPT)\n";
    return 1;
  }
  const std::string command = quoted(python) + " " + quoted(script) + " " + quoted(input) + " -o " + quoted(dir);
  const int status = std::system(command.c_str());
  if (status == -1 || !WIFEXITED(status)) {
    std::cerr << "tally plot: could not run " << python << "\n";
    return 1;
  }
  const int code = WEXITSTATUS(status);
  if (code == 127) std::cerr << "tally plot: " << python << " not found (Python 3 with matplotlib is needed)\n";
  return code == 0 ? 0 : (code == 2 ? 2 : 1);
}

}  // namespace tally_tool
