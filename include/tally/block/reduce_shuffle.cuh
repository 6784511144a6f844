#pragma once
// Block-wide reduction with warp shuffles: each warp reduces its 32 values through
// __shfl_down_sync (no shared memory, no barrier), lane 0 of each warp puts the
// warp's result in shared memory, and the first warp reduces those with shuffles again.

#include <tally/warp/shuffle.cuh>

TALLY_NAMESPACE_BEGIN
namespace detail {

template <class T, int Threads>
class block_reduce_shuffle {
  static constexpr int warps = Threads / 32;

 public:
  struct temp_storage {
    T warp_results[warps];
  };

  __device__ explicit block_reduce_shuffle(temp_storage& storage) : storage_(storage) {}

  /// Reduces the values of threads [0, valid) of the block; the result is in thread 0.
  /// Every thread must call it. `valid` must be the same in all threads.
  template <class Op>
  __device__ T reduce(T value, int valid, Op op) {
    const int warp = static_cast<int>(threadIdx.x) / 32;
    const int lane = static_cast<int>(threadIdx.x) & 31;
    if (valid >= Threads) {
      value = warp_reduce<true>(value, 32, op);
    } else {
      value = warp_reduce<false>(value, valid - warp * 32, op);
    }
    if constexpr (warps == 1) {
      return value;
    } else {
      const int valid_warps = valid >= Threads ? warps : (valid + 31) / 32;
      if (lane == 0 && warp < valid_warps) storage_.warp_results[warp] = value;
      __syncthreads();
      if (warp == 0) {
        T warp_value = lane < valid_warps ? storage_.warp_results[lane] : value;
        value = warp_reduce<false>(warp_value, valid_warps, op);
      }
      return value;
    }
  }

 private:
  temp_storage& storage_;
};

}  // namespace detail
TALLY_NAMESPACE_END
