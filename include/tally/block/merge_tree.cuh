#pragma once
// A block's top_k lists merged into one in shared memory (the shared_memory backend's
// merge): a butterfly of shuffles in each warp first (warp/sorted_list.cuh), after which
// every lane of a warp holds the warp's best P; then the warps' lists are merged pairwise
// in shared memory, log2(warps) rounds; in each round one warp merges two lists, lane i
// placing the i-th entry of each at its rank in the union (merge by ranks, below). The
// block's best P end in thread 0. `lists` is shared memory for one list per warp; a
// caller that uses it again must put a __syncthreads() in between.

#include <tally/warp/sorted_list.cuh>

TALLY_NAMESPACE_BEGIN
namespace detail {

/// The lanes [0, count) of a warp, 1 <= count <= 32.
__device__ TALLY_FORCEINLINE unsigned int lane_mask_below(int count) {
  return count >= 32 ? full_warp_mask : (1u << count) - 1u;
}

/// Merge by ranks, B into A (both sorted lists of P entries, lane i < P holding the i-th
/// of each): B's j-th entry goes to j + cut_j, where its cut is the number of A's entries
/// it does not beat, and A's i-th entry to i + (the number of B's entries whose cut is at
/// most i). The cuts are made non-decreasing (a running maximum over the lanes) before
/// they are used: under a strict weak order they already are, and the merge is the usual
/// one, but a comparator that contradicts itself can give B's entries cuts out of order,
/// and then two ranks could collide, two lanes writing one place of A (a shared-memory
/// race, and a repeated index in the result). With monotone cuts the ranks are always a
/// permutation of [0, 2P): each place is written once, whatever the comparator answers.
/// One comparator call per pair of entries.
template <int P, class C, class Rank>
__device__ TALLY_FORCEINLINE int cut_into(const C* a, const C& mine_b, int lane, const Rank& rank) {
  int cut = 0;
#pragma unroll 8
  for (int i = 0; i < P; ++i) cut += !rank.better(mine_b, a[i]);
#pragma unroll
  for (int d = 1; d < P; d *= 2) {  // running maximum over lanes [0, lane]
    const int before = __shfl_up_sync(lane_mask_below(P), cut, d);
    if (lane >= d) cut = before > cut ? before : cut;
  }
  return cut;
}

/// The number of lanes j < P whose (non-decreasing) cut is at most `lane`.
template <int P>
__device__ TALLY_FORCEINLINE int cuts_at_or_below(int cut, int lane) {
  int count = 0;
#pragma unroll
  for (int i = 0; i < P; ++i) {
    const unsigned int at_or_below = __ballot_sync(lane_mask_below(P), cut <= i);
    if (lane == i) count = __popc(at_or_below);
  }
  return count;
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
        const int cut = cut_into<P>(a, mine_b, lane, rank);
        const int rank_b = lane + cut;
        const int rank_a = lane + cuts_at_or_below<P>(cut, lane);
        __syncwarp(lane_mask_below(P));  // every lane has read a and b before any writes
        // An empty entry of A at i lands at i + (B's real entries): together they fill
        // the places after the real ones, once each. B's empty entries (cut P: they beat
        // nothing) land at P or later and are not written.
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
