#pragma once
// Merging the lists of a block into one, two ways (the backends' difference for top_k).
// Both start with a butterfly of shuffles in each warp (sorted_list.cuh), after which
// every lane of a warp holds the warp's best P, and both leave the block's best P in
// thread 0. `lists` is shared memory for one list per warp; a caller that uses it
// again must put a __syncthreads() in between.
//
// - shuffle_merge (warp_shuffle, automatic, atomic): each warp's list goes to shared
//   memory, and the first warp loads one list per lane and runs the butterfly again.
// - shared_memory_tree_merge (shared_memory): the warps' lists are merged pairwise in
//   shared memory, log2(warps) rounds; in each round one warp merges two lists, lane i
//   placing the i-th entry of each at its rank in the union (merge by ranks: the i-th
//   of A goes to i + the number of B's entries that beat it).

#include <tally/detail/top_k/sorted_list.cuh>

TALLY_NAMESPACE_BEGIN
namespace detail {

/// The lanes [0, count) of a warp, 1 <= count <= 32.
__device__ TALLY_FORCEINLINE unsigned int lane_mask_below(int count) {
  return count >= 32 ? full_warp_mask : (1u << count) - 1u;
}

template <int Threads, int P, class C, class Rank>
__device__ TALLY_FORCEINLINE void shuffle_merge(C (&list)[P], C (&lists)[Threads / 32][P], const Rank& rank) {
  constexpr int warps = Threads / 32;
  merge_across_lanes<32>(list, rank);
  if constexpr (warps > 1) {
    const int warp = static_cast<int>(threadIdx.x) / 32;
    const int lane = static_cast<int>(threadIdx.x) & 31;
    if (lane == 0) {
#pragma unroll
      for (int i = 0; i < P; ++i) lists[warp][i] = list[i];
    }
    __syncthreads();
    if (warp == 0) {
      if (lane < warps) {
#pragma unroll
        for (int i = 0; i < P; ++i) list[i] = lists[lane][i];
      } else {
        fill_empty(list, rank);
      }
      merge_across_lanes<top_k_list_size(warps)>(list, rank);
    }
  }
}

template <int Threads, int P, class C, class Rank>
__device__ TALLY_FORCEINLINE void shared_memory_tree_merge(C (&list)[P], C (&lists)[Threads / 32][P],
                                                           const Rank& rank) {
  constexpr int warps = Threads / 32;
  merge_across_lanes<32>(list, rank);
  if constexpr (warps > 1) {
    const int warp = static_cast<int>(threadIdx.x) / 32;
    const int lane = static_cast<int>(threadIdx.x) & 31;
    if (lane == 0) {
#pragma unroll
      for (int i = 0; i < P; ++i) lists[warp][i] = list[i];
    }
    __syncthreads();
#pragma unroll 1
    for (int width = 1; width < warps; width *= 2) {
      if (warp % (2 * width) == 0 && warp + width < warps && lane < P) {
        C* a = lists[warp];
        const C* b = lists[warp + width];
        const C mine_a = a[lane], mine_b = b[lane];
        int rank_a = lane, rank_b = lane;
#pragma unroll 8
        for (int j = 0; j < P; ++j) {
          rank_a += rank.better(b[j], mine_a);
          rank_b += rank.better(a[j], mine_b);
        }
        __syncwarp(lane_mask_below(P));  // every lane has read a and b before any writes
        // An empty entry of A at i lands at i + (B's real entries): together they fill
        // the places after the real ones, once each. B's empty entries are not written.
        if (rank_a < P) a[rank_a] = mine_a;
        if (rank_b < P && !Rank::is_empty(mine_b)) a[rank_b] = mine_b;
      }
      __syncthreads();
    }
    if (threadIdx.x == 0) {
#pragma unroll
      for (int i = 0; i < P; ++i) list[i] = lists[0][i];
    }
  }
}

}  // namespace detail
TALLY_NAMESPACE_END
