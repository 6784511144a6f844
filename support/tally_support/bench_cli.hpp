#pragma once
/// @file
/// The command line the reduce benchmarks share: --sizes, --cases and --md, taken out of
/// argv before Google Benchmark sees it (its own --benchmark_* flags keep working).
///
///   bench_flags f = parse_bench_flags(argc, argv, {"bench_x", "what it does\n", "bench_x.md",
///                                                  {"int32_sum", "float_max"}, "float_max"});
///   // f.sizes, f.cases, f.md; throws std::invalid_argument on a bad flag

#include <tally_support/sizes.hpp>

#include <cstdint>
#include <iostream>
#include <stdexcept>
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

inline std::string join_commas(const std::vector<std::string>& items) {
  std::string out;
  for (const auto& s : items) out += (out.empty() ? "" : ",") + s;
  return out;
}

inline void print_bench_usage(const bench_program& p) {
  std::cout << p.name << ": " << p.summary
            << "  --sizes=even|all|LIST  even powers 2^10..2^28 (default), every power, or e.g. 2^10,2^20,1000\n"
               "  --cases=LIST           subset of "
            << join_commas(p.cases) << "\n  --md=FILE              Markdown tables (default " << p.default_md
            << ")\n  plus Google Benchmark's flags, e.g. --benchmark_filter=" << p.filter_example << "\n\n";
}

/// Takes this program's flags out of argv (so that Google Benchmark never sees them);
/// --help / -h prints this program's usage and stays in argv for Google Benchmark's.
/// Throws std::invalid_argument on a bad value.
inline bench_flags parse_bench_flags(int& argc, char** argv, const bench_program& p) {
  bench_flags f;
  f.sizes = powers_of_two(10, 28, 2);
  f.cases = p.cases;
  f.md = p.default_md;
  int kept = 1;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto value = [&](const std::string& flag) { return a.substr(flag.size()); };
    if (a.rfind("--sizes=", 0) == 0) {
      const std::string v = value("--sizes=");
      f.sizes = v == "even" ? powers_of_two(10, 28, 2) : v == "all" ? powers_of_two(10, 28, 1) : parse_size_list(v);
      for (auto n : f.sizes)
        if (n == 0) throw std::invalid_argument("--sizes: every size must be at least 1");
    } else if (a.rfind("--cases=", 0) == 0) {
      f.cases = split_commas(value("--cases="));
      for (const auto& c : f.cases) {
        bool known = false;
        for (const auto& k : p.cases) known = known || c == k;
        if (!known) throw std::invalid_argument("unknown case '" + c + "'");
      }
    } else if (a.rfind("--md=", 0) == 0) {
      f.md = value("--md=");
    } else if (a == "--sizes" || a == "--cases" || a == "--md") {
      throw std::invalid_argument(a + " needs a value: " + a + "=...");
    } else {
      if (a == "--help" || a == "-h") print_bench_usage(p);
      argv[kept++] = argv[i];
    }
  }
  argc = kept;
  argv[argc] = nullptr;
  return f;
}

}  // namespace tally_support
