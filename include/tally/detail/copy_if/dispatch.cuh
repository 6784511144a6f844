#pragma once
// From a copy_if call to a kernel launch: stable or unordered, the block scan of the
// backend, the launch shape, and the scratch (tile states, counters).

#include <tally/backend/shared_memory/block_scan.cuh>
#include <tally/backend/warp_shuffle/block_scan.cuh>
#include <tally/detail/config_set.cuh>
#include <tally/detail/copy_if/kernels.cuh>
#include <tally/detail/launch.cuh>
#include <tally/policy.cuh>
#include <tally/tuning/copy_if.cuh>

TALLY_NAMESPACE_BEGIN
namespace detail {

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

/// A table's choice with the policy's forced scan and shape put in (the atomic backend
/// scans as warp_shuffle does).
template <class Policy>
constexpr tuning::copy_if_config adjust_copy_if_config(tuning::copy_if_config config) {
  using backend_tag = typename Policy::backend_type;
  if constexpr (std::is_same_v<backend_tag, backend::shared_memory_t>) config.backend = backend_id::shared_memory;
  else if constexpr (!std::is_same_v<backend_tag, backend::automatic_t>) config.backend = backend_id::warp_shuffle;
  if constexpr (Policy::threads > 0) {
    config.threads = Policy::threads;
    config.items_per_thread = Policy::items_per_thread;
  }
  return config;
}

/// The configurations some copy_if table can choose for (Unordered, ValueBytes).
template <bool Unordered, int ValueBytes, class Policy>
struct copy_if_candidates {
  static constexpr bool applies(const tuning::copy_if_rule& rule) {
    return rule.unordered == Unordered && ValueBytes <= rule.max_value_bytes;
  }
  template <std::size_t N>
  static constexpr void add_table(config_set<tuning::copy_if_config>& set, const tuning::copy_if_rule (&table)[N]) {
    for (std::size_t i = 0; i < N; ++i) {
      if (!applies(table[i])) continue;
      bool shadowed = false;  // behind an earlier rule that covers at least the same n
      for (std::size_t j = 0; j < i; ++j)
        shadowed = shadowed || (applies(table[j]) && table[j].max_log2_n >= table[i].max_log2_n);
      if (!shadowed) set.add(adjust_copy_if_config<Policy>(table[i].config));
    }
  }
  static constexpr config_set<tuning::copy_if_config> build() {
    config_set<tuning::copy_if_config> set;
    add_table(set, tuning::copy_if_sm90);
    add_table(set, tuning::copy_if_default);
    return set;
  }
  static constexpr config_set<tuning::copy_if_config> value = build();
};

/// One launch of the stable or the unordered kernel in one configuration.
template <bool Unordered, bool Tree, int Threads, int Items, class It, class Select, class OutIt, class CountOut>
void launch_copy_if(const char* algorithm, const device_context& ctx, cudaStream_t stream, It first, std::int64_t n,
                    Select select, OutIt result, CountOut count) {
  static_assert(Threads % 32 == 0 && Threads <= 1024 && Items >= 1, "tally: invalid launch shape");
  constexpr std::int64_t tile = std::int64_t(Threads) * Items;
  const std::int64_t tiles = n > 0 ? (n + tile - 1) / tile : 1;

  if constexpr (Unordered) {
    constexpr auto kernel = unordered_copy_if_kernel<copy_if_scan<Tree>::template type, Threads, Items, It, Select,
                                                     OutIt, CountOut>;
    launch_single_pass<kernel>(algorithm, ctx, stream, Threads, tiles, 0, first, n, select, result, count);
  } else {
    constexpr auto kernel = stable_copy_if_kernel<copy_if_scan<Tree>::template type, Threads, Items, It, Select,
                                                  OutIt, CountOut>;
    // A status word holds counts of up to 46 bits (tile_status.cuh): 7 x 10^13 items.
    if (n > tile_status::max_count)
      throw_error(algorithm, "too many items for one stable call (more than 2^46 - 1); unordered() has no limit");
    // A grid of resident blocks (they loop over the tiles); one status word per tile.
    const std::int64_t max_grid = std::int64_t(ctx.sm_count) * max_blocks_per_sm<kernel>(algorithm, ctx, Threads);
    const int grid = static_cast<int>(tiles < max_grid ? tiles : max_grid);
    if (grid == 1) {
      check(launch_kernel(kernel, ctx.arch, 1, Threads, stream, first, n, select, result, count, 0u, scratch_view{}),
            algorithm, "kernel launch failed");
      return;
    }
    // The status words carry this launch's epoch (tile_status.cuh): no clearing per call.
    // The ticket and the counter of finished blocks are zero between calls, as the
    // reductions' counter and slot are (the last block resets them).
    const std::size_t status_bytes = std::size_t(tiles) * sizeof(tile_status::word);
    scratch_lease lease(algorithm, ctx, stream, status_bytes, scratch_use::tile_status);
    check(launch_kernel(kernel, ctx.arch, grid, Threads, stream, first, n, select, result, count,
                        lease.status_epoch(), lease.view()),
          algorithm, "kernel launch failed");
  }
}

/// Writes the selected items of [first, first + n) to result and their number to *count.
template <class Policy, class It, class Select, class OutIt, class CountOut>
void dispatch_copy_if(const char* algorithm, const Policy& policy, const device_context& ctx, It first,
                      std::int64_t n, Select select, OutIt result, CountOut count) {
  using V = iter_value_t<It>;
  using backend_tag = typename Policy::backend_type;
  static_assert(Policy::threads == 0 || (Policy::threads % 32 == 0 && Policy::threads <= 1024 &&
                                         Policy::items_per_thread >= 1),
                "tally: invalid launch shape");
  static_assert(!(Policy::is_unordered && Policy::is_deterministic),
                "tally: copy_if under unordered() writes the items in an order that changes from run to run; it "
                "cannot also be deterministic()");
  // The atomic backend reserves output room with atomics: unordered, unless the policy
  // asks for deterministic results, which the stable path gives.
  constexpr bool unordered =
      Policy::is_unordered || (std::is_same_v<backend_tag, backend::atomic_t> && !Policy::is_deterministic);
  constexpr int value_bytes = int(sizeof(V));
  using candidates = copy_if_candidates<unordered, value_bytes, Policy>;
  const tuning::copy_if_config chosen =
      adjust_copy_if_config<Policy>(tuning::select_copy_if(ctx.arch, unordered, value_bytes, n));
  launch_config<candidates::value>(chosen, [&](auto index) {
    constexpr tuning::copy_if_config config = candidates::value.items[decltype(index)::value];
    launch_copy_if<unordered, config.backend == backend_id::shared_memory, config.threads, config.items_per_thread>(
        algorithm, ctx, policy.stream(), first, n, select, result, count);
  });
}

}  // namespace detail
TALLY_NAMESPACE_END
