#pragma once
// The command line of `tally tune` (no CUDA here: the host tests read it too).

#include "bench_args.hpp"

#include <string>
#include <vector>

namespace tally_tool {

struct tune_options {
  std::vector<std::uint64_t> sizes;  ///< the sizes measured: each is a bucket's centre
  std::vector<std::string> algos;    ///< empty: all
  std::vector<std::string> types;    ///< empty: all
  std::string out;                   ///< the header to write ("" : standard output)
  int loops = 5;
  int device = -1;
  double tolerance = 0.02;           ///< keep the previous size's choice within this of the best
  int max_configs = 3;               ///< at most this many configurations per class (0: any)
  bool progress = true;
  bool help = false;
};

inline const std::vector<std::string>& tune_algorithms() {
  static const std::vector<std::string> v = {"reduce_sum", "reduce_max", "max_element", "top_k2",
                                             "top_k8",     "top_k32",    "copy_if"};
  return v;
}
inline const std::vector<std::string>& tune_types() {
  static const std::vector<std::string> v = {"int32", "int64", "float", "double"};
  return v;
}

/// Reads `tally tune`'s arguments (after the subcommand). Throws usage_error.
inline tune_options parse_tune_args(int argc, char** argv) {
  tune_options o;
  o.sizes = tally_support::parse_size_list("2^10..2^28:2");
  arg_list args(argc, argv);
  std::string value;
  while (!args.done()) {
    if (args.take_switch("--help") || args.take_switch("-h")) o.help = true;
    else if (args.take_value("--sizes", value)) o.sizes = parse_sizes_flag(value);
    else if (args.take_value("--algo", value)) o.algos = parse_algorithms(value, tune_algorithms());
    else if (args.take_value("--type", value)) o.types = parse_known_list("--type", value, tune_types());
    else if (args.take_value("--out", value)) o.out = value;
    else if (args.take_value("--loops", value)) o.loops = parse_int_flag("--loops", value, 1, 100);
    else if (args.take_value("--device", value)) o.device = parse_int_flag("--device", value, 0, 1023);
    else if (args.take_value("--tolerance", value)) o.tolerance = parse_int_flag("--tolerance", value, 0, 50) / 100.0;
    else if (args.take_value("--max-configs", value)) o.max_configs = parse_int_flag("--max-configs", value, 0, 64);
    else if (args.take_switch("--no-progress")) o.progress = false;
    else {
      const std::string a = args.current();
      throw usage_error(a.rfind("-", 0) == 0 ? "unknown option '" + a + "'" : "unexpected argument '" + a + "'");
    }
  }
  if (o.sizes.size() < 1) throw usage_error("--sizes: at least one size");
  return o;
}

}  // namespace tally_tool
