#pragma once
// A barrier across every block of a cooperative launch (cudaLaunchAttributeCooperative:
// the driver refuses the launch unless every block can be resident at once, so a block
// that waits never keeps a block it waits for from starting).
//
// The arrival counter only grows: barrier number `round` (1, 2, ...) opens when it has
// reached round * gridDim.x, so no block has to reset it between barriers (a reset races
// with a block still reading it). The kernel sets it back to zero after its last barrier
// (grid_barrier_reset), when no block reads it any more.
//
// Ordering: __syncthreads orders the block's writes before thread 0's arrival, whose
// release (fence.acq_rel.gpu before the atomic, cumulative over what the block barrier
// ordered) makes them visible at device scope before the count includes the block; the
// acquire loads of the wait (each one invalidates the SM's L1) make every other block's
// writes visible before any thread of the block goes on, through the __syncthreads after.
// No __threadfence: that is fence.sc.gpu (MEMBAR.SC.GPU), stronger and slower than the
// release and acquire the barrier needs, and it stood twice on every barrier's path.

#include <tally/detail/config.cuh>

#include <cuda/atomic>

TALLY_NAMESPACE_BEGIN
namespace detail {

/// Every thread of every block calls it with the same round (1 for the first barrier).
__device__ TALLY_FORCEINLINE void grid_barrier(unsigned int* arrivals, unsigned int round) {
  __syncthreads();
  if (threadIdx.x == 0) {
    cuda::atomic_ref<unsigned int, cuda::thread_scope_device> count(*arrivals);
    count.fetch_add(1u, cuda::std::memory_order_release);
    const unsigned int target = round * gridDim.x;
    while (count.load(cuda::std::memory_order_acquire) < target) __nanosleep(32);
  }
  __syncthreads();
}

/// The bits of grid_barrier_counted's word below its arrivals: the count (at most 2^44 - 1).
inline constexpr int counted_barrier_shift = 44;
inline constexpr unsigned long long counted_barrier_mask = (1ull << counted_barrier_shift) - 1;

/// A grid barrier that also returns the total of a count the blocks added to `word`
/// before it (the low counted_barrier_shift bits: e.g. items appended, one atomic a warp,
/// whose old values must be read through counted_barrier_mask): each block's arrival adds
/// 2^counted_barrier_shift to the same word, so the load that sees the last arrival also
/// reads the total, where a grid_barrier and then a read of the count took two L2 round
/// trips. Ordering as grid_barrier's. The word is zero before the first addition and
/// read by no block after this barrier (the kernel sets it back to zero at its end).
/// Every thread of every block calls it once; every thread gets the total.
__device__ TALLY_FORCEINLINE unsigned long long grid_barrier_counted(unsigned long long* word) {
  __shared__ unsigned long long total;
  __syncthreads();
  if (threadIdx.x == 0) {
    cuda::atomic_ref<unsigned long long, cuda::thread_scope_device> count(*word);
    count.fetch_add(1ull << counted_barrier_shift, cuda::std::memory_order_release);
    unsigned long long seen;
    while (((seen = count.load(cuda::std::memory_order_acquire)) >> counted_barrier_shift) < gridDim.x)
      __nanosleep(32);
    total = seen & counted_barrier_mask;
  }
  __syncthreads();
  return total;
}

/// After the last barrier: the last block to get here sets the counter back to zero (the
/// state scratch's zero between calls). `exits` is a second counter, zero on entry. True in
/// that block's thread 0, which may clear more of the kernel's zero-between-calls words:
/// every other block is past its last read of them. Relaxed: the count orders nothing but
/// the last block's reset after every block's last barrier (each block's own spin on the
/// counter ends before its exit is counted), and the next launch sees the zeros after
/// this one ends; acq_rel put a fence (MEMBAR.ALL.GPU) on every block's way out, waiting
/// for its output's stores.
__device__ TALLY_FORCEINLINE bool grid_barrier_reset(unsigned int* arrivals, unsigned int* exits) {
  __syncthreads();
  if (threadIdx.x == 0) {
    cuda::atomic_ref<unsigned int, cuda::thread_scope_device> done(*exits);
    if (done.fetch_add(1u, cuda::std::memory_order_relaxed) == gridDim.x - 1) {
      cuda::atomic_ref<unsigned int, cuda::thread_scope_device>(*arrivals).store(0u, cuda::std::memory_order_relaxed);
      done.store(0u, cuda::std::memory_order_relaxed);
      return true;
    }
  }
  return false;
}

}  // namespace detail
TALLY_NAMESPACE_END
