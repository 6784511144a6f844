#pragma once
/// @file
/// Tuning tables for reduce: which backend and launch shape the `automatic` policy
/// uses, per architecture, operator class, value size and input size.
///
/// A table is a list of rules; the first rule whose operator class matches, whose
/// `max_value_bytes` is at least sizeof(value) and whose `max_log2_n` admits n wins.
/// Tables exist for sm_90 (Hopper), sm_80 (Ampere) and a default for everything else.
/// Every rule says which benchmark run chose it. Only the (backend, shape) pairs that
/// some rule can select for a given operator and value size are compiled.
///
/// Two substitutions are made after the lookup, never by the tables themselves:
/// under `deterministic()` a floating-point sum never runs on the atomic backend, and an
/// operator without a `tally::identity_element` can't; both take `warp_shuffle` instead.

#include <tally/policy.cuh>

#include <cstdint>

TALLY_NAMESPACE_BEGIN
namespace tuning {

/// Operator classes that tune differently.
enum class reduce_op_class {
  integer_sum,   ///< tally::plus on an integer type
  floating_sum,  ///< tally::plus on float, double, __half, __nv_bfloat16
  min_max,       ///< tally::minimum / tally::maximum on an arithmetic type
  other,         ///< any other operator or type; a rule for `other` matches every operator
};

struct reduce_config {
  backend_id backend;
  int threads;
  int items_per_thread;
};

constexpr bool operator==(const reduce_config& a, const reduce_config& b) {
  return a.backend == b.backend && a.threads == b.threads && a.items_per_thread == b.items_per_thread;
}

struct reduce_rule {
  reduce_op_class op;
  int max_value_bytes;  ///< applies to values of at most this many bytes
  int max_log2_n;       ///< applies to n <= 2^max_log2_n (62: any n)
  reduce_config config;
};

inline constexpr int any_n = 62;
inline constexpr int any_size = 1 << 20;

// clang-format off
/// sm_90 (H100 SXM, 132 SMs).
inline constexpr reduce_rule reduce_sm90[] = {
  // benchmarks/bench_reduce_shapes, H100 80GB HBM3, 2026-11-23 (int32 sums, GPU time per
  // call with the calls queued back to back): atomic 256x16 was best or within 3% of
  // best up to 2^18 (one block of 4096 items covers n <= 2^12 in a single pass:
  // 1.55 us vs 2.46 us for 256x8); from 2^20 up 512x16 was best (2^20: 3.87 us vs 4.01,
  // 2^22: 8.11 vs 8.81, 2^28: 345.0 vs 352.7 us). warp_shuffle trailed atomic by
  // 0.7-0.8 us at 2^14..2^20 (the last block re-reads the partials), so atomic leads
  // wherever it may run; the same shapes serve 8-byte values (not measured separately).
  {reduce_op_class::integer_sum,  8, 19,    {backend_id::atomic, 256, 16}},
  {reduce_op_class::integer_sum,  8, any_n, {backend_id::atomic, 512, 16}},
  {reduce_op_class::floating_sum, 8, 19,    {backend_id::atomic, 256, 16}},
  {reduce_op_class::floating_sum, 8, any_n, {backend_id::atomic, 512, 16}},
  {reduce_op_class::min_max,      8, 19,    {backend_id::atomic, 256, 16}},
  {reduce_op_class::min_max,      8, any_n, {backend_id::atomic, 512, 16}},
  // Values wider than 8 bytes and other operators: the deterministic last-block design,
  // same shapes (not measured separately).
  {reduce_op_class::other,        any_size, 19,    {backend_id::warp_shuffle, 256, 16}},
  {reduce_op_class::other,        any_size, any_n, {backend_id::warp_shuffle, 512, 16}},
};

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
constexpr const reduce_rule* find_rule(const reduce_rule (&table)[N], reduce_op_class op, int value_bytes,
                                       std::int64_t n) {
  for (std::size_t i = 0; i < N; ++i) {
    const reduce_rule& rule = table[i];
    const bool op_matches = rule.op == op || rule.op == reduce_op_class::other;
    const bool n_matches = rule.max_log2_n >= any_n || n <= (std::int64_t(1) << rule.max_log2_n);
    if (op_matches && value_bytes <= rule.max_value_bytes && n_matches) return &rule;
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
