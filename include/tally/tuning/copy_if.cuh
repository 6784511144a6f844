#pragma once
/// @file
/// Launch shapes and block scans for copy_if under a policy that does not force them,
/// by stable or unordered, value size and input size (the format: tuning/rules.cuh).
///
/// sm_90: tuning/sm90.cuh, written by `tally tune`. Every architecture, and values the
/// sm_90 table has no rule for: the rules below. Items per thread: 16 of up to 4 bytes,
/// 8 of 8 bytes, 4 of 16, 2 of anything larger. The stable kernel stages two tiles in
/// shared memory, and 256 x 16 x 4 bytes x 2 = 32 KiB is as much as it double-buffers
/// (tile_compaction). On an H100, int32 at 2^24..2^28 (a timing sweep, 2026-11-23):
/// 256 x 16 ran 5-15% faster than 256 x 8 and up to 4% faster than 128 x 16; 512 x 16
/// (too big to double-buffer) 2.5x slower.

#include <tally/tuning/rules.cuh>
#include <tally/tuning/sm90.cuh>

#include <cstdint>

TALLY_NAMESPACE_BEGIN
namespace tuning {

// clang-format off
inline constexpr copy_if_rule copy_if_default[] = {
  {false, 4,        any_n, {backend_id::warp_shuffle, 256, 16}},
  {false, 8,        any_n, {backend_id::warp_shuffle, 256, 8}},
  {false, 16,       any_n, {backend_id::warp_shuffle, 256, 4}},
  {false, any_size, any_n, {backend_id::warp_shuffle, 256, 2}},
  {true,  4,        any_n, {backend_id::warp_shuffle, 256, 16}},
  {true,  8,        any_n, {backend_id::warp_shuffle, 256, 8}},
  {true,  16,       any_n, {backend_id::warp_shuffle, 256, 4}},
  {true,  any_size, any_n, {backend_id::warp_shuffle, 256, 2}},
};
// clang-format on

namespace detail {
template <std::size_t N>
constexpr const copy_if_rule* find_copy_if_rule(const copy_if_rule (&table)[N], bool unordered, int value_bytes,
                                                std::int64_t n) {
  for (std::size_t i = 0; i < N; ++i) {
    const copy_if_rule& rule = table[i];
    if (rule.unordered == unordered && value_bytes <= rule.max_value_bytes && covers_n(rule.max_log2_n, n))
      return &rule;
  }
  return nullptr;
}
}  // namespace detail

/// The table's choice for a device of compute capability `arch` (10 * major + minor).
constexpr copy_if_config select_copy_if(int arch, bool unordered, int value_bytes, std::int64_t n) {
  const copy_if_rule* rule = arch >= 90 ? detail::find_copy_if_rule(copy_if_sm90, unordered, value_bytes, n) : nullptr;
  if (!rule) rule = detail::find_copy_if_rule(copy_if_default, unordered, value_bytes, n);
  return rule ? rule->config : copy_if_config{backend_id::warp_shuffle, 256, 2};
}

}  // namespace tuning
TALLY_NAMESPACE_END
