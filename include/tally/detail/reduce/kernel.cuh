#pragma once
// The reduction kernel: one per call site and architecture, for every backend. One
// launch:
//   1. per-thread accumulation (block/for_each_item.cuh);
//   2. the backend's combine of the block's threads and of the grid's blocks
//      (backend/<name>/reduce.cuh), which ends in plan.finish in one thread.
// What is reduced is the plan's (plan.cuh): how an item becomes the accumulator, how two
// combine, what the total turns into. The policy (backend and shape) is the one the
// selector gives for the architecture being compiled (detail/runtime/kernel_policy.cuh).

#include <tally/backend/atomic/reduce.cuh>
#include <tally/backend/shared_memory/reduce.cuh>
#include <tally/backend/warp_shuffle/reduce.cuh>
#include <tally/block/for_each_item.cuh>
#include <tally/detail/runtime/kernel_policy.cuh>
#include <tally/detail/runtime/pdl.cuh>

TALLY_NAMESPACE_BEGIN
namespace detail {

/// A plan may carry seeds: what earlier partitions of the same call found (inputs longer
/// than one partition run this kernel once per partition; extrema/dispatch.cuh). Block 0's
/// thread 0 folds them into its accumulator.
template <class Plan, class Out, class = void>
struct has_seeds : std::false_type {};
template <class Plan, class Out>
struct has_seeds<Plan, Out,
                 std::void_t<decltype(std::declval<const Plan&>().fold_seeds(
                     std::declval<typename Plan::accumulator&>(), std::declval<Out>()))>> : std::true_type {};

/// A small-input kernel whose limit is above its tile (top2_small) reads an input of up to
/// one_round_tiles tiles in one block and one round: each thread issues the loads of all
/// its items at once (read_one_tile), where the tile loop would wait a round trip a tile
/// and more blocks would pay a scratch lease and the combine; the tile itself stays small
/// for the sizes above, where more blocks pay. top_k<2>'s GPU time ÷ dd57f55's on the H100
/// (float / int32): at 2^12 four blocks 1.07-1.09 / 1.15, one round 0.95 / 0.91; at 2^13
/// eight blocks 0.88 / 1.01-1.06, one round 1.01 / 0.97 (docs/performance.md#top2-one-round).
/// 4, not 8: the round's registers are the whole kernel's (32 items a thread at 256 x 8:
/// 80 registers, three blocks an SM; 64 items: 139-182, one block an SM), and the kernel
/// also runs every size up to 2^21 (docs/performance.md#top2-occupancy).
inline constexpr int one_round_tiles = 4;

/// The most items a one-block grid of Selector's kernel reads in one round (0: none; the
/// host launches one block for inputs up to this), from the kernel's policy and limit
/// (Selector::max_items). The host passes its kernel_shape's, read once per device:
/// evaluating the tables at run time costs about 60 ns a lookup, and these two functions
/// made seven lookups a call, 0.3 µs of the 3.5-4.5 µs of a small reduction back to back
/// (docs/performance.md#host-table-lookups).
template <class Selector>
TALLY_HOST_DEVICE constexpr std::int64_t one_round_items(tuning::launch_policy p, std::int64_t max_items) {
  const std::int64_t tile = std::int64_t(p.threads) * p.items_per_thread;
  return tuning::is_small_class(Selector::kind) && max_items > tile ? one_round_tiles * tile : 0;
}

/// The items a thread of Selector's kernel loads at once for an input of n items: half a
/// round's or a round's where one block reads the input in one round (n <= one_round_items),
/// else a tile's. The host computes the input's unaligned head with it: the width of the
/// vector loads depends on it (uint8: 8 bytes at 8 items, 16 at 32).
template <class Selector>
TALLY_HOST_DEVICE constexpr int items_per_load_round(tuning::launch_policy p, std::int64_t max_items, std::int64_t n) {
  const std::int64_t round = one_round_items<Selector>(p, max_items);
  if (round > 0 && n <= round / 2) return p.items_per_thread * one_round_tiles / 2;
  if (round > 0 && n <= round) return p.items_per_thread * one_round_tiles;
  return p.items_per_thread;
}

template <class Selector, class Plan, class It, class Out>
__device__ TALLY_FORCEINLINE void reduce_body(input_range<It> in, Plan plan, Out out, scratch_view scratch) {
  constexpr tuning::launch_policy policy = compiled_policy<Selector>();
  static_assert(tuning::is_valid(policy),
                "tally: no valid launch policy for this reduction (a tuning table without a rule for it?)");
  using T = typename Plan::accumulator;
  wait_for_prior_grids();

  // A small-input kernel that never runs on more than one tile reads it in one round.
  constexpr bool one_tile =
      Selector::max_items(TALLY_COMPILED_ARCH) <= std::int64_t(policy.threads) * policy.items_per_thread;
  constexpr std::int64_t round_items = one_round_items<Selector>(policy, Selector::max_items(TALLY_COMPILED_ARCH));
  int valid;
  const auto accumulate_all = [&]() -> T {
    if constexpr (round_items > 0) {
      // Up to half of the round with half the items a thread: the wider loop's guards
      // and redundant loads cost inputs of a few tiles more than its round saves. The
      // host made `in` (its head) for these widths: items_per_load_round.
      if (gridDim.x == 1 && in.n <= round_items / 2)
        return thread_accumulate<policy.threads, policy.items_per_thread * one_round_tiles / 2, T, true>(
            in, plan.convert, plan.op, valid);
      if (gridDim.x == 1 && in.n <= round_items)
        return thread_accumulate<policy.threads, policy.items_per_thread * one_round_tiles, T, true>(
            in, plan.convert, plan.op, valid);
    }
    return thread_accumulate<policy.threads, policy.items_per_thread, T, one_tile>(in, plan.convert, plan.op, valid);
  };
  T acc = accumulate_all();
  if (valid == 0) {  // an empty range (the grid is then one block)
    if (threadIdx.x == 0) plan.finish.empty(out);
    return;
  }
  if constexpr (has_seeds<Plan, Out>::value) {
    if (blockIdx.x == 0 && threadIdx.x == 0) plan.fold_seeds(acc, out);
  }
  if constexpr (policy.backend == backend_id::atomic)
    backend_atomic::reduce<policy.threads>(acc, valid, plan.op, plan.finish, out, scratch);
  else if constexpr (policy.backend == backend_id::shared_memory)
    backend_shared_memory::reduce<policy.threads>(acc, valid, plan.op, plan.finish, out, scratch);
  else
    backend_warp_shuffle::reduce<policy.threads>(acc, valid, plan.op, plan.finish, out, scratch);
}

TALLY_KERNELS_BEGIN
template <class Selector, class Plan, class It, class Out>
TALLY_KERNEL void __launch_bounds__(compiled_policy<Selector>().threads)
    reduce_kernel(input_range<It> in, Plan plan, Out out, scratch_view scratch) {
  // A small-input kernel that this architecture has no rule for is never launched: no body.
  if constexpr (kernel_launches<Selector>()) reduce_body<Selector, Plan, It, Out>(in, plan, out, scratch);
}
TALLY_KERNELS_END
using kernels::reduce_kernel;

}  // namespace detail
TALLY_NAMESPACE_END
