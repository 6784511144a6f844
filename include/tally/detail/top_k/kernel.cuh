#pragma once
// The top_k kernel: one per call site and architecture, for every backend. One launch:
//   1. each thread reads its items (block/for_each_item.cuh, the loads of the reductions)
//      and keeps its best P in registers (warp/sorted_list.cuh), inserting only items
//      that beat the best K-th entry among its warp's lists (checked once per tile);
//      block 0's thread 0 also inserts the seeds of a partitioned input
//      (detail/packed_key.cuh);
//   2. the backend merges the block's lists and the grid's (backend/<name>/top_k.cuh);
//   3. the thread that ends with the grid's list writes the first min(K, n) entries: the
//      indices, and the values (from the candidates, or read again from the input).
// The result does not depend on the order of any merge: the order on candidates is
// total (candidates.cuh), so the best K are one set and sorted one way.

#include <tally/backend/atomic/top_k.cuh>
#include <tally/backend/shared_memory/top_k.cuh>
#include <tally/backend/warp_shuffle/top_k.cuh>
#include <tally/block/for_each_item.cuh>
#include <tally/detail/runtime/kernel_policy.cuh>
#include <tally/detail/runtime/pdl.cuh>
#include <tally/detail/top_k/candidates.cuh>

TALLY_NAMESPACE_BEGIN
namespace detail {

/// Writes entries [0, min(K, n)) of the final list: global indices and values, a seed's
/// from the carry. A value comes from its candidate where that holds it (Rank::value), else
/// it is read again from the input. All reads of a group of 8 entries come before its first
/// write: the outputs could alias the input for all the compiler knows, so a read placed
/// after a write waits for it, and K entries read and written in turn cost K round trips
/// to L2 in one thread (at 2^10 items, a good part of top_k<8>'s time). With a carry the
/// same entries go there for the next partition, the last group first: seed j lands at
/// i >= j, so each carry entry is read before it is overwritten.
template <int K, int P, class C, class Rank, class It, class ValueOut, class IndexOut>
__device__ void write_top_k(const C (&list)[P], const Rank& rank, const input_range<It>& in, ValueOut values,
                            IndexOut indices) {
  using V = iter_value_t<It>;
  constexpr int group = K < 8 ? K : 8;
  int count = 0;
#pragma unroll
  for (int first = (K - 1) / group * group; first >= 0; first -= group) {
    std::int64_t index[group];
    V value[group];
#pragma unroll
    for (int j = 0; j < group; ++j) {
      const int i = first + j;
      if (i >= K || Rank::is_empty(list[i])) continue;
      const C c = list[i];
      if constexpr (Rank::partitioned) {
        if (Rank::is_seed(c)) {
          const int seed = Rank::key::seed_index(c);
          index[j] = rank.carry->index[seed];
          value[j] = rank.carry->value[seed];
          continue;
        }
      }
      const std::int64_t local = rank.index(c);
      if constexpr (Rank::partitioned) index[j] = rank.offset + local;
      else index[j] = local;
      if (!rank.value(c, value[j])) value[j] = in.first[local];
    }
#pragma unroll
    for (int j = 0; j < group; ++j) {
      const int i = first + j;
      if (i >= K || Rank::is_empty(list[i])) continue;
      indices[i] = index[j];
      values[i] = value[j];
      if constexpr (Rank::partitioned) {
        count = count > i + 1 ? count : i + 1;
        if (rank.carry) {
          rank.carry->index[i] = index[j];
          rank.carry->high[i] = Rank::key::high(list[i]);
          rank.carry->value[i] = value[j];
        }
      }
    }
  }
  if constexpr (Rank::partitioned) {
    if (rank.carry) rank.carry->count = count;
  }
}

template <class Selector, int K, class Rank, class It, class ValueOut, class IndexOut>
__device__ TALLY_FORCEINLINE void top_k_body(input_range<It> in, Rank rank, ValueOut values, IndexOut indices,
                                             scratch_view scratch) {
  constexpr tuning::launch_policy policy = compiled_policy<Selector>();
  static_assert(tuning::is_valid(policy),
                "tally: no valid launch policy for this top_k (a tuning table without a rule for it?)");
  constexpr int Threads = policy.threads;
  constexpr int Items = policy.items_per_thread;
  constexpr int P = top_k_list_size(K);
  using C = typename Rank::type;
  wait_for_prior_grids();

  C list[P];
  fill_empty(list, rank);
  for_each_item<Threads, Items, C>(
      in, rank,
      [&](C (&items)[Items]) {
        // The bar to beat: the best K-th entry of the warp's lists. An item no better
        // than some lane's K-th has K better items in that lane, so it is not among the
        // K best. Once the lists fill, the warp's bar is far above a single lane's
        // K-th: inserts become rare enough that a warp seldom diverges into one (with
        // each lane's own K-th, a random item would send some lane of a warp of 32 into
        // an insert at about half of the steps).
        const C bar = warp_best(list[K - 1], rank);
#pragma unroll
        for (int j = 0; j < Items; ++j)
          if (rank.better(items[j], bar)) insert(list, items[j], rank);
      },
      [&](const C& item) { insert(list, item, rank); });
  if constexpr (Rank::partitioned) {
    if (blockIdx.x == 0 && threadIdx.x == 0)
      for (int j = 0; j < rank.seed_count(); ++j) insert(list, rank.seed(j), rank);
  }
  const auto at = [&](std::int64_t index) { return rank(in.first[index], index); };
  bool done;
  if constexpr (policy.backend == backend_id::atomic) done = backend_atomic::top_k<Threads, K>(list, rank, at, scratch);
  else if constexpr (policy.backend == backend_id::shared_memory)
    done = backend_shared_memory::top_k<Threads, K>(list, rank, at, scratch);
  else done = backend_warp_shuffle::top_k<Threads, K>(list, rank, at, scratch);
  if (done) write_top_k<K>(list, rank, in, values, indices);
}

TALLY_KERNELS_BEGIN
template <class Selector, int K, class Rank, class It, class ValueOut, class IndexOut>
TALLY_KERNEL void __launch_bounds__(compiled_policy<Selector>().threads)
    top_k_kernel(input_range<It> in, Rank rank, ValueOut values, IndexOut indices, scratch_view scratch) {
  // A small-input kernel that this architecture has no rule for is never launched: no body.
  if constexpr (kernel_launches<Selector>())
    top_k_body<Selector, K, Rank, It, ValueOut, IndexOut>(in, rank, values, indices, scratch);
}
TALLY_KERNELS_END
using kernels::top_k_kernel;

}  // namespace detail
TALLY_NAMESPACE_END
