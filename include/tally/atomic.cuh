#pragma once
/// @file
/// Device atomics for any trivially copyable type.
///
/// @code
/// template <class T, class Op> __device__ T atomic_update(T* address, T value, Op op); // *address = op(old, value)
/// template <class T> __device__ T atomic_add(T* address, T value);
/// template <class T> __device__ T atomic_max(T* address, T value);
/// template <class T> __device__ T atomic_min(T* address, T value);
/// @endcode
/// Each returns the value `*address` held just before its update.
///
/// - Sizes: 1, 2, 4 and 8 bytes; 16 bytes on sm_90 and newer. `address` must be aligned
///   to `sizeof(T)`. Types of 1 and 2 bytes are updated through their aligned containing
///   32-bit word; neighbouring bytes are never clobbered.
/// - Native instructions where the hardware has them: integer add/min/max on 32- and
///   64-bit types, float and double add, `__half` add (sm_70+) and `__nv_bfloat16` add
///   (native on sm_90, a CAS loop before). Everything else is a compare-and-swap loop on
///   the bit pattern, so NaN never makes it spin.
/// - `atomic_max` / `atomic_min` on float, double, `__half` and `__nv_bfloat16` follow the
///   library's order: NaN is greater than every number (a NaN stored or given wins a max
///   and loses a min), and -0.0 == +0.0 (the stored zero is kept).
/// - `atomic_update` with `tally::plus`, `tally::minimum` or `tally::maximum` on an
///   arithmetic type takes the same native paths as the named functions.

#include <tally/detail/atomic/cas_loop.cuh>
#include <tally/functional.cuh>

TALLY_NAMESPACE_BEGIN

namespace detail {
template <class T>
inline constexpr bool is_native_int32_v =
    std::is_integral_v<T> && sizeof(T) == 4 && !std::is_same_v<T, bool>;
template <class T>
inline constexpr bool is_native_int64_v =
    std::is_integral_v<T> && sizeof(T) == 8 && !std::is_same_v<T, bool>;
}  // namespace detail

/// Atomically `*address = op(*address, value)`; returns the old value.
template <class T, class Op>
__device__ T atomic_update(T* address, T value, Op op);

/// Atomically `*address += value`; returns the old value.
template <class T>
__device__ T atomic_add(T* address, T value) {
  static_assert(detail::is_arithmetic_v<T>, "tally::atomic_add needs an arithmetic type");
  if constexpr (detail::is_native_int32_v<T>) {
    using U = std::conditional_t<std::is_signed_v<T>, int, unsigned int>;
    return static_cast<T>(atomicAdd(reinterpret_cast<U*>(address), static_cast<U>(value)));
  } else if constexpr (detail::is_native_int64_v<T>) {
    // Two's complement: an unsigned 64-bit add gives the signed sum's bits too.
    return static_cast<T>(atomicAdd(reinterpret_cast<unsigned long long*>(address),
                                    static_cast<unsigned long long>(value)));
  } else if constexpr (std::is_same_v<T, float> || std::is_same_v<T, double> || detail::is_half_v<T> ||
                       detail::is_bfloat16_v<T>) {
    return atomicAdd(address, value);
  } else {  // 8- and 16-bit integers: through the containing word
    return detail::cas_update(address, [value](const T& old, T& next) {
      next = static_cast<T>(old + value);
      return true;
    });
  }
}

/// Atomically `*address = max(*address, value)` in the library's order; returns the old value.
template <class T>
__device__ T atomic_max(T* address, T value) {
  static_assert(detail::is_arithmetic_v<T>, "tally::atomic_max needs an arithmetic type");
  if constexpr (detail::is_native_int32_v<T>) {
    using U = std::conditional_t<std::is_signed_v<T>, int, unsigned int>;
    return static_cast<T>(atomicMax(reinterpret_cast<U*>(address), static_cast<U>(value)));
  } else if constexpr (detail::is_native_int64_v<T>) {
    using U = std::conditional_t<std::is_signed_v<T>, long long, unsigned long long>;
    return static_cast<T>(atomicMax(reinterpret_cast<U*>(address), static_cast<U>(value)));
  } else {
    return detail::cas_update(address, [value](const T& old, T& next) {
      next = value;
      return detail::ordered_less(old, value);  // only ever raise: returns at once when old >= value
    });
  }
}

/// Atomically `*address = min(*address, value)` in the library's order; returns the old value.
template <class T>
__device__ T atomic_min(T* address, T value) {
  static_assert(detail::is_arithmetic_v<T>, "tally::atomic_min needs an arithmetic type");
  if constexpr (detail::is_native_int32_v<T>) {
    using U = std::conditional_t<std::is_signed_v<T>, int, unsigned int>;
    return static_cast<T>(atomicMin(reinterpret_cast<U*>(address), static_cast<U>(value)));
  } else if constexpr (detail::is_native_int64_v<T>) {
    using U = std::conditional_t<std::is_signed_v<T>, long long, unsigned long long>;
    return static_cast<T>(atomicMin(reinterpret_cast<U*>(address), static_cast<U>(value)));
  } else {
    return detail::cas_update(address, [value](const T& old, T& next) {
      next = value;
      return detail::ordered_less(value, old);
    });
  }
}

template <class T, class Op>
__device__ T atomic_update(T* address, T value, Op op) {
  if constexpr (detail::op_traits<Op, T>::is_plus && detail::is_arithmetic_v<T>) {
    return atomic_add(address, value);
  } else if constexpr (detail::op_traits<Op, T>::is_maximum && detail::is_arithmetic_v<T>) {
    return atomic_max(address, value);
  } else if constexpr (detail::op_traits<Op, T>::is_minimum && detail::is_arithmetic_v<T>) {
    return atomic_min(address, value);
  } else {
    return detail::cas_update(address, [value, op](const T& old, T& next) {
      next = op(old, value);
      return true;
    });
  }
}

TALLY_NAMESPACE_END
