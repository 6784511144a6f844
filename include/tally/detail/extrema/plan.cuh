#pragma once
// The plans (see detail/reduce/plan.cuh) behind max_element, min_element and
// minmax_element: every item becomes a candidate (value, index), and two candidates
// combine into the better one, the lower index winning a tie. That order is total, so
// the result does not depend on the order of combination.
//
// Two representations:
// - pairs, `arg_value<V>`, combined with the user's comparator: any value type, any
//   comparator, any count;
// - packed keys, one 64-bit unsigned integer: the value's order key (float_order.cuh) in
//   the high 32 bits and (2^32 - 1 - index) in the low 32, so that a plain unsigned max
//   picks the best value and, among equal values, the lowest index. Only for values of
//   at most 4 bytes under the default comparators (tally::less / tally::greater), and
//   for at most 2^32 items. It is what the atomic backend folds with one native 64-bit
//   atomicMax per block.

#include <tally/detail/float_order.cuh>
#include <tally/detail/packed_key.cuh>
#include <tally/functional.cuh>

#include <cstdint>

TALLY_NAMESPACE_BEGIN
namespace detail {

template <class V>
struct arg_value {
  V value;
  std::int64_t index;
};

/// The better of two candidates: for a max, b beats a when comp(a, b); for a min, when
/// comp(b, a); equal values go to the lower index.
template <class V, class Compare, bool Max>
struct arg_best {
  Compare comp;
  __host__ __device__ TALLY_FORCEINLINE arg_value<V> operator()(const arg_value<V>& a, const arg_value<V>& b) const {
    const bool b_better = Max ? comp(a.value, b.value) : comp(b.value, a.value);
    if (b_better) return b;
    const bool a_better = Max ? comp(b.value, a.value) : comp(a.value, b.value);
    if (a_better) return a;
    return b.index < a.index ? b : a;
  }
};

template <class V>
struct convert_to_arg {
  template <class Item>
  __device__ TALLY_FORCEINLINE arg_value<V> operator()(const Item& item, std::int64_t index) const {
    return {static_cast<V>(item), index};
  }
};

/// finish: writes the winner's index; an empty range writes n.
struct finish_index {
  std::int64_t n;
  template <class Out, class V>
  __device__ void operator()(Out out, const arg_value<V>& best) const {
    *out = best.index;
  }
  template <class Out>
  __device__ void empty(Out out) const {
    *out = n;
  }
};

template <class Compare, class V>
inline constexpr bool is_default_less_v = std::is_same_v<Compare, less<>> || std::is_same_v<Compare, less<V>>;
template <class Compare, class V>
inline constexpr bool is_default_greater_v = std::is_same_v<Compare, greater<>> || std::is_same_v<Compare, greater<V>>;

/// Values that pack: arithmetic, at most 4 bytes, ordered by a default comparator.
template <class V, class Compare>
inline constexpr bool packs_arg_v =
    is_arithmetic_v<V> && sizeof(V) <= 4 && (is_default_less_v<Compare, V> || is_default_greater_v<Compare, V>);

template <class V, class Compare, bool Max>
struct arg_pair_plan {
  using accumulator = arg_value<V>;
  using accumulator_op = arg_best<V, Compare, Max>;
  convert_to_arg<V> convert;
  accumulator_op op;
  finish_index finish;
  static constexpr bool exact = true;

  /// Whether the pieces kernel (detail/pieces/kernel.cuh) ranks the items on packed keys:
  /// values that pack, default comparators. One 64-bit max an item instead of a pair
  /// comparison (about half the instructions, and a thread's best is one register pair);
  /// the flat calls rank whole inputs on keys (arg_packed_plan) for the same reason.
  static constexpr bool ranks_on_keys = packs_arg_v<V, Compare>;
  static constexpr bool largest_wins = Max == is_default_less_v<Compare, V>;
  using key = packed_key<V, largest_wins>;
  /// The key of the piece's item `index` (index < max_packed_partition).
  template <class Item>
  __device__ TALLY_FORCEINLINE unsigned long long key_of(const Item& item, std::int64_t index) const {
    return key::item(static_cast<V>(item), index);
  }
  /// The candidate again from its key: the order key is a bijection up to NaN's payload
  /// and the zero's sign, which the library's order does not see.
  __device__ TALLY_FORCEINLINE arg_value<V> from_key(unsigned long long k) const {
    const std::uint32_t high = key::high(k);
    return {from_order_key<V>(largest_wins ? high : ~high), key::index(k)};
  }
};

// --- packed keys ----------------------------------------------------------------------

/// What the partitions of one call before the current one found (detail/packed_key.cuh):
/// their best `count` candidates, best first: global index, key (high word) and value.
/// In device memory of the call's own, so that any output type works (an int32 index
/// output could not hold the index an earlier partition found beyond 2^31).
template <class V>
struct packed_carry {
  std::int64_t index[packed_seed_slots];
  std::uint32_t high[packed_seed_slots];
  V value[packed_seed_slots];
  int count;
};

/// max_element / min_element on packed keys over one partition [offset, offset + n) of
/// the input; `carry` is null when the input is one partition.
template <class V, bool LargestWins>
struct arg_packed_plan {
  using key = packed_key<V, LargestWins>;
  using accumulator = unsigned long long;
  using accumulator_op = maximum<unsigned long long>;
  struct convert_t {
    template <class Item>
    __device__ TALLY_FORCEINLINE unsigned long long operator()(const Item& item, std::int64_t index) const {
      return key::item(static_cast<V>(item), index);
    }
  };
  struct finish_t {
    std::int64_t offset;
    std::int64_t empty_index;  ///< written for an empty input: its length
    packed_carry<V>* carry;
    template <class Out>
    __device__ void operator()(Out out, unsigned long long best) const {
      const std::int64_t index = key::is_seed(best) ? carry->index[0] : offset + key::index(best);
      *out = index;
      if (carry) {
        carry->index[0] = index;
        carry->high[0] = key::high(best);
        carry->count = 1;
      }
    }
    template <class Out>
    __device__ void empty(Out out) const {
      *out = empty_index;
    }
  };
  convert_t convert;
  accumulator_op op;
  finish_t finish;
  static constexpr bool exact = true;

  /// Block 0's thread 0 of a later partition: the earlier partitions' winner enters as
  /// seed 0, which beats this partition's items of equal value (it has a lower index).
  template <class Out>
  __device__ void fold_seeds(unsigned long long& acc, Out) const {
    if (finish.carry && finish.offset > 0) acc = op(acc, key::seed(finish.carry->high[0], 0));
  }
};

// --- minmax ---------------------------------------------------------------------------

template <class V>
struct arg_min_max {
  arg_value<V> min, max;
};

template <class V, class Compare>
struct arg_min_max_op {
  Compare comp;
  __host__ __device__ TALLY_FORCEINLINE arg_min_max<V> operator()(const arg_min_max<V>& a,
                                                                   const arg_min_max<V>& b) const {
    return {arg_best<V, Compare, false>{comp}(a.min, b.min), arg_best<V, Compare, true>{comp}(a.max, b.max)};
  }
};

template <class V>
struct convert_to_arg_min_max {
  template <class Item>
  __device__ TALLY_FORCEINLINE arg_min_max<V> operator()(const Item& item, std::int64_t index) const {
    const V value = static_cast<V>(item);
    return {{value, index}, {value, index}};
  }
};

/// finish: out[0] = index of the min, out[1] = index of the max; empty: both n.
struct finish_min_max_index {
  std::int64_t n;
  template <class Out, class V>
  __device__ void operator()(Out out, const arg_min_max<V>& best) const {
    out[0] = best.min.index;
    out[1] = best.max.index;
  }
  template <class Out>
  __device__ void empty(Out out) const {
    out[0] = n;
    out[1] = n;
  }
};

template <class V, class Compare>
struct arg_min_max_plan {
  using accumulator = arg_min_max<V>;
  using accumulator_op = arg_min_max_op<V, Compare>;
  convert_to_arg_min_max<V> convert;
  accumulator_op op;
  finish_min_max_index finish;
  static constexpr bool exact = true;
};

}  // namespace detail
TALLY_NAMESPACE_END
