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
  int valid;
  T acc = thread_accumulate<policy.threads, policy.items_per_thread, T, one_tile>(in, plan.convert, plan.op, valid);
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
