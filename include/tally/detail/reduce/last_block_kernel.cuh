#pragma once
// The reduce kernel of the shared_memory and warp_shuffle backends, which differ only
// in their block-wide reduction (BlockReduce). One launch:
//   1. per-thread accumulation (thread_accumulate.cuh);
//   2. a block reduction to one partial per block;
//   3. each block writes its partial and arrives at the counter (grid_sync.cuh);
//   4. the last block folds the partials in block order and finishes (reduce writes
//      op(init, total); see plan.cuh).
// T is the accumulator; `convert`, `op` and `finish` come from a plan (plan.cuh).
// The order of every fold depends only on n, the tuning and the grid size, never on
// which block finishes last, so the result is bitwise reproducible on a given GPU model.

#include <tally/detail/pdl.cuh>
#include <tally/detail/reduce/grid_sync.cuh>
#include <tally/detail/reduce/thread_accumulate.cuh>
#include <tally/detail/scratch.cuh>

TALLY_NAMESPACE_BEGIN
namespace detail {

template <template <class, int> class BlockReduce, int Threads, int ItemsPerThread, class T, class It, class Convert,
          class Op, class Finish, class Out>
TALLY_KERNEL void __launch_bounds__(Threads) last_block_reduce_kernel(input_range<It> in, Convert convert, Op op,
                                                                      Finish finish, Out out, scratch_view scratch) {
  using block_reduce_t = BlockReduce<T, Threads>;
  __shared__ typename block_reduce_t::temp_storage storage;
  __shared__ bool is_last;
  const int tid = static_cast<int>(threadIdx.x);
  wait_for_prior_grids();

  int valid;
  const T acc = thread_accumulate<Threads, ItemsPerThread, T>(in, convert, op, valid);
  if (valid == 0) {  // an empty range (the grid is then one block)
    if (tid == 0) finish.empty(out);
    return;
  }
  const T block = block_reduce_t(storage).reduce(acc, valid, op);
  if (gridDim.x == 1) {
    if (tid == 0) finish(out, block);
    return;
  }

  T* partials = static_cast<T*>(scratch.partials);
  if (tid == 0) {
    partials[blockIdx.x] = block;
    is_last = arrive_and_check_last(scratch.counter);
  }
  __syncthreads();
  if (!is_last) return;

  // Thread 0 acquired the other blocks' partials; the barrier above passes that on to
  // this block's threads, and the fence keeps their loads from being served by a stale
  // L1 line.
  __threadfence();
  const int grid = static_cast<int>(gridDim.x);
  T folded;
  bool has = false;
  for (int i = tid; i < grid; i += Threads) accumulate(folded, has, partials[i], op);
  __syncthreads();  // `storage` is reused
  const T total = block_reduce_t(storage).reduce(folded, grid < Threads ? grid : Threads, op);
  if (tid == 0) {
    finish(out, total);
    reset_counter(scratch.counter);
  }
}

}  // namespace detail
TALLY_NAMESPACE_END
