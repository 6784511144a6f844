#pragma once
/// @file
/// `tally::max_element`, `min_element`, `minmax_element` and the asynchronous
/// `max_element_into` / `min_element_into`.
///
/// @code
/// It   max_element(policy, first, last, Compare comp = tally::less<>{});      // waits, returns an iterator
/// It   min_element(policy, first, last, Compare comp = tally::less<>{});
/// std::pair<It, It> minmax_element(policy, first, last, Compare comp = tally::less<>{});
/// void max_element_into(policy, first, last, IndexOut out_index, Compare comp = tally::less<>{});  // async
/// void min_element_into(policy, first, last, IndexOut out_index, Compare comp = tally::less<>{});
/// void max_element_into(policy, first, pieces, IndexOut out_index, Compare comp = tally::less<>{});
/// void min_element_into(policy, first, pieces, IndexOut out_index, Compare comp = tally::less<>{});
/// @endcode
/// Every overload also exists without the policy, meaning `tally::par`.
///
/// Semantics (Thrust's, on every backend):
/// - `max_element` returns the first iterator i such that no j in the range has
///   `comp(*i, *j)`; `min_element` the first i such that no j has `comp(*j, *i)`: the
///   first occurrence wins a tie. `minmax_element` returns both (the first smallest and
///   the first largest).
/// - An empty range returns `last` (`minmax_element`: `{last, last}`); the `_into` forms
///   write the index n.
/// - With the default comparators (`tally::less<>`, `tally::greater<>`) floating-point
///   values follow the library's order: NaN is greater than every number (so
///   `max_element` finds the first NaN), and `-0.0 == +0.0` (the first zero wins).
///   A user comparator must be a strict weak order and is used as given.
/// - The `_into` forms write a 64-bit index (converted to IndexOut's value type; use
///   `std::int64_t`) in stream order and return at once; the synchronous forms wait for
///   the policy's stream only. Counts are 64-bit.
/// - Errors as for reduce (tally::error / tally::cuda_error, naming the algorithm).
/// - Over pieces (`tally::rows`, `tally::segments`, <tally/pieces.cuh>) in place of `last`:
///   out_index[s] is the index within piece s of its first best item, 0 (its length) for
///   an empty piece; one launch (docs/api/max_element.md).
///
/// Backends (docs/api/max_element.md): on every backend, values of at most 4 bytes under
/// the default comparators are ranked on 64-bit keys (the value's order key above the
/// inverted index), other values, comparators and `minmax_element` on (value, index)
/// pairs; more than 2^32 - 65 such items run as partitions, one launch each.
/// - `atomic`: each block folds its best into one slot with atomics (a native 64-bit
///   atomicMax of keys; a compare-and-swap loop for pairs, or the last-block combine where
///   a pair is too large for one).
/// - `shared_memory`, `warp_shuffle`: a tree in shared memory or warp shuffles in each
///   block, blocks combined by the last block to finish.
/// - `automatic`: the tuning table's `extremum` rule.
/// - `tally::host`: sequential.

#include <tally/backend/host/extrema.hpp>
#include <tally/detail/extrema/dispatch.cuh>
#include <tally/pieces.cuh>

#include <utility>

TALLY_NAMESPACE_BEGIN

/// The first largest item of [first, last) under comp (last when empty); waits.
template <class Policy, class It, class Compare = less<>, std::enable_if_t<is_execution_policy_v<Policy>, int> = 0>
It max_element(const Policy& policy, It first, It last, Compare comp = {});

/// The first smallest item of [first, last) under comp (last when empty); waits.
template <class Policy, class It, class Compare = less<>, std::enable_if_t<is_execution_policy_v<Policy>, int> = 0>
It min_element(const Policy& policy, It first, It last, Compare comp = {});

/// {first smallest, first largest} of [first, last) under comp ({last, last} when empty); waits.
template <class Policy, class It, class Compare = less<>, std::enable_if_t<is_execution_policy_v<Policy>, int> = 0>
std::pair<It, It> minmax_element(const Policy& policy, It first, It last, Compare comp = {});

/// Writes the index of the first largest item (n when empty) to *out_index; returns at once.
template <class Policy, class It, class IndexOut, class Compare = less<>,
          std::enable_if_t<is_execution_policy_v<Policy>, int> = 0>
void max_element_into(const Policy& policy, It first, It last, IndexOut out_index, Compare comp = {});

/// Writes the index of the first smallest item (n when empty) to *out_index; returns at once.
template <class Policy, class It, class IndexOut, class Compare = less<>,
          std::enable_if_t<is_execution_policy_v<Policy>, int> = 0>
void min_element_into(const Policy& policy, It first, It last, IndexOut out_index, Compare comp = {});

/// Writes, for each piece s, the index within it of its first largest item (0 when empty)
/// to out_index[s]; returns at once.
template <class Policy, class It, class Pieces, class IndexOut, class Compare = less<>,
          std::enable_if_t<is_execution_policy_v<Policy> && is_pieces_v<Pieces>, int> = 0>
void max_element_into(const Policy& policy, It first, const Pieces& pieces, IndexOut out_index, Compare comp = {});

/// Writes, for each piece s, the index within it of its first smallest item (0 when empty)
/// to out_index[s]; returns at once.
template <class Policy, class It, class Pieces, class IndexOut, class Compare = less<>,
          std::enable_if_t<is_execution_policy_v<Policy> && is_pieces_v<Pieces>, int> = 0>
void min_element_into(const Policy& policy, It first, const Pieces& pieces, IndexOut out_index, Compare comp = {});

// The same without a policy: tally::par.

template <class It, class Compare = less<>, std::enable_if_t<!is_execution_policy_v<It>, int> = 0>
It max_element(It first, It last, Compare comp = {}) {
  return tally::max_element(par, first, last, comp);
}
template <class It, class Compare = less<>, std::enable_if_t<!is_execution_policy_v<It>, int> = 0>
It min_element(It first, It last, Compare comp = {}) {
  return tally::min_element(par, first, last, comp);
}
template <class It, class Compare = less<>, std::enable_if_t<!is_execution_policy_v<It>, int> = 0>
std::pair<It, It> minmax_element(It first, It last, Compare comp = {}) {
  return tally::minmax_element(par, first, last, comp);
}
template <class It, class IndexOut, class Compare = less<>, std::enable_if_t<!is_execution_policy_v<It>, int> = 0>
void max_element_into(It first, It last, IndexOut out_index, Compare comp = {}) {
  tally::max_element_into(par, first, last, out_index, comp);
}
template <class It, class IndexOut, class Compare = less<>, std::enable_if_t<!is_execution_policy_v<It>, int> = 0>
void min_element_into(It first, It last, IndexOut out_index, Compare comp = {}) {
  tally::min_element_into(par, first, last, out_index, comp);
}
template <class It, class Pieces, class IndexOut, class Compare = less<>,
          std::enable_if_t<!is_execution_policy_v<It> && is_pieces_v<Pieces>, int> = 0>
void max_element_into(It first, const Pieces& pieces, IndexOut out_index, Compare comp = {}) {
  tally::max_element_into(par, first, pieces, out_index, comp);
}
template <class It, class Pieces, class IndexOut, class Compare = less<>,
          std::enable_if_t<!is_execution_policy_v<It> && is_pieces_v<Pieces>, int> = 0>
void min_element_into(It first, const Pieces& pieces, IndexOut out_index, Compare comp = {}) {
  tally::min_element_into(par, first, pieces, out_index, comp);
}

TALLY_NAMESPACE_END

#include <tally/detail/extrema/extrema.inl>
#include <tally/detail/pieces/extrema_pieces.inl>
