#pragma once
// Packed keys: a value of at most 4 bytes and its index in one 64-bit unsigned integer,
// ordered so that one unsigned compare (or one native atomicMax) ranks candidates the way
// max_element and top_k do: the better value first, among equal values the lower index.
//
//   high 32 bits: the value's order key (float_order.cuh), complemented when the smallest
//                 value is the best (min_element under less, top_k under greater);
//   low 32 bits:  a tie-breaker that is larger for lower indices.
//
// An input longer than one partition (max_packed_partition items) runs the same kernel
// once per partition (not a second kernel with wider candidates); each later partition
// is given what the earlier ones found as seeds, candidates whose tie-breakers lie above
// every item of the partition, since every item before the partition has a lower index:
//   tie-breaker 2^32 - 1 - j:              seed j (the j-th best so far, j < 64)
//   tie-breaker 2^32 - 1 - 64 - i:         the partition's item i
// A seed keeps the high word it had (the value's key); its index and value come from the
// carry (extrema/plan.cuh). Every real key is non-zero, so an all-zero word can mean "nothing yet" (the
// atomic backend's slot, the empty entries of a top_k list).

#include <tally/detail/float_order.cuh>

#include <cstdint>

TALLY_NAMESPACE_BEGIN
namespace detail {

inline constexpr int packed_seed_slots = 64;
/// Items per partition: local indices [0, max) keep their tie-breakers >= 1.
inline constexpr std::int64_t max_packed_partition = (std::int64_t(1) << 32) - 1 - packed_seed_slots;

template <class V, bool LargestWins>
struct packed_key {
  using type = unsigned long long;
  __host__ __device__ TALLY_FORCEINLINE static type make(const V& value, std::uint32_t tie_breaker) {
    const std::uint32_t key = to_order_key(value);
    return (static_cast<type>(LargestWins ? key : ~key) << 32) | tie_breaker;
  }
  /// The key of the partition's item `index`.
  __host__ __device__ TALLY_FORCEINLINE static type item(const V& value, std::int64_t index) {
    return make(value, 0xffffffffu - std::uint32_t(packed_seed_slots) - static_cast<std::uint32_t>(index));
  }
  /// The key of seed j (what the earlier partitions ranked j-th), from the high word of
  /// the key it had there.
  __host__ __device__ TALLY_FORCEINLINE static type seed(std::uint32_t high, int j) {
    return (static_cast<type>(high) << 32) | (0xffffffffu - static_cast<std::uint32_t>(j));
  }
  __host__ __device__ TALLY_FORCEINLINE static std::uint32_t high(type key) { return std::uint32_t(key >> 32); }
  __host__ __device__ TALLY_FORCEINLINE static std::uint32_t tie_breaker(type key) {
    return static_cast<std::uint32_t>(key & 0xffffffffull);
  }
  __host__ __device__ TALLY_FORCEINLINE static bool is_seed(type key) {
    return tie_breaker(key) > 0xffffffffu - std::uint32_t(packed_seed_slots);
  }
  /// For a seed's key: j.
  __host__ __device__ TALLY_FORCEINLINE static int seed_index(type key) { return int(0xffffffffu - tie_breaker(key)); }
  /// For an item's or a seed's key: the value, where the key holds it exactly
  /// (order_key_is_exact); false for a zero or a NaN, whose bits the caller reads again.
  __host__ __device__ TALLY_FORCEINLINE static bool value(type key, V& out) {
    return value_of_order_key<V>(LargestWins ? high(key) : ~high(key), out);
  }
  /// For an item's key: its index in the partition.
  __host__ __device__ TALLY_FORCEINLINE static std::int64_t index(type key) {
    return std::int64_t(0xffffffffu - std::uint32_t(packed_seed_slots) - tie_breaker(key));
  }
};

}  // namespace detail
TALLY_NAMESPACE_END
