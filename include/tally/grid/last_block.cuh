#pragma once
// "Last block done": how a single launch finishes a reduction without any block ever
// waiting for another (seed 001 made safe).
//
// Each block publishes its result (a partial in scratch, or an atomic into the slot)
// and then bumps a counter with one acq_rel atomic at device scope:
// - release: the block's result is visible device-wide before the count includes it;
// - acquire: the block that sees count == grid - 1 (the last to finish) sees every
//   other block's result.
// That block alone finishes the work and sets the counter back to zero for the next
// call on the stream. Nothing spins, so it works whether or not all blocks are resident.

#include <tally/detail/runtime/scratch.cuh>
#include <tally/grid/fence.cuh>
#include <tally/warp/sorted_list.cuh>

#include <cuda/atomic>

TALLY_NAMESPACE_BEGIN
namespace detail {

/// Called by one thread per block after publishing the block's result; true in the
/// last block to arrive.
__device__ TALLY_FORCEINLINE bool arrive_and_check_last(unsigned int* counter) {
  cuda::atomic_ref<unsigned int, cuda::thread_scope_device> count(*counter);
  return count.fetch_add(1u, cuda::std::memory_order_acq_rel) == gridDim.x - 1;
}

/// Called by the last block when it is done with the counter.
__device__ TALLY_FORCEINLINE void reset_counter(unsigned int* counter) {
  // Relaxed is enough: the next kernel on the stream starts after this one ends.
  cuda::atomic_ref<unsigned int, cuda::thread_scope_device>(*counter).store(0u, cuda::std::memory_order_relaxed);
}


/// The last-block combine of a reduction whose blocks each hold one value in thread 0
/// (`block`): each block writes its partial and arrives; the block that arrives last folds
/// the partials in block order with BlockReduce (so the result depends only on the grid,
/// not on which block came last) and calls `finish(out, total)` in thread 0. `storage` is
/// BlockReduce's shared memory, free on entry. Every thread of the block calls it.
template <class BlockReduce, int Threads, class T, class Op, class Finish, class Out>
__device__ void last_block_reduce(const T& block, typename BlockReduce::temp_storage& storage, Op op,
                                  const Finish& finish, Out out, const scratch_view& scratch) {
  __shared__ bool is_last;
  const int tid = static_cast<int>(threadIdx.x);
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
  acquire_fence();
  const int grid = static_cast<int>(gridDim.x);
  T folded;
  bool has = false;
  for (int i = tid; i < grid; i += Threads) {
    folded = has ? op(folded, partials[i]) : partials[i];
    has = true;
  }
  const T total = BlockReduce(storage).reduce(folded, grid < Threads ? grid : Threads, op);
  if (tid == 0) {
    finish(out, total);
    reset_counter(scratch.counter);
  }
}

/// A whole reduction after each thread's accumulation, for a backend whose blocks combine
/// through partials and the last block: BlockReduce over the block's threads [0, valid),
/// then last_block_reduce (one block: thread 0 finishes at once).
template <template <class, int> class BlockReduce, int Threads, class T, class Op, class Finish, class Out>
__device__ void reduce_by_last_block(const T& acc, int valid, Op op, const Finish& finish, Out out,
                                     const scratch_view& scratch) {
  using block_reduce_t = BlockReduce<T, Threads>;
  __shared__ typename block_reduce_t::temp_storage storage;
  const T block = block_reduce_t(storage).reduce(acc, valid, op);
  if (gridDim.x == 1) {
    if (threadIdx.x == 0) finish(out, block);
    return;
  }
  last_block_reduce<block_reduce_t, Threads>(block, storage, op, finish, out, scratch);
}

/// The last-block combine of top_k lists: each block has merged its threads' lists into
/// thread 0's `list` (with BlockMerge), writes it to its partials and arrives; the block
/// that arrives last merges the blocks' lists (each thread a share, then BlockMerge
/// again). Returns true in that block's thread 0, whose `list` is then the grid's best P.
/// block_merge(list, lists) merges with `lists`, shared memory for one list per warp. The
/// result does not depend on the order of any merge: the order on candidates is total
/// (detail/top_k/candidates.cuh).
template <int Threads, int P, class C, class Rank, class BlockMerge>
__device__ bool last_block_merge(C (&list)[P], const Rank& rank, const scratch_view& scratch,
                                 BlockMerge block_merge) {
  // Raw storage: C may have default member initialisers, which __shared__ can't run.
  __shared__ alignas(C) unsigned char storage[sizeof(C) * (Threads / 32) * P];
  auto& lists = *reinterpret_cast<C(*)[Threads / 32][P]>(storage);
  __shared__ bool is_last;
  const int tid = static_cast<int>(threadIdx.x);
  block_merge(list, lists);
  if (gridDim.x == 1) return tid == 0;
  C* partials = static_cast<C*>(scratch.partials);
  if (tid == 0) {
#pragma unroll
    for (int i = 0; i < P; ++i) partials[std::size_t(blockIdx.x) * P + i] = list[i];
    is_last = arrive_and_check_last(scratch.counter);
  }
  __syncthreads();
  if (!is_last) return false;
  // As in last_block_reduce: thread 0 acquired the other blocks' lists, the barrier
  // passes that on, and the fence keeps loads from a stale L1 line.
  acquire_fence();
  const int grid = static_cast<int>(gridDim.x);
  if (grid <= 32) {
    // Few lists (the grid of a small input): warp 0 alone, lane b holding block b's list,
    // merges them in ceil(log2(grid)) butterfly rounds, not the whole block merge again.
    if (tid >= 32) return false;
    if (tid < grid) {
      const C* mine = partials + std::size_t(tid) * P;
#pragma unroll
      for (int i = 0; i < P; ++i) list[i] = mine[i];
    } else {
      fill_empty(list, rank);
    }
    int lanes = 1;
    while (lanes < grid) lanes *= 2;
#pragma unroll 1
    for (int mask = lanes / 2; mask > 0; mask /= 2) merge_with_lane(list, mask, rank);
    if (tid == 0) reset_counter(scratch.counter);
    return tid == 0;
  }
  fill_empty(list, rank);
  for (int b = tid; b < grid; b += Threads) {
    const C* other = partials + std::size_t(b) * P;
    merge_with(list, [other](int j) { return other[j]; }, rank);
  }
  __syncthreads();  // `lists` is reused
  block_merge(list, lists);
  if (tid == 0) reset_counter(scratch.counter);
  return tid == 0;
}

}  // namespace detail
TALLY_NAMESPACE_END
