#pragma once
// What a reduction kernel computes, apart from how it is scheduled: how an item becomes
// the accumulator (`convert`), how two accumulators combine (`op`) and what the final
// accumulator turns into (`finish`, which also says what an empty range writes). The
// backends' kernels are written once against these three; reduce and max_element
// differ only here. (top_k keeps a list per thread instead of one accumulator: it has
// its own kernel, detail/top_k/kernel.cuh, on the same loads.)

#include <tally/detail/float_order.cuh>
#include <tally/functional.cuh>

#include <cstdint>

TALLY_NAMESPACE_BEGIN
namespace detail {

/// convert: a plain conversion to T (Thrust's rule: items are converted to init's type).
template <class T>
struct convert_to {
  template <class V>
  __device__ TALLY_FORCEINLINE T operator()(const V& item, std::int64_t) const {
    return static_cast<T>(item);
  }
};

/// finish: *out = op(init, total); an empty range writes init.
template <class T, class Op>
struct finish_with_init {
  T init;
  Op op;
  template <class Out>
  __device__ void operator()(Out out, const T& total) const {
    *out = op(init, total);
  }
  template <class Out>
  __device__ void empty(Out out) const {
    *out = init;
  }
};

/// The plain plan: accumulate T with the user's operator.
template <class T, class Op>
struct direct_plan {
  using accumulator = T;
  using accumulator_op = Op;
  convert_to<T> convert;
  Op op;
  finish_with_init<T, Op> finish;
  static constexpr bool exact = is_exact_reduction_v<Op, T>;
};

/// Floating-point max and min run on order keys (detail/float_order.cuh): each item is
/// mapped once to an unsigned key whose order is the library's (NaN greatest, -0.0 ==
/// +0.0), keys combine with one unsigned max instruction instead of an ordered compare
/// that checks both operands for NaN, and the result is mapped back. A min stores the
/// complemented key so that it is a max too. Every backend then returns +0.0 for a
/// max/min of zeros and the default quiet NaN for a NaN result.
template <class T, bool Max>
struct convert_to_key {
  template <class V>
  __device__ TALLY_FORCEINLINE order_key_t<T> operator()(const V& item, std::int64_t) const {
    const order_key_t<T> key = to_order_key(static_cast<T>(item));
    return Max ? key : order_key_t<T>(~key);
  }
};

template <class T, class Op, bool Max>
struct finish_from_key {
  T init;
  Op op;
  template <class Out>
  __device__ void operator()(Out out, const order_key_t<T>& total) const {
    *out = op(init, from_order_key<T>(Max ? total : order_key_t<T>(~total)));
  }
  template <class Out>
  __device__ void empty(Out out) const {
    *out = init;
  }
};

template <class T, class Op, bool Max>
struct key_plan {
  using accumulator = order_key_t<T>;
  using accumulator_op = maximum<accumulator>;
  convert_to_key<T, Max> convert;
  accumulator_op op;
  finish_from_key<T, Op, Max> finish;
  static constexpr bool exact = true;
};

/// The plan reduce uses for (Op, T): keys for floating min/max, direct otherwise.
template <class Op, class T>
auto make_reduce_plan(T init, Op op) {
  if constexpr (is_floating_v<T> && op_traits<Op, T>::is_maximum) {
    return key_plan<T, Op, true>{{}, {}, {init, op}};
  } else if constexpr (is_floating_v<T> && op_traits<Op, T>::is_minimum) {
    return key_plan<T, Op, false>{{}, {}, {init, op}};
  } else {
    return direct_plan<T, Op>{{}, op, {init, op}};
  }
}

}  // namespace detail
TALLY_NAMESPACE_END
