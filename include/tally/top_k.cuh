#pragma once
/// @file
/// `tally::top_k<K>` and the asynchronous `tally::top_k_into<K>`: the K best items of a
/// range, best first, with their indices.
///
/// @code
/// top_k_result<T, K> top_k<K>(policy, first, last, Compare comp = tally::less<>{});   // waits
/// void top_k_into<K>(policy, first, last, ValueOut values, IndexOut indices,
///                    Compare comp = tally::less<>{});                                  // async
/// @endcode
/// Every overload also exists without the policy, meaning `tally::par`.
///
/// With k known only at run time (any k >= 1):
/// @code
/// top_k_values<T> top_k(policy, first, last, std::int64_t k, Compare comp = tally::less<>{});  // waits
/// void top_k_into(policy, first, last, std::int64_t k, ValueOut values, IndexOut indices,
///                 Compare comp = tally::less<>{});                                           // async
/// @endcode
/// Over many pieces of one input in one launch (<tally/pieces.cuh>), k <= 2048 on the device:
/// @code
/// void top_k_into(policy, first, pieces, std::int64_t k, ValueOut values, IndexOut indices,
///                 Compare comp = tally::less<>{});          // over tally::rows / tally::segments
/// @endcode
/// The same semantics (best first, ties by the lower index, NaN greatest), on arithmetic
/// values under tally::less<> / tally::greater<> (tally::host: any comparator). How: a
/// threshold from random samples lets the items that beat it into a buffer in one read,
/// a radix select on (order key, inverted index) picks k of them, one block sorts those,
/// all in one cooperative launch (detail/top_k/select_kernel.cuh); the backend of the
/// policy is not used yet: every backend runs this one engine.
///
/// Semantics (on every backend):
/// - The result is what `max_element` would pick K times, each time from the items not
///   yet picked: the K largest under comp, best first, equal values in index order (the
///   lower index first). `top_k<1>` finds the item `max_element` finds.
/// - 1 <= K <= 32 (a compile-time constant). With n < K items all n come back, sorted.
/// - With the default comparators (`tally::less<>`: the largest; `tally::greater<>`: the
///   smallest) floating-point values follow the library's order: NaN is greater than
///   every number, so NaNs come first under less; `-0.0 == +0.0`. A user comparator must
///   be a strict weak order and is used as given.
/// - `top_k` returns a `top_k_result`: `count = min(K, n)` and the first `count` entries
///   of `values` and `indices` set (the rest value-initialised). It waits for the
///   policy's stream only.
/// - `top_k_into` writes `min(K, n)` values to `values[0..]` (converted to ValueOut's
///   value type) and their 64-bit indices to `indices[0..]` (converted to IndexOut's
///   value type; use `std::int64_t`) in stream order and returns at once. An empty range
///   writes nothing.
/// - Errors as for reduce (tally::error / tally::cuda_error, naming the algorithm).
///
/// How (see docs/backends.md): top_k<17..32> of arithmetic values under the default
/// comparators on the automatic policy runs the run-time-k engine below (faster at every
/// size measured); otherwise one launch. Each thread keeps its best candidates sorted in
/// registers (K rounded up to a power of two of them) and inserts every item it reads
/// that beats its last; the 32 lists of a warp merge by shuffles (a bitonic merge of each
/// list with its partner's, reversed); the warps' lists merge through shared memory, on
/// the `warp_shuffle` and `atomic` backends by one warp's shuffles, on `shared_memory` by
/// a tree of merges in shared memory. Across blocks, `atomic` inserts each block's list
/// into one list in scratch with atomics (grid/list_cascade.cuh); the others' last block
/// to finish merges the blocks' lists. Under the default comparators a candidate is an
/// unsigned order key and the index: one 64-bit word for values of at most 4 bytes (the
/// key above the inverted index; more than 2^32 - 65 items run as partitions of that
/// size, one launch each), 16 bytes for wider values; a comparison is then an unsigned
/// compare, not the comparator's NaN checks. Other comparators compare (value, index)
/// pairs. top_k<1> and top_k<2> on one-word keys are reductions instead (of a key, or of
/// a (best, second) pair of keys) and run as reduce does: on the tuning table's backend
/// and shape, on `atomic` with atomics per block (two 64-bit atomicMax at once for the
/// pair, rarely a third).

#include <tally/functional.cuh>
#include <tally/pieces.cuh>
#include <tally/policy.cuh>

#include <array>
#include <cstdint>
#include <vector>

TALLY_NAMESPACE_BEGIN

/// The largest K the device kernels support.
inline constexpr int max_top_k = 32;

/// The result of the synchronous `top_k`: `count` = min(K, n) entries, best first.
template <class T, int K>
struct top_k_result {
  std::array<T, K> values{};
  std::array<std::int64_t, K> indices{};
  int count = 0;
};

/// The K best items of [first, last) under comp, best first (see the file comment); waits.
template <int K, class Policy, class It, class Compare = less<>,
          std::enable_if_t<is_execution_policy_v<Policy>, int> = 0>
top_k_result<detail::iter_value_t<It>, K> top_k(const Policy& policy, It first, It last, Compare comp = {});

/// Writes the min(K, n) best values to values[0..] and their indices to indices[0..];
/// returns at once (stream order).
template <int K, class Policy, class It, class ValueOut, class IndexOut, class Compare = less<>,
          std::enable_if_t<is_execution_policy_v<Policy>, int> = 0>
void top_k_into(const Policy& policy, It first, It last, ValueOut values, IndexOut indices, Compare comp = {});

/// The result of the synchronous run-time-k `top_k`: min(k, n) entries, best first.
template <class T>
struct top_k_values {
  std::vector<T> values;
  std::vector<std::int64_t> indices;
};

/// The k best items of [first, last), k known at run time (k >= 1; k > n gives all n),
/// best first, ties by the lower index; waits. Arithmetic values under tally::less<> (the
/// largest) or tally::greater<> (the smallest); on tally::host any comparator.
template <class Policy, class It, class Compare = less<>, std::enable_if_t<is_execution_policy_v<Policy>, int> = 0>
top_k_values<detail::iter_value_t<It>> top_k(const Policy& policy, It first, It last, std::int64_t k,
                                             Compare comp = {});

/// Writes the min(k, n) best values to values[0..] and their indices to indices[0..],
/// best first; returns at once (stream order). k < 1 is a tally::error.
template <class Policy, class It, class ValueOut, class IndexOut, class Compare = less<>,
          std::enable_if_t<is_execution_policy_v<Policy>, int> = 0>
void top_k_into(const Policy& policy, It first, It last, std::int64_t k, ValueOut values, IndexOut indices,
                Compare comp = {});

/// Over pieces (`tally::rows`, `tally::segments`, <tally/pieces.cuh>) in place of `last`:
/// the k best of every piece s at values[s * k + j] and indices[s * k + j] (the index
/// within the piece), best first, j < k; past a piece's length the index is -1 and the
/// value is not written. One launch for all pieces; 1 <= k <= 2048 on the device
/// (tally::max_top_k_pieces; any k on tally::host). Returns at once (stream order).
template <class Policy, class It, class Pieces, class ValueOut, class IndexOut, class Compare = less<>,
          std::enable_if_t<is_execution_policy_v<Policy> && is_pieces_v<Pieces>, int> = 0>
void top_k_into(const Policy& policy, It first, const Pieces& pieces, std::int64_t k, ValueOut values,
                IndexOut indices, Compare comp = {});

/// The largest k of top_k_into over pieces on the device.
inline constexpr std::int64_t max_top_k_pieces = 2048;

// The same without a policy: tally::par.

template <int K, class It, class Compare = less<>, std::enable_if_t<!is_execution_policy_v<It>, int> = 0>
top_k_result<detail::iter_value_t<It>, K> top_k(It first, It last, Compare comp = {}) {
  return tally::top_k<K>(par, first, last, comp);
}
template <int K, class It, class ValueOut, class IndexOut, class Compare = less<>,
          std::enable_if_t<!is_execution_policy_v<It>, int> = 0>
void top_k_into(It first, It last, ValueOut values, IndexOut indices, Compare comp = {}) {
  tally::top_k_into<K>(par, first, last, values, indices, comp);
}

template <class It, class Compare = less<>, std::enable_if_t<!is_execution_policy_v<It>, int> = 0>
top_k_values<detail::iter_value_t<It>> top_k(It first, It last, std::int64_t k, Compare comp = {}) {
  return tally::top_k(par, first, last, k, comp);
}
template <class It, class ValueOut, class IndexOut, class Compare = less<>,
          std::enable_if_t<!is_execution_policy_v<It> && !is_pieces_v<It>, int> = 0>
void top_k_into(It first, It last, std::int64_t k, ValueOut values, IndexOut indices, Compare comp = {}) {
  tally::top_k_into(par, first, last, k, values, indices, comp);
}
template <class It, class Pieces, class ValueOut, class IndexOut, class Compare = less<>,
          std::enable_if_t<!is_execution_policy_v<It> && is_pieces_v<Pieces>, int> = 0>
void top_k_into(It first, const Pieces& pieces, std::int64_t k, ValueOut values, IndexOut indices, Compare comp = {}) {
  tally::top_k_into(par, first, pieces, k, values, indices, comp);
}

TALLY_NAMESPACE_END

#include <tally/detail/top_k/top_k.inl>
