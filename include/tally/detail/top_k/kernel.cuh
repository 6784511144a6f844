#pragma once
// The top_k kernel, one launch:
//   1. each thread reads its items (for_each_item, the loads of the reductions) and
//      keeps its best P in registers (sorted_list.cuh), inserting only items that beat
//      the best K-th entry among its warp's lists (checked once per tile);
//   2. the block's lists merge into one (block_merge.cuh);
//   3. with more than one block, thread 0 writes the block's list to scratch and arrives
//      at the counter (grid_sync.cuh: release of the list, acquire of the others');
//   4. the last block to arrive merges the blocks' lists (each thread a share of them,
//      then the block merge again) and writes the first min(K, n) entries: the indices,
//      and the values read again from the input.
// The result does not depend on the order of any merge: the order on candidates is
// total (candidates.cuh), so the best K are one set and sorted one way.

#include <tally/detail/pdl.cuh>
#include <tally/detail/reduce/grid_sync.cuh>
#include <tally/detail/reduce/thread_accumulate.cuh>
#include <tally/detail/scratch.cuh>
#include <tally/detail/top_k/block_merge.cuh>

TALLY_NAMESPACE_BEGIN
namespace detail {

template <bool SharedMemoryTree, int Threads, int P, class C, class Rank>
__device__ TALLY_FORCEINLINE void block_merge(C (&list)[P], C (&lists)[Threads / 32][P], const Rank& rank) {
  if constexpr (SharedMemoryTree) shared_memory_tree_merge<Threads>(list, lists, rank);
  else shuffle_merge<Threads>(list, lists, rank);
}

/// Thread 0 writes entries [0, min(K, n)) of the final list.
template <int K, int P, class C, class Rank, class It, class ValueOut, class IndexOut>
__device__ void write_top_k(const C (&list)[P], const Rank& rank, const input_range<It>& in, ValueOut values,
                            IndexOut indices) {
#pragma unroll
  for (int i = 0; i < K; ++i) {
    if (i < in.n) {
      const std::int64_t index = rank.index(list[i]);
      indices[i] = index;
      values[i] = in.first[index];
    }
  }
}

template <bool SharedMemoryTree, int Threads, int ItemsPerThread, int K, class Rank, class It, class ValueOut,
          class IndexOut>
TALLY_KERNEL void __launch_bounds__(Threads) top_k_kernel(input_range<It> in, Rank rank, ValueOut values,
                                                          IndexOut indices, scratch_view scratch) {
  constexpr int P = top_k_list_size(K);
  using C = typename Rank::type;
  // Raw storage: C may have default member initialisers, which __shared__ can't run.
  __shared__ alignas(C) unsigned char lists_storage[sizeof(C) * (Threads / 32) * P];
  auto& lists = *reinterpret_cast<C(*)[Threads / 32][P]>(lists_storage);
  __shared__ bool is_last;
  const int tid = static_cast<int>(threadIdx.x);
  wait_for_prior_grids();

  C list[P];
  fill_empty(list, rank);
  for_each_item<Threads, ItemsPerThread, C>(
      in, rank,
      [&](C (&items)[ItemsPerThread]) {
        // The bar to beat: the best K-th entry of the warp's lists. An item no better
        // than some lane's K-th has K better items in that lane, so it is not among the
        // K best. Once the lists fill, the warp's bar is far above a single lane's
        // K-th: inserts become rare enough that a warp seldom diverges into one (with
        // each lane's own K-th, a random item would send some lane of a warp of 32 into
        // an insert at about half of the steps).
        const C bar = warp_best(list[K - 1], rank);
#pragma unroll
        for (int j = 0; j < ItemsPerThread; ++j)
          if (rank.better(items[j], bar)) insert(list, items[j], rank);
      },
      [&](const C& item) { insert(list, item, rank); });
  block_merge<SharedMemoryTree, Threads>(list, lists, rank);
  if (gridDim.x == 1) {
    if (tid == 0) write_top_k<K>(list, rank, in, values, indices);
    return;
  }

  C* partials = static_cast<C*>(scratch.partials);
  if (tid == 0) {
#pragma unroll
    for (int i = 0; i < P; ++i) partials[std::size_t(blockIdx.x) * P + i] = list[i];
    is_last = arrive_and_check_last(scratch.counter);
  }
  __syncthreads();
  if (!is_last) return;

  // As in the reductions' last block: thread 0 acquired the other blocks' lists, the
  // barrier passes that on, and the fence keeps loads from a stale L1 line.
  __threadfence();
  fill_empty(list, rank);
  for (int b = tid; b < static_cast<int>(gridDim.x); b += Threads) {
    const C* other = partials + std::size_t(b) * P;
    merge_with(list, [other](int j) { return other[j]; }, rank);
  }
  __syncthreads();  // `lists` is reused
  block_merge<SharedMemoryTree, Threads>(list, lists, rank);
  if (tid == 0) {
    write_top_k<K>(list, rank, in, values, indices);
    reset_counter(scratch.counter);
  }
}

}  // namespace detail
TALLY_NAMESPACE_END
