#pragma once
// Launch helpers: occupancy, read once per (kernel, device) and cached.

#include <tally/detail/cuda_check.cuh>
#include <tally/detail/device_context.cuh>

#include <atomic>

TALLY_NAMESPACE_BEGIN
namespace detail {

/// How many blocks of `threads` threads of `Kernel` fit on one multiprocessor.
template <auto Kernel>
int max_blocks_per_sm(const char* algorithm, const device_context& ctx, int threads) {
  static std::atomic<int> cache[max_cached_devices];  // zero: not read yet
  const bool cacheable = ctx.device >= 0 && ctx.device < max_cached_devices;
  if (cacheable) {
    const int cached = cache[ctx.device].load(std::memory_order_relaxed);
    if (cached > 0) return cached;
  }
  int blocks = 0;
  check(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, Kernel, threads, 0), algorithm,
        "cannot compute the kernel's occupancy");
  if (blocks < 1) blocks = 1;
  if (cacheable) cache[ctx.device].store(blocks, std::memory_order_relaxed);
  return blocks;
}

}  // namespace detail
TALLY_NAMESPACE_END
