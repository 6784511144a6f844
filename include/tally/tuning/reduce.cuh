#pragma once
/// @file
/// Tuning tables for reduce: which backend and launch shape the `automatic` policy
/// uses, per architecture, operator class, value size and input size.
///
/// A table is a list of rules (the format: tuning/rules.cuh); the first rule whose
/// operator class matches, whose `max_value_bytes` is at least sizeof(value) and whose
/// `max_log2_n` admits n wins. A class with no rule of its own in a table (max_element's
/// `extremum`, top_k's `top2`) takes the `min_max` rules there. Tables exist for sm_90
/// (Hopper; written by `tally tune`, tuning/sm90.cuh), sm_80 (Ampere) and a default for
/// everything else. Only the (backend, shape) pairs that some rule can select for a
/// given operator and value size are compiled.
///
/// Two substitutions are made after the lookup, never by the tables themselves:
/// under `deterministic()` a floating-point sum never runs on the atomic backend, and an
/// operator without a `tally::identity_element` can't; both take `warp_shuffle` instead.

#include <tally/tuning/rules.cuh>
#include <tally/tuning/sm90.cuh>

#include <cstdint>

TALLY_NAMESPACE_BEGIN
namespace tuning {

// clang-format off
/// sm_80 (A100, 108 SMs).
inline constexpr reduce_rule reduce_sm80[] = {
  // Not measured on an A100 yet: the sm_90 choices, which rest on the same design
  // (single launch, 16-byte loads) and no Hopper-only feature.
  {reduce_op_class::integer_sum,  8, any_n, {backend_id::atomic,       256, 16}},
  {reduce_op_class::floating_sum, 8, any_n, {backend_id::atomic,       256, 16}},
  {reduce_op_class::min_max,      8, any_n, {backend_id::atomic,       256, 16}},
  {reduce_op_class::other,        any_size, any_n, {backend_id::warp_shuffle, 256, 16}},
};

/// Every other architecture: the deterministic last-block design, which needs nothing
/// from the hardware beyond 32-bit atomics.
inline constexpr reduce_rule reduce_default[] = {
  {reduce_op_class::other, any_size, any_n, {backend_id::warp_shuffle, 256, 16}},
};
// clang-format on

namespace detail {
template <std::size_t N>
constexpr bool has_class(const reduce_rule (&table)[N], reduce_op_class op) {
  for (std::size_t i = 0; i < N; ++i)
    if (table[i].op == op) return true;
  return false;
}

/// The class a table is searched with for `op`: op itself, or its fallback when the
/// table has no rule of op's own.
template <std::size_t N>
constexpr reduce_op_class class_in(const reduce_rule (&table)[N], reduce_op_class op) {
  return has_class(table, op) ? op : fallback_class(op);
}

template <std::size_t N>
constexpr const reduce_rule* find_rule(const reduce_rule (&table)[N], reduce_op_class op, int value_bytes,
                                       std::int64_t n) {
  const reduce_op_class searched = class_in(table, op);
  for (std::size_t i = 0; i < N; ++i) {
    const reduce_rule& rule = table[i];
    const bool op_matches = rule.op == searched || rule.op == reduce_op_class::other;
    if (op_matches && value_bytes <= rule.max_value_bytes && covers_n(rule.max_log2_n, n)) return &rule;
  }
  return nullptr;
}
}  // namespace detail

/// The table's choice for a device of compute capability `arch` (10 * major + minor).
constexpr reduce_config select_reduce(int arch, reduce_op_class op, int value_bytes, std::int64_t n) {
  const reduce_rule* rule = nullptr;
  if (arch >= 90) rule = detail::find_rule(reduce_sm90, op, value_bytes, n);
  else if (arch >= 80) rule = detail::find_rule(reduce_sm80, op, value_bytes, n);
  if (!rule) rule = detail::find_rule(reduce_default, op, value_bytes, n);
  return rule ? rule->config : reduce_config{backend_id::warp_shuffle, 256, 16};
}

}  // namespace tuning
TALLY_NAMESPACE_END
