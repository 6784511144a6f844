#pragma once
// The compare-and-swap loop behind every atomic without a native instruction.
//
// `cas_update(address, f)` applies `f(old) -> new` atomically and returns the old value.
// `f` may decline (return false), e.g. when a max is already larger: the operation is
// then a plain atomic read. Words are compared as bit patterns, never as values, so a
// NaN (which is unequal to itself) cannot keep the loop spinning: each failed attempt
// means another thread changed the word, and the loop retries with what it read.
//
// Sub-word types (1 and 2 bytes) go through their aligned containing 32-bit word;
// the neighbouring bytes are carried along unchanged, and a change to them by another
// thread fails the CAS like any other, so they are never clobbered.

#include <tally/detail/type_traits.cuh>

#include <cuda/atomic>

TALLY_NAMESPACE_BEGIN
namespace detail {

template <class W>
__device__ TALLY_FORCEINLINE W atomic_load_word(W* address) {
  if constexpr (std::is_same_v<W, uint128_word>) {
    // No 16-byte atomic load: a CAS that writes back what it finds reads atomically.
    uint128_word guess{0, 0};
    return atomicCAS(address, guess, guess);
  } else {
    // A relaxed atomic load goes to L2: a plain load could return a stale L1 line, and
    // the loop could then wrongly decline (e.g. a max against an old, larger value).
    return cuda::atomic_ref<W, cuda::thread_scope_device>(*address).load(cuda::std::memory_order_relaxed);
  }
}

template <class W>
__device__ TALLY_FORCEINLINE W atomic_cas_word(W* address, W expected, W desired) {
  if constexpr (std::is_same_v<W, uint128_word>) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 900
    static_assert(sizeof(W) == 0, "tally: 16-byte atomics need sm_90 or newer");
#endif
    return atomicCAS(address, expected, desired);
  } else {
    return atomicCAS(address, expected, desired);
  }
}

/// Atomically replaces *address by f(old) (when f agrees) and returns old.
/// `bool f(const T& old, T& next)`: false leaves *address unchanged.
template <class T, class F>
__device__ T cas_update(T* address, F f) {
  static_assert(std::is_trivially_copyable_v<T>, "tally: atomics need a trivially copyable type");
  static_assert(sizeof(T) == 1 || sizeof(T) == 2 || sizeof(T) == 4 || sizeof(T) == 8 || sizeof(T) == 16,
                "tally: atomics support types of 1, 2, 4, 8 or 16 bytes");
  if constexpr (sizeof(T) >= 4) {
    using word_t = std::conditional_t<sizeof(T) == 4, unsigned int,
                                      std::conditional_t<sizeof(T) == 8, unsigned long long, uint128_word>>;
    word_t* word = reinterpret_cast<word_t*>(address);
    word_t old = atomic_load_word(word);
    while (true) {
      const T current = bit_cast<T>(old);
      T next;
      if (!f(current, next)) return current;
      const word_t desired = bit_cast<word_t>(next);
      if (desired == old) return current;  // nothing would change: linearise at the read
      const word_t seen = atomic_cas_word(word, old, desired);
      if (seen == old) return current;
      old = seen;
    }
  } else {
    using bits_t = uint_of_t<sizeof(T)>;
    const auto addr = reinterpret_cast<std::uintptr_t>(address);
    unsigned int* word = reinterpret_cast<unsigned int*>(addr & ~std::uintptr_t(3));
    const unsigned int shift = static_cast<unsigned int>(addr & 3u) * 8u;  // little-endian byte offset
    const unsigned int mask = ((1u << (sizeof(T) * 8)) - 1u) << shift;
    unsigned int old = atomic_load_word(word);
    while (true) {
      const T current = bit_cast<T>(static_cast<bits_t>((old & mask) >> shift));
      T next;
      if (!f(current, next)) return current;
      const unsigned int desired = (old & ~mask) | (static_cast<unsigned int>(bit_cast<bits_t>(next)) << shift);
      if (desired == old) return current;
      const unsigned int seen = atomicCAS(word, old, desired);
      if (seen == old) return current;
      old = seen;
    }
  }
}

}  // namespace detail
TALLY_NAMESPACE_END
