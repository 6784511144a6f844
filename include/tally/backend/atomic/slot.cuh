#pragma once
// The atomic backend's accumulator: a 16-byte slot in scratch memory that every block
// folds its partial into with one atomic, and that reads as "nothing yet" when it is
// all zero bits. Kernels leave it zeroed, so no call has to clear it first.
//
// How a value is kept so that zero bits mean the identity:
// - integer sums: the value's bits, added as a 32- or 64-bit unsigned integer (the
//   low bits of a wider two's complement sum are the narrow sum);
// - floating sums: the value itself (zero bits are +0.0), with native atomicAdd;
// - max / min: the order-preserving key of the value (detail/float_order.cuh), raised
//   with a native unsigned atomicMax; min stores the complemented key;
// - any other operator with a tally::identity_element: the value's bits XOR the
//   identity's bits, updated by a CAS loop;
// - an operator with its own lock-free fold (`Op::atomic_fold(memory, value)` and
//   `Op::atomic_read(memory)`, e.g. top_k<2>'s pair of keys: two 64-bit atomicMax
//   instead of a 16-byte CAS loop): that fold, over the same all-zero-means-empty slot.

#include <tally/atomic.cuh>
#include <tally/detail/float_order.cuh>

TALLY_NAMESPACE_BEGIN
namespace backend_atomic {

/// Whether Op brings its own atomic fold into a 16-byte all-zero-is-empty slot.
template <class Op, class T, class = void>
struct has_atomic_fold : std::false_type {};
template <class Op, class T>
struct has_atomic_fold<Op, T,
                       std::void_t<decltype(Op::atomic_fold(std::declval<void*>(), std::declval<const T&>())),
                                   decltype(Op::atomic_read(std::declval<void*>()))>> : std::true_type {};

template <class Op, class T>
inline constexpr bool slot_supports_v =
    detail::is_native_reduction_v<Op, T> || (has_identity_v<Op, T> && sizeof(T) <= 16 && std::is_trivially_copyable_v<T>);

template <class T, class Op>
struct slot {
  using traits = detail::op_traits<Op, T>;
  static constexpr bool integer_sum = traits::is_plus && std::is_integral_v<T>;
  static constexpr bool float_sum = traits::is_plus && detail::is_floating_v<T>;
  static constexpr bool keyed = (traits::is_maximum || traits::is_minimum) && detail::is_arithmetic_v<T>;
  using sum_word = std::conditional_t<(sizeof(T) <= 4), unsigned int, unsigned long long>;
  using key_t = detail::order_key_t<T>;
  using generic_word = std::conditional_t<(sizeof(T) <= 4), unsigned int,
                                          std::conditional_t<(sizeof(T) <= 8), unsigned long long, detail::uint128_word>>;

  __device__ static generic_word encode(const T& value) {
    generic_word word{}, identity{};
    const T id = identity_element<Op, T>::value();
    memcpy(&word, &value, sizeof(T));
    memcpy(&identity, &id, sizeof(T));
    return xor_words(word, identity);
  }
  __device__ static T decode(generic_word word) {
    generic_word identity{};
    const T id = identity_element<Op, T>::value();
    memcpy(&identity, &id, sizeof(T));
    word = xor_words(word, identity);
    T value;
    memcpy(&value, &word, sizeof(T));
    return value;
  }
  __device__ static generic_word xor_words(generic_word a, generic_word b) {
    if constexpr (std::is_same_v<generic_word, detail::uint128_word>) {
      return detail::uint128_word{a.lo ^ b.lo, a.hi ^ b.hi};
    } else {
      return a ^ b;
    }
  }

  /// Folds `value` into the slot.
  __device__ static void combine(void* memory, const T& value, Op op) {
    if constexpr (has_atomic_fold<Op, T>::value) {
      static_assert(sizeof(T) <= 16, "tally: an atomic fold works in the 16-byte slot");
      Op::atomic_fold(memory, value);
    } else if constexpr (integer_sum) {
      atomicAdd(static_cast<sum_word*>(memory), sum_word(detail::bit_cast<detail::uint_of_t<sizeof(T)>>(value)));
    } else if constexpr (float_sum) {
      atomic_add(static_cast<T*>(memory), value);
    } else if constexpr (keyed) {
      const key_t key = detail::to_order_key(value);
      atomicMax(static_cast<key_t*>(memory), traits::is_maximum ? key : key_t(~key));
    } else {
      static_assert(has_identity_v<Op, T>,
                    "tally: the atomic backend needs an identity for this operator: specialise "
                    "tally::identity_element<Op, T>, or use the shared_memory or warp_shuffle backend");
      static_assert(sizeof(T) <= 16, "tally: the atomic backend handles values of at most 16 bytes");
      detail::cas_update(static_cast<generic_word*>(memory), [&](const generic_word& old, generic_word& next) {
        next = encode(op(decode(old), value));
        return true;
      });
    }
  }

  /// The slot's value. Called by the last block after every other block's combine.
  __device__ static T read(void* memory) {
    if constexpr (has_atomic_fold<Op, T>::value) {
      return Op::atomic_read(memory);
    } else if constexpr (integer_sum) {
      const sum_word word = detail::atomic_load_word(static_cast<sum_word*>(memory));
      return detail::bit_cast<T>(detail::uint_of_t<sizeof(T)>(word));
    } else if constexpr (float_sum) {
      using bits_t = detail::uint_of_t<sizeof(T)>;
      if constexpr (sizeof(T) >= 4) {
        return detail::bit_cast<T>(detail::atomic_load_word(static_cast<bits_t*>(memory)));
      } else {
        const unsigned int word = detail::atomic_load_word(static_cast<unsigned int*>(memory));
        return detail::bit_cast<T>(bits_t(word));  // the value sits in the low bytes
      }
    } else if constexpr (keyed) {
      const key_t key = detail::atomic_load_word(static_cast<key_t*>(memory));
      return detail::from_order_key<T>(traits::is_maximum ? key : key_t(~key));
    } else {
      return decode(detail::atomic_load_word(static_cast<generic_word*>(memory)));
    }
  }

  /// Back to all zero bits for the next call.
  __device__ static void reset(void* memory) {
    auto* words = static_cast<unsigned long long*>(memory);
    words[0] = 0;
    words[1] = 0;
  }
};

}  // namespace backend_atomic
TALLY_NAMESPACE_END
