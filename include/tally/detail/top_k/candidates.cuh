#pragma once
// What top_k ranks: each item becomes a candidate (its value and its index), and
// `better(a, b)` is a strict total order on candidates: the better value under the
// comparator, and among equal values the lower index. Because the order is total the
// K best candidates are one well-defined set, whatever order the merges run in.
//
// Every kind has an `empty()` candidate, worse than every real one, that fills the
// lists until they hold K items. Three representations, chosen per call (choose_kind):
// - packed: one 64-bit unsigned key (detail/packed_key.cuh); `better` is one unsigned
//   compare. Values of at most 4 bytes under the default comparators; a longer input
//   runs the same kernel over partitions, each seeded with what the earlier ones found.
// - wide: (64-bit order key, index) for 8-byte values under the default comparators.
// - pair: (value, index) compared with the user's comparator; any type and count.
// The values written come from the candidates (`value`: a packed or wide key holds its
// value's bits, except for the zeros' and NaNs', which are read again from the input).

#include <tally/detail/float_order.cuh>
#include <tally/detail/extrema/plan.cuh>
#include <tally/functional.cuh>

#include <cstdint>

TALLY_NAMESPACE_BEGIN
namespace detail {

inline constexpr std::int64_t no_index = INT64_MAX;

/// <= 4-byte values under the default comparators: packed keys (detail/packed_key.cuh),
/// over partitions of at most max_packed_partition items; `offset` is the partition's
/// first index and `carry` (null for a one-partition input) what the partitions before it
/// found, which enter as seeds.
template <class V, bool LargestWins>
struct packed_candidates {
  using key = packed_key<V, LargestWins>;
  using type = unsigned long long;
  using carry_type = packed_carry<V>;
  using value_type = V;
  static constexpr bool largest_wins = LargestWins;
  static constexpr bool partitioned = true;
  std::int64_t offset = 0;
  carry_type* carry = nullptr;

  template <class Item>
  __device__ TALLY_FORCEINLINE type operator()(const Item& item, std::int64_t index) const {
    return key::item(static_cast<V>(item), index);
  }
  __device__ TALLY_FORCEINLINE static type empty() { return 0; }
  __device__ TALLY_FORCEINLINE bool better(type a, type b) const { return a > b; }
  /// The candidate's index in the partition (not for seeds).
  __device__ TALLY_FORCEINLINE static std::int64_t index(type c) { return key::index(c); }
  /// The candidate's value where its key holds it exactly; false: read it again.
  __device__ TALLY_FORCEINLINE static bool value(type c, V& out) { return key::value(c, out); }
  __device__ TALLY_FORCEINLINE static bool is_empty(type c) { return c == 0; }
  __device__ TALLY_FORCEINLINE static bool is_seed(type c) { return key::is_seed(c); }
  /// The number of seeds (block 0's thread 0 inserts them) and seed j.
  __device__ TALLY_FORCEINLINE int seed_count() const { return carry && offset > 0 ? carry->count : 0; }
  __device__ TALLY_FORCEINLINE type seed(int j) const { return key::seed(carry->high[j], j); }
};

/// Arithmetic values under the default comparators with a 64-bit index: 8-byte values,
/// and smaller ones beyond the packed form's count.
template <class V, bool LargestWins>
struct wide_candidates {
  static constexpr bool partitioned = false;
  struct type {
    unsigned long long key;
    std::int64_t index;
  };
  template <class Item>
  __device__ TALLY_FORCEINLINE type operator()(const Item& item, std::int64_t index) const {
    const unsigned long long key = to_order_key(static_cast<V>(item));
    return {LargestWins ? key : ~key, index};
  }
  // Key 0 with no_index loses to every real candidate: a real key 0 has a lower index.
  __device__ TALLY_FORCEINLINE static type empty() { return {0, no_index}; }
  __device__ TALLY_FORCEINLINE bool better(const type& a, const type& b) const {
    return a.key > b.key || (a.key == b.key && a.index < b.index);
  }
  __device__ TALLY_FORCEINLINE static std::int64_t index(const type& c) { return c.index; }
  __device__ TALLY_FORCEINLINE static bool is_empty(const type& c) { return c.index == no_index; }
  __device__ TALLY_FORCEINLINE static bool value(const type& c, V& out) {
    return value_of_order_key<V>(static_cast<order_key_t<V>>(LargestWins ? c.key : ~c.key), out);
  }
};

/// Anything else: the value and the user's comparator (the largest under comp wins).
template <class V, class Compare>
struct pair_candidates {
  static constexpr bool partitioned = false;
  struct type {
    V value;
    std::int64_t index;
  };
  Compare comp;
  template <class Item>
  __device__ TALLY_FORCEINLINE type operator()(const Item& item, std::int64_t index) const {
    return {static_cast<V>(item), index};
  }
  __device__ TALLY_FORCEINLINE static type empty() {
    type c{};
    c.index = no_index;
    return c;
  }
  __device__ TALLY_FORCEINLINE bool better(const type& a, const type& b) const {
    // An empty candidate's value is never looked at.
    if (b.index == no_index) return a.index != no_index;
    if (a.index == no_index) return false;
    if (comp(b.value, a.value)) return true;
    if (comp(a.value, b.value)) return false;
    return a.index < b.index;
  }
  __device__ TALLY_FORCEINLINE static std::int64_t index(const type& c) { return c.index; }
  __device__ TALLY_FORCEINLINE static bool is_empty(const type& c) { return c.index == no_index; }
  __device__ TALLY_FORCEINLINE static bool value(const type& c, V& out) {
    out = c.value;
    return true;
  }
};

template <class V, class Compare>
inline constexpr bool top_k_packs_v = packs_arg_v<V, Compare>;

template <class V, class Compare>
inline constexpr bool top_k_wide_v = is_arithmetic_v<V> && sizeof(V) == 8 &&
                                     (is_default_less_v<Compare, V> || is_default_greater_v<Compare, V>);

}  // namespace detail
TALLY_NAMESPACE_END
