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

/// The largest 64-bit word of the warp, in every lane: the largest high half, then the
/// largest low half among the lanes that hold it (two REDUX from sm_80, where five
/// rounds of two 32-bit shuffles, a compare and a select each made a chain of about 175
/// cycles). All 32 lanes must call it.
__device__ TALLY_FORCEINLINE unsigned long long warp_max_word(unsigned long long w) {
  const unsigned int high = warp_max(static_cast<unsigned int>(w >> 32));
  const unsigned int low = warp_max(static_cast<unsigned int>(w >> 32) == high ? static_cast<unsigned int>(w) : 0u);
  return (static_cast<unsigned long long>(high) << 32) | low;
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

/// An operator may fold a whole warp itself (`op.warp_fold(value)`: every lane calls it,
/// lane 0 gets the result), e.g. with REDUX where the shuffle tree's rounds cost more;
/// lanes without a value then offer `Op::empty_accumulator()`, which must leave any value
/// as it is.
template <class Op, class T, class = void>
struct has_warp_fold : std::false_type {};
template <class Op, class T>
struct has_warp_fold<Op, T, std::void_t<decltype(std::declval<const Op&>().warp_fold(std::declval<const T&>())),
                                        decltype(Op::empty_accumulator())>> : std::true_type {};

/// Reduces one value per lane over the first `valid` lanes of a warp; lane 0 gets the
/// result (other lanes hold partial results). All 32 lanes must call it.
/// The order of combination is fixed by lane numbers, so the result is deterministic.
/// Where the operator has a warp_fold (above), that is the whole reduction.
template <bool Full, class T, class Op>
__device__ TALLY_FORCEINLINE T warp_reduce(T value, int valid, Op op) {
  const int lane = static_cast<int>(threadIdx.x) & 31;
  if constexpr (has_warp_fold<Op, T>::value) {
    return op.warp_fold(Full || lane < valid ? value : Op::empty_accumulator());
  } else {
#pragma unroll
    for (int offset = 16; offset > 0; offset /= 2) {
      const T other = shuffle_down(value, offset);
      // Lanes at or past `valid` hold no value: never fold them in.
      if (Full || lane + offset < valid) value = op(value, other);
    }
    return value;
  }
}

}  // namespace detail
TALLY_NAMESPACE_END
