#pragma once
// From a copy_if call to its launch: stable or unordered (the policy's choice), one
// kernel per call site (its block scan and shape from the selector), the grid and the
// scratch (tile states, counters).

#include <tally/detail/copy_if/kernels.cuh>
#include <tally/detail/runtime/launch.cuh>
#include <tally/policy.cuh>

TALLY_NAMESPACE_BEGIN
namespace detail {

/// Launches Selector's copy_if kernel over [first, first + n), unless n is above what the
/// kernel runs for (a small-input kernel's limit); returns whether it launched.
template <class Selector, class Policy, class It, class Select, class OutIt, class CountOut>
bool launch_copy_if(const char* algorithm, const Policy& policy, const device_context& ctx, It first,
                    std::int64_t n, Select select, OutIt result, CountOut count) {
  const call_stream where = call_stream_of(policy);
  const cudaStream_t stream = where.stream;
  if constexpr (Policy::is_unordered) {
    constexpr auto kernel = unordered_copy_if_kernel<Selector, It, Select, OutIt, CountOut>;
    const kernel_shape shape = shape_of<Selector, kernel>(algorithm, ctx);
    if (n > shape.max_items) return false;
    const std::int64_t tile = std::int64_t(shape.policy.threads) * shape.policy.items_per_thread;
    const std::int64_t tiles = n > 0 ? (n + tile - 1) / tile : 1;
    launch_single_pass<kernel>(algorithm, ctx, where, shape, tiles, 1, 0, first, n, select, result, count);
  } else {
    constexpr auto kernel = stable_copy_if_kernel<Selector, It, Select, OutIt, CountOut>;
    const kernel_shape shape = shape_of<Selector, kernel>(algorithm, ctx);
    if (n > shape.max_items) return false;
    const std::int64_t tile = std::int64_t(shape.policy.threads) * shape.policy.items_per_thread;
    const std::int64_t tiles = n > 0 ? (n + tile - 1) / tile : 1;
    // A grid of resident blocks (they loop over the tiles); one status word per tile.
    const int grid = single_pass_grid(ctx, shape, tiles);
    const int threads = shape.policy.threads;
    if (grid == 1) {
      check(launch_kernel(kernel, ctx.arch, 1, threads, stream, first, n, select, result, count, 0u, scratch_view{}),
            algorithm, "kernel launch failed");
      return true;
    }
    // The status words carry this launch's epoch (look_back.cuh): no clearing per call.
    // The ticket and the counter of finished blocks are zero between calls, as the
    // reductions' counter and slot are (the last block resets them).
    const std::size_t status_bytes = std::size_t(tiles) * sizeof(tile_status::word);
    scratch_lease lease(algorithm, ctx, where, status_bytes, scratch_use::tile_status);
    check(launch_kernel(kernel, ctx.arch, grid, threads, stream, first, n, select, result, count,
                        lease.status_epoch(), lease.view()),
          algorithm, "kernel launch failed");
  }
  return true;
}

/// Writes the selected items of [first, first + n) to result and their number to *count:
/// the class's kernel (copy_if or copy_if_unordered), or, for the inputs its rule admits,
/// the small-input kernel (smaller tiles; two kernels per call site).
template <class Policy, class It, class Select, class OutIt, class CountOut>
void dispatch_copy_if(const char* algorithm, const Policy& policy, const device_context& ctx, It first,
                      std::int64_t n, Select select, OutIt result, CountOut count) {
  using V = iter_value_t<It>;
  static_assert(!(Policy::is_unordered && Policy::is_deterministic),
                "tally: copy_if under unordered() writes the items in an order that changes from run to run; it "
                "cannot also be deterministic()");
  // A status word holds counts of up to 46 bits (grid/look_back.cuh): 7 x 10^13 items.
  if (!Policy::is_unordered && n > tile_status::max_count)
    throw_error(algorithm, "too many items for one stable call (more than 2^46 - 1); unordered() has no limit");
  constexpr auto kind = Policy::is_unordered ? tuning::kernel_class::copy_if_unordered : tuning::kernel_class::copy_if;
  if constexpr (has_small_kernel_v<kind, Policy>) {
    using small = selector_for<tuning::small_class_of(kind), int(sizeof(V)), 1, Policy>;
    if (launch_copy_if<small>(algorithm, policy, ctx, first, n, select, result, count)) return;
  }
  launch_copy_if<selector_for<kind, int(sizeof(V)), 1, Policy>>(algorithm, policy, ctx, first, n, select, result,
                                                                 count);
}

}  // namespace detail
TALLY_NAMESPACE_END
