#pragma once
// The copy_if kernels. Both read a tile of Threads * ItemsPerThread items, thread t
// taking the ItemsPerThread consecutive items from t * ItemsPerThread (so that the
// selected items of a thread are consecutive in the output), count the selected items
// per thread and scan those counts over the block (BlockScan: warp_shuffle's or
// shared_memory's). They differ in where a tile's output starts:
// - stable: after everything the tiles before it selected, found by decoupled look-back
//   (tile_status.cuh); one tile per block, tiles numbered by a ticket in launch order;
// - unordered: wherever one atomicAdd on a global counter reserves room; a grid-stride
//   loop over tiles, and the last block to finish writes the count.

#include <tally/detail/atomic/cas_loop.cuh>
#include <tally/detail/copy_if/tile_status.cuh>
#include <tally/detail/pdl.cuh>
#include <tally/detail/reduce/grid_sync.cuh>
#include <tally/detail/scratch.cuh>
#include <tally/detail/type_traits.cuh>

TALLY_NAMESPACE_BEGIN
namespace detail {

/// Reads this thread's items of the tile at `base` (`tile_n` items in the tile) and
/// their selection flags; returns how many are selected.
template <int Threads, int ItemsPerThread, class V, class It, class Select>
__device__ TALLY_FORCEINLINE int load_and_select(It first, std::int64_t base, int tile_n, Select select,
                                                 V (&items)[ItemsPerThread], bool (&flags)[ItemsPerThread]) {
  const int first_local = static_cast<int>(threadIdx.x) * ItemsPerThread;
  int selected = 0;
#pragma unroll
  for (int j = 0; j < ItemsPerThread; ++j) {
    const int local = first_local + j;
    flags[j] = false;
    if (local < tile_n) {
      const std::int64_t index = base + local;
      items[j] = first[index];
      flags[j] = select(items[j], index);
    }
    selected += flags[j] ? 1 : 0;
  }
  return selected;
}

template <int ItemsPerThread, class V, class OutIt>
__device__ TALLY_FORCEINLINE void write_selected(OutIt result, std::int64_t at, const V (&items)[ItemsPerThread],
                                                 const bool (&flags)[ItemsPerThread]) {
#pragma unroll
  for (int j = 0; j < ItemsPerThread; ++j) {
    if (flags[j]) result[at++] = items[j];
  }
}

/// Stable copy_if. scratch (when the grid has more than one block): the ticket counter
/// and one status word per tile, all zero at launch.
template <template <int> class BlockScan, int Threads, int ItemsPerThread, class It, class Select, class OutIt,
          class CountOut>
TALLY_KERNEL void __launch_bounds__(Threads) stable_copy_if_kernel(It first, std::int64_t n, Select select,
                                                                   OutIt result, CountOut count,
                                                                   scratch_view scratch) {
  using V = iter_value_t<It>;
  using scan_t = BlockScan<Threads>;
  constexpr int tile_items = Threads * ItemsPerThread;
  __shared__ typename scan_t::temp_storage storage;
  __shared__ long long shared_tile, shared_prefix;
  const int tid = static_cast<int>(threadIdx.x);
  wait_for_prior_grids();

  long long tile = 0;
  if (gridDim.x > 1) {
    // The ticket, not blockIdx: a tile waits only for tiles whose blocks began earlier.
    if (tid == 0) shared_tile = static_cast<long long>(atomicAdd(reinterpret_cast<unsigned long long*>(scratch.counter), 1ull));
    __syncthreads();
    tile = shared_tile;
  }
  const std::int64_t base = tile * tile_items;
  const std::int64_t left = n - base;
  const int tile_n = left < tile_items ? static_cast<int>(left) : tile_items;

  V items[ItemsPerThread];
  bool flags[ItemsPerThread];
  const int selected = load_and_select<Threads, ItemsPerThread>(first, base, tile_n, select, items, flags);
  int total;
  const int offset = scan_t(storage).exclusive_sum(selected, total);

  long long tile_prefix = 0;
  if (gridDim.x > 1) {
    const tile_status status{static_cast<tile_status::word*>(scratch.partials)};
    if (tile == 0) {
      if (tid == 0) status.publish(0, tile_status::prefix, total);
    } else {
      if (tid < 32) {
        if (tid == 0) status.publish(tile, tile_status::aggregate, total);
        const long long exclusive = status.exclusive_prefix(tile);
        if (tid == 0) {
          status.publish(tile, tile_status::prefix, exclusive + total);
          shared_prefix = exclusive;
        }
      }
      __syncthreads();
      tile_prefix = shared_prefix;
    }
  }
  write_selected(result, tile_prefix + offset, items, flags);

  if (tile == static_cast<long long>(gridDim.x) - 1 && tid == 0) {
    *count = static_cast<std::int64_t>(tile_prefix + total);
    // Every ticket has been taken (this is the last): the counter is free again.
    if (gridDim.x > 1) *reinterpret_cast<unsigned long long*>(scratch.counter) = 0;
  }
}

/// Unordered copy_if. scratch (when the grid has more than one block): the counter of
/// finished blocks and the slot (a 64-bit output counter), zero between calls.
template <template <int> class BlockScan, int Threads, int ItemsPerThread, class It, class Select, class OutIt,
          class CountOut>
TALLY_KERNEL void __launch_bounds__(Threads) unordered_copy_if_kernel(It first, std::int64_t n, Select select,
                                                                      OutIt result, CountOut count,
                                                                      scratch_view scratch) {
  using V = iter_value_t<It>;
  using scan_t = BlockScan<Threads>;
  constexpr int tile_items = Threads * ItemsPerThread;
  __shared__ typename scan_t::temp_storage storage;
  __shared__ unsigned long long shared_at;
  const int tid = static_cast<int>(threadIdx.x);
  wait_for_prior_grids();

  // With one block the output counter lives in shared memory.
  unsigned long long* out_counter =
      gridDim.x > 1 ? static_cast<unsigned long long*>(scratch.slot) : nullptr;
  __shared__ unsigned long long local_counter;
  if (tid == 0) local_counter = 0;

  const std::int64_t tiles = n > 0 ? (n + tile_items - 1) / tile_items : 0;
  for (std::int64_t tile = blockIdx.x; tile < tiles; tile += gridDim.x) {
    __syncthreads();  // `storage` and `shared_at` are reused
    const std::int64_t base = tile * tile_items;
    const std::int64_t left = n - base;
    const int tile_n = left < tile_items ? static_cast<int>(left) : tile_items;
    V items[ItemsPerThread];
    bool flags[ItemsPerThread];
    const int selected = load_and_select<Threads, ItemsPerThread>(first, base, tile_n, select, items, flags);
    int total;
    const int offset = scan_t(storage).exclusive_sum(selected, total);
    if (tid == 0) {
      // One atomic per tile reserves the tile's room in the output.
      if (out_counter) {
        shared_at = total ? atomicAdd(out_counter, static_cast<unsigned long long>(total)) : 0ull;
      } else {
        shared_at = local_counter;
        local_counter += static_cast<unsigned long long>(total);
      }
    }
    __syncthreads();
    write_selected(result, static_cast<std::int64_t>(shared_at) + offset, items, flags);
  }

  __syncthreads();
  if (tid != 0) return;
  if (!out_counter) {
    *count = static_cast<std::int64_t>(local_counter);
    return;
  }
  // Program order puts this block's atomics before its arrival; arrival releases them.
  if (arrive_and_check_last(scratch.counter)) {
    *count = static_cast<std::int64_t>(detail::atomic_load_word(out_counter));
    *out_counter = 0;
    reset_counter(scratch.counter);
  }
}

}  // namespace detail
TALLY_NAMESPACE_END
