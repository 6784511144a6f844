#pragma once
// Type traits that tally needs beyond <type_traits>: the CUDA 16-bit float types,
// iterator value types, and the raw pointer behind a contiguous iterator (every iterator
// that Thrust knows to be contiguous).

#include <tally/detail/config.cuh>

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <thrust/type_traits/is_contiguous_iterator.h>

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
  memcpy(static_cast<void*>(&to), static_cast<const void*>(&from), sizeof(To));  // To may be a class (__half)
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

/// Contiguous iterators: tally may read them with vector loads and check where they point
/// (runtime/validate.cuh). Every iterator that Thrust calls contiguous
/// (`thrust::is_contiguous_iterator_v`) is: raw pointers, `thrust::device_ptr` and the other
/// Thrust pointers, `thrust::device_vector<T>::iterator` (and universal_vector's,
/// host_vector's), `cuda::std::span` and `cuda::std::array` iterators, the standard
/// library's contiguous iterators (`std::vector<T>::iterator`, `std::array`), and any
/// iterator proclaimed with `THRUST_PROCLAIM_CONTIGUOUS_ITERATOR`. Every other iterator
/// (counting, transform, reverse, `std::vector<bool>`, ...) is read item by item.
///
/// `get` (through `to_raw_pointer`) is the raw pointer to the item the iterator points to,
/// as `thrust::unwrap_contiguous_iterator` gives it (`thrust::raw_pointer_cast(&*it)`,
/// which reads no memory). Where that memory lies is not known: a `std::vector` iterator
/// gives a host pointer, which `check_device_accessible` refuses for a device policy. It
/// works on the host for every contiguous iterator, and on the device for those whose
/// dereference is `__device__` (all of Thrust's and libcu++'s; not the standard library's,
/// whose memory a device policy cannot read anyway).
template <class It, class Enable = void>
struct contiguous_iterator : std::false_type {};
template <class T>
struct contiguous_iterator<T*> : std::true_type {
  TALLY_HOST_DEVICE static T* get(T* p) { return p; }
};
// Not <thrust/device_ptr.h> (more lines than the whole of CUB's DeviceReduce): a Thrust
// iterator reaches tally from code that included its header, and the trait is asked
// there.
/// A raw pointer from what `&*it` gives: a raw pointer, or a Thrust pointer (device_ptr,
/// ...), whose get() is the raw pointer (thrust::raw_pointer_cast, without its header).
template <class P>
TALLY_HOST_DEVICE auto raw_address(P p) {
  if constexpr (std::is_pointer_v<P>) return p;
  else return raw_address(p.get());
}
/// Reverse iterators are never contiguous (they walk backwards), and are not asked of
/// Thrust: CCCL 3.5's trait does not compile for `cuda::std::reverse_iterator<device_ptr<T>>`
/// (what `thrust::make_reverse_iterator` returns there) under g++, whose check of the
/// contiguous_iterator concept instantiates its operator->. The question goes to Thrust
/// lazily (std::conjunction stops at the first false), so the trait is never named for them.
template <class It>
struct is_reverse_iterator : std::false_type {};
template <class It>
struct is_reverse_iterator<std::reverse_iterator<It>> : std::true_type {};
template <class It>
struct is_reverse_iterator<::cuda::std::reverse_iterator<It>> : std::true_type {};
template <class It>
struct asks_thrust_contiguous : std::bool_constant<thrust::is_contiguous_iterator_v<It>> {};
template <class It>
inline constexpr bool is_contiguous_non_pointer_v =
    std::conjunction_v<std::negation<std::is_pointer<It>>, std::negation<is_reverse_iterator<It>>,
                       asks_thrust_contiguous<It>>;

template <class It>
struct contiguous_iterator<It, std::enable_if_t<is_contiguous_non_pointer_v<It>>> : std::true_type {
  using pointer = decltype(raw_address(&*std::declval<const It&>()));
  // The standard library's iterators have host-only members: this is then called on the
  // host only, and nvcc must not check it as a device function.
#if defined(__CUDACC__) && !defined(__clang__)
#pragma nv_exec_check_disable
#endif
  TALLY_HOST_DEVICE static pointer get(const It& it) { return raw_address(&*it); }
};
template <class It>
inline constexpr bool is_contiguous_iterator_v = contiguous_iterator<It>::value;

/// The raw pointer behind a contiguous iterator (see contiguous_iterator).
template <class It>
TALLY_HOST_DEVICE auto to_raw_pointer(It it) {
  return contiguous_iterator<It>::get(it);
}

/// A contiguous iterator as its raw pointer, any other iterator as it is: what a kernel is
/// best instantiated with, so that `v.begin()`, `v.data()` and
/// `thrust::raw_pointer_cast(v.data())` share one kernel.
template <class It, bool = is_contiguous_iterator_v<It>>
struct unwrapped_iterator {
  using type = It;
};
template <class It>
struct unwrapped_iterator<It, true> {
  using type = decltype(contiguous_iterator<It>::get(std::declval<It>()));
};
template <class It>
using unwrapped_iterator_t = typename unwrapped_iterator<It>::type;
template <class It>
TALLY_HOST_DEVICE unwrapped_iterator_t<It> unwrap_iterator(It it) {
  if constexpr (is_contiguous_iterator_v<It>) return to_raw_pointer(it);
  else return it;
}

}  // namespace detail
TALLY_NAMESPACE_END
