#pragma once
// The atomic backend's reduction, after each thread has folded its items: a warp-shuffle
// combine to one value per block, then one atomic per block folds it into the slot
// (grid/slot.cuh: native atomicAdd for sums, a native unsigned atomicMax on order keys
// for max/min, a compare-and-swap loop for any other operator); the block that arrives
// last at the counter (grid/last_block.cuh) reads the slot, finishes, and leaves slot and
// counter zeroed. One atomic per block rather than per warp: a few hundred atomics on one
// address cost well under a microsecond, thousands would not. A floating-point sum is
// then not reproducible (the order of the atomics varies), so deterministic() never
// takes this backend for one. A value too large for any compare-and-swap (slot_mode
// none) is combined through partials and the last block instead.

#include <tally/block/reduce_shuffle.cuh>
#include <tally/grid/last_block.cuh>
#include <tally/grid/slot.cuh>

TALLY_NAMESPACE_BEGIN
namespace backend_atomic {

/// Partial bytes per block the host must provide for this reduction.
template <class T, class Op>
TALLY_HOST_DEVICE constexpr std::size_t reduce_partial_bytes(int arch) {
  return detail::slot_mode_of<Op, T>(arch) == detail::slot_mode::none ? sizeof(T) : 0;
}

/// Combines the block's threads [0, valid) and the grid's blocks; calls finish(out, total)
/// once, in some block's thread 0. Every thread of the block calls it.
template <int Threads, class T, class Op, class Finish, class Out>
__device__ void reduce(const T& acc, int valid, Op op, const Finish& finish, Out out,
                       const detail::scratch_view& scratch) {
  constexpr detail::slot_mode mode = detail::slot_mode_of<Op, T>(TALLY_COMPILED_ARCH);
  if constexpr (mode == detail::slot_mode::none) {
    detail::reduce_by_last_block<detail::block_reduce_shuffle, Threads>(acc, valid, op, finish, out, scratch);
  } else {
    using block_reduce_t = detail::block_reduce_shuffle<T, Threads>;
    using slot_t = detail::slot<T, Op, mode>;
    __shared__ typename block_reduce_t::temp_storage storage;
    const T block = block_reduce_t(storage).reduce(acc, valid, op);
    if (threadIdx.x != 0) return;
    if (gridDim.x == 1) {
      finish(out, block);
      return;
    }
    slot_t::combine(scratch.slot, block, op);
    // Program order puts our atomic before our arrival; arrival's release publishes it.
    if (detail::arrive_and_check_last(scratch.counter)) {
      finish(out, slot_t::read(scratch.slot));
      slot_t::reset(scratch.slot);
      detail::reset_counter(scratch.counter);
    }
  }
}

}  // namespace backend_atomic
TALLY_NAMESPACE_END
