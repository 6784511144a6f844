#pragma once
// Type traits that tally needs beyond <type_traits>: the CUDA 16-bit float types,
// iterator value types, and the raw pointer behind a contiguous iterator.

#include <tally/detail/config.cuh>

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <thrust/device_ptr.h>

#include <cstdint>
#include <cstring>
#include <iterator>
#include <type_traits>

TALLY_NAMESPACE_BEGIN
namespace detail {

template <class T>
inline constexpr bool is_half_v = std::is_same_v<std::remove_cv_t<T>, __half>;
template <class T>
inline constexpr bool is_bfloat16_v = std::is_same_v<std::remove_cv_t<T>, __nv_bfloat16>;

/// float, double, __half and __nv_bfloat16: the types ordered by the library's float order.
template <class T>
inline constexpr bool is_floating_v = std::is_floating_point_v<T> || is_half_v<T> || is_bfloat16_v<T>;

/// Built-in arithmetic types plus the CUDA 16-bit floats.
template <class T>
inline constexpr bool is_arithmetic_v = std::is_arithmetic_v<T> || is_half_v<T> || is_bfloat16_v<T>;

template <class It>
using iter_value_t = typename std::iterator_traits<It>::value_type;

/// Bit-for-bit conversion between trivially copyable types of the same size.
template <class To, class From>
TALLY_HOST_DEVICE TALLY_FORCEINLINE To bit_cast(const From& from) {
  static_assert(sizeof(To) == sizeof(From), "bit_cast needs types of equal size");
  To to;
  memcpy(&to, &from, sizeof(To));
  return to;
}

/// The unsigned integer of a given size.
template <int Bytes> struct uint_of;
template <> struct uint_of<1> { using type = std::uint8_t; };
template <> struct uint_of<2> { using type = std::uint16_t; };
template <> struct uint_of<4> { using type = std::uint32_t; };
template <> struct uint_of<8> { using type = unsigned long long; };
template <int Bytes>
using uint_of_t = typename uint_of<Bytes>::type;

/// A 16-byte word for the 128-bit compare-and-swap of sm_90.
struct alignas(16) uint128_word {
  unsigned long long lo, hi;
};
TALLY_HOST_DEVICE inline bool operator==(uint128_word a, uint128_word b) { return a.lo == b.lo && a.hi == b.hi; }
TALLY_HOST_DEVICE inline bool operator!=(uint128_word a, uint128_word b) { return !(a == b); }

/// Raw pointers and thrust::device_ptr are contiguous: tally may read them with
/// vector loads and check where they point. Every other iterator is read item by item.
template <class It>
struct contiguous_iterator : std::false_type {};
template <class T>
struct contiguous_iterator<T*> : std::true_type {
  TALLY_HOST_DEVICE static T* get(T* p) { return p; }
};
template <class T>
struct contiguous_iterator<thrust::device_ptr<T>> : std::true_type {
  TALLY_HOST_DEVICE static T* get(thrust::device_ptr<T> p) { return p.get(); }
};
template <class It>
inline constexpr bool is_contiguous_iterator_v = contiguous_iterator<It>::value;

template <class It>
TALLY_HOST_DEVICE auto to_raw_pointer(It it) {
  return contiguous_iterator<It>::get(it);
}

}  // namespace detail
TALLY_NAMESPACE_END
