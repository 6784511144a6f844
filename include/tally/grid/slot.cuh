#pragma once
// The atomic backend's accumulator: a slot in scratch memory (detail/runtime/scratch.cuh) that every
// block folds its value into with atomics, and that reads as "nothing yet" when it is
// all zero bits. Kernels leave it zeroed, so no call has to clear it first.
//
// How a value is kept so that zero bits mean "nothing yet", by what the operator allows:
// - own_fold: the operator brings a lock-free fold (`Op::atomic_fold(memory, value)` and
//   `Op::atomic_read(memory)`, e.g. top_k<2>'s pair of keys: 64-bit atomicMax, two at once
//   and rarely a third, instead of a 16-byte CAS loop);
// - integer_sum: the value's bits, added as a 32- or 64-bit unsigned integer (the low
//   bits of a wider two's complement sum are the narrow sum);
// - float_sum: the value itself (zero bits are +0.0), with native atomicAdd;
// - keyed (max / min): the order-preserving key of the value (detail/float_order.cuh),
//   raised with a native unsigned atomicMax; min stores the complemented key;
// - identity: any other operator with a tally::identity_element: the value's bits XOR
//   the identity's bits, updated by a compare-and-swap loop;
// - flagged: any other operator at all (no identity needed): the value's bytes followed
//   by a byte that is 1 once the slot holds a value, in one word that a compare-and-swap
//   loop updates (the first fold stores the value, each later one op(old, value)). The
//   word is at most 8 bytes, or 16 on sm_90 and newer (16-byte atomicCAS);
// - none: a value too large for that word; the atomic backend then combines the blocks
//   through partials and the last block, as the other backends do (docs/backends.md).

#include <tally/atomic.cuh>
#include <tally/detail/atomic/cas_loop.cuh>
#include <tally/detail/float_order.cuh>

TALLY_NAMESPACE_BEGIN
namespace detail {

/// Whether Op brings its own atomic fold into the all-zero-is-empty slot.
template <class Op, class T, class = void>
struct has_atomic_fold : std::false_type {};
template <class Op, class T>
struct has_atomic_fold<Op, T,
                       std::void_t<decltype(Op::atomic_fold(std::declval<void*>(), std::declval<const T&>())),
                                   decltype(Op::atomic_read(std::declval<void*>()))>> : std::true_type {};

enum class slot_mode { own_fold, integer_sum, float_sum, keyed, identity, flagged, none };

/// The widest compare-and-swap of an architecture, in bytes.
TALLY_HOST_DEVICE constexpr int max_cas_bytes(int arch) { return arch >= 90 ? 16 : 8; }

/// The smallest CAS word of 4, 8 or 16 bytes that holds `bytes` bytes.
TALLY_HOST_DEVICE constexpr int cas_word_bytes(int bytes) { return bytes <= 4 ? 4 : bytes <= 8 ? 8 : 16; }

/// How the slot keeps a T under Op on architecture `arch`.
template <class Op, class T>
TALLY_HOST_DEVICE constexpr slot_mode slot_mode_of(int arch) {
  using traits = op_traits<Op, T>;
  if constexpr (has_atomic_fold<Op, T>::value) {
    return slot_mode::own_fold;
  } else if constexpr (!std::is_trivially_copyable_v<T>) {
    return slot_mode::none;
  } else if constexpr (traits::is_plus && std::is_integral_v<T>) {
    return slot_mode::integer_sum;
  } else if constexpr (traits::is_plus && is_floating_v<T>) {
    return slot_mode::float_sum;
  } else if constexpr ((traits::is_maximum || traits::is_minimum) && is_arithmetic_v<T>) {
    return slot_mode::keyed;
  } else if constexpr (has_identity_v<Op, T>) {
    return int(sizeof(T)) <= max_cas_bytes(arch) ? slot_mode::identity
           : int(sizeof(T)) + 1 <= max_cas_bytes(arch) ? slot_mode::flagged
                                                        : slot_mode::none;
  } else {
    return int(sizeof(T)) + 1 <= max_cas_bytes(arch) ? slot_mode::flagged : slot_mode::none;
  }
}

/// The word a compare-and-swap loop updates for `Bytes` bytes.
template <int Bytes>
using cas_word_t = std::conditional_t<(Bytes <= 4), unsigned int,
                                      std::conditional_t<(Bytes <= 8), unsigned long long, uint128_word>>;

template <class T, class Op, slot_mode Mode>
struct slot {
  static_assert(Mode != slot_mode::none, "tally: this value does not fit the atomic slot");
  using traits = op_traits<Op, T>;
  using sum_word = std::conditional_t<(sizeof(T) <= 4), unsigned int, unsigned long long>;
  using key_t = order_key_t<T>;
  // identity: the value's bytes; flagged: the value's bytes and the flag byte after them.
  static constexpr int word_bytes = cas_word_bytes(int(sizeof(T)) + (Mode == slot_mode::flagged ? 1 : 0));
  using word_t = cas_word_t<word_bytes>;

  __device__ static word_t identity_word() {
    word_t word{};
    if constexpr (Mode == slot_mode::identity) {
      const T id = identity_element<Op, T>::value();
      memcpy(&word, &id, sizeof(T));
    }
    return word;
  }
  __device__ static word_t xor_words(word_t a, word_t b) {
    if constexpr (std::is_same_v<word_t, uint128_word>) return uint128_word{a.lo ^ b.lo, a.hi ^ b.hi};
    else return a ^ b;
  }
  __device__ static word_t encode(const T& value) {
    word_t word{};
    memcpy(&word, &value, sizeof(T));
    if constexpr (Mode == slot_mode::flagged) reinterpret_cast<unsigned char*>(&word)[sizeof(T)] = 1;
    return Mode == slot_mode::identity ? xor_words(word, identity_word()) : word;
  }
  __device__ static T decode(word_t word) {
    if constexpr (Mode == slot_mode::identity) word = xor_words(word, identity_word());
    T value;
    memcpy(&value, &word, sizeof(T));
    return value;
  }
  __device__ static bool holds_value(const word_t& word) {
    return reinterpret_cast<const unsigned char*>(&word)[sizeof(T)] != 0;
  }

  /// Folds `value` into the slot.
  __device__ static void combine(void* memory, const T& value, Op op) {
    if constexpr (Mode == slot_mode::own_fold) {
      Op::atomic_fold(memory, value);
    } else if constexpr (Mode == slot_mode::integer_sum) {
      atomicAdd(static_cast<sum_word*>(memory), sum_word(bit_cast<uint_of_t<sizeof(T)>>(value)));
    } else if constexpr (Mode == slot_mode::float_sum) {
      atomic_add(static_cast<T*>(memory), value);
    } else if constexpr (Mode == slot_mode::keyed) {
      const key_t key = to_order_key(value);
      atomicMax(static_cast<key_t*>(memory), traits::is_maximum ? key : key_t(~key));
    } else if constexpr (Mode == slot_mode::identity) {
      cas_update(static_cast<word_t*>(memory), [&](const word_t& old, word_t& next) {
        next = encode(op(decode(old), value));
        return true;
      });
    } else {  // flagged
      cas_update(static_cast<word_t*>(memory), [&](const word_t& old, word_t& next) {
        next = encode(holds_value(old) ? op(decode(old), value) : value);
        return true;
      });
    }
  }

  /// The slot's value. Called by the last block after every other block's combine.
  __device__ static T read(void* memory) {
    if constexpr (Mode == slot_mode::own_fold) {
      return Op::atomic_read(memory);
    } else if constexpr (Mode == slot_mode::integer_sum) {
      const sum_word word = atomic_load_word(static_cast<sum_word*>(memory));
      return bit_cast<T>(uint_of_t<sizeof(T)>(word));
    } else if constexpr (Mode == slot_mode::float_sum) {
      using bits_t = uint_of_t<sizeof(T)>;
      if constexpr (sizeof(T) >= 4) {
        return bit_cast<T>(atomic_load_word(static_cast<bits_t*>(memory)));
      } else {
        const unsigned int word = atomic_load_word(static_cast<unsigned int*>(memory));
        return bit_cast<T>(bits_t(word));  // the value sits in the low bytes
      }
    } else if constexpr (Mode == slot_mode::keyed) {
      const key_t key = atomic_load_word(static_cast<key_t*>(memory));
      return from_order_key<T>(traits::is_maximum ? key : key_t(~key));
    } else {
      return decode(atomic_load_word(static_cast<word_t*>(memory)));
    }
  }

  /// Back to all zero bits for the next call.
  __device__ static void reset(void* memory) {
    auto* words = static_cast<unsigned long long*>(memory);
    words[0] = 0;
    words[1] = 0;
  }
};

}  // namespace detail
TALLY_NAMESPACE_END
