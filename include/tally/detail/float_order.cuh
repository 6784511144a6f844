#pragma once
// The library's order on values (DESIGN §2): NaN is greater than every number and
// -0.0 == +0.0; other types use operator<. Also an order-preserving map of every
// arithmetic type onto unsigned integers, so that max/min become one native
// unsigned atomicMax, and (value, index) pairs pack into one 64-bit key.

#include <tally/detail/type_traits.cuh>

#include <climits>

TALLY_NAMESPACE_BEGIN
namespace detail {

template <class T>
TALLY_HOST_DEVICE TALLY_FORCEINLINE bool is_nan(const T& x) {
  if constexpr (std::is_floating_point_v<T>) {
    return x != x;
  } else if constexpr (is_half_v<T>) {
    return (bit_cast<std::uint16_t>(x) & 0x7fffu) > 0x7c00u;
  } else if constexpr (is_bfloat16_v<T>) {
    return (bit_cast<std::uint16_t>(x) & 0x7fffu) > 0x7f80u;
  } else {
    return false;
  }
}

/// a < b in the library's order.
template <class T>
TALLY_HOST_DEVICE TALLY_FORCEINLINE bool ordered_less(const T& a, const T& b) {
  if constexpr (is_floating_v<T>) {
    if (is_nan(a)) return false;
    if (is_nan(b)) return true;
    if constexpr (is_half_v<T> || is_bfloat16_v<T>) {
      return static_cast<float>(a) < static_cast<float>(b);
    } else {
      return a < b;  // -0.0 < +0.0 is false: the zeros are equal
    }
  } else {
    return a < b;
  }
}

/// The unsigned key type of T's order: 32 bits for types of up to 4 bytes, else 64.
template <class T>
using order_key_t = std::conditional_t<(sizeof(T) <= 4), std::uint32_t, unsigned long long>;

/// Maps an arithmetic value onto an unsigned key with the same order (the library's
/// order for floats: every NaN maps to the largest key, -0.0 to the key of +0.0).
template <class T>
TALLY_HOST_DEVICE TALLY_FORCEINLINE order_key_t<T> to_order_key(T x) {
  using bits_t = uint_of_t<sizeof(T)>;
  using key_t = order_key_t<T>;
  constexpr bits_t sign = bits_t(bits_t(1) << (sizeof(T) * 8 - 1));
  if constexpr (is_floating_v<T>) {
    if (is_nan(x)) return key_t(bits_t(~bits_t(0)));
    bits_t b = bit_cast<bits_t>(x);
    if (b == sign) b = 0;  // -0.0 -> +0.0
    // Negative floats order backwards in their bits: flip them all; positive ones
    // get the sign bit set so that they sort above every negative one.
    return key_t(bits_t((b & sign) ? bits_t(~b) : bits_t(b | sign)));
  } else if constexpr (std::is_signed_v<T>) {
    return key_t(bits_t(bit_cast<bits_t>(x) ^ sign));
  } else {
    return key_t(x);
  }
}

/// The inverse of to_order_key. Every NaN comes back as the default quiet NaN (sign
/// clear, top mantissa bit set: 0x7fc00000 for float), and -0.0 as +0.0.
template <class T>
TALLY_HOST_DEVICE TALLY_FORCEINLINE T from_order_key(order_key_t<T> key) {
  using bits_t = uint_of_t<sizeof(T)>;
  constexpr bits_t sign = bits_t(bits_t(1) << (sizeof(T) * 8 - 1));
  bits_t k = bits_t(key);
  if constexpr (is_floating_v<T>) {
    if (k == bits_t(~bits_t(0))) {  // the key every NaN maps to
      constexpr int mantissa_bits = std::is_same_v<T, float> ? 23 : std::is_same_v<T, double> ? 52 : is_half_v<T> ? 10 : 7;
      constexpr bits_t exponent_all = bits_t(bits_t(~sign) >> mantissa_bits << mantissa_bits);
      return bit_cast<T>(bits_t(exponent_all | bits_t(bits_t(1) << (mantissa_bits - 1))));
    }
    return bit_cast<T>(bits_t((k & sign) ? bits_t(k & ~sign) : bits_t(~k)));
  } else if constexpr (std::is_signed_v<T>) {
    return bit_cast<T>(bits_t(k ^ sign));
  } else {
    return T(k);
  }
}

/// Whether `key` is the key of one value only, so that from_order_key gives back the very
/// bits that were mapped: every key but those of a float type's zeros (-0.0 and +0.0) and
/// of its NaNs (every payload).
template <class T>
TALLY_HOST_DEVICE TALLY_FORCEINLINE bool order_key_is_exact(order_key_t<T> key) {
  if constexpr (is_floating_v<T>) {
    using bits_t = uint_of_t<sizeof(T)>;
    constexpr bits_t sign = bits_t(bits_t(1) << (sizeof(T) * 8 - 1));
    const bits_t k = bits_t(key);
    return k != bits_t(~bits_t(0)) && k != sign;
  } else {
    return true;
  }
}

/// The value of `key` into `out` where the key holds it exactly (order_key_is_exact); false
/// for a float's zeros and NaNs, whose bits the caller reads from the input again.
template <class T>
TALLY_HOST_DEVICE TALLY_FORCEINLINE bool value_of_order_key(order_key_t<T> key, T& out) {
  if (!order_key_is_exact<T>(key)) return false;
  out = from_order_key<T>(key);
  return true;
}

}  // namespace detail
TALLY_NAMESPACE_END
