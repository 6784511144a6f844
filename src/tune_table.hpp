#pragma once
// How `tally tune` turns measurements into tuning rules, and rules into the text of a
// tuning header (include/tally/tuning/sm90.cuh's format, tuning/rules.cuh). No CUDA here:
// the host tests check the choice and the format.
//
// For one case (a table class: "reduce integer_sum, 4-byte values", "top_k lists of 8",
// ...) the tuner measures every candidate configuration at every size. choose_rules
// walks the sizes upwards keeping the configuration it has while that one stays within
// `tolerance` of the fastest at the size (fewer rules, fewer kernels compiled into
// `automatic`), else takes the fastest; consecutive sizes with one choice make one rule.
// A rule measured at 2^a, followed by a size 2^b, covers n up to 2^((a + b) / 2); the
// last covers every n. With a limit on the configurations a case may use (each is a
// kernel compiled into every `automatic` call site), the ones that cost least are
// dropped first.

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <map>
#include <string>
#include <vector>

namespace tally_tool {

struct tune_config {
  std::string backend;  ///< "atomic", "shared_memory", "warp_shuffle"
  int threads = 0;
  int items = 0;
  bool operator==(const tune_config& o) const {
    return backend == o.backend && threads == o.threads && items == o.items;
  }
  std::string label() const { return backend + " " + std::to_string(threads) + "x" + std::to_string(items); }
};

/// One candidate at one size: its median µs, or failed (wrong result, launch error).
struct tune_measurement {
  std::uint64_t n = 0;
  tune_config config;
  double us = 0;
  bool ok = true;
};

/// A rule chosen for a case: the bucket it covers and the evidence.
struct tune_rule {
  int max_log2_n = 62;  ///< 62: any n (tuning::any_n)
  tune_config config;
  std::string evidence;  ///< per size: "2^10 1.59 us", "2^12 1.61 us (fastest atomic 256x8 1.60)"
};

inline constexpr int tune_any_n = 62;

/// floor(log2(n)) (n >= 1).
inline int floor_log2(std::uint64_t n) {
  int k = -1;
  while (n) {
    n >>= 1;
    ++k;
  }
  return k;
}

inline std::string fixed2(double x) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.2f", x);
  return buf;
}

/// The configurations `rules` use, each once.
inline std::vector<tune_config> configs_of(const std::vector<tune_rule>& rules) {
  std::vector<tune_config> out;
  for (const auto& r : rules)
    if (std::find(out.begin(), out.end(), r.config) == out.end()) out.push_back(r.config);
  return out;
}

inline bool allowed(const std::vector<tune_config>* only, const tune_config& c) {
  return only == nullptr || std::find(only->begin(), only->end(), c) != only->end();
}

/// The rules for one case from its measurements (see the file comment), among the
/// configurations in `only` (null: all). Sizes where no allowed candidate succeeded are
/// skipped. Empty when nothing succeeded.
inline std::vector<tune_rule> choose_rules_among(const std::vector<tune_measurement>& ms, double tolerance,
                                                 const std::vector<tune_config>* only) {
  std::map<std::uint64_t, std::vector<const tune_measurement*>> by_n;
  for (const auto& m : ms)
    if (m.ok && m.us > 0 && allowed(only, m.config)) by_n[m.n].push_back(&m);
  std::vector<tune_rule> rules;
  std::vector<std::uint64_t> sizes;
  for (const auto& [n, v] : by_n) sizes.push_back(n);
  bool have = false;
  tune_config current;
  for (std::size_t i = 0; i < sizes.size(); ++i) {
    const auto& v = by_n[sizes[i]];
    const tune_measurement* best = *std::min_element(
        v.begin(), v.end(), [](const tune_measurement* a, const tune_measurement* b) { return a->us < b->us; });
    const tune_measurement* kept = nullptr;
    if (have)
      for (const auto* m : v)
        if (m->config == current && m->us <= best->us * (1 + tolerance)) kept = m;
    const tune_measurement* chosen = kept ? kept : best;
    std::string evidence = "2^" + std::to_string(floor_log2(sizes[i])) + " " + fixed2(chosen->us) + " us";
    if (chosen != best) evidence += " (fastest " + best->config.label() + " " + fixed2(best->us) + ")";
    // The bucket's upper edge: halfway (in log2) to the next measured size.
    const int edge = i + 1 < sizes.size() ? (floor_log2(sizes[i]) + floor_log2(sizes[i + 1])) / 2 : tune_any_n;
    if (have && chosen->config == current) {
      rules.back().max_log2_n = edge;
      rules.back().evidence += ", " + evidence;
    } else {
      rules.push_back({edge, chosen->config, evidence});
      current = chosen->config;
      have = true;
    }
  }
  return rules;
}

/// choose_rules with at most `max_configs` distinct configurations (0: no limit): every
/// configuration is a kernel that `automatic` compiles into each call site, so a table
/// trades a few percent at some sizes for compile time. While there are too many, the
/// one whose loss costs least (the sum over sizes of the relative slowdown of the best
/// remaining one) is dropped; then the rules are chosen again among the rest.
inline std::vector<tune_rule> choose_rules(const std::vector<tune_measurement>& ms, double tolerance = 0.02,
                                           int max_configs = 0) {
  std::vector<tune_rule> rules = choose_rules_among(ms, tolerance, nullptr);
  std::vector<tune_config> kept = configs_of(rules);
  if (max_configs <= 0 || int(kept.size()) <= max_configs) return rules;
  std::map<std::uint64_t, double> fastest;  // per size, over every candidate
  for (const auto& m : ms)
    if (m.ok && m.us > 0 && (!fastest.count(m.n) || m.us < fastest[m.n])) fastest[m.n] = m.us;
  auto cost = [&](const std::vector<tune_config>& set) {
    double total = 0;
    for (const auto& [n, best] : fastest) {
      double here = 0;
      for (const auto& m : ms)
        if (m.n == n && m.ok && m.us > 0 && allowed(&set, m.config) && (here == 0 || m.us < here)) here = m.us;
      if (here == 0) return 1e300;  // a size nothing in the set can run
      total += here / best - 1;
    }
    return total;
  };
  while (int(kept.size()) > max_configs) {
    std::size_t drop = 0;
    double drop_cost = 1e301;
    for (std::size_t i = 0; i < kept.size(); ++i) {
      std::vector<tune_config> without = kept;
      without.erase(without.begin() + std::ptrdiff_t(i));
      const double c = cost(without);
      if (c < drop_cost) drop_cost = c, drop = i;
    }
    kept.erase(kept.begin() + std::ptrdiff_t(drop));
  }
  return choose_rules_among(ms, tolerance, &kept);
}

/// C++ text of a backend_id.
inline std::string backend_cpp(const std::string& backend) { return "backend_id::" + backend; }

/// `{backend_id::atomic, 256, 16}`
inline std::string config_cpp(const tune_config& c) {
  return "{" + backend_cpp(c.backend) + ", " + std::to_string(c.threads) + ", " + std::to_string(c.items) + "}";
}

inline std::string log2_cpp(int max_log2_n) { return max_log2_n >= tune_any_n ? "any_n" : std::to_string(max_log2_n); }

/// One table of a tuning header: its rows as C++ lines (each "  {...},  // evidence").
struct tune_table_text {
  std::string type;  ///< "reduce_rule"
  std::string name;  ///< "reduce_sm90"
  std::vector<std::string> rows;
};

/// The whole header: provenance, then each table.
inline std::string tuning_header(const std::string& provenance, const std::vector<tune_table_text>& tables) {
  std::string out =
      "#pragma once\n"
      "/// @file\n"
      "/// Tuning tables written by `tally tune` (src/tune.cu); the format is tuning/rules.cuh.\n"
      "/// Do not edit by hand: run `tally tune --out <this file>` on the GPU instead.\n"
      "///\n";
  std::size_t start = 0;
  while (start < provenance.size()) {
    std::size_t end = provenance.find('\n', start);
    if (end == std::string::npos) end = provenance.size();
    out += "/// " + provenance.substr(start, end - start) + "\n";
    start = end + 1;
  }
  out +=
      "\n#include <tally/tuning/rules.cuh>\n\n"
      "TALLY_NAMESPACE_BEGIN\nnamespace tuning {\n\n// clang-format off\n";
  for (const auto& t : tables) {
    out += "inline constexpr " + t.type + " " + t.name + "[] = {\n";
    for (const auto& r : t.rows) out += r + "\n";
    out += "};\n\n";
  }
  out += "// clang-format on\n\n}  // namespace tuning\nTALLY_NAMESPACE_END\n";
  return out;
}

}  // namespace tally_tool
