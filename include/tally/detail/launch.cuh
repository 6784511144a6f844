#pragma once
// Launch helpers: occupancy (read once per (kernel, device) and cached) and the launch
// of a single-pass kernel with its grid and scratch.

#include <tally/detail/cuda_check.cuh>
#include <tally/detail/device_context.cuh>
#include <tally/detail/pdl.cuh>
#include <tally/detail/scratch.cuh>

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

/// Launches a single-pass kernel whose last parameter is a scratch_view: one block per
/// full tile up to as many as are resident at once (at least one block). One block
/// needs neither the counter nor partials; more get scratch with partial_bytes_per_block
/// bytes per block, leased until the launch is queued.
template <auto Kernel, class... Args>
void launch_single_pass(const char* algorithm, const device_context& ctx, cudaStream_t stream, int threads,
                        std::int64_t full_tiles, std::size_t partial_bytes_per_block, const Args&... args) {
  const std::int64_t max_grid = std::int64_t(ctx.sm_count) * max_blocks_per_sm<Kernel>(algorithm, ctx, threads);
  const int grid = static_cast<int>(full_tiles < 1 ? 1 : (full_tiles < max_grid ? full_tiles : max_grid));
  if (grid == 1) {
    check(launch_kernel(Kernel, ctx.arch, 1, threads, stream, args..., scratch_view{}), algorithm,
          "kernel launch failed");
    return;
  }
  scratch_lease lease(algorithm, ctx, stream, std::size_t(grid) * partial_bytes_per_block);
  check(launch_kernel(Kernel, ctx.arch, grid, threads, stream, args..., lease.view()), algorithm,
        "kernel launch failed");
}

}  // namespace detail
TALLY_NAMESPACE_END
