#pragma once
// The command line of `tally bench` (the front end of the benchmarks/bench_* executables,
// bench.cu), and the algorithm keys it shares with `tally tune`. No CUDA here: the host
// tests read it too.

#include <tally_support/args.hpp>
#include <tally_support/sizes.hpp>

#include <algorithm>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace tally_tool {

using tally_support::arg_list;
using tally_support::join_commas;
using tally_support::join_bar;
using tally_support::parse_int_flag;
using tally_support::parse_known_list;
using tally_support::parse_sizes_flag;
using tally_support::usage_error;

struct bench_options {
  std::vector<std::uint64_t> sizes;  ///< item counts
  std::vector<std::string> algos;    ///< algorithm keys (groups expanded); empty: all
  std::vector<std::string> types;    ///< type keys; empty: all
  std::string json;                  ///< the JSON Lines file to write ("" : none)
  std::string md_dir;                ///< where the executables' Markdown goes ("" : the current directory)
  int device = -1;                   ///< --device; -1: CUDA's default
  std::vector<std::string> extra;    ///< after "--": passed to every executable as they are
  bool help = false;
};

/// The algorithm keys of `tally bench` and `tally tune`, and the groups --algo accepts.
inline const std::vector<std::string>& bench_algorithms() {
  static const std::vector<std::string> v = {"reduce_sum", "reduce_max", "max_element", "min_element",
                                             "top_k2",     "top_k8",     "top_k32",     "copy_if"};
  return v;
}
inline const std::map<std::string, std::vector<std::string>>& algorithm_groups() {
  static const std::map<std::string, std::vector<std::string>> g = {
      {"reduce", {"reduce_sum", "reduce_max"}},
      {"extrema", {"max_element", "min_element"}},
      {"top_k", {"top_k2", "top_k8", "top_k32"}},
      {"all", bench_algorithms()}};
  return g;
}

/// "reduce,top_k8" -> {"reduce_sum", "reduce_max", "top_k8"}; usage_error for an unknown name.
inline std::vector<std::string> parse_algorithms(const std::string& value, const std::vector<std::string>& known) {
  std::vector<std::string> out;
  auto add = [&](const std::string& a) {
    if (std::find(out.begin(), out.end(), a) == out.end()) out.push_back(a);
  };
  for (const std::string& a : tally_support::split_commas(value)) {
    const auto group = algorithm_groups().find(a);
    if (group != algorithm_groups().end()) {
      for (const auto& m : group->second)
        if (std::find(known.begin(), known.end(), m) != known.end()) add(m);
    } else if (std::find(known.begin(), known.end(), a) != known.end()) {
      add(a);
    } else {
      std::vector<std::string> names = known;
      for (const auto& g : algorithm_groups()) names.push_back(g.first);
      throw usage_error("--algo: unknown algorithm '" + a + "' (known: " + join_bar(names) + ")");
    }
  }
  return out;
}

/// The types the benchmarks have cases for.
inline const std::vector<std::string>& bench_types() {
  static const std::vector<std::string> v = {"int32", "float", "double"};
  return v;
}

/// Reads `tally bench`'s arguments (after the subcommand). Throws usage_error. The options
/// of the former built-in harness that the executables have no counterpart for say so.
inline bench_options parse_bench_args(int argc, char** argv) {
  bench_options o;
  o.sizes = tally_support::parse_size_list("2^10..2^28:2");
  arg_list args(argc, argv);
  std::string value;
  while (!args.done()) {
    if (args.take_switch("--help") || args.take_switch("-h")) o.help = true;
    else if (args.take_value("--sizes", value)) o.sizes = parse_sizes_flag(value);
    else if (args.take_value("--algo", value)) o.algos = parse_algorithms(value, bench_algorithms());
    else if (args.take_value("--type", value)) o.types = parse_known_list("--type", value, bench_types());
    else if (args.take_value("--json", value)) o.json = value;
    else if (args.take_value("--md-dir", value)) o.md_dir = value;
    else if (args.take_value("--device", value)) o.device = parse_int_flag("--device", value, 0, 1023);
    else if (args.take_switch("--markdown")) {  // the executables always write Markdown tables
    } else if (args.take_switch("--")) {
      for (; !args.done(); args.skip()) o.extra.push_back(args.current());
    } else {
      const std::string a = args.current();
      if (a == "--csv" || a == "--loops" || a == "--no-progress" || a.rfind("--csv=", 0) == 0 ||
          a.rfind("--loops=", 0) == 0)
        throw usage_error("'" + a.substr(0, a.find('=')) +
                          "' is gone: tally bench runs the benchmarks/bench_* executables now");
      throw usage_error(a.rfind("-", 0) == 0 ? "unknown option '" + a + "'" : "unexpected argument '" + a + "'");
    }
  }
  if (o.json == "-") throw usage_error("--json -: give a file (the executables' tables go to standard output)");
  return o;
}

}  // namespace tally_tool
