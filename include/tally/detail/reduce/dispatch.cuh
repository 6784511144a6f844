#pragma once
// From a reduction's plan to its launch: the call site's selector (its kernel class and
// value size, and what the policy forces), the one kernel it compiles, the grid, the
// scratch, the launch.

#include <tally/detail/runtime/launch.cuh>
#include <tally/detail/reduce/kernel.cuh>
#include <tally/detail/reduce/plan.cuh>
#include <tally/detail/runtime/validate.cuh>
#include <tally/functional.cuh>
#include <tally/policy.cuh>

TALLY_NAMESPACE_BEGIN
namespace detail {

template <class Op, class T>
constexpr tuning::kernel_class reduce_class_of() {
  using traits = op_traits<Op, T>;
  if constexpr (!is_arithmetic_v<T>) return tuning::kernel_class::other;
  else if constexpr (traits::is_plus && std::is_integral_v<T>) return tuning::kernel_class::integer_sum;
  else if constexpr (traits::is_plus) return tuning::kernel_class::floating_sum;
  else if constexpr (traits::is_minimum || traits::is_maximum) return tuning::kernel_class::min_max;
  else return tuning::kernel_class::other;
}

/// Launches Selector's kernel of `plan` over [first, first + n) into `out`, unless n is
/// above what the kernel runs for (a small-input kernel's limit): then returns false.
template <class Selector, class Policy, class It, class Out, class Plan>
bool launch_plan(const char* algorithm, const Policy& policy, const device_context& ctx, It first, std::int64_t n,
                 Out out, const Plan& plan) {
  using T = typename Plan::accumulator;
  using Op = typename Plan::accumulator_op;
  constexpr auto kernel = reduce_kernel<Selector, Plan, It, Out>;
  const kernel_shape shape = shape_of<Selector, kernel>(algorithm, ctx);
  if (n > shape.max_items) return false;
  const tuning::launch_policy& p = shape.policy;
  // The head's alignment is that of the loads of the path the kernel takes for n.
  const input_range<It> in = make_input_range(first, n, items_per_load_round<Selector>(p, shape.max_items, n));
  const std::int64_t full_tiles = (n - in.head) / (std::int64_t(p.threads) * p.items_per_thread);
  const std::size_t partial_bytes = p.backend == backend_id::atomic
                                        ? backend_atomic::reduce_partial_bytes<T, Op>(shape.arch)
                                        : sizeof(T);
  const int grid = n <= one_round_items<Selector>(p, shape.max_items)
                       ? 1
                       : single_pass_grid(ctx, shape, full_tiles, combine_one_block_tiles);
  launch_with_scratch<kernel>(algorithm, ctx, call_stream_of(policy), shape, grid, partial_bytes, in, plan, out);
  return true;
}

/// Runs `plan` over [first, first + n) into `out` on the policy's stream, in one launch of
/// the call site's kernel. Kind: the tuning class; the value size is the input's. A class
/// with a small-input class (sums, minimum / maximum, max_element / min_element, top2) has
/// a second kernel for the inputs its rule admits.
template <tuning::kernel_class Kind, class Policy, class It, class Out, class Plan>
void dispatch_plan(const char* algorithm, const Policy& policy, const device_context& ctx, It first, std::int64_t n,
                   Out out, const Plan& plan) {
  constexpr bool atomic_allowed = !Policy::is_deterministic || Plan::exact;
  static_assert(atomic_allowed || !std::is_same_v<typename Policy::backend_type, backend::atomic_t>,
                "tally: the atomic backend cannot give deterministic() results for this operator (a "
                "floating-point sum depends on the order of the atomics)");
  constexpr int value_bytes = int(sizeof(iter_value_t<It>));
  if constexpr (has_small_kernel_v<Kind, Policy>) {
    using small = selector_for<tuning::small_class_of(Kind), value_bytes, 1, Policy, atomic_allowed>;
    if (launch_plan<small>(algorithm, policy, ctx, first, n, out, plan)) return;
  }
  launch_plan<selector_for<Kind, value_bytes, 1, Policy, atomic_allowed>>(algorithm, policy, ctx, first, n, out, plan);
}

/// Runs the reduction of [first, first + n) into *out on the policy's stream.
template <class Policy, class It, class Out, class T, class Op>
void dispatch_reduce(const char* algorithm, const Policy& policy, const device_context& ctx, It first,
                     std::int64_t n, Out out, T init, Op op) {
  dispatch_plan<reduce_class_of<Op, T>()>(algorithm, policy, ctx, first, n, out, make_reduce_plan(init, op));
}

}  // namespace detail
TALLY_NAMESPACE_END
