#pragma once
// The command line of `tally bench` (no CUDA here: the host tests read it too).

#include "args.hpp"

#include <tally_support/sizes.hpp>

#include <algorithm>
#include <cstdint>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

namespace tally_tool {

struct bench_options {
  std::vector<std::uint64_t> sizes;  ///< item counts
  std::vector<std::string> algos;    ///< algorithm keys (groups expanded); empty: all
  std::vector<std::string> types;    ///< type keys; empty: all
  std::string json, csv;             ///< files to write ("" : none)
  int loops = 7;                     ///< timed loops per figure (the median is reported)
  int device = -1;                   ///< --device; -1: CUDA's default
  bool progress = true;
  bool markdown = false;
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

inline std::string join_bar(const std::vector<std::string>& v) {
  std::string s;
  for (const auto& x : v) s += (s.empty() ? "" : "|") + x;
  return s;
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

/// Every name in `value` (a comma list) must be in `known`.
inline std::vector<std::string> parse_known_list(const std::string& flag, const std::string& value,
                                                 const std::vector<std::string>& known) {
  std::vector<std::string> out = tally_support::split_commas(value);
  for (const auto& t : out)
    if (std::find(known.begin(), known.end(), t) == known.end())
      throw usage_error(flag + ": unknown value '" + t + "' (known: " + join_bar(known) + ")");
  return out;
}

inline std::vector<std::uint64_t> parse_sizes_flag(const std::string& value) {
  try {
    std::vector<std::uint64_t> sizes = tally_support::parse_size_list(value);
    for (std::uint64_t n : sizes)
      if (n == 0) throw usage_error("--sizes: 0 items cannot be timed (tally verify checks empty ranges)");
    return sizes;
  } catch (const std::invalid_argument& e) {
    throw usage_error(std::string("--sizes: ") + e.what());
  }
}

inline int parse_int_flag(const std::string& flag, const std::string& value, int lo, int hi) {
  int v = 0;
  try {
    std::size_t used = 0;
    v = std::stoi(value, &used);
    if (used != value.size()) throw std::invalid_argument("trailing");
  } catch (const std::exception&) {
    throw usage_error(flag + ": expected a number from " + std::to_string(lo) + " to " + std::to_string(hi) +
                      ", got '" + value + "'");
  }
  if (v < lo || v > hi)
    throw usage_error(flag + ": expected a number from " + std::to_string(lo) + " to " + std::to_string(hi) +
                      ", got '" + value + "'");
  return v;
}

/// The types `tally bench` has entries for.
inline const std::vector<std::string>& bench_types() {
  static const std::vector<std::string> v = {"int32", "float", "double"};
  return v;
}

/// Reads `tally bench`'s arguments (after the subcommand). Throws usage_error.
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
    else if (args.take_value("--csv", value)) o.csv = value;
    else if (args.take_value("--loops", value)) o.loops = parse_int_flag("--loops", value, 1, 100);
    else if (args.take_value("--device", value)) o.device = parse_int_flag("--device", value, 0, 1023);
    else if (args.take_switch("--no-progress")) o.progress = false;
    else if (args.take_switch("--markdown")) o.markdown = true;
    else {
      const std::string a = args.current();
      throw usage_error(a.rfind("-", 0) == 0 ? "unknown option '" + a + "'" : "unexpected argument '" + a + "'");
    }
  }
  if (o.json == "-" && o.csv == "-") throw usage_error("--json - and --csv - both want standard output");
  return o;
}

}  // namespace tally_tool
