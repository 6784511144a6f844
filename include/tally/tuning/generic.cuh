#pragma once
/// @file
/// The generic table: every architecture without a table of its own, and every class an
/// architecture's table leaves out (the format: tuning/policy.cuh). It covers every class
/// and value size, so that a selection always finds a rule; of the small-input classes
/// only top_k_small (without a rule, a call site runs its class's kernel at every size).
///
/// Not measured: the deterministic last-block design of warp_shuffle, which needs nothing
/// from the hardware beyond 32-bit atomics, 16-byte loads where the input allows them, and
/// shapes that fit every GPU since sm_70. Items per thread for copy_if: 16 of up to 4
/// bytes, 8 of 8, 4 of 16, 2 of anything larger (the stable kernel double-buffers a tile
/// in at most 32 KiB of shared memory: 256 x 16 x 4 bytes x 2). top_k: a list of P
/// candidates holds P or 2P registers per thread (4 times that while two lists merge):
/// 256 threads leave each thread up to 255 registers.

#include <tally/tuning/policy.cuh>

TALLY_NAMESPACE_BEGIN
namespace tuning {

// clang-format off
TALLY_HOST_DEVICE constexpr rule_table generic_table() {
  constexpr rule rules[] = {
  {kernel_class::integer_sum,       8,        any_size, {backend_id::warp_shuffle, 256, 16}},
  {kernel_class::integer_sum,       any_size, any_size, {backend_id::warp_shuffle, 256, 4}},
  {kernel_class::floating_sum,      8,        any_size, {backend_id::warp_shuffle, 256, 16}},
  {kernel_class::floating_sum,      any_size, any_size, {backend_id::warp_shuffle, 256, 4}},
  {kernel_class::min_max,           8,        any_size, {backend_id::warp_shuffle, 256, 16}},
  {kernel_class::min_max,           any_size, any_size, {backend_id::warp_shuffle, 256, 4}},
  {kernel_class::other,             8,        any_size, {backend_id::warp_shuffle, 256, 16}},
  {kernel_class::other,             any_size, any_size, {backend_id::warp_shuffle, 256, 4}},
  {kernel_class::extremum,          4,        any_size, {backend_id::warp_shuffle, 256, 16}},
  {kernel_class::extremum,          any_size, any_size, {backend_id::warp_shuffle, 256, 8}},
  {kernel_class::top2,              any_size, any_size, {backend_id::warp_shuffle, 512, 8}},
  {kernel_class::top_k,             any_size, 2,        {backend_id::warp_shuffle, 512, 8}},
  {kernel_class::top_k,             any_size, any_size, {backend_id::warp_shuffle, 256, 8}},
  {kernel_class::copy_if,           4,        any_size, {backend_id::warp_shuffle, 256, 16}},
  {kernel_class::copy_if,           8,        any_size, {backend_id::warp_shuffle, 256, 8}},
  {kernel_class::copy_if,           16,       any_size, {backend_id::warp_shuffle, 256, 4}},
  {kernel_class::copy_if,           any_size, any_size, {backend_id::warp_shuffle, 256, 2}},
  {kernel_class::copy_if_unordered, 4,        any_size, {backend_id::warp_shuffle, 256, 16}},
  {kernel_class::copy_if_unordered, 8,        any_size, {backend_id::warp_shuffle, 256, 8}},
  {kernel_class::copy_if_unordered, 16,       any_size, {backend_id::warp_shuffle, 256, 4}},
  {kernel_class::copy_if_unordered, any_size, any_size, {backend_id::warp_shuffle, 256, 2}},
  {kernel_class::top_k_small,       any_size, any_size, {backend_id::warp_shuffle, 128, 4}, 17},
  };
  return make_table(rules);
}
// clang-format on

}  // namespace tuning
TALLY_NAMESPACE_END
