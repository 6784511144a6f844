#pragma once
// Reductions over groups of G lanes of a warp (G a power of two, 1 to 32): lanes
// [g * G, (g + 1) * G) combine their values; every lane of the group ends with the group's
// result. A lane may hold no value (`has` false): it is never folded in. The order of
// combination is fixed by lane numbers (the lower lanes' value first), so the result is
// deterministic. All 32 lanes must call them.
//   group_reduce_shuffle: a butterfly of shuffles (the warp_shuffle and atomic backends);
//   group_reduce_tree:    a tree in shared memory, one slot per lane (shared_memory).

#include <tally/warp/shuffle.cuh>

TALLY_NAMESPACE_BEGIN
namespace detail {

/// A value and whether there is one.
template <class T>
struct maybe {
  T value;
  bool has;
};

/// a folded with b, lower lanes first (a is the lower's): either may be empty.
template <class T, class Op>
__device__ TALLY_FORCEINLINE maybe<T> fold_maybe(const maybe<T>& a, const maybe<T>& b, Op op) {
  if (!a.has) return b;
  if (!b.has) return a;
  return {op(a.value, b.value), true};
}

/// A butterfly of shuffles over groups of g lanes (g: 1, 2, 4, 8, 16 or 32, the same in
/// every lane).
template <class T, class Op>
__device__ TALLY_FORCEINLINE maybe<T> group_reduce_shuffle(maybe<T> mine, int g, Op op) {
  const int lane = static_cast<int>(threadIdx.x) & 31;
#pragma unroll
  for (int mask = 16; mask > 0; mask /= 2) {
    if (mask >= g) continue;  // warp-uniform: every lane skips the same masks
    const T other_value = shuffle_xor(mine.value, mask);
    const bool other_has = __shfl_xor_sync(full_warp_mask, mine.has ? 1 : 0, mask) != 0;
    const maybe<T> other{other_value, other_has};
    mine = (lane & mask) ? fold_maybe(other, mine, op) : fold_maybe(mine, other, op);
  }
  return mine;
}

/// A tree in shared memory: `slots` holds one maybe<T> per lane of the warp (this lane's is
/// slots[lane]). Rounds of halving strides, each lane of the group's lower half folding in
/// its partner; lane g * G ends with the group's result, which every lane then reads.
template <class T, class Op>
__device__ TALLY_FORCEINLINE maybe<T> group_reduce_tree(maybe<T> mine, int g, maybe<T>* slots, Op op) {
  const int lane = static_cast<int>(threadIdx.x) & 31;
  slots[lane] = mine;
  __syncwarp();
  for (int stride = g / 2; stride > 0; stride /= 2) {
    if ((lane & (g - 1)) < stride) slots[lane] = fold_maybe(slots[lane], slots[lane + stride], op);
    __syncwarp();
  }
  const maybe<T> result = slots[lane & ~(g - 1)];
  __syncwarp();  // every lane has read before the slots are used again
  return result;
}

}  // namespace detail
TALLY_NAMESPACE_END
