#pragma once
// Block-wide exclusive sum of one value per thread (int, or an unsigned word of packed
// counts) in shared memory: a Hillis-Steele scan
// over the block's values in two buffers, log2(Threads) rounds with a barrier each (no
// shuffles).

#include <tally/detail/config.cuh>

TALLY_NAMESPACE_BEGIN
namespace detail {

template <int Threads, class T = int>
class block_scan_tree {
 public:
  struct temp_storage {
    T values[2][Threads];
  };

  __device__ explicit block_scan_tree(temp_storage& storage) : storage_(storage) {}

  /// Returns the sum of the values of the threads before this one; `total` gets the
  /// sum over the block. Every thread must call it; a second call on the same storage
  /// needs a __syncthreads() in between.
  __device__ T exclusive_sum(T value, T& total) {
    const int tid = static_cast<int>(threadIdx.x);
    int in = 0;
    storage_.values[in][tid] = value;
    __syncthreads();
#pragma unroll
    for (int offset = 1; offset < Threads; offset *= 2) {
      const T sum = storage_.values[in][tid] + (tid >= offset ? storage_.values[in][tid - offset] : T(0));
      storage_.values[1 - in][tid] = sum;
      in = 1 - in;
      __syncthreads();
    }
    total = storage_.values[in][Threads - 1];
    return storage_.values[in][tid] - value;
  }

 private:
  temp_storage& storage_;
};

}  // namespace detail
TALLY_NAMESPACE_END
