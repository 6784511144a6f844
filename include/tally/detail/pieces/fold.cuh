#pragma once
// How a thread of the pieces kernel folds the items it reads (detail/pieces/kernel.cuh,
// detail/pieces/long_segments.cuh): as the plan's accumulator, or, for the arg-extrema of
// values that pack, on packed keys (detail/packed_key.cuh).

#include <tally/block/for_each_item.cuh>
#include <tally/detail/packed_key.cuh>
#include <tally/warp/group_reduce.cuh>

#include <cstdint>
#include <type_traits>

TALLY_NAMESPACE_BEGIN
namespace detail {

/// Plans that rank their items on packed keys (extrema/plan.cuh: ranks_on_keys).
template <class Plan, class = void>
struct ranks_on_keys : std::false_type {};
template <class Plan>
struct ranks_on_keys<Plan, std::void_t<decltype(Plan::ranks_on_keys)>> : std::bool_constant<Plan::ranks_on_keys> {};

/// A thread's fold of the items it reads, as the plan's accumulator: each item converted
/// and combined with the plan's operator, a tile's items as a tree in index order.
template <class Plan, class T>
struct value_fold {
  const Plan& plan;
  maybe<T> acc{T{}, false};

  template <int N, class Item, class IndexOf>
  __device__ TALLY_FORCEINLINE void tile(const Item (&items)[N], IndexOf index_of) {
    T v[N];
#pragma unroll
    for (int r = 0; r < N; ++r) v[r] = plan.convert(items[r], index_of(r));
    add(fold_tree(v, plan.op));
  }
  template <class Item>
  __device__ TALLY_FORCEINLINE void item(const Item& x, std::int64_t index) {
    add(plan.convert(x, index));
  }
  __device__ TALLY_FORCEINLINE void add(const T& v) { acc = acc.has ? maybe<T>{plan.op(acc.value, v), true} : maybe<T>{v, true}; }
  __device__ TALLY_FORCEINLINE maybe<T> result() const { return acc; }
};

/// The same fold on packed keys (the arg-extrema of values that pack, in a piece whose
/// indices fit a partition: detail/packed_key.cuh): one 64-bit max an item where a
/// (value, index) comparison costs about twice the instructions and registers; the best
/// key becomes a candidate once, at the end. Zero is "nothing yet": every item's key is
/// non-zero.
template <class Plan, class T>
struct key_fold {
  const Plan& plan;
  unsigned long long best = 0;

  template <int N, class Item, class IndexOf>
  __device__ TALLY_FORCEINLINE void tile(const Item (&items)[N], IndexOf index_of) {
#pragma unroll
    for (int r = 0; r < N; ++r) item(items[r], index_of(r));
  }
  template <class Item>
  __device__ TALLY_FORCEINLINE void item(const Item& x, std::int64_t index) {
    const unsigned long long k = plan.key_of(x, index);
    best = k > best ? k : best;
  }
  __device__ TALLY_FORCEINLINE maybe<T> result() const { return result_of(best); }
  /// The accumulator of a key (of this fold's or a fold of several threads' keys).
  __device__ TALLY_FORCEINLINE maybe<T> result_of(unsigned long long key) const {
    return key != 0 ? maybe<T>{plan.from_key(key), true} : maybe<T>{T{}, false};
  }
};

/// Runs body(fold) with the fold that suits the plan and a piece of `length` items, and
/// returns the thread's result.
template <class Plan, class Body>
__device__ TALLY_FORCEINLINE maybe<typename Plan::accumulator> fold_piece(const Plan& plan, std::int64_t length,
                                                                          Body body) {
  using T = typename Plan::accumulator;
  if constexpr (ranks_on_keys<Plan>::value) {
    if (length <= max_packed_partition) {
      key_fold<Plan, T> fold{plan};
      body(fold);
      return fold.result();
    }
  }
  value_fold<Plan, T> fold{plan};
  body(fold);
  return fold.result();
}

}  // namespace detail
TALLY_NAMESPACE_END
