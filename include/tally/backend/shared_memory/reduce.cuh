#pragma once
// The shared_memory backend's reduction, after each thread has folded its items: a tree
// in shared memory per block (block/reduce_tree.cuh), then the last-block combine of the
// blocks' partials (grid/last_block.cuh), in block order: deterministic.

#include <tally/block/reduce_tree.cuh>
#include <tally/grid/last_block.cuh>

TALLY_NAMESPACE_BEGIN
namespace backend_shared_memory {

template <class T, class Op>
TALLY_HOST_DEVICE constexpr std::size_t reduce_partial_bytes(int) {
  return sizeof(T);
}

/// Combines the block's threads [0, valid) and the grid's blocks; calls finish(out, total)
/// once, in some block's thread 0. Every thread of the block calls it.
template <int Threads, class T, class Op, class Finish, class Out>
__device__ void reduce(const T& acc, int valid, Op op, const Finish& finish, Out out,
                       const detail::scratch_view& scratch) {
  detail::reduce_by_last_block<detail::block_reduce_tree, Threads>(acc, valid, op, finish, out, scratch);
}

}  // namespace backend_shared_memory
TALLY_NAMESPACE_END
