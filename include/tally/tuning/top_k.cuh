#pragma once
/// @file
/// Launch shapes for top_k under a policy that does not force one with
/// `tune<Threads, Items>()`, by list length and input size (the format: tuning/rules.cuh).
///
/// top_k has one kernel on every backend (the backends differ in how a block's lists
/// merge, see <tally/top_k.cuh>), so a rule gives the shape and, for `automatic`, the
/// merge. The list length is K rounded up to a power of two. top_k<1> and <2> on packed
/// keys run as reductions and take the reduce tables' `top2` rules instead.
///
/// sm_90: tuning/sm90.cuh, written by `tally tune`. Every other architecture: the rules
/// below (not measured there): lists of at most 2 entries take the reduce tables'
/// min/max shapes for 4-byte items, 512 x 8 up to 2^20 items, 1024 x 8 above; longer
/// lists 256 x 8: a list of P candidates holds P or 2P registers per thread (4 times
/// that while two lists merge), and at 512 threads per block the compiler may use only
/// 128 registers per thread.

#include <tally/tuning/rules.cuh>
#include <tally/tuning/sm90.cuh>

#include <cstdint>

TALLY_NAMESPACE_BEGIN
namespace tuning {

// clang-format off
inline constexpr top_k_rule top_k_default[] = {
  {2,  20,    {backend_id::warp_shuffle, 512, 8}},
  {2,  any_n, {backend_id::warp_shuffle, 1024, 8}},
  {32, any_n, {backend_id::warp_shuffle, 256, 8}},
  {1 << 30, any_n, {backend_id::warp_shuffle, 256, 8}},  // any longer list
};
// clang-format on

namespace detail {
template <std::size_t N>
constexpr const top_k_rule* find_top_k_rule(const top_k_rule (&table)[N], int list_size, std::int64_t n) {
  for (std::size_t i = 0; i < N; ++i)
    if (list_size <= table[i].max_list_size && covers_n(table[i].max_log2_n, n)) return &table[i];
  return nullptr;
}
}  // namespace detail

/// The table's choice for a device of compute capability `arch` (10 * major + minor).
constexpr top_k_config select_top_k(int arch, int list_size, std::int64_t n) {
  const top_k_rule* rule = arch >= 90 ? detail::find_top_k_rule(top_k_sm90, list_size, n) : nullptr;
  if (!rule) rule = detail::find_top_k_rule(top_k_default, list_size, n);
  return rule ? rule->config : top_k_config{backend_id::warp_shuffle, 256, 8};
}

}  // namespace tuning
TALLY_NAMESPACE_END
