#pragma once
// The atomic backend's top_k, after each thread has kept its best P: the block's lists
// merge with shuffles (block/merge_shuffle.cuh), which leaves the block's best P in
// thread 0; lane j of warp 0 inserts the j-th into the grid's list of K words with atomics
// (grid/list_cascade.cuh), and the block that arrives last at the counter reads the list
// and leaves it and the counter zeroed. No partials.

#include <tally/block/merge_shuffle.cuh>
#include <tally/grid/last_block.cuh>
#include <tally/grid/list_cascade.cuh>

TALLY_NAMESPACE_BEGIN
namespace backend_atomic {

template <class C>
TALLY_HOST_DEVICE constexpr std::size_t top_k_partial_bytes(int) {
  return 0;
}

/// Merges the lists of the block's threads and of the grid's blocks. Returns true in the
/// thread that holds the grid's best P in `list` (thread 0 of the block that came last).
/// at(index): the candidate of the partition's item `index`.
template <int Threads, int K, int P, class C, class Rank, class At>
__device__ bool top_k(C (&list)[P], const Rank& rank, At at, const detail::scratch_view& scratch) {
  static_assert(K * sizeof(unsigned long long) <= detail::scratch_slot_bytes, "tally: the list must fit the slot");
  __shared__ alignas(C) unsigned char storage[sizeof(C) * (Threads / 32) * P];
  __shared__ bool is_last;
  auto& lists = *reinterpret_cast<C(*)[Threads / 32][P]>(storage);
  const int tid = static_cast<int>(threadIdx.x);
  detail::shuffle_merge<Threads>(list, lists, rank);
  if (gridDim.x == 1) return tid == 0;

  auto* words = static_cast<unsigned long long*>(scratch.slot);
  if (tid < 32) {
    // Lane 0 holds the block's list (so may some other lanes, not all): lane j takes entry
    // j from lane 0 and inserts it.
    C mine = Rank::empty();
#pragma unroll
    for (int j = 0; j < K; ++j) {
      const C entry = detail::shuffle_from(list[j], 0);
      if (j == tid) mine = entry;
    }
    if (tid < K && !Rank::is_empty(mine)) detail::cascade_insert<K>(words, mine, rank, at);
    detail::release_fence();  // each lane's insertions before thread 0's arrival
    __syncwarp();
    if (tid == 0) is_last = detail::arrive_and_check_last(scratch.counter);
  }
  __syncthreads();
  if (!is_last || tid != 0) return false;
  // Arrival's acquire (thread 0) saw every block's insertions; atomic loads read them at L2.
  detail::fill_empty(list, rank);
#pragma unroll
  for (int i = 0; i < K; ++i) {
    list[i] = detail::cascade_word<C>(detail::atomic_load_word(&words[i]), rank, at);
    words[i] = 0;
  }
  detail::reset_counter(scratch.counter);
  return true;
}

}  // namespace backend_atomic
TALLY_NAMESPACE_END
