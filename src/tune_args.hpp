#pragma once
// The command line of `tally tune` (tally-tune; no CUDA here: the host tests read it too).

#include "bench_args.hpp"

#include <string>
#include <vector>

namespace tally_tool {

struct tune_options {
  std::vector<std::uint64_t> sizes;  ///< the sizes measured (one policy per class for all of them)
  std::vector<std::string> algos;    ///< empty: all
  std::vector<std::string> types;    ///< empty: all
  std::string out;                   ///< the header to write ("" : standard output)
  bool user_table = false;           ///< --user-table: write user_table(arch) for TALLY_USER_TUNING_HEADER
  int loops = 5;
  int device = -1;
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
    else if (args.take_switch("--no-progress")) o.progress = false;
    else if (args.take_switch("--user-table")) o.user_table = true;
    else {
      const std::string a = args.current();
      if (a == "--tolerance" || a == "--max-configs")
        throw usage_error("'" + a + "' is gone: a class has one policy at every size now");
      throw usage_error(a.rfind("-", 0) == 0 ? "unknown option '" + a + "'" : "unexpected argument '" + a + "'");
    }
  }
  if (o.sizes.size() < 1) throw usage_error("--sizes: at least one size");
  return o;
}

}  // namespace tally_tool
