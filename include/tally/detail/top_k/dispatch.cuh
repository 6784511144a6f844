#pragma once
// From a top_k call to a kernel launch: the candidate kind (candidates.cuh), the way a
// block's lists merge (the backend) and the launch shape (the policy or the table).

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

template <int K, class Policy, class It, class ValueOut, class IndexOut, class Rank>
void launch_top_k_for_policy(const char* algorithm, const Policy& policy, const device_context& ctx, It first,
                             std::int64_t n, ValueOut values, IndexOut indices, const Rank& rank) {
  constexpr bool tree = std::is_same_v<typename Policy::backend_type, backend::shared_memory_t>;
  if constexpr (Policy::threads > 0) {
    launch_top_k<tree, Policy::threads, Policy::items_per_thread, K>(algorithm, ctx, policy.stream(), first, n,
                                                                    values, indices, rank);
  } else {
    constexpr tuning::top_k_shape small = tuning::top_k_small_shape(top_k_list_size(K));
    constexpr tuning::top_k_shape large = tuning::top_k_large_shape(top_k_list_size(K));
    if (small == large || tuning::select_top_k(top_k_list_size(K), n) == small)
      launch_top_k<tree, small.threads, small.items_per_thread, K>(algorithm, ctx, policy.stream(), first, n, values,
                                                                   indices, rank);
    else if constexpr (!(small == large))
      launch_top_k<tree, large.threads, large.items_per_thread, K>(algorithm, ctx, policy.stream(), first, n, values,
                                                                   indices, rank);
  }
}

/// Writes the min(K, n) best items of [first, first + n), n >= 1, and their indices.
template <int K, class Policy, class It, class ValueOut, class IndexOut, class Compare>
void dispatch_top_k(const char* algorithm, const Policy& policy, const device_context& ctx, It first, std::int64_t n,
                    ValueOut values, IndexOut indices, Compare comp) {
  using V = iter_value_t<It>;
  // The largest wins under less, the smallest under greater.
  constexpr bool largest_wins = is_default_less_v<Compare, V>;
  if constexpr (top_k_packs_v<V, Compare> && K <= 2) {
    // A reduction (small_k_plan.cuh), on the reduce table's min/max rows.
    if (n <= max_packed_top_k_count) {
      using plan = std::conditional_t<K == 1, top1_plan<V, largest_wins, It, ValueOut>,
                                      top2_plan<V, largest_wins, It, ValueOut>>;
      dispatch_plan<tuning::reduce_op_class::min_max>(algorithm, policy, ctx, first, n, indices,
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
