#pragma once
// __shfl_down_sync and __shfl_xor_sync for any trivially copyable type: built-in
// shuffles move 32-bit registers, so a value is moved as the 32-bit words that hold it.

#include <tally/detail/type_traits.cuh>

TALLY_NAMESPACE_BEGIN
namespace detail {

inline constexpr unsigned int full_warp_mask = 0xffffffffu;

/// Applies `shuffle(word)` to each 32-bit word of value.
template <class T, class Shuffle>
__device__ TALLY_FORCEINLINE T shuffle_words(const T& value, Shuffle shuffle) {
  static_assert(std::is_trivially_copyable_v<T>, "tally: shuffled values must be trivially copyable");
  constexpr int words = (sizeof(T) + 3) / 4;
  unsigned int in[words] = {};
  memcpy(in, &value, sizeof(T));
  unsigned int out[words];
#pragma unroll
  for (int w = 0; w < words; ++w) out[w] = shuffle(in[w]);
  T result;
  memcpy(&result, out, sizeof(T));
  return result;
}

template <class T>
__device__ TALLY_FORCEINLINE T shuffle_down(const T& value, unsigned int offset) {
  return shuffle_words(value, [offset](unsigned int word) { return __shfl_down_sync(full_warp_mask, word, offset); });
}

/// The value of lane (lane ^ mask).
template <class T>
__device__ TALLY_FORCEINLINE T shuffle_xor(const T& value, int mask) {
  return shuffle_words(value, [mask](unsigned int word) { return __shfl_xor_sync(full_warp_mask, word, mask); });
}

/// The value of lane `source`.
template <class T>
__device__ TALLY_FORCEINLINE T shuffle_from(const T& value, int source) {
  return shuffle_words(value, [source](unsigned int word) { return __shfl_sync(full_warp_mask, word, source); });
}

/// The largest of one unsigned value per lane, in every lane; all 32 lanes must call it.
/// One REDUX instruction from sm_80 on, a butterfly of shuffles before.
__device__ TALLY_FORCEINLINE unsigned int warp_max(unsigned int value) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  return __reduce_max_sync(full_warp_mask, value);
#else
#pragma unroll
  for (int mask = 16; mask > 0; mask /= 2) value = max(value, __shfl_xor_sync(full_warp_mask, value, mask));
  return value;
#endif
}

/// The OR of one unsigned value per lane, in every lane; all 32 lanes must call it. One
/// REDUX instruction from sm_80 on, a butterfly of shuffles before.
__device__ TALLY_FORCEINLINE unsigned int warp_or(unsigned int value) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  return __reduce_or_sync(full_warp_mask, value);
#else
#pragma unroll
  for (int mask = 16; mask > 0; mask /= 2) value |= __shfl_xor_sync(full_warp_mask, value, mask);
  return value;
#endif
}

/// Reduces one value per lane over the first `valid` lanes of a warp; lane 0 gets the
/// result (other lanes hold partial results). All 32 lanes must call it.
/// The order of combination is fixed by lane numbers, so the result is deterministic.
template <bool Full, class T, class Op>
__device__ TALLY_FORCEINLINE T warp_reduce(T value, int valid, Op op) {
  const int lane = static_cast<int>(threadIdx.x) & 31;
#pragma unroll
  for (int offset = 16; offset > 0; offset /= 2) {
    const T other = shuffle_down(value, offset);
    // Lanes at or past `valid` hold no value: never fold them in.
    if (Full || lane + offset < valid) value = op(value, other);
  }
  return value;
}

}  // namespace detail
TALLY_NAMESPACE_END
