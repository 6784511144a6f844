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

#include <tally/detail/config.cuh>

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

}  // namespace detail
TALLY_NAMESPACE_END
