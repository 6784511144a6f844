#pragma once
// The launch of a single-pass kernel: its grid (at most the blocks resident at once, at
// most one per full tile, at least one) and its scratch.

#include <tally/detail/runtime/cuda_check.cuh>
#include <tally/detail/runtime/device_context.cuh>
#include <tally/detail/runtime/kernel_policy.cuh>
#include <tally/detail/runtime/pdl.cuh>
#include <tally/detail/runtime/scratch.cuh>

TALLY_NAMESPACE_BEGIN
namespace detail {

/// The grid of a single-pass kernel over `full_tiles` full tiles: one block per tile, at
/// most the blocks resident at once, and one block for up to `one_block_tiles` tiles.
inline int single_pass_grid(const device_context& ctx, const kernel_shape& shape, std::int64_t full_tiles,
                            int one_block_tiles = 1) {
  const std::int64_t max_grid = std::int64_t(ctx.sm_count) * shape.blocks_per_sm;
  return static_cast<int>(full_tiles <= one_block_tiles ? 1 : (full_tiles < max_grid ? full_tiles : max_grid));
}

/// one_block_tiles for kernels whose blocks meet in a last-block combine (reductions,
/// extrema, top_k): up to two full tiles run in one block. A second tile costs that block
/// one more round of loads; a second block costs the combine (a partial written, an
/// atomic, a fence, the partials read again), which at these sizes is the larger: the
/// H100 A/B of 2026-11-25 (docs/performance.md#small-inputs) ran max_element and top_k<2>
/// at 2^12 and float sums at 2^14 (two tiles each) 4-10% faster in one block.
inline constexpr int combine_one_block_tiles = 2;

/// Launches a single-pass kernel whose last parameter is a scratch_view, with `grid`
/// blocks. One block needs neither the counter nor partials; more get scratch with
/// partial_bytes_per_block bytes per block, leased until the launch is queued.
template <auto Kernel, class... Args>
void launch_with_scratch(const char* algorithm, const device_context& ctx, const call_stream& where,
                         const kernel_shape& shape, int grid, std::size_t partial_bytes_per_block,
                         const Args&... args) {
  const int threads = shape.policy.threads;
  const cudaStream_t stream = where.stream;
  if (grid == 1) {
    check(launch_kernel(Kernel, ctx.arch, 1, threads, stream, args..., scratch_view{}), algorithm,
          "kernel launch failed");
    return;
  }
  scratch_lease lease(algorithm, ctx, where, std::size_t(grid) * partial_bytes_per_block);
  check(launch_kernel(Kernel, ctx.arch, grid, threads, stream, args..., lease.view()), algorithm,
        "kernel launch failed");
}

/// launch_with_scratch with the grid of single_pass_grid.
template <auto Kernel, class... Args>
void launch_single_pass(const char* algorithm, const device_context& ctx, const call_stream& where,
                        const kernel_shape& shape, std::int64_t full_tiles, int one_block_tiles,
                        std::size_t partial_bytes_per_block, const Args&... args) {
  launch_with_scratch<Kernel>(algorithm, ctx, where, shape, single_pass_grid(ctx, shape, full_tiles, one_block_tiles),
                              partial_bytes_per_block, args...);
}

}  // namespace detail
TALLY_NAMESPACE_END
