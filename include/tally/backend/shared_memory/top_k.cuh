#pragma once
// The shared_memory backend's top_k, after each thread has kept its best P: the block's
// lists merge pairwise in shared memory (block/merge_tree.cuh), the blocks' lists in the last
// block (grid/last_block.cuh).

#include <tally/block/merge_tree.cuh>
#include <tally/grid/last_block.cuh>

TALLY_NAMESPACE_BEGIN
namespace backend_shared_memory {

/// Partial bytes per block the host must provide: one list.
template <class C>
TALLY_HOST_DEVICE constexpr std::size_t top_k_partial_bytes(int list_size) {
  return std::size_t(list_size) * sizeof(C);
}

/// Merges the lists of the block's threads and of the grid's blocks. Returns true in the
/// thread that holds the grid's best P in `list` (thread 0 of the block that came last).
template <int Threads, int K, int P, class C, class Rank, class At>
__device__ bool top_k(C (&list)[P], const Rank& rank, At, const detail::scratch_view& scratch) {
  return detail::last_block_merge<Threads>(
      list, rank, scratch, [&](C(&l)[P], C(&ls)[Threads / 32][P]) { detail::shared_memory_tree_merge<Threads>(l, ls, rank); });
}

}  // namespace backend_shared_memory
TALLY_NAMESPACE_END
