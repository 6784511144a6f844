#pragma once
// Block-wide reduction as a tree in shared memory (seed 003): every thread stores its
// value, then at each level thread t folds in the value of thread t + stride, halving
// the stride. Levels with a stride of at least a warp need a block barrier; the last
// five levels involve one warp only, which __syncwarp keeps in step.

#include <tally/detail/config.cuh>

TALLY_NAMESPACE_BEGIN
namespace detail {

template <class T, int Threads>
class block_reduce_tree {
  // The tree runs over the next power of two; threads past `Threads` don't exist and
  // are treated like invalid ones.
  static constexpr int tree_width = [] {
    int width = 1;
    while (width < Threads) width *= 2;
    return width;
  }();

 public:
  struct temp_storage {
    T values[Threads];
  };

  __device__ explicit block_reduce_tree(temp_storage& storage) : storage_(storage) {}

  /// Reduces the values of threads [0, valid) of the block; the result is in thread 0.
  /// Every thread must call it. `valid` must be the same in all threads.
  template <class Op>
  __device__ T reduce(T value, int valid, Op op) {
    const int tid = static_cast<int>(threadIdx.x);
    const int limit = valid < Threads ? valid : Threads;
    if (tid < limit) storage_.values[tid] = value;
    __syncthreads();
#pragma unroll
    for (int stride = tree_width / 2; stride >= 32; stride /= 2) {
      if (tid < stride && tid + stride < limit) storage_.values[tid] = op(storage_.values[tid], storage_.values[tid + stride]);
      __syncthreads();
    }
    T result = value;
    if (tid < 32) {
#pragma unroll
      for (int stride = (tree_width < 32 ? tree_width : 32) / 2; stride > 0; stride /= 2) {
        // Writers are below `stride` and read only at or above it, so one level has no
        // conflicts; __syncwarp orders the levels (lanes need not run in lockstep).
        if (tid < stride && tid + stride < limit) storage_.values[tid] = op(storage_.values[tid], storage_.values[tid + stride]);
        __syncwarp();
      }
      // The root is read here, inside warp 0 and after its last __syncwarp. Outside this
      // block, `tid == 0 ? values[0] : value` let the compiler load values[0] in every
      // thread (a shared-memory load can't fault, so it may be speculated) and select
      // afterwards: threads of other warps then read the root while warp 0 still wrote
      // it, which racecheck reports. Here only warp 0 can execute the load.
      if (tid == 0) result = storage_.values[0];
    }
    return result;  // meaningful in thread 0
  }

 private:
  temp_storage& storage_;
};

}  // namespace detail
TALLY_NAMESPACE_END
