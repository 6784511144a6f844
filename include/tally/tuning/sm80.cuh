#pragma once
/// @file
/// sm_80 and later GPUs before Hopper (A100, A10, L4, L40S, RTX 30xx/40xx): the format is
/// tuning/policy.cuh; classes not listed take tuning/generic.cuh.
///
/// Not measured on these GPUs yet (`tally tune` writes a table for the GPU it runs on):
/// the sm_90 choices for the reductions, which rest on the same design (one launch,
/// 16-byte loads, one atomic per block) and on no Hopper-only feature. Values of more
/// than 8 bytes are left to the generic table: the atomic backend folds them with
/// 16-byte compare-and-swap, which needs sm_90.

#include <tally/tuning/policy.cuh>

TALLY_NAMESPACE_BEGIN
namespace tuning {

// clang-format off
TALLY_HOST_DEVICE constexpr rule_table sm80_table() {
  constexpr rule rules[] = {
  {kernel_class::integer_sum,  8, any_size, {backend_id::atomic, 512, 16}},
  {kernel_class::floating_sum, 8, any_size, {backend_id::atomic, 512, 16}},
  {kernel_class::min_max,      8, any_size, {backend_id::atomic, 512, 8}},
  {kernel_class::extremum,     4, any_size, {backend_id::atomic, 512, 4}},
  {kernel_class::top2,         4, any_size, {backend_id::atomic, 1024, 8}},
  };
  return make_table(rules);
}
// clang-format on

}  // namespace tuning
TALLY_NAMESPACE_END
