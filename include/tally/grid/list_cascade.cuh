#pragma once
// The atomic backend's top_k across blocks: a list of K words in the slot (detail/runtime/scratch.cuh,
// zero between calls) that every block inserts its best K into with atomics, and that
// ends holding the grid's best K, best first.
//
// Inserting c at position 0: whatever position i holds, the better of it and the carried
// candidate stays there, atomically, and the other one is carried on to i + 1. Every
// candidate that ever reaches position i either stays there to the end or is carried on
// exactly once (when it loses on arrival, or when a later one displaces it), so, by
// induction on i, position i ends with the (i + 1)-th best of all candidates inserted,
// whatever the interleaving of the blocks' insertions. Candidates must be distinct (they
// are: each holds its index). A candidate that is no better than what position K - 1
// already holds can never be among the K best (that entry only gets better) and is
// dropped at once; past the first blocks most are.
//
// Words: packed keys (detail/packed_key.cuh) themselves, raised with the native 64-bit
// atomicMax; any other candidate as its index + 1, compared by reading its value again
// (the rank's `at(index)`), with a compare-and-swap loop. Zero means "empty" either way.

#include <tally/detail/atomic/cas_loop.cuh>
#include <tally/detail/config.cuh>

#include <cstdint>

TALLY_NAMESPACE_BEGIN
namespace detail {

template <class Rank, class = void>
struct has_packed_words : std::false_type {};
template <class Rank>
struct has_packed_words<Rank, std::enable_if_t<Rank::partitioned>> : std::true_type {};

/// Inserts candidate c (not empty) into the list of K words at `words`.
template <int K, class C, class Rank, class At>
__device__ void cascade_insert(unsigned long long* words, C c, const Rank& rank, At at) {
  if constexpr (has_packed_words<Rank>::value) {
    unsigned long long carried = c;
    if (carried <= atomic_load_word(&words[K - 1])) return;
#pragma unroll 1
    for (int i = 0; i < K && carried != 0; ++i) {
      const unsigned long long old = atomicMax(&words[i], carried);
      carried = old < carried ? old : carried;
    }
  } else {
    unsigned long long word = static_cast<unsigned long long>(rank.index(c)) + 1;
    {
      const unsigned long long last = atomic_load_word(&words[K - 1]);
      if (last != 0 && !rank.better(c, at(last - 1))) return;
    }
#pragma unroll 1
    for (int i = 0; i < K; ++i) {
      while (true) {
        const unsigned long long old = atomic_load_word(&words[i]);
        if (old != 0 && !rank.better(c, at(old - 1))) break;  // c stays behind: on to i + 1
        if (atomicCAS(&words[i], old, word) == old) {
          if (old == 0) return;
          word = old;  // the displaced one goes on
          c = at(old - 1);
          break;
        }
      }
    }
  }
}

/// The candidate a list word stands for (empty for 0).
template <class C, class Rank, class At>
__device__ C cascade_word(unsigned long long word, const Rank&, At at) {
  if constexpr (has_packed_words<Rank>::value) {
    return word;
  } else {
    return word == 0 ? Rank::empty() : at(word - 1);
  }
}

}  // namespace detail
TALLY_NAMESPACE_END
