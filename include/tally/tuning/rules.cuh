#pragma once
/// @file
/// The format of tally's tuning tables: what a rule says and how a table is searched.
///
/// A table is an array of rules, searched in order; the first rule that applies wins.
/// Every rule names the size bucket it covers by `max_log2_n` (it applies to n <=
/// 2^max_log2_n; `any_n` for every n), so a table for one class lists its rules by
/// growing `max_log2_n` and ends with an `any_n` rule. The tables for sm_90 are written
/// by `tally tune` (tuning/sm90.cuh); the others by hand (tuning/reduce.cuh).
///
/// Three kinds of rule, one per kind of kernel:
/// - reduce_rule: reductions (reduce, max_element / min_element, top_k<1> and <2> on
///   packed keys): operator class, value size, size bucket -> backend, threads, items.
/// - top_k_rule: top_k<K> for K >= 3 (and K <= 2 where it does not run as a reduction):
///   list length, size bucket -> merge (warp_shuffle: shuffles, shared_memory: a
///   shared-memory tree), threads, items.
/// - copy_if_rule: stable or unordered, value size, size bucket -> block scan
///   (warp_shuffle or shared_memory), threads, items.

#include <tally/policy.cuh>

#include <cstdint>

TALLY_NAMESPACE_BEGIN
namespace tuning {

inline constexpr int any_n = 62;           ///< max_log2_n of a rule that applies to every n
inline constexpr int any_size = 1 << 20;   ///< max_value_bytes of a rule for values of any size

/// Whether n falls in a rule's size bucket (n <= 2^max_log2_n).
constexpr bool covers_n(int max_log2_n, std::int64_t n) {
  return max_log2_n >= any_n || n <= (std::int64_t(1) << max_log2_n);
}

// --- reductions -------------------------------------------------------------------------

/// Operator classes that tune differently.
enum class reduce_op_class {
  integer_sum,   ///< tally::plus on an integer type
  floating_sum,  ///< tally::plus on float, double, __half, __nv_bfloat16
  min_max,       ///< tally::minimum / tally::maximum on an arithmetic type
  other,         ///< any other operator or type; a rule for `other` matches every operator
  extremum,      ///< max_element / min_element (an index travels with the value)
  top2,          ///< top_k<1> and top_k<2> on packed keys (a reduction of a pair)
};

/// The class whose rules a class takes where a table has none of its own: max_element
/// and the small top_k ran on the min/max rows before they were tuned separately, and
/// still do on the tables that were not (sm_80, default).
constexpr reduce_op_class fallback_class(reduce_op_class c) {
  return c == reduce_op_class::extremum || c == reduce_op_class::top2 ? reduce_op_class::min_max : c;
}

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
  int max_log2_n;       ///< applies to n <= 2^max_log2_n (any_n: every n)
  reduce_config config;
};

// --- top_k ------------------------------------------------------------------------------

/// backend: how a block's lists merge (warp_shuffle: one warp's shuffles; shared_memory: a
/// tree of rank merges in shared memory). The atomic backend merges as warp_shuffle does.
struct top_k_config {
  backend_id backend;
  int threads;
  int items_per_thread;
};

constexpr bool operator==(const top_k_config& a, const top_k_config& b) {
  return a.backend == b.backend && a.threads == b.threads && a.items_per_thread == b.items_per_thread;
}

struct top_k_rule {
  int max_list_size;  ///< applies to lists of at most this many entries (K rounded up to a power of two)
  int max_log2_n;     ///< applies to n <= 2^max_log2_n (any_n: every n)
  top_k_config config;
};

// --- copy_if ----------------------------------------------------------------------------

/// backend: the block scan (warp_shuffle: shuffles; shared_memory: Hillis-Steele in
/// shared memory). Stable or unordered is the policy's choice, never the table's.
struct copy_if_config {
  backend_id backend;
  int threads;
  int items_per_thread;
};

constexpr bool operator==(const copy_if_config& a, const copy_if_config& b) {
  return a.backend == b.backend && a.threads == b.threads && a.items_per_thread == b.items_per_thread;
}

struct copy_if_rule {
  bool unordered;       ///< a rule for unordered() calls (else for stable ones)
  int max_value_bytes;  ///< applies to values of at most this many bytes
  int max_log2_n;       ///< applies to n <= 2^max_log2_n (any_n: every n)
  copy_if_config config;
};

}  // namespace tuning
TALLY_NAMESPACE_END
