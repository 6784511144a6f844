#pragma once
// From a copy_if call to a kernel launch: stable or unordered, the block scan of the
// backend, the launch shape, and the scratch (tile states, counters).

#include <tally/backend/shared_memory/block_scan.cuh>
#include <tally/backend/warp_shuffle/block_scan.cuh>
#include <tally/detail/copy_if/kernels.cuh>
#include <tally/detail/launch.cuh>
#include <tally/policy.cuh>

TALLY_NAMESPACE_BEGIN
namespace detail {

/// Items per thread when the policy does not say: 16 of up to 4 bytes, 8 of 8 bytes, 4 of
/// 16, 2 of anything larger. The stable kernel stages two tiles in shared memory, and
/// 256 x 16 x 4 bytes x 2 = 32 KiB is as much as it double-buffers (tile_compaction).
/// On an H100, int32 at 2^24..2^28 (a timing sweep, 2026-11-23): 256 x 16 ran 5-15%
/// faster than 256 x 8 and up to 4% faster than 128 x 16; 512 x 16 (too big to
/// double-buffer) 2.5x slower.
template <class V>
inline constexpr int default_copy_if_items = sizeof(V) <= 4 ? 16 : (sizeof(V) <= 8 ? 8 : (sizeof(V) <= 16 ? 4 : 2));
inline constexpr int default_copy_if_threads = 256;

/// The block scan of a backend: shared_memory's, or warp_shuffle's for the others.
template <bool SharedMemory>
struct copy_if_scan {
  template <int Threads>
  using type = backend_warp_shuffle::block_scan<Threads>;
};
template <>
struct copy_if_scan<true> {
  template <int Threads>
  using type = backend_shared_memory::block_scan<Threads>;
};

/// Writes the selected items of [first, first + n) to result and their number to *count.
template <class Policy, class It, class Select, class OutIt, class CountOut>
void dispatch_copy_if(const char* algorithm, const Policy& policy, const device_context& ctx, It first,
                      std::int64_t n, Select select, OutIt result, CountOut count) {
  using V = iter_value_t<It>;
  using backend_tag = typename Policy::backend_type;
  constexpr int threads = Policy::threads > 0 ? Policy::threads : default_copy_if_threads;
  constexpr int items = Policy::items_per_thread > 0 ? Policy::items_per_thread : default_copy_if_items<V>;
  static_assert(threads % 32 == 0 && threads <= 1024 && items >= 1, "tally: invalid launch shape");
  constexpr bool tree = std::is_same_v<backend_tag, backend::shared_memory_t>;
  static_assert(!(Policy::is_unordered && Policy::is_deterministic),
                "tally: copy_if under unordered() writes the items in an order that changes from run to run; it "
                "cannot also be deterministic()");
  // The atomic backend reserves output room with atomics: unordered, unless the policy
  // asks for deterministic results, which the stable path gives.
  constexpr bool unordered =
      Policy::is_unordered || (std::is_same_v<backend_tag, backend::atomic_t> && !Policy::is_deterministic);
  constexpr std::int64_t tile = std::int64_t(threads) * items;
  const std::int64_t tiles = n > 0 ? (n + tile - 1) / tile : 1;
  const cudaStream_t stream = policy.stream();

  if constexpr (unordered) {
    constexpr auto kernel = unordered_copy_if_kernel<copy_if_scan<tree>::template type, threads, items, It, Select,
                                                     OutIt, CountOut>;
    launch_single_pass<kernel>(algorithm, ctx, stream, threads, tiles, 0, first, n, select, result, count);
  } else {
    constexpr auto kernel = stable_copy_if_kernel<copy_if_scan<tree>::template type, threads, items, It, Select,
                                                  OutIt, CountOut>;
    // A status word holds counts of up to 46 bits (tile_status.cuh): 7 x 10^13 items.
    if (n > tile_status::max_count)
      throw_error(algorithm, "too many items for one stable call (more than 2^46 - 1); unordered() has no limit");
    // A grid of resident blocks (they loop over the tiles); one status word per tile.
    const std::int64_t max_grid = std::int64_t(ctx.sm_count) * max_blocks_per_sm<kernel>(algorithm, ctx, threads);
    const int grid = static_cast<int>(tiles < max_grid ? tiles : max_grid);
    if (grid == 1) {
      check(launch_kernel(kernel, ctx.arch, 1, threads, stream, first, n, select, result, count, 0u, scratch_view{}),
            algorithm, "kernel launch failed");
      return;
    }
    // The status words carry this launch's epoch (tile_status.cuh): no clearing per call.
    // The ticket and the counter of finished blocks are zero between calls, as the
    // reductions' counter and slot are (the last block resets them).
    const std::size_t status_bytes = std::size_t(tiles) * sizeof(tile_status::word);
    scratch_lease lease(algorithm, ctx, stream, status_bytes, scratch_use::tile_status);
    check(launch_kernel(kernel, ctx.arch, grid, threads, stream, first, n, select, result, count,
                        lease.status_epoch(), lease.view()),
          algorithm, "kernel launch failed");
  }
}

}  // namespace detail
TALLY_NAMESPACE_END
