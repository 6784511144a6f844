#pragma once
// The host backend's extrema: sequential, first occurrence wins.

#include <tally/detail/config.cuh>

#include <cstdint>
#include <utility>

TALLY_NAMESPACE_BEGIN
namespace backend_host {

/// Index of the first best item: the largest under comp when Max, else the smallest (0 for an
/// empty range; the callers return last / write n before asking).
template <bool Max, class It, class Compare>
std::int64_t extremum_index(It first, It last, Compare comp) {
  std::int64_t best = 0, index = 0;
  if (first == last) return 0;
  It best_it = first;
  for (It it = first; it != last; ++it, ++index) {
    const bool better = Max ? comp(*best_it, *it) : comp(*it, *best_it);
    if (better) {
      best_it = it;
      best = index;
    }
  }
  return best;
}

}  // namespace backend_host
TALLY_NAMESPACE_END
