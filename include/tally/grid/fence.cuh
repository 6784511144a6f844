#pragma once
// The device-scope fences of the "publish, then arrive" patterns (last_block.cuh, the
// split rows' arrivals, the atomic backend's lists). A block publishes with plain stores
// or atomics, and one thread then counts the block in with a relaxed atomic: a release
// fence before that atomic makes the publications visible first. The thread that sees
// the last arrival takes an acquire fence (or an acquire atomic) before it, or its
// block's threads after a __syncthreads, read what was published.
//
// Both are fence.acq_rel.gpu (MEMBAR.ALL.GPU, then an invalidation of the SM's L1). Not
// __threadfence(): that is fence.sc.gpu (MEMBAR.SC.GPU), sequentially consistent, which
// none of these patterns needs and which costs more on every arrival's path.

#include <tally/detail/config.cuh>

#include <cuda/atomic>

TALLY_NAMESPACE_BEGIN
namespace detail {

/// Before an arrival: what this thread (and, through a __syncthreads or __syncwarp before,
/// its block or warp) wrote is visible at device scope before the arrival's atomic.
__device__ TALLY_FORCEINLINE void release_fence() {
  cuda::atomic_thread_fence(cuda::std::memory_order_release, cuda::thread_scope_device);
}

/// After seeing the last arrival (or, in the last block, after the __syncthreads that
/// follows thread 0's acquire): every publication the arrivals released is visible to the
/// loads after it, none served from a stale L1 line.
__device__ TALLY_FORCEINLINE void acquire_fence() {
  cuda::atomic_thread_fence(cuda::std::memory_order_acquire, cuda::thread_scope_device);
}

}  // namespace detail
TALLY_NAMESPACE_END
