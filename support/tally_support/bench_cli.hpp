#pragma once
/// @file
/// The flags the benchmarks share: --sizes, --cases, --md, --json and --device, read with
/// the tool's reader (args.hpp) and taken out of argv before Google Benchmark sees it (its
/// own --benchmark_* flags keep working).
///
///   bench_flags f = parse_bench_flags(argc, argv, {"bench_x", "what it does\n", "bench_x.md",
///                                                  {"int32_sum", "float_max"}, "float_max"});
///   // f.sizes, f.cases, f.md, f.json, f.device; throws usage_error on a bad flag

#include <tally_support/args.hpp>
#include <tally_support/sizes.hpp>

#include <cstdint>
#include <iostream>
#include <string>
#include <vector>

namespace tally_support {

/// What a benchmark tells parse_bench_flags about itself.
struct bench_program {
  std::string name;                ///< "bench_reduce"
  std::string summary;             ///< the first line(s) of --help, each ending in '\n'
  std::string default_md;          ///< where the Markdown tables go without --md
  std::vector<std::string> cases;  ///< every case --cases accepts, in table order (the default)
  std::string filter_example;      ///< a --benchmark_filter value for --help
};

struct bench_flags {
  std::vector<std::uint64_t> sizes;
  std::vector<std::string> cases;
  std::string md;
  std::string json;  ///< "" : no JSON rows
  int device = -1;   ///< -1: CUDA's default device
  bool queued = false;  ///< --timing=queued: the GPU's time per call (calls queued behind a spin)

  bool wants(const std::string& case_name) const {
    for (const auto& c : cases)
      if (c == case_name) return true;
    return false;
  }
};

/// 2^from, 2^(from + step), ..., up to 2^to.
inline std::vector<std::uint64_t> powers_of_two(int from, int to, int step) {
  std::vector<std::uint64_t> v;
  for (int e = from; e <= to; e += step) v.push_back(std::uint64_t(1) << e);
  return v;
}

inline void print_bench_usage(const bench_program& p) {
  std::cout << p.name << ": " << p.summary
            << "  --sizes=even|all|LIST  even powers 2^10..2^28 (default), every power, or e.g. 2^10,2^20,1000\n"
               "                         or 2^10..2^20:2\n"
               "  --cases=LIST           subset of "
            << join_commas(p.cases) << "\n  --md=FILE              Markdown tables (default " << p.default_md
            << ")\n"
               "  --json=FILE            every row as JSON Lines (the input of `tally plot`)\n"
               "  --device=N             run on CUDA device N (default: CUDA's default device)\n"
               "  --timing=calls|queued  calls: back to back between events, the anchors' method (default);\n"
               "                         queued: the GPU's time per call, the calls queued behind a spin\n"
               "                         kernel so that the host's cost of a call is hidden\n"
               "  plus Google Benchmark's flags, e.g. --benchmark_filter="
            << p.filter_example << "\n\n";
}

/// Takes this program's flags out of argv (so that Google Benchmark never sees them);
/// --help / -h prints this program's usage and stays in argv for Google Benchmark's.
/// Throws usage_error on a bad value.
inline bench_flags parse_bench_flags(int& argc, char** argv, const bench_program& p) {
  bench_flags f;
  f.sizes = powers_of_two(10, 28, 2);
  f.cases = p.cases;
  f.md = p.default_md;
  arg_list args(argc - 1, argv + 1);
  int kept = 1;
  std::string v;
  while (!args.done()) {
    if (args.take_value("--sizes", v)) {
      f.sizes = v == "even" ? powers_of_two(10, 28, 2) : v == "all" ? powers_of_two(10, 28, 1) : parse_sizes_flag(v);
    } else if (args.take_value("--cases", v)) {
      f.cases = parse_known_list("--cases", v, p.cases);
    } else if (args.take_value("--md", v)) {
      f.md = v;
    } else if (args.take_value("--json", v)) {
      f.json = v;
    } else if (args.take_value("--device", v)) {
      f.device = parse_int_flag("--device", v, 0, 1023);
    } else if (args.take_value("--timing", v)) {
      if (v != "calls" && v != "queued") throw usage_error("--timing: expected calls or queued, got '" + v + "'");
      f.queued = v == "queued";
    } else {
      // Google Benchmark's (or unknown: it reports those). Compacting argv in place is
      // safe: the slot written is never ahead of the one being read.
      if (args.current() == "--help" || args.current() == "-h") print_bench_usage(p);
      argv[kept++] = argv[1 + args.index()];
      args.skip();
    }
  }
  argc = kept;
  argv[argc] = nullptr;
  return f;
}

}  // namespace tally_support
