#pragma once
// The tuning table compiled into `tally tune`, as the rows it writes (tune_table.hpp): the
// rows of the classes a run does not search are kept from it. Read through the tables'
// constexpr functions, which the host may call.

#include "tune_table.hpp"

#include <tally/policy.cuh>
#include <tally/tuning/select.cuh>

#include <string>
#include <vector>

namespace tally_tool {

/// The kernel_class's name in the enum ("integer_sum").
inline std::string kernel_class_name(tally::tuning::kernel_class kind) {
  const auto& names = kernel_class_names();
  const int i = int(kind);
  return i >= 0 && i < int(names.size()) ? names[std::size_t(i)] : "other";
}

/// The rows of `table`, each with `comment`.
inline std::vector<tune_row> rows_of(const tally::tuning::rule_table& table, const std::string& comment) {
  std::vector<tune_row> rows;
  for (int i = 0; i < table.size; ++i) {
    const tally::tuning::rule& r = table.rules[i];
    rows.push_back({kernel_class_name(r.kind), r.max_value_bytes, r.max_list_size,
                    tune_config{tally::backend_name(r.policy.backend), r.policy.threads, r.policy.items_per_thread},
                    comment, r.max_items_log2});
  }
  return rows;
}

/// The table select() reads first for `arch` (tuning/select.cuh): sm90_table from sm_90 up,
/// sm80_table for sm_80 to sm_89, generic_table before; and its name.
inline tally::tuning::rule_table compiled_table(int arch) {
  if (arch >= 90) return tally::tuning::sm90_table();
  if (arch >= 80) return tally::tuning::sm80_table();
  return tally::tuning::generic_table();
}
inline std::string compiled_table_name(int arch) {
  return arch >= 90 ? "sm90_table" : (arch >= 80 ? "sm80_table" : "generic_table");
}

}  // namespace tally_tool
