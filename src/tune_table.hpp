#pragma once
// How `tally tune` turns measurements into tuning rules, and rules into the text of a
// tuning header (include/tally/tuning/sm90.cuh's shape; the format: tuning/policy.cuh).
// No CUDA here: the host tests check the choice and the text.
//
// A call site compiles one kernel per architecture, so a class of the table (a kernel
// class, a value size, for top_k a list size) has ONE policy, used at every n; only the
// grid follows n at run time. For one case the tuner measures every candidate
// configuration at every size; choose_policy then takes the candidate with the smallest
// worst-case ratio, over the measured sizes, of its time to the fastest candidate's time
// at that size (ties: the smaller sum of those ratios). A candidate that failed at any
// size (a wrong result, a launch refused) cannot be chosen: its kernel would run there.

#include <tally_support/sizes.hpp>

#include <algorithm>
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

/// The chosen policy at one measured size.
struct tune_size_result {
  std::uint64_t n = 0;
  tune_config fastest;  ///< the fastest candidate at n
  double fastest_us = 0;
  double chosen_us = 0;  ///< the chosen policy's time at n
  double ratio = 0;      ///< chosen_us / fastest_us (>= 1)
};

/// A case's one policy and the evidence behind it. chosen false: no candidate succeeded
/// at every size where any did (or nothing ran); the compiled rule is kept.
struct tune_choice {
  bool chosen = false;
  tune_config config;
  std::vector<tune_size_result> sizes;  ///< ascending n: the sizes where any candidate ran
  double worst_ratio = 0;
  std::uint64_t worst_n = 0;  ///< where the worst ratio was measured
  double ratio_sum = 0;
  std::string evidence;  ///< "2^10 1.61 us, ..., 2^28 340.05 us; worst 1.04x the fastest (2^12)"
};

inline std::string fixed2(double x) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.2f", x);
  return buf;
}

/// The one policy of a case from its measurements (see the file comment).
inline tune_choice choose_policy(const std::vector<tune_measurement>& ms) {
  // Per size, the fastest successful time; per candidate (in the order first seen), its
  // successful times and whether it failed anywhere.
  std::map<std::uint64_t, const tune_measurement*> fastest;
  std::vector<tune_config> candidates;
  for (const auto& m : ms) {
    if (std::find(candidates.begin(), candidates.end(), m.config) == candidates.end()) candidates.push_back(m.config);
    if (m.ok && m.us > 0 && (!fastest.count(m.n) || m.us < fastest[m.n]->us)) fastest[m.n] = &m;
  }
  tune_choice best;
  for (const auto& c : candidates) {
    tune_choice here;
    here.config = c;
    bool complete = true;
    for (const auto& [n, f] : fastest) {
      const tune_measurement* mine = nullptr;
      bool failed = false;
      for (const auto& m : ms)
        if (m.n == n && m.config == c) {
          if (m.ok && m.us > 0) mine = &m;
          else failed = true;
        }
      if (mine == nullptr || failed) {
        complete = false;
        break;
      }
      const double ratio = mine->us / f->us;
      here.sizes.push_back({n, f->config, f->us, mine->us, ratio});
      here.ratio_sum += ratio;
      if (ratio > here.worst_ratio) here.worst_ratio = ratio, here.worst_n = n;
    }
    if (!complete || here.sizes.empty()) continue;
    here.chosen = true;
    if (!best.chosen || here.worst_ratio < best.worst_ratio ||
        (here.worst_ratio == best.worst_ratio && here.ratio_sum < best.ratio_sum))
      best = std::move(here);
  }
  if (!best.chosen) return best;
  for (const auto& s : best.sizes)
    best.evidence += (best.evidence.empty() ? "" : ", ") + tally_support::size_label(s.n) + " " + fixed2(s.chosen_us) + " us";
  best.evidence += best.worst_ratio <= 1.0 ? "; the fastest at every size"
                                           : "; worst " + fixed2(best.worst_ratio) + "x the fastest (" +
                                                 tally_support::size_label(best.worst_n) + ")";
  return best;
}

// --- the rules as text --------------------------------------------------------------------

/// tuning::any_size (tuning/policy.cuh), a limit that admits every value or list size.
inline constexpr int tune_any_size = 1 << 20;

/// The names of tuning::kernel_class's values, in the enum's order (the order of a table's
/// rows; test_tuning_format.cu checks this against the enum).
inline const std::vector<std::string>& kernel_class_names() {
  static const std::vector<std::string> v = {"integer_sum", "floating_sum", "min_max",
                                             "other",       "extremum",     "top2",
                                             "top_k",       "copy_if",      "copy_if_unordered",
                                             "top_k_small", "top2_small",  "copy_if_small",
                                             "copy_if_unordered_small", "integer_sum_small", "floating_sum_small",
                                             "min_max_small", "extremum_small"};
  return v;
}

inline int kernel_class_order(const std::string& kind) {
  const auto& v = kernel_class_names();
  return int(std::find(v.begin(), v.end(), kind) - v.begin());
}

/// "4" or "any_size"
inline std::string limit_cpp(int limit) { return limit >= tune_any_size ? "any_size" : std::to_string(limit); }

/// The leading fields of a rule: "kernel_class::integer_sum, 4, any_size".
inline std::string rule_key(const std::string& kind, int max_value_bytes, int max_list_size) {
  return "kernel_class::" + kind + ", " + limit_cpp(max_value_bytes) + ", " + limit_cpp(max_list_size);
}

/// `{backend_id::atomic, 256, 16}`
inline std::string config_cpp(const tune_config& c) {
  return "{backend_id::" + c.backend + ", " + std::to_string(c.threads) + ", " + std::to_string(c.items) + "}";
}

/// One rule of a table, and the comment written beside it ("" : none).
struct tune_row {
  std::string kind;  ///< a kernel_class name: "integer_sum"
  int max_value_bytes = tune_any_size;
  int max_list_size = tune_any_size;
  tune_config config;
  std::string comment;
  int max_items_log2 = 63;  ///< small-input classes: the rule's size limit (tuning::rule)
  std::string key() const { return rule_key(kind, max_value_bytes, max_list_size); }
};

/// The rows of a table: `kept` (the compiled table's, in its order) with each row of
/// `tuned` replacing the kept row of the same key or added; then in the enum's order of
/// classes, and within a class by value size, then list size, so that a narrower limit
/// is searched before a wider one (tuning::find_rule takes the first that admits a call).
inline std::vector<tune_row> merge_rows(std::vector<tune_row> kept, const std::vector<tune_row>& tuned) {
  for (const auto& t : tuned) {
    auto same = std::find_if(kept.begin(), kept.end(), [&](const tune_row& r) { return r.key() == t.key(); });
    if (same != kept.end()) *same = t;
    else kept.push_back(t);
  }
  std::stable_sort(kept.begin(), kept.end(), [](const tune_row& a, const tune_row& b) {
    const int ka = kernel_class_order(a.kind), kb = kernel_class_order(b.kind);
    if (ka != kb) return ka < kb;
    if (a.max_value_bytes != b.max_value_bytes) return a.max_value_bytes < b.max_value_bytes;
    return a.max_list_size < b.max_list_size;
  });
  return kept;
}

/// The rows as C++ lines, in aligned columns:
/// "  {kernel_class::integer_sum,       4, any_size, {backend_id::atomic,        512, 16}},  // ..."
inline std::vector<std::string> rows_cpp(const std::vector<tune_row>& rows) {
  // The class and the value size end in one column; the other fields start in one.
  std::size_t lead_w = 0, list_w = 0, backend_w = 0, config_w = 0;
  for (const auto& r : rows) {
    lead_w = std::max(lead_w, r.kind.size() + 1 + limit_cpp(r.max_value_bytes).size());
    list_w = std::max(list_w, limit_cpp(r.max_list_size).size());
    backend_w = std::max(backend_w, r.config.backend.size());
  }
  auto pad_right = [](std::string s, std::size_t w) { return s + std::string(w > s.size() ? w - s.size() : 0, ' '); };
  std::vector<std::string> fields;
  for (const auto& r : rows) {
    const std::string bytes = limit_cpp(r.max_value_bytes);
    std::string s = "  {kernel_class::" + r.kind + "," + std::string(lead_w - r.kind.size() - bytes.size(), ' ') +
                    bytes + ", " +
                    pad_right(limit_cpp(r.max_list_size) + ",", list_w + 1) + " {" +
                    pad_right("backend_id::" + r.config.backend + ",", backend_w + 13) + " " +
                    std::to_string(r.config.threads) + ", " + std::to_string(r.config.items) + "}" +
                    (r.max_items_log2 < 63 ? ", " + std::to_string(r.max_items_log2) : std::string()) + "},";
    config_w = std::max(config_w, s.size());
    fields.push_back(std::move(s));
  }
  std::vector<std::string> out;
  for (std::size_t i = 0; i < rows.size(); ++i)
    out.push_back(rows[i].comment.empty() ? fields[i] : pad_right(fields[i], config_w) + "  // " + rows[i].comment);
  return out;
}

/// Each line of `text` as a "/// " comment line.
inline std::string doc_comment(const std::string& text) {
  std::string out;
  std::size_t start = 0;
  while (start < text.size()) {
    std::size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    const std::string line = text.substr(start, end - start);
    out += (line.empty() ? "///" : "/// " + line) + "\n";
    start = end + 1;
  }
  return out;
}

/// The rules of a table function and the end of the header.
inline std::string table_body(const std::vector<tune_row>& rows) {
  std::string out;
  for (const auto& line : rows_cpp(rows)) out += line + "\n";
  return out +
         "  };\n"
         "  return make_table(rules);\n"
         "}\n"
         "// clang-format on\n\n}  // namespace tuning\nTALLY_NAMESPACE_END\n";
}

/// Whether include/tally/tuning/select.cuh reads a table named sm<arch>_table.
inline bool table_is_read(int arch) { return arch == 90 || arch == 80; }

/// The whole header: provenance (one comment line per line), then the function
/// `sm<arch>_table()` returning `rows`.
inline std::string tuning_header(const std::string& provenance, int arch, const std::vector<tune_row>& rows) {
  const std::string name = "sm" + std::to_string(arch) + "_table";
  std::string out =
      "#pragma once\n"
      "/// @file\n"
      "/// sm_" + std::to_string(arch) + ": a tuning table written by `tally tune` (src/tune.cu); the format is\n"
      "/// tuning/policy.cuh, and classes without a rule here take tuning/generic.cuh. Rather than\n"
      "/// editing it by hand, run `tally tune --out <this file>` on the GPU.\n";
  if (!table_is_read(arch))
    out += "/// tuning/select.cuh reads sm90_table, sm80_table and generic_table only: to use " + name +
           "\n/// it must be installed by hand (included and selected for its architectures there).\n";
  out += "///\n";
  out += doc_comment(provenance);
  out +=
      "\n#include <tally/tuning/policy.cuh>\n\n"
      "TALLY_NAMESPACE_BEGIN\nnamespace tuning {\n\n// clang-format off\n"
      "TALLY_HOST_DEVICE constexpr rule_table " + name + "() {\n"
      "  constexpr rule rules[] = {\n";
  return out + table_body(rows);
}

/// The header for an installed tally (`tally tune --user-table`): the function
/// `user_table(arch)` that tuning/select.cuh searches first when a program is compiled with
/// TALLY_USER_TUNING_HEADER naming this file; `rows` for kernels compiled for `arch`, no
/// rule for any other architecture.
inline std::string user_tuning_header(const std::string& provenance, int arch, const std::vector<tune_row>& rows) {
  std::string out =
      "#pragma once\n"
      "/// @file\n"
      "/// A tally tuning table of your own, written by `tally tune --user-table` for sm_" + std::to_string(arch) +
      ".\n"
      "/// Use it by compiling every translation unit that includes tally with\n"
      "///   -DTALLY_USER_TUNING_HEADER='\"<path of this file>\"'\n"
      "/// (CMake: target_compile_definitions(app PRIVATE TALLY_USER_TUNING_HEADER=\"<path>\")).\n"
      "/// Its rules come first for kernels compiled for sm_" + std::to_string(arch) +
      " (tuning/select.cuh); other architectures and\n"
      "/// classes without a rule here keep tally's own tables. The format is tuning/policy.cuh.\n"
      "///\n";
  out += doc_comment(provenance);
  out +=
      "\n#include <tally/tuning/policy.cuh>\n\n"
      "TALLY_NAMESPACE_BEGIN\nnamespace tuning {\n\n// clang-format off\n"
      "TALLY_HOST_DEVICE constexpr rule_table user_table(int arch) {\n"
      "  if (arch != " + std::to_string(arch) + ") return rule_table{};\n"
      "  constexpr rule rules[] = {\n";
  return out + table_body(rows);
}

}  // namespace tally_tool
