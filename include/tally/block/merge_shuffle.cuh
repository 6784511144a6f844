#pragma once
// A block's top_k lists merged into one with shuffles (the warp_shuffle and atomic
// backends' merge): a butterfly of shuffles in each warp (warp/sorted_list.cuh), after
// which every lane of a warp holds the warp's best P; each warp's list goes to shared
// memory, and the first warp loads one list per lane and runs the butterfly again. The
// block's best P end in thread 0. `lists` is shared memory
// for one list per warp; a caller that uses it again must put a __syncthreads() in
// between.

#include <tally/warp/sorted_list.cuh>

TALLY_NAMESPACE_BEGIN
namespace detail {

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

}  // namespace detail
TALLY_NAMESPACE_END
