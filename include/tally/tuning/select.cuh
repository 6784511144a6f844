#pragma once
/// @file
/// The selection of a launch policy: which table an architecture reads, and how a policy
/// forced by the caller (`with(backend)`, `tune<T, I>()`) or a constraint of the call
/// (deterministic(), an operator the atomic backend cannot fold) changes it.
///
/// Your own table: `tally tune --user-table --out my_tuning.cuh` on your GPU writes a header
/// that defines `tally::tuning::user_table(arch)`; compile every translation unit of the
/// program that includes tally with `-DTALLY_USER_TUNING_HEADER="\"/path/to/my_tuning.cuh\""`
/// (CMake: `target_compile_definitions(app PRIVATE TALLY_USER_TUNING_HEADER="${path}")`),
/// and its rules come before tally's own for the architectures it names. An installed tally
/// needs no change. The versioned namespace then ends in _U (detail/config.cuh), so code
/// built with and without a user table cannot mix their kernels.

#include <tally/tuning/generic.cuh>
#include <tally/tuning/policy.cuh>
#include <tally/tuning/sm80.cuh>
#include <tally/tuning/sm90.cuh>

#if defined(TALLY_USER_TUNING_HEADER)
#include TALLY_USER_TUNING_HEADER
#endif

TALLY_NAMESPACE_BEGIN
namespace tuning {

/// The table's rule for a kernel of `kind` compiled for `arch` (10 * major + minor: 90 for
/// sm_90). Searched: the user's table (TALLY_USER_TUNING_HEADER, for the architectures it
/// covers), then the architecture's own (sm_90 and newer, Blackwell included: sm90_table;
/// sm_80 to sm_89: sm80_table), then generic_table; a rule with no_policy if none has one.
TALLY_HOST_DEVICE constexpr rule select_rule(int arch, kernel_class kind, int value_bytes, int list_size = 1) {
#if defined(TALLY_USER_TUNING_HEADER)
  {
    const rule_table table = user_table(arch);
    const int i = find_rule(table, kind, value_bytes, list_size);
    if (i >= 0) return table.rules[i];
  }
#endif
  if (arch >= 90) {
    const rule_table table = sm90_table();
    const int i = find_rule(table, kind, value_bytes, list_size);
    if (i >= 0) return table.rules[i];
  } else if (arch >= 80) {
    const rule_table table = sm80_table();
    const int i = find_rule(table, kind, value_bytes, list_size);
    if (i >= 0) return table.rules[i];
  }
  const rule_table table = generic_table();
  const int i = find_rule(table, kind, value_bytes, list_size);
  return i >= 0 ? table.rules[i] : rule{kind, 0, 0, no_policy(), -1};
}

/// The table's policy for a kernel of `kind` compiled for `arch` (select_rule's).
TALLY_HOST_DEVICE constexpr launch_policy select(int arch, kernel_class kind, int value_bytes, int list_size = 1) {
  return select_rule(arch, kind, value_bytes, list_size).policy;
}

}  // namespace tuning
TALLY_NAMESPACE_END
