#pragma once
// The ballots of a warp that appends N slots a lane with one atomic (the top_k kernels'
// appends): which lanes want each slot, and how many slots in all.

#include <tally/detail/config.cuh>

TALLY_NAMESPACE_BEGIN
namespace detail {

/// mask[u]: the lanes with want[u]; returns the warp's total. Every lane of the warp calls it.
template <int N>
__device__ TALLY_FORCEINLINE unsigned int slot_ballots(const bool (&want)[N], unsigned int (&mask)[N]) {
  unsigned int total = 0;
#pragma unroll
  for (int u = 0; u < N; ++u) {
    mask[u] = __ballot_sync(0xffffffffu, want[u]);
    total += static_cast<unsigned int>(__popc(mask[u]));
  }
  return total;
}

}  // namespace detail
TALLY_NAMESPACE_END
