#pragma once
/// @file
/// Function objects: `plus`, `minimum`, `maximum`, `less`, `greater`, and the
/// `identity_element` customisation point that the atomic backend needs.
///
/// All are usable on host and device and transparent when `T` is `void`.
/// With floating-point types (float, double, `__half`, `__nv_bfloat16`) they follow the
/// library's order: NaN is greater than every number and `-0.0 == +0.0`, so
/// `maximum(x, NaN)` is NaN, `minimum(x, NaN)` is x, and `less(NaN, x)` is false.
///
/// CCCL's function objects of the same families (`cuda::std::plus`, `cuda::maximum`,
/// `cuda::minimum`, `cuda::std::less`, `cuda::std::greater` and Thrust's `plus`, `maximum`,
/// `minimum`, `less`, `greater`) are recognised as these (detail/cccl_interop.cuh): they
/// have the same `identity_element`, take the same fast paths, and tally computes them as
/// its own, in the library's order.

#include <tally/detail/cccl_interop.cuh>
#include <tally/detail/float_order.cuh>

#include <cuda/std/limits>

TALLY_NAMESPACE_BEGIN

/// a + b.
template <class T = void>
struct plus {
  TALLY_HOST_DEVICE constexpr T operator()(const T& a, const T& b) const { return a + b; }
};
template <>
struct plus<void> {
  using is_transparent = void;
  template <class A, class B>
  TALLY_HOST_DEVICE constexpr auto operator()(const A& a, const B& b) const -> decltype(a + b) {
    return a + b;
  }
};

/// The larger of a and b in the library's order (a when they are equal).
template <class T = void>
struct maximum {
  TALLY_HOST_DEVICE constexpr T operator()(const T& a, const T& b) const {
    return detail::ordered_less(a, b) ? b : a;
  }
};
template <>
struct maximum<void> {
  using is_transparent = void;
  template <class T>
  TALLY_HOST_DEVICE constexpr T operator()(const T& a, const T& b) const {
    return detail::ordered_less(a, b) ? b : a;
  }
};

/// The smaller of a and b in the library's order (a when they are equal).
template <class T = void>
struct minimum {
  TALLY_HOST_DEVICE constexpr T operator()(const T& a, const T& b) const {
    return detail::ordered_less(b, a) ? b : a;
  }
};
template <>
struct minimum<void> {
  using is_transparent = void;
  template <class T>
  TALLY_HOST_DEVICE constexpr T operator()(const T& a, const T& b) const {
    return detail::ordered_less(b, a) ? b : a;
  }
};

/// a < b in the library's order.
template <class T = void>
struct less {
  TALLY_HOST_DEVICE constexpr bool operator()(const T& a, const T& b) const { return detail::ordered_less(a, b); }
};
template <>
struct less<void> {
  using is_transparent = void;
  template <class T>
  TALLY_HOST_DEVICE constexpr bool operator()(const T& a, const T& b) const {
    return detail::ordered_less(a, b);
  }
};

/// a > b in the library's order.
template <class T = void>
struct greater {
  TALLY_HOST_DEVICE constexpr bool operator()(const T& a, const T& b) const { return detail::ordered_less(b, a); }
};
template <>
struct greater<void> {
  using is_transparent = void;
  template <class T>
  TALLY_HOST_DEVICE constexpr bool operator()(const T& a, const T& b) const {
    return detail::ordered_less(b, a);
  }
};

/// The identity of `Op` on `T`: `op(identity_element<Op, T>::value(), x) == x`.
///
/// Defined for `tally::plus`, `tally::minimum` and `tally::maximum` on arithmetic types
/// (including `__half` and `__nv_bfloat16`), and for CCCL's function objects of the same
/// families (`cuda::std::plus`, `cuda::maximum`, `thrust::minimum`, ...). The atomic
/// backend needs it; specialise it for your own operator to make that backend available
/// to it:
/// @code
/// template <> struct tally::identity_element<my_op, my_type> {
///   __host__ __device__ static my_type value() { return my_type{...}; }
/// };
/// @endcode
template <class Op, class T, class Enable = void>
struct identity_element {};

namespace detail {

/// tally's function object that `Op` is under another name (cuda::std::plus<U> ->
/// tally::plus<U>, cuda::maximum<U> -> tally::maximum<U>, thrust::less<U> ->
/// tally::less<U>, ...; see cccl_interop.cuh), or `Op` itself.
template <class Op, op_family Family = cccl_op_family<Op>::family>
struct tally_op {
  using type = Op;
};
template <class Op>
struct tally_op<Op, op_family::plus> {
  using type = plus<typename cccl_op_family<Op>::argument>;
};
template <class Op>
struct tally_op<Op, op_family::minimum> {
  using type = minimum<typename cccl_op_family<Op>::argument>;
};
template <class Op>
struct tally_op<Op, op_family::maximum> {
  using type = maximum<typename cccl_op_family<Op>::argument>;
};
template <class Op>
struct tally_op<Op, op_family::less> {
  using type = less<typename cccl_op_family<Op>::argument>;
};
template <class Op>
struct tally_op<Op, op_family::greater> {
  using type = greater<typename cccl_op_family<Op>::argument>;
};
template <class Op>
using tally_op_t = typename tally_op<Op>::type;

/// `op` as tally's own function object when it is a recognised CCCL one, else `op`
/// unchanged. The entry points call it first so that a CCCL function object computes
/// exactly what tally's does (NaN greatest in max/min/less/greater) on every backend and
/// in tally::host, and instantiates the same kernels.
template <class Op>
TALLY_HOST_DEVICE constexpr tally_op_t<Op> to_tally_op(const Op& op) {
  if constexpr (std::is_same_v<tally_op_t<Op>, Op>) return op;
  else return tally_op_t<Op>{};
}

/// What an operator is on T: plus, minimum or maximum (tally's, or CCCL's under tally_op).
template <class Op, class T>
struct tally_op_traits {
  static constexpr bool is_plus = false, is_minimum = false, is_maximum = false;
};
template <class Op, class T>
struct op_traits : tally_op_traits<tally_op_t<Op>, T> {};

template <class U, class T>
struct tally_op_traits<plus<U>, T> {
  static constexpr bool is_plus = std::is_void_v<U> || std::is_same_v<U, T>;
  static constexpr bool is_minimum = false, is_maximum = false;
};
template <class U, class T>
struct tally_op_traits<minimum<U>, T> {
  static constexpr bool is_minimum = std::is_void_v<U> || std::is_same_v<U, T>;
  static constexpr bool is_plus = false, is_maximum = false;
};
template <class U, class T>
struct tally_op_traits<maximum<U>, T> {
  static constexpr bool is_maximum = std::is_void_v<U> || std::is_same_v<U, T>;
  static constexpr bool is_plus = false, is_minimum = false;
};

/// What a comparator is on values of type V: tally::less (the largest is the best of a
/// max_element, top_k's default order) or tally::greater, as `less<>` / `less<V>` /
/// `greater<>` / `greater<V>` or as CCCL's `cuda::std::less`, `thrust::less`, ...
/// (under tally_op). Both false for every other comparator.
template <class Compare, class V>
struct comparator_traits {
  using tally_compare = tally_op_t<Compare>;
  static constexpr bool is_less = std::is_same_v<tally_compare, less<>> || std::is_same_v<tally_compare, less<V>>;
  static constexpr bool is_greater =
      std::is_same_v<tally_compare, greater<>> || std::is_same_v<tally_compare, greater<V>>;
};

/// plus, minimum or maximum on an arithmetic type: the operators with native atomics
/// (or an order-key atomic) and a known identity.
template <class Op, class T>
inline constexpr bool is_native_reduction_v =
    is_arithmetic_v<T> && (op_traits<Op, T>::is_plus || op_traits<Op, T>::is_minimum || op_traits<Op, T>::is_maximum);

/// Exact operators: the result does not depend on the order of combination.
template <class Op, class T>
inline constexpr bool is_exact_reduction_v =
    is_arithmetic_v<T> && ((op_traits<Op, T>::is_plus && std::is_integral_v<T>) || op_traits<Op, T>::is_minimum ||
                           op_traits<Op, T>::is_maximum);

template <class T>
TALLY_HOST_DEVICE T lowest_value() {
  if constexpr (is_half_v<T>) return bit_cast<T>(std::uint16_t(0xfc00u));       // -inf
  else if constexpr (is_bfloat16_v<T>) return bit_cast<T>(std::uint16_t(0xff80u));  // -inf
  else if constexpr (std::is_floating_point_v<T>) return -cuda::std::numeric_limits<T>::infinity();
  else return cuda::std::numeric_limits<T>::lowest();
}
/// The greatest value in the library's order: NaN for floating types.
template <class T>
TALLY_HOST_DEVICE T greatest_value() {
  if constexpr (is_half_v<T>) return bit_cast<T>(std::uint16_t(0x7e00u));
  else if constexpr (is_bfloat16_v<T>) return bit_cast<T>(std::uint16_t(0x7fc0u));
  else if constexpr (std::is_floating_point_v<T>) return cuda::std::numeric_limits<T>::quiet_NaN();
  else return cuda::std::numeric_limits<T>::max();
}

template <class Op, class T, class = void>
struct has_identity : std::false_type {};
template <class Op, class T>
struct has_identity<Op, T, std::void_t<decltype(identity_element<Op, T>::value())>> : std::true_type {};
}  // namespace detail

/// True when `identity_element<Op, T>::value()` exists.
template <class Op, class T>
inline constexpr bool has_identity_v = detail::has_identity<Op, T>::value;

template <class U, class T>
struct identity_element<plus<U>, T, std::enable_if_t<detail::op_traits<plus<U>, T>::is_plus && detail::is_arithmetic_v<T>>> {
  TALLY_HOST_DEVICE static T value() { return T{}; }  // value-initialised: 0, +0.0
};
template <class U, class T>
struct identity_element<maximum<U>, T,
                        std::enable_if_t<detail::op_traits<maximum<U>, T>::is_maximum && detail::is_arithmetic_v<T>>> {
  TALLY_HOST_DEVICE static T value() { return detail::lowest_value<T>(); }
};
template <class U, class T>
struct identity_element<minimum<U>, T,
                        std::enable_if_t<detail::op_traits<minimum<U>, T>::is_minimum && detail::is_arithmetic_v<T>>> {
  // NaN for floating types: minimum(NaN, x) == x in the library's order.
  TALLY_HOST_DEVICE static T value() { return detail::greatest_value<T>(); }
};

/// CCCL's function objects have the identity of tally's of the same family.
template <class Op, class T>
struct identity_element<Op, T,
                        std::enable_if_t<std::conjunction_v<std::bool_constant<detail::is_cccl_function_object_v<Op>>,
                                                            detail::has_identity<detail::tally_op_t<Op>, T>>>>
    : identity_element<detail::tally_op_t<Op>, T> {};

TALLY_NAMESPACE_END
