#pragma once
// The host backend's top_k: one sequential pass keeping the best K items seen so far,
// sorted best first (the device kernels' per-thread list, on one thread).

#include <tally/detail/config.cuh>

#include <algorithm>
#include <cstdint>
#include <iterator>
#include <utility>
#include <vector>

TALLY_NAMESPACE_BEGIN
namespace backend_host {

/// Fills values[0..count) and indices[0..count) with the best count = min(K, n) items of
/// [first, last) under comp (the largest first; equal values in index order); returns count.
template <int K, class It, class V, class Compare>
int top_k(It first, It last, V* values, std::int64_t* indices, Compare comp) {
  int count = 0;
  std::int64_t index = 0;
  for (It it = first; it != last; ++it, ++index) {
    const V value = static_cast<V>(*it);
    // Where the item goes: after every kept item it does not beat (an earlier index
    // wins a tie, and every kept item has one).
    int place = count;
    while (place > 0 && comp(values[place - 1], value)) --place;
    if (place >= K) continue;
    const int last_kept = count < K ? count : K - 1;
    for (int i = last_kept; i > place; --i) {
      values[i] = values[i - 1];
      indices[i] = indices[i - 1];
    }
    values[place] = value;
    indices[place] = index;
    if (count < K) ++count;
  }
  return count;
}

/// The best min(k, n) items of [first, last) under comp, best first (equal values in
/// index order): fills values and indices (resized to that count). The reference of the
/// run-time-k top_k: a partial sort by (comp, index).
template <class It, class V, class Compare>
void top_k(It first, It last, std::int64_t k, std::vector<V>& values, std::vector<std::int64_t>& indices,
           Compare comp) {
  std::vector<V> items;
  for (It it = first; it != last; ++it) items.push_back(static_cast<V>(*it));
  const std::int64_t n = static_cast<std::int64_t>(items.size());
  const std::int64_t count = k < n ? k : n;
  std::vector<std::int64_t> order(static_cast<std::size_t>(n));
  for (std::int64_t i = 0; i < n; ++i) order[static_cast<std::size_t>(i)] = i;
  auto better = [&](std::int64_t a, std::int64_t b) {
    const V& x = items[static_cast<std::size_t>(a)];
    const V& y = items[static_cast<std::size_t>(b)];
    if (comp(y, x)) return true;
    if (comp(x, y)) return false;
    return a < b;
  };
  std::partial_sort(order.begin(), order.begin() + count, order.end(), better);
  values.resize(static_cast<std::size_t>(count));
  indices.resize(static_cast<std::size_t>(count));
  for (std::int64_t i = 0; i < count; ++i) {
    indices[static_cast<std::size_t>(i)] = order[static_cast<std::size_t>(i)];
    values[static_cast<std::size_t>(i)] = items[static_cast<std::size_t>(order[static_cast<std::size_t>(i)])];
  }
}

/// Over pieces: the flat reference once per piece, in piece order; piece s's k entries
/// at values[s * k + j], indices[s * k + j] (within the piece), index -1 past its length.
template <class It, class Pieces, class ValueOut, class IndexOut, class Compare>
void top_k_pieces(It first, const Pieces& pieces, std::int64_t k, ValueOut values, IndexOut indices, Compare comp) {
  using V = typename std::iterator_traits<It>::value_type;
  std::vector<V> best;
  std::vector<std::int64_t> where;
  for (std::int64_t s = 0; s < pieces.count(); ++s) {
    const It begin = first + pieces.begin(s);
    top_k(begin, begin + pieces.length(s), k, best, where, comp);
    for (std::int64_t j = 0; j < k; ++j) {
      if (j < static_cast<std::int64_t>(best.size())) {
        values[s * k + j] = best[static_cast<std::size_t>(j)];
        indices[s * k + j] = where[static_cast<std::size_t>(j)];
      } else {
        indices[s * k + j] = -1;
      }
    }
  }
}

}  // namespace backend_host
TALLY_NAMESPACE_END
