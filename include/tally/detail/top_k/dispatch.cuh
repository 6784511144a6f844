#pragma once
// From a top_k call to a kernel launch: the candidate kind (candidates.cuh), the way a
// block's lists merge (the backend) and the launch shape (the policy or the table).

#include <tally/detail/config_set.cuh>
#include <tally/detail/launch.cuh>
#include <tally/detail/reduce/dispatch.cuh>
#include <tally/detail/top_k/candidates.cuh>
#include <tally/detail/top_k/kernel.cuh>
#include <tally/detail/top_k/small_k_plan.cuh>
#include <tally/tuning/top_k.cuh>

TALLY_NAMESPACE_BEGIN
namespace detail {

template <bool SharedMemoryTree, int Threads, int Items, int K, class It, class ValueOut, class IndexOut, class Rank>
void launch_top_k(const char* algorithm, const device_context& ctx, cudaStream_t stream, It first, std::int64_t n,
                  ValueOut values, IndexOut indices, const Rank& rank) {
  static_assert(Threads % 32 == 0 && Threads <= 1024 && Items >= 1, "tally: invalid launch shape");
  constexpr auto kernel = top_k_kernel<SharedMemoryTree, Threads, Items, K, Rank, It, ValueOut, IndexOut>;
  const input_range<It> in = make_input_range<It, Items>(first, n);
  const std::int64_t full_tiles = (n - in.head) / (std::int64_t(Threads) * Items);
  const std::size_t list_bytes = std::size_t(top_k_list_size(K)) * sizeof(typename Rank::type);
  launch_single_pass<kernel>(algorithm, ctx, stream, Threads, full_tiles, list_bytes, in, rank, values, indices);
}

/// The merge a forced backend uses (the atomic backend merges as warp_shuffle does).
template <class Backend>
constexpr backend_id top_k_merge_of() {
  return std::is_same_v<Backend, backend::shared_memory_t> ? backend_id::shared_memory : backend_id::warp_shuffle;
}

/// A table's choice with the policy's forced merge and shape put in.
template <class Policy>
constexpr tuning::top_k_config adjust_top_k_config(tuning::top_k_config config) {
  if constexpr (!std::is_same_v<typename Policy::backend_type, backend::automatic_t>)
    config.backend = top_k_merge_of<typename Policy::backend_type>();
  if constexpr (Policy::threads > 0) {
    config.threads = Policy::threads;
    config.items_per_thread = Policy::items_per_thread;
  }
  return config;
}

/// The configurations some top_k table can choose for lists of ListSize entries.
template <int ListSize, class Policy>
struct top_k_candidates {
  template <std::size_t N>
  static constexpr void add_table(config_set<tuning::top_k_config>& set, const tuning::top_k_rule (&table)[N]) {
    for (std::size_t i = 0; i < N; ++i) {
      if (ListSize > table[i].max_list_size) continue;
      bool shadowed = false;  // behind an earlier rule that covers at least the same n
      for (std::size_t j = 0; j < i; ++j)
        shadowed = shadowed || (ListSize <= table[j].max_list_size && table[j].max_log2_n >= table[i].max_log2_n);
      if (!shadowed) set.add(adjust_top_k_config<Policy>(table[i].config));
    }
  }
  static constexpr config_set<tuning::top_k_config> build() {
    config_set<tuning::top_k_config> set;
    add_table(set, tuning::top_k_sm90);
    add_table(set, tuning::top_k_default);
    return set;
  }
  static constexpr config_set<tuning::top_k_config> value = build();
};

template <int K, class Policy, class It, class ValueOut, class IndexOut, class Rank>
void launch_top_k_for_policy(const char* algorithm, const Policy& policy, const device_context& ctx, It first,
                             std::int64_t n, ValueOut values, IndexOut indices, const Rank& rank) {
  using candidates = top_k_candidates<top_k_list_size(K), Policy>;
  const tuning::top_k_config chosen =
      adjust_top_k_config<Policy>(tuning::select_top_k(ctx.arch, top_k_list_size(K), n));
  launch_config<candidates::value>(chosen, [&](auto index) {
    constexpr tuning::top_k_config config = candidates::value.items[decltype(index)::value];
    launch_top_k<config.backend == backend_id::shared_memory, config.threads, config.items_per_thread, K>(
        algorithm, ctx, policy.stream(), first, n, values, indices, rank);
  });
}

/// Writes the min(K, n) best items of [first, first + n), n >= 1, and their indices.
template <int K, class Policy, class It, class ValueOut, class IndexOut, class Compare>
void dispatch_top_k(const char* algorithm, const Policy& policy, const device_context& ctx, It first, std::int64_t n,
                    ValueOut values, IndexOut indices, Compare comp) {
  using V = iter_value_t<It>;
  // The largest wins under less, the smallest under greater.
  constexpr bool largest_wins = is_default_less_v<Compare, V>;
  if constexpr (top_k_packs_v<V, Compare> && K <= 2) {
    // A reduction (small_k_plan.cuh), on the reduce table's `top2` rules.
    if (n <= max_packed_top_k_count) {
      using plan = std::conditional_t<K == 1, top1_plan<V, largest_wins, It, ValueOut>,
                                      top2_plan<V, largest_wins, It, ValueOut>>;
      dispatch_plan<tuning::reduce_op_class::top2>(algorithm, policy, ctx, first, n, indices,
                                                      plan{{}, {}, {first, values}});
      return;
    }
  } else if constexpr (top_k_packs_v<V, Compare>) {
    if (n <= max_packed_top_k_count) {
      launch_top_k_for_policy<K>(algorithm, policy, ctx, first, n, values, indices,
                                 packed_candidates<V, largest_wins>{});
      return;
    }
  }
  if constexpr (top_k_packs_v<V, Compare> || top_k_wide_v<V, Compare>) {
    // 8-byte values, and small ones beyond what a 32-bit index word holds.
    launch_top_k_for_policy<K>(algorithm, policy, ctx, first, n, values, indices, wide_candidates<V, largest_wins>{});
  } else {
    launch_top_k_for_policy<K>(algorithm, policy, ctx, first, n, values, indices, pair_candidates<V, Compare>{comp});
  }
}

}  // namespace detail
TALLY_NAMESPACE_END
