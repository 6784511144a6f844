#pragma once
/// @file
/// Function objects: `plus`, `minimum`, `maximum`, `less`, `greater`, and the
/// `identity_element` customisation point that the atomic backend needs.
///
/// All are usable on host and device and transparent when `T` is `void`.
/// With floating-point types (float, double, `__half`, `__nv_bfloat16`) they follow the
/// library's order: NaN is greater than every number and `-0.0 == +0.0`, so
/// `maximum(x, NaN)` is NaN, `minimum(x, NaN)` is x, and `less(NaN, x)` is false.

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
/// (including `__half` and `__nv_bfloat16`). The atomic backend needs it; specialise it
/// for your own operator to make that backend available to it:
/// @code
/// template <> struct tally::identity_element<my_op, my_type> {
///   __host__ __device__ static my_type value() { return my_type{...}; }
/// };
/// @endcode
template <class Op, class T, class Enable = void>
struct identity_element {};

namespace detail {
template <class Op, class T>
struct op_traits {
  static constexpr bool is_plus = false, is_minimum = false, is_maximum = false;
};
template <class U, class T>
struct op_traits<plus<U>, T> {
  static constexpr bool is_plus = std::is_void_v<U> || std::is_same_v<U, T>;
  static constexpr bool is_minimum = false, is_maximum = false;
};
template <class U, class T>
struct op_traits<minimum<U>, T> {
  static constexpr bool is_minimum = std::is_void_v<U> || std::is_same_v<U, T>;
  static constexpr bool is_plus = false, is_maximum = false;
};
template <class U, class T>
struct op_traits<maximum<U>, T> {
  static constexpr bool is_maximum = std::is_void_v<U> || std::is_same_v<U, T>;
  static constexpr bool is_plus = false, is_minimum = false;
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

TALLY_NAMESPACE_END
