#pragma once
// The host backend's top_k: one sequential pass keeping the best K items seen so far,
// sorted best first (the device kernels' per-thread list, on one thread).

#include <tally/detail/config.cuh>

#include <cstdint>
#include <iterator>
#include <utility>

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

}  // namespace backend_host
TALLY_NAMESPACE_END
