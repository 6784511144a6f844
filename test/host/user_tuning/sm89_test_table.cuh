#pragma once
/// @file
/// A user tuning table of the shape `tally tune --user-table` writes, for the host test
/// test_user_tuning.cu (compiled with TALLY_USER_TUNING_HEADER naming this file).

#include <tally/tuning/policy.cuh>

TALLY_NAMESPACE_BEGIN
namespace tuning {

// clang-format off
TALLY_HOST_DEVICE constexpr rule_table user_table(int arch) {
  if (arch != 89) return rule_table{};
  constexpr rule rules[] = {
  {kernel_class::integer_sum, 4, any_size, {backend_id::shared_memory, 64, 2}},  // an unusual shape, to be seen
  };
  return make_table(rules);
}
// clang-format on

}  // namespace tuning
TALLY_NAMESPACE_END
