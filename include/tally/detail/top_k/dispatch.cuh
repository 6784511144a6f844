#pragma once
// From a top_k call to its launch: the candidate kind (candidates.cuh), and one kernel
// per call site: the reductions' kernel for top_k<1> and <2> on packed keys
// (small_k_plan.cuh), the run-time-k engine (select_dispatch.cuh) for lists of 32 under
// the automatic policy, the top_k kernel otherwise. Packed keys run over partitions of at
// most max_packed_partition items (each a launch of the same kernel).

#include <tally/detail/extrema/dispatch.cuh>
#include <tally/detail/runtime/launch.cuh>
#include <tally/detail/reduce/dispatch.cuh>
#include <tally/detail/top_k/candidates.cuh>
#include <tally/detail/top_k/kernel.cuh>
#include <tally/detail/top_k/select_dispatch.cuh>
#include <tally/detail/top_k/small_k_plan.cuh>

TALLY_NAMESPACE_BEGIN
namespace detail {

/// One launch of the top_k kernel of `Selector` over [first, first + n), unless n is above
/// what the kernel runs for (a small-input kernel's limit); returns whether it launched.
template <class Selector, int K, class Policy, class It, class ValueOut, class IndexOut, class Rank>
bool launch_top_k_with(const char* algorithm, const Policy& policy, const device_context& ctx, It first,
                       std::int64_t n, ValueOut values, IndexOut indices, const Rank& rank) {
  using C = typename Rank::type;
  constexpr int list_size = top_k_list_size(K);
  constexpr auto kernel = top_k_kernel<Selector, K, Rank, It, ValueOut, IndexOut>;
  const kernel_shape shape = shape_of<Selector, kernel>(algorithm, ctx);
  if (n > shape.max_items) return false;
  const tuning::launch_policy& p = shape.policy;
  const input_range<It> in = make_input_range(first, n, p.items_per_thread);
  const std::int64_t full_tiles = (n - in.head) / (std::int64_t(p.threads) * p.items_per_thread);
  const std::size_t list_bytes = p.backend == backend_id::atomic ? backend_atomic::top_k_partial_bytes<C>(list_size)
                                                                 : backend_warp_shuffle::top_k_partial_bytes<C>(list_size);
  launch_single_pass<kernel>(algorithm, ctx, call_stream_of(policy), shape, full_tiles, combine_one_block_tiles, list_bytes,
                             in, rank, values, indices);
  return true;
}

/// top_k over [first, first + n): the `top_k` kernel, or, for the inputs its rule admits,
/// the `top_k_small` kernel, whose smaller tiles keep every SM busy where the top_k
/// kernel's would leave most idle (two kernels per call site: docs/performance.md). A
/// policy with a tune<>() shape has one kernel.
template <int K, class Policy, class It, class ValueOut, class IndexOut, class Rank>
void launch_top_k(const char* algorithm, const Policy& policy, const device_context& ctx, It first, std::int64_t n,
                  ValueOut values, IndexOut indices, const Rank& rank) {
  constexpr int value_bytes = int(sizeof(iter_value_t<It>));
  constexpr int list_size = top_k_list_size(K);
  if constexpr (has_small_kernel_v<tuning::kernel_class::top_k, Policy>) {
    using small = selector_for<tuning::kernel_class::top_k_small, value_bytes, list_size, Policy>;
    if (launch_top_k_with<small, K>(algorithm, policy, ctx, first, n, values, indices, rank)) return;
  }
  using large = selector_for<tuning::kernel_class::top_k, value_bytes, list_size, Policy>;
  launch_top_k_with<large, K>(algorithm, policy, ctx, first, n, values, indices, rank);
}

/// Whether top_k<K> under Policy runs on the run-time-k engine: lists of 32 (K = 17..32)
/// of arithmetic values under the default comparators, on the automatic policy without a
/// tune<>() shape. The engine was faster than the list kernel at every size measured
/// (H200, float K = 32: 11.6 against 21.6 µs at 2^10, 27 against 45 at 2^16, 493 against
/// 2084 at 2^28; docs/performance.md) and is one kernel for every K. A forced backend or
/// a tune<>() shape keeps the list kernel (the one `tally tune` tunes).
template <int K, class Policy, class V, class Compare>
inline constexpr bool top_k_on_select_engine_v = top_k_list_size(K) == 32 && top_k_selects_v<V, Compare> &&
                                                 Policy::backend_type::id == backend_id::automatic &&
                                                 Policy::threads == 0;

/// Writes the min(K, n) best items of [first, first + n), n >= 1, and their indices.
template <int K, class Policy, class It, class ValueOut, class IndexOut, class Compare>
void dispatch_top_k(const char* algorithm, const Policy& policy, const device_context& ctx, It first, std::int64_t n,
                    ValueOut values, IndexOut indices, Compare comp) {
  using V = iter_value_t<It>;
  // The largest wins under less, the smallest under greater.
  constexpr bool largest_wins = is_default_less_v<Compare, V>;
  if constexpr (top_k_on_select_engine_v<K, Policy, V, Compare>) {
    dispatch_top_k_select(algorithm, policy, ctx, first, n, n < K ? n : std::int64_t(K), values, indices, comp);
  } else if constexpr (top_k_packs_v<V, Compare>) {
    const carry_buffer<packed_carry<V>> carry(algorithm, call_stream_of(policy), n > max_packed_partition);
    for_each_partition(n, max_packed_partition, [&](std::int64_t offset, std::int64_t length) {
      const It part = first + offset;
      const packed_candidates<V, largest_wins> rank{offset, carry.get()};
      if constexpr (K <= 2) {
        // A reduction (small_k_plan.cuh), on the tables' `top2` rules.
        using plan = std::conditional_t<K == 1, top1_plan<V, largest_wins, It, ValueOut>,
                                        top2_plan<V, largest_wins, It, ValueOut>>;
        dispatch_plan<tuning::kernel_class::top2>(algorithm, policy, ctx, part, length, indices,
                                                  plan{{rank}, {}, {part, values, offset, carry.get()}});
      } else {
        launch_top_k<K>(algorithm, policy, ctx, part, length, values, indices, rank);
      }
    });
  } else if constexpr (top_k_wide_v<V, Compare>) {
    launch_top_k<K>(algorithm, policy, ctx, first, n, values, indices, wide_candidates<V, largest_wins>{});
  } else {
    launch_top_k<K>(algorithm, policy, ctx, first, n, values, indices, pair_candidates<V, Compare>{comp});
  }
}

}  // namespace detail
TALLY_NAMESPACE_END
