#pragma once
// A thread's best P candidates, sorted best first, in registers. P is a power of two
// (K rounded up) so that two lists merge with a bitonic network. Every index into a
// list is a compile-time constant (all loops unrolled), or the list would be spilled
// to local memory. `rank` is one of the candidate kinds of candidates.cuh.

#include <tally/warp/shuffle.cuh>

TALLY_NAMESPACE_BEGIN
namespace detail {

/// The smallest power of two >= k.
TALLY_HOST_DEVICE constexpr int top_k_list_size(int k) {
  int p = 1;
  while (p < k) p *= 2;
  return p;
}

template <int P, class C, class Rank>
__device__ TALLY_FORCEINLINE void fill_empty(C (&list)[P], const Rank&) {
#pragma unroll
  for (int i = 0; i < P; ++i) list[i] = Rank::empty();
}

/// Puts c into the list if it beats the last entry (the common case on most data is
/// one compare and nothing else), then bubbles it up to its place.
template <int P, class C, class Rank>
__device__ TALLY_FORCEINLINE void insert(C (&list)[P], const C& c, const Rank& rank) {
  if (!rank.better(c, list[P - 1])) return;
  list[P - 1] = c;
#pragma unroll
  for (int i = P - 1; i > 0; --i) {
    const C a = list[i - 1], b = list[i];
    const bool swap = rank.better(b, a);
    list[i - 1] = swap ? b : a;
    list[i] = swap ? a : b;
  }
}

/// Sorts a bitonic list best first: log2(P) rounds of half-cleaners.
template <int P, class C, class Rank>
__device__ TALLY_FORCEINLINE void sort_bitonic(C (&list)[P], const Rank& rank) {
#pragma unroll
  for (int stride = P / 2; stride > 0; stride /= 2) {
#pragma unroll
    for (int i = 0; i < P; ++i) {
      if ((i & stride) == 0) {
        const C a = list[i], b = list[i + stride];
        const bool swap = rank.better(b, a);
        list[i] = swap ? b : a;
        list[i + stride] = swap ? a : b;
      }
    }
  }
}

/// list := the best P of list and another sorted list whose j-th entry is `theirs(j)`.
/// Taking the better of list[i] and theirs(P-1-i) keeps exactly the best P of the union
/// (a descending run met by an ascending one) as a bitonic sequence, which sort_bitonic
/// then sorts. Entries i and P-1-i are done together, each after both of the other
/// list's entries it needs are fetched: two live temporaries instead of a second list
/// (which, for 16-byte candidates and P = 32, would not fit in registers). `theirs` is
/// called with the same j in the same order in every lane, so it may shuffle.
template <int P, class C, class Rank, class Theirs>
__device__ TALLY_FORCEINLINE void merge_with(C (&list)[P], Theirs&& theirs, const Rank& rank) {
  if constexpr (P == 1) {
    const C other = theirs(0);
    if (rank.better(other, list[0])) list[0] = other;
  } else {
#pragma unroll
    for (int i = 0; i < P / 2; ++i) {
      const C theirs_high = theirs(P - 1 - i);
      const C theirs_low = theirs(i);
      if (rank.better(theirs_high, list[i])) list[i] = theirs_high;
      if (rank.better(theirs_low, list[P - 1 - i])) list[P - 1 - i] = theirs_low;
    }
    sort_bitonic(list, rank);
  }
}

/// merge_with the list of lane (lane ^ mask); both lanes end with the same list.
template <int P, class C, class Rank>
__device__ TALLY_FORCEINLINE void merge_with_lane(C (&list)[P], int mask, const Rank& rank) {
  merge_with(list, [&](int j) { return shuffle_xor(list[j], mask); }, rank);
}

/// The best of one candidate per lane, in every lane. All 32 lanes must call it.
template <class C, class Rank>
__device__ TALLY_FORCEINLINE C warp_best(C c, const Rank& rank) {
#pragma unroll
  for (int mask = 16; mask > 0; mask /= 2) {
    const C other = shuffle_xor(c, mask);
    if (rank.better(other, c)) c = other;
  }
  return c;
}

/// A butterfly over lanes [0, Lanes): afterwards each of those lanes holds their best P.
/// Lanes must be a power of two; all 32 lanes must call it.
template <int Lanes, int P, class C, class Rank>
__device__ TALLY_FORCEINLINE void merge_across_lanes(C (&list)[P], const Rank& rank) {
#pragma unroll
  for (int mask = Lanes / 2; mask > 0; mask /= 2) merge_with_lane(list, mask, rank);
}

}  // namespace detail
TALLY_NAMESPACE_END
