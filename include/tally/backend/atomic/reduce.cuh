#pragma once
// The atomic backend's reduce. One launch:
//   1. per-thread accumulation (thread_accumulate.cuh);
//   2. a warp-shuffle combine to one value per block;
//   3. one atomic per block folds it into the slot (slot.cuh): native atomicAdd for
//      sums, a native unsigned atomicMax on order keys for max/min, a CAS loop otherwise;
//   4. the block arrives at the counter; the last one reads the slot, finishes (reduce
//      writes op(init, total); see plan.cuh) and leaves slot and counter zeroed.
// One atomic per block rather than per warp: a few hundred atomics on one address
// cost well under a microsecond, thousands would not. Float sums are not
// reproducible (the order of the atomics varies), so deterministic() never picks this.

#include <tally/backend/atomic/slot.cuh>
#include <tally/backend/warp_shuffle/block_reduce.cuh>
#include <tally/detail/pdl.cuh>
#include <tally/detail/reduce/grid_sync.cuh>
#include <tally/detail/reduce/thread_accumulate.cuh>
#include <tally/detail/scratch.cuh>

TALLY_NAMESPACE_BEGIN
namespace backend_atomic {

template <int Threads, int ItemsPerThread, class T, class It, class Convert, class Op, class Finish, class Out>
TALLY_KERNEL void __launch_bounds__(Threads) atomic_reduce_kernel(detail::input_range<It> in, Convert convert, Op op,
                                                                  Finish finish, Out out, detail::scratch_view scratch) {
  using block_reduce_t = backend_warp_shuffle::block_reduce<T, Threads>;
  __shared__ typename block_reduce_t::temp_storage storage;
  const int tid = static_cast<int>(threadIdx.x);
  detail::wait_for_prior_grids();

  int valid;
  const T acc = detail::thread_accumulate<Threads, ItemsPerThread, T>(in, convert, op, valid);
  if (valid == 0) {
    if (tid == 0) finish.empty(out);
    return;
  }
  const T block = block_reduce_t(storage).reduce(acc, valid, op);
  if (tid != 0) return;
  if (gridDim.x == 1) {
    finish(out, block);
    return;
  }
  slot<T, Op>::combine(scratch.slot, block, op);
  // Program order puts our atomic before our arrival; arrival's release publishes it.
  if (detail::arrive_and_check_last(scratch.counter)) {
    finish(out, slot<T, Op>::read(scratch.slot));
    slot<T, Op>::reset(scratch.slot);
    detail::reset_counter(scratch.counter);
  }
}

template <int Threads, int ItemsPerThread, class T, class It, class Convert, class Op, class Finish, class Out>
inline constexpr auto reduce_kernel = atomic_reduce_kernel<Threads, ItemsPerThread, T, It, Convert, Op, Finish, Out>;

}  // namespace backend_atomic
TALLY_NAMESPACE_END
