#pragma once
// Block-wide exclusive sum of one value per thread (int, or an unsigned word of packed
// counts) with warp shuffles: each warp scans its
// 32 values with __shfl_up_sync, the warps' totals go through shared memory, and the
// first warp scans those with shuffles again. Two barriers.

#include <tally/warp/shuffle.cuh>

TALLY_NAMESPACE_BEGIN
namespace detail {

template <int Threads, class T = int>
class block_scan_shuffle {
  static constexpr int warps = Threads / 32;

 public:
  struct temp_storage {
    T warp_offsets[warps];
    T total;
  };

  __device__ explicit block_scan_shuffle(temp_storage& storage) : storage_(storage) {}

  /// Returns the sum of the values of the threads before this one; `total` gets the
  /// sum over the block. Every thread must call it; a second call on the same storage
  /// needs a __syncthreads() in between.
  __device__ T exclusive_sum(T value, T& total) {
    const int warp = static_cast<int>(threadIdx.x) / 32;
    const int lane = static_cast<int>(threadIdx.x) & 31;
    T inclusive = value;
#pragma unroll
    for (int offset = 1; offset < 32; offset *= 2) {
      const T other = __shfl_up_sync(full_warp_mask, inclusive, offset);
      if (lane >= offset) inclusive += other;
    }
    if (lane == 31) storage_.warp_offsets[warp] = inclusive;
    __syncthreads();
    if (warp == 0) {
      const T warp_total = lane < warps ? storage_.warp_offsets[lane] : T(0);
      T warp_inclusive = warp_total;
#pragma unroll
      for (int offset = 1; offset < 32; offset *= 2) {
        const T other = __shfl_up_sync(full_warp_mask, warp_inclusive, offset);
        if (lane >= offset) warp_inclusive += other;
      }
      if (lane < warps) storage_.warp_offsets[lane] = warp_inclusive - warp_total;
      if (lane == warps - 1) storage_.total = warp_inclusive;
    }
    __syncthreads();
    total = storage_.total;
    return storage_.warp_offsets[warp] + inclusive - value;
  }

 private:
  temp_storage& storage_;
};

}  // namespace detail
TALLY_NAMESPACE_END
