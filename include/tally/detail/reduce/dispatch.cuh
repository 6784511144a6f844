#pragma once
// From a policy to a kernel launch: resolve `automatic` through the tuning tables,
// size the grid, take scratch, launch, check.

#include <tally/backend/atomic/reduce.cuh>
#include <tally/backend/shared_memory/reduce.cuh>
#include <tally/backend/warp_shuffle/reduce.cuh>
#include <tally/detail/launch.cuh>
#include <tally/detail/pdl.cuh>
#include <tally/detail/reduce/plan.cuh>
#include <tally/detail/validate.cuh>
#include <tally/functional.cuh>
#include <tally/policy.cuh>
#include <tally/tuning/reduce.cuh>

#include <utility>

TALLY_NAMESPACE_BEGIN
namespace detail {

/// The launch shape used when neither the policy nor a table gives one.
inline constexpr int default_reduce_threads = 256;
inline constexpr int default_reduce_items_per_thread = 16;

template <class Op, class T>
constexpr tuning::reduce_op_class reduce_op_class_of() {
  using traits = op_traits<Op, T>;
  if constexpr (!is_arithmetic_v<T>) return tuning::reduce_op_class::other;
  else if constexpr (traits::is_plus && std::is_integral_v<T>) return tuning::reduce_op_class::integer_sum;
  else if constexpr (traits::is_plus) return tuning::reduce_op_class::floating_sum;
  else if constexpr (traits::is_minimum || traits::is_maximum) return tuning::reduce_op_class::min_max;
  else return tuning::reduce_op_class::other;
}

/// Whether the atomic backend may run this reduction under this policy.
template <class Op, class T, bool Deterministic>
inline constexpr bool atomic_reduce_allowed_v =
    backend_atomic::slot_supports_v<Op, T> && (!Deterministic || is_exact_reduction_v<Op, T>);

/// The substitutions made after a table lookup (see tuning/reduce.cuh), and a forced shape.
template <bool AtomicAllowed, int ForcedThreads, int ForcedItems>
constexpr tuning::reduce_config adjust_config(tuning::reduce_config config) {
  if (!AtomicAllowed && config.backend == backend_id::atomic) config.backend = backend_id::warp_shuffle;
  if (ForcedThreads > 0) {
    config.threads = ForcedThreads;
    config.items_per_thread = ForcedItems;
  }
  return config;
}

/// The (backend, shape) pairs some table can select for this operator class and value
/// size: the only ones an `automatic` call instantiates.
struct reduce_config_set {
  tuning::reduce_config items[32] = {};
  int size = 0;
  constexpr void add(tuning::reduce_config config) {
    for (int i = 0; i < size; ++i)
      if (items[i] == config) return;
    items[size++] = config;
  }
};

template <tuning::reduce_op_class Class, int ValueBytes, bool AtomicAllowed, int ForcedThreads, int ForcedItems>
struct automatic_reduce_candidates {
  template <std::size_t N>
  static constexpr void add_table(reduce_config_set& set, const tuning::reduce_rule (&table)[N]) {
    for (std::size_t i = 0; i < N; ++i) {
      if (!applies(table, table[i])) continue;
      // A rule behind an earlier one that covers at least the same n can never be chosen.
      bool shadowed = false;
      for (std::size_t j = 0; j < i; ++j)
        shadowed = shadowed || (applies(table, table[j]) && table[j].max_log2_n >= table[i].max_log2_n);
      if (!shadowed) set.add(adjust_config<AtomicAllowed, ForcedThreads, ForcedItems>(table[i].config));
    }
  }
  template <std::size_t N>
  static constexpr bool applies(const tuning::reduce_rule (&table)[N], const tuning::reduce_rule& rule) {
    const tuning::reduce_op_class searched = tuning::detail::class_in(table, Class);
    return (rule.op == searched || rule.op == tuning::reduce_op_class::other) && ValueBytes <= rule.max_value_bytes;
  }
  static constexpr reduce_config_set build() {
    reduce_config_set set;
    add_table(set, tuning::reduce_sm90);
    add_table(set, tuning::reduce_sm80);
    add_table(set, tuning::reduce_default);
    set.add(adjust_config<AtomicAllowed, ForcedThreads, ForcedItems>(
        {backend_id::warp_shuffle, default_reduce_threads, default_reduce_items_per_thread}));
    return set;
  }
  static constexpr reduce_config_set value = build();
};

template <backend_id Backend, int Threads, int Items, class T, class It, class Convert, class Op, class Finish,
          class Out>
constexpr auto reduce_kernel_for() {
  if constexpr (Backend == backend_id::atomic)
    return backend_atomic::reduce_kernel<Threads, Items, T, It, Convert, Op, Finish, Out>;
  else if constexpr (Backend == backend_id::shared_memory)
    return backend_shared_memory::reduce_kernel<Threads, Items, T, It, Convert, Op, Finish, Out>;
  else return backend_warp_shuffle::reduce_kernel<Threads, Items, T, It, Convert, Op, Finish, Out>;
}

/// One launch of one backend's reduction kernel for a plan (plan.cuh).
template <backend_id Backend, int Threads, int Items, class It, class Out, class Plan>
void launch_plan(const char* algorithm, const device_context& ctx, cudaStream_t stream, It first, std::int64_t n,
                 Out out, const Plan& plan) {
  static_assert(Threads % 32 == 0 && Threads <= 1024 && Items >= 1, "tally: invalid launch shape");
  using T = typename Plan::accumulator;
  constexpr auto kernel = reduce_kernel_for<Backend, Threads, Items, T, It, decltype(plan.convert),
                                            typename Plan::accumulator_op, decltype(plan.finish), Out>();
  const input_range<It> in = make_input_range<It, Items>(first, n);
  const std::int64_t full_tiles = (n - in.head) / (std::int64_t(Threads) * Items);
  // The atomic backend folds into the slot: it needs the counter but no partials.
  const std::size_t partial_bytes = Backend == backend_id::atomic ? 0 : sizeof(T);
  launch_single_pass<kernel>(algorithm, ctx, stream, Threads, full_tiles, partial_bytes, in, plan.convert, plan.op,
                             plan.finish, out);
}

template <const reduce_config_set& Set, std::size_t... I, class It, class Out, class Plan>
void launch_chosen(tuning::reduce_config chosen, std::index_sequence<I...>, const char* algorithm,
                   const device_context& ctx, cudaStream_t stream, It first, std::int64_t n, Out out,
                   const Plan& plan) {
  bool launched = false;
  auto try_one = [&](auto index) {
    constexpr tuning::reduce_config config = Set.items[decltype(index)::value];
    if (!launched && config == chosen) {
      launch_plan<config.backend, config.threads, config.items_per_thread>(algorithm, ctx, stream, first, n, out,
                                                                           plan);
      launched = true;
    }
  };
  (try_one(std::integral_constant<std::size_t, I>{}), ...);
  if (!launched) {  // cannot happen: every table choice is in Set. Take Set's first entry.
    constexpr tuning::reduce_config config = Set.items[0];
    launch_plan<config.backend, config.threads, config.items_per_thread>(algorithm, ctx, stream, first, n, out,
                                                                         plan);
  }
}

/// Runs `plan` over [first, first + n) into `out` on the policy's stream, on the backend
/// and shape the policy forces or the tuning table picks for `OpClass` and the item size.
template <tuning::reduce_op_class OpClass, class Policy, class It, class Out, class Plan>
void dispatch_plan(const char* algorithm, const Policy& policy, const device_context& ctx, It first, std::int64_t n,
                   Out out, const Plan& plan) {
  using backend_tag = typename Policy::backend_type;
  using T = typename Plan::accumulator;
  using accumulator_op = typename Plan::accumulator_op;
  constexpr bool slot_ok = backend_atomic::slot_supports_v<accumulator_op, T>;
  constexpr bool atomic_allowed = slot_ok && (!Policy::is_deterministic || Plan::exact);
  if constexpr (std::is_same_v<backend_tag, backend::automatic_t>) {
    constexpr int value_bytes = int(sizeof(iter_value_t<It>));
    using candidates =
        automatic_reduce_candidates<OpClass, value_bytes, atomic_allowed, Policy::threads, Policy::items_per_thread>;
    const tuning::reduce_config chosen = adjust_config<atomic_allowed, Policy::threads, Policy::items_per_thread>(
        tuning::select_reduce(ctx.arch, OpClass, value_bytes, n));
    launch_chosen<candidates::value>(chosen, std::make_index_sequence<std::size_t(candidates::value.size)>{},
                                     algorithm, ctx, policy.stream(), first, n, out, plan);
  } else {
    constexpr int threads = Policy::threads > 0 ? Policy::threads : default_reduce_threads;
    constexpr int items = Policy::items_per_thread > 0 ? Policy::items_per_thread : default_reduce_items_per_thread;
    if constexpr (std::is_same_v<backend_tag, backend::atomic_t>) {
      static_assert(slot_ok,
                    "tally: the atomic backend needs tally::identity_element<Op, T> for this operator (and a value "
                    "of at most 16 bytes); use backend::warp_shuffle or backend::shared_memory instead");
      static_assert(atomic_allowed || !slot_ok,
                    "tally: the atomic backend cannot give deterministic() results for this operator (a "
                    "floating-point sum depends on the order of the atomics)");
      if constexpr (atomic_allowed)  // else only the message above, not a cascade from the kernel
        launch_plan<backend_id::atomic, threads, items>(algorithm, ctx, policy.stream(), first, n, out, plan);
    } else {
      launch_plan<backend_tag::id, threads, items>(algorithm, ctx, policy.stream(), first, n, out, plan);
    }
  }
}

/// Runs the reduction of [first, first + n) into *out on the policy's stream.
template <class Policy, class It, class Out, class T, class Op>
void dispatch_reduce(const char* algorithm, const Policy& policy, const device_context& ctx, It first,
                     std::int64_t n, Out out, T init, Op op) {
  dispatch_plan<reduce_op_class_of<Op, T>()>(algorithm, policy, ctx, first, n, out, make_reduce_plan(init, op));
}

}  // namespace detail
TALLY_NAMESPACE_END
