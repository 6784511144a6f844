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
  // All rows: benchmarks/bench_reduce_shapes on an H100 80GB HBM3, 2026-11-23 11:22 UTC,
  // GPU time per call with the calls queued back to back (docs/performance.md). The
  // atomic backend was fastest at every size for every case measured (warp_shuffle and
  // shared_memory trail it by ~0.7 us at 2^14..2^20: their last block re-reads the
  // partials), so it leads wherever it may run. Sizes are for 4-byte items.
  //
  // Sums of values of up to 4 bytes (int32, float): below one tile of 256x16 the items
  // are read one by one, so 2^10 wants the 1024-item tile of 256x4 (1.59 vs 1.99 us);
  // 256x16 was within 3% of the best at 2^12..2^18; 512x16 was best or within 3% from
  // 2^20 (2^20: 3.89 us, 2^28: 340.1 us = 3.16 TB/s).
  {reduce_op_class::integer_sum,  4, 10,    {backend_id::atomic, 256, 4}},
  {reduce_op_class::integer_sum,  4, 19,    {backend_id::atomic, 256, 16}},
  {reduce_op_class::integer_sum,  4, any_n, {backend_id::atomic, 512, 16}},
  {reduce_op_class::floating_sum, 4, 10,    {backend_id::atomic, 256, 4}},
  {reduce_op_class::floating_sum, 4, 19,    {backend_id::atomic, 256, 16}},
  {reduce_op_class::floating_sum, 4, any_n, {backend_id::atomic, 512, 16}},
  // float max (min assumed alike): the ordered compare costs more per item, and shapes
  // with fewer items per thread won: 256x4 at 2^10 (2.01 vs 2.39 us), 512x8 at
  // 2^12..2^20 (within 9% of the best, 2^20: 4.84 us, best), 1024x8 from 2^22 (2^22:
  // 9.18 vs 9.87 us for 512x16; 2^28: 345.4 vs 345.0 in the earlier sweep).
  {reduce_op_class::min_max,      4, 10,    {backend_id::atomic, 256, 4}},
  {reduce_op_class::min_max,      4, 20,    {backend_id::atomic, 512, 8}},
  {reduce_op_class::min_max,      4, any_n, {backend_id::atomic, 1024, 8}},
  // 8-byte values (double sums measured; int64 and double max/min assumed alike): 8
  // items of 8 bytes keep the 64 bytes per thread in flight: 512x8 was best or within
  // 2% at 2^12..2^18 and from 2^22 (2^28: 679.5 us = 3.16 TB/s), 512x16 best at 2^20.
  {reduce_op_class::integer_sum,  8, 10,    {backend_id::atomic, 256, 4}},
  {reduce_op_class::floating_sum, 8, 10,    {backend_id::atomic, 256, 4}},
  {reduce_op_class::min_max,      8, 10,    {backend_id::atomic, 256, 4}},
  {reduce_op_class::integer_sum,  8, 19,    {backend_id::atomic, 512, 8}},
  {reduce_op_class::floating_sum, 8, 19,    {backend_id::atomic, 512, 8}},
  {reduce_op_class::min_max,      8, 19,    {backend_id::atomic, 512, 8}},
  {reduce_op_class::integer_sum,  8, 20,    {backend_id::atomic, 512, 16}},
  {reduce_op_class::floating_sum, 8, 20,    {backend_id::atomic, 512, 16}},
  {reduce_op_class::min_max,      8, 20,    {backend_id::atomic, 512, 16}},
  {reduce_op_class::integer_sum,  8, any_n, {backend_id::atomic, 512, 8}},
  {reduce_op_class::floating_sum, 8, any_n, {backend_id::atomic, 512, 8}},
  {reduce_op_class::min_max,      8, any_n, {backend_id::atomic, 512, 8}},
  // Values wider than 8 bytes and other operators: the deterministic last-block design;
  // shapes as for 4-byte sums (not measured separately).
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
