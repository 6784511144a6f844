#pragma once
// top_k<1> and top_k<2> on packed keys (candidates.cuh) as reductions: plans for the
// reduce kernels (detail/reduce/plan.cuh), so that they run on the reduce tuning
// table's backend and shape, and on the atomic backend with one atomic per block —
// the speed of a reduction, which is what a top-2 is. K = 1 folds keys with an unsigned
// max (max_element's packed plan); K = 2 folds (best, second) pairs of keys, 16 bytes,
// which the atomic backend folds with two 64-bit atomicMax issued together, a third
// where the first's loser needs it (top2_merge::atomic_fold). All-zero keys mean
// "nothing yet": no real key is 0 (candidates.cuh), so the identity is zero bits, as the
// atomic slot wants. The last block's finish writes the indices and reads the values again.

#include <tally/detail/atomic/cas_loop.cuh>
#include <tally/detail/top_k/candidates.cuh>
#include <tally/functional.cuh>

TALLY_NAMESPACE_BEGIN
namespace detail {

/// The two best keys seen, first > second; 0 where there are fewer.
struct top2_keys {
  unsigned long long first, second;
};

struct top2_merge {
  __host__ __device__ TALLY_FORCEINLINE top2_keys operator()(const top2_keys& a, const top2_keys& b) const {
    // Keys are distinct (each holds its index) except the empty 0s, so the best two of
    // four sorted-in-pairs keys are the larger first and the best of the rest.
    const unsigned long long first = a.first > b.first ? a.first : b.first;
    const unsigned long long other_first = a.first > b.first ? b.first : a.first;
    const unsigned long long seconds = a.second > b.second ? a.second : b.second;
    return {first, other_first > seconds ? other_first : seconds};
  }
  /// Per item (block/for_each_item.cuh): `item.first` is one key; most items lose to the
  /// second best at the first compare.
  __device__ TALLY_FORCEINLINE void insert(top2_keys& acc, const top2_keys& item) const {
    const unsigned long long key = item.first;
    if (key > acc.second) {
      if (key > acc.first) {
        acc.second = acc.first;
        acc.first = key;
      } else {
        acc.second = key;
      }
    }
  }
  __host__ __device__ static constexpr top2_keys empty_accumulator() { return {0, 0}; }
  /// A warp's fold (warp/shuffle.cuh's warp_reduce), in every lane: the best key by two
  /// REDUX (warp_max_word), then the best of the rest, each lane offering its second if it
  /// holds the best, else its first (keys are distinct but the empty 0s). Four REDUX where
  /// the shuffle tree took five dependent rounds of four 32-bit shuffles and a pair merge:
  /// float top_k<2> at 2^21 / 2^22 went from 0.82 / 0.95 to 0.77 / 0.89 of the time before
  /// this change set (H200, docs/performance.md#top2-occupancy).
  __device__ static top2_keys warp_fold(const top2_keys& mine) {
    const unsigned long long first = warp_max_word(mine.first);
    return {first, warp_max_word(mine.first == first ? mine.second : mine.first)};
  }

  /// The atomic backend's fold of a block's pair into the slot's two 64-bit words
  /// (first, second; 0 = nothing yet), without a CAS loop: a 16-byte CAS costs a read
  /// and a write per block and retries while the whole grid arrives at once.
  /// Why it is exact: words[0] ends as the largest first M of all blocks. Every other
  /// first loses exactly one atomicMax on words[0] as seen by the thread that runs it:
  /// either its own (it was smaller than what it found) or a later one's (which finds
  /// it there and displaces it). The loser of each atomicMax and the block's second go
  /// into words[1], so words[1] ends as the largest of every key but M: the second
  /// best. (Keys are distinct: each holds its index.) The order of the atomics does
  /// not matter, so the result is deterministic.
  /// The block's second goes into words[1] beside its first's atomic, not after it, and
  /// the loser follows only where it beats what that atomic found there (words[1] only
  /// grows, so a loser no better than a value it held, or than the block's second, is
  /// already below it for good): a block waits for one atomic's return, as a reduction
  /// does, where it waited for two in a chain; the third is rare once the grid's best
  /// two are known.
  __device__ static void atomic_fold(void* memory, const top2_keys& block) {
    auto* words = static_cast<unsigned long long*>(memory);
    const unsigned long long found = atomicMax(&words[0], block.first);
    const unsigned long long held = atomicMax(&words[1], block.second);
    const unsigned long long loser = found < block.first ? found : block.first;
    const unsigned long long below = held > block.second ? held : block.second;
    if (loser > below) atomicMax(&words[1], loser);
  }
  /// The slot's pair, read by the last block after every block's fold (its arrival at
  /// the grid counter orders them; backend/atomic/reduce.cuh).
  __device__ static top2_keys atomic_read(void* memory) {
    auto* words = static_cast<unsigned long long*>(memory);
    return {atomic_load_word(&words[0]), atomic_load_word(&words[1])};
  }
};

template <class Packed>
struct convert_to_top2 {
  Packed packed;
  template <class Item>
  __device__ TALLY_FORCEINLINE top2_keys operator()(const Item& item, std::int64_t index) const {
    return {packed(item, index), 0};
  }
  // The filter of block/for_each_item.cuh (thread_accumulate): items are converted into
  // keys (the NaN test, the zeros, the order flip, the index: about 20 instructions) only
  // when their value, as read, beats the bar: the second best's value, the best of the
  // warp's lanes'. On uniform data almost no item does once a warp has seen a few tiles.
  // Exact: the lane M whose second best sets the bar holds two keys at least as good as
  // (bar, its index), and both stay among the keys kept. An item whose value is worse
  // than the bar loses to both; so does an equal one (a tie; -0.0 and +0.0 are one value
  // here), whose index is higher than M's second's: the accumulators hold the items of
  // earlier tiles of the block's loop, which lie below every item of the current tile.
  // A NaN on either side fails the compare and goes to the exact insert.
  // For values of a built-in arithmetic type, read as that type.
  template <class V = typename Packed::value_type, std::enable_if_t<std::is_arithmetic_v<V>, int> = 0>
  __device__ TALLY_FORCEINLINE std::uint32_t bar_key(const top2_keys& acc) const {
    return Packed::key::high(acc.second);  // 0 while fewer than two; else the value's key
  }
  __device__ TALLY_FORCEINLINE auto bar_value(std::uint32_t key) const {
    using V = typename Packed::value_type;
    return from_order_key<V>(Packed::largest_wins ? key : ~key);
  }
  template <class V>
  __device__ TALLY_FORCEINLINE bool may_enter(const V& raw, const V& bar) const {
    return Packed::largest_wins ? !(raw <= bar) : !(bar <= raw);
  }
  // The first tile's bar (insert_passing): keys in bar_key's order, and the strict test
  // that never excludes an equal item or a NaN, since there the bar's holders' indices
  // need not be below the tile's.
  template <class V>
  __device__ TALLY_FORCEINLINE std::uint32_t value_key(const V& raw) const {
    return Packed::key::high(Packed::key::make(raw, 0));
  }
  template <class V>
  __device__ TALLY_FORCEINLINE bool worse(const V& raw, const V& bar) const {
    return Packed::largest_wins ? raw < bar : bar < raw;
  }
};

/// finish: indices[i] and values[i] for the keys found (min(K, n) of them), the indices
/// global (the partition's offset added; a seed's from the carry). With a carry (a
/// partitioned input) the same entries go there for the next partition, written from the
/// last entry back: seed j lands at i >= j, so every carry entry is read before it is
/// overwritten.
template <class V, bool LargestWins, class It, class ValueOut>
struct finish_small_top_k {
  using key = packed_key<V, LargestWins>;
  It first;  ///< the partition's first item
  ValueOut values;
  std::int64_t offset;
  packed_carry<V>* carry;

  template <class IndexOut>
  __device__ void write(IndexOut indices, int i, unsigned long long k) const {
    if (k == 0) return;  // fewer items than K
    std::int64_t index;
    V value;
    if (key::is_seed(k)) {
      const int j = key::seed_index(k);
      index = carry->index[j];
      value = carry->value[j];
    } else {
      const std::int64_t local = key::index(k);
      index = offset + local;
      // The key holds the value but for a zero's sign and a NaN's payload: one read
      // fewer on the call's critical path, most of the time.
      if (!key::value(k, value)) value = static_cast<V>(first[local]);
    }
    indices[i] = index;
    values[i] = value;
    if (carry) {
      carry->index[i] = index;
      carry->high[i] = key::high(k);
      carry->value[i] = value;
    }
  }
  template <class IndexOut>
  __device__ void operator()(IndexOut indices, unsigned long long best) const {
    write(indices, 0, best);
    if (carry) carry->count = 1;
  }
  template <class IndexOut>
  __device__ void operator()(IndexOut indices, const top2_keys& best) const {
    write(indices, 1, best.second);
    write(indices, 0, best.first);
    if (carry) carry->count = best.second ? 2 : 1;
  }
  template <class IndexOut>
  __device__ void empty(IndexOut) const {}  // an empty range writes nothing
};

template <class V, bool LargestWins, class It, class ValueOut>
struct top1_plan {
  using accumulator = unsigned long long;
  using accumulator_op = maximum<unsigned long long>;
  packed_candidates<V, LargestWins> convert;
  accumulator_op op;
  finish_small_top_k<V, LargestWins, It, ValueOut> finish;
  static constexpr bool exact = true;
  template <class Out>
  __device__ void fold_seeds(unsigned long long& acc, Out) const {
    if (finish.carry && finish.offset > 0) acc = op(acc, packed_key<V, LargestWins>::seed(finish.carry->high[0], 0));
  }
};

template <class V, bool LargestWins, class It, class ValueOut>
struct top2_plan {
  using accumulator = top2_keys;
  using accumulator_op = top2_merge;
  convert_to_top2<packed_candidates<V, LargestWins>> convert;
  accumulator_op op;
  finish_small_top_k<V, LargestWins, It, ValueOut> finish;
  static constexpr bool exact = true;
  template <class Out>
  __device__ void fold_seeds(top2_keys& acc, Out) const {
    if (!finish.carry || finish.offset == 0) return;
    for (int j = 0; j < finish.carry->count; ++j)
      op.insert(acc, top2_keys{packed_key<V, LargestWins>::seed(finish.carry->high[j], j), 0});
  }
};

}  // namespace detail

/// Zero keys: nothing found yet (lets the atomic backend keep top-2 pairs in its slot).
template <>
struct identity_element<detail::top2_merge, detail::top2_keys> {
  TALLY_HOST_DEVICE static detail::top2_keys value() { return {0, 0}; }
};

TALLY_NAMESPACE_END
