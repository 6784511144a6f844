#pragma once
// The copy_if kernels. Both run a grid of resident blocks that loop over tiles of
// Threads * ItemsPerThread items; tile_compaction (tile_compaction.cuh) does a tile's
// work (loads of groups of items, one block scan of the packed counts by warp_shuffle's
// or shared_memory's BlockScan, staging in shared memory, coalesced writes). They differ
// in where a tile's output starts:
// - stable: after everything the tiles before it selected, found by decoupled look-back
//   (grid/look_back.cuh); tiles are handed out by an atomic ticket in the order blocks ask
//   (a block's index, where the grid covers the input);
// - unordered: wherever one atomicAdd on a global counter reserves room; tiles are
//   taken grid-stride.
// Once a tile's items are staged in shared memory, its registers are free: the block
// issues the loads of its next tile before it waits for the tile's output position and
// writes it out, so the next tile's reads overlap the look-back (or the atomic) and the
// writes.

#include <tally/detail/atomic/cas_loop.cuh>
#include <tally/detail/copy_if/tile_compaction.cuh>
#include <tally/block/scan_shuffle.cuh>
#include <tally/block/scan_tree.cuh>
#include <tally/detail/runtime/kernel_policy.cuh>
#include <tally/grid/look_back.cuh>
#include <tally/detail/runtime/pdl.cuh>
#include <tally/grid/last_block.cuh>
#include <tally/detail/runtime/scratch.cuh>
#include <tally/detail/type_traits.cuh>

#include <new>

TALLY_NAMESPACE_BEGIN
namespace detail {

/// The block scan of a backend (the backends' mechanism in copy_if): shared_memory's
/// Hillis-Steele tree in shared memory; warp_shuffle's shuffles. The atomic backend scans
/// with shuffles too: an order-keeping compaction needs a scan, which atomics do not give,
/// and its tiles' places in the output come from the look-back's atomics (stable) or one
/// atomicAdd per tile (unordered()), as on every backend.
template <backend_id Backend>
struct copy_if_scan {
  template <int Threads, class T>
  using type = block_scan_shuffle<Threads, T>;
};
template <>
struct copy_if_scan<backend_id::shared_memory> {
  template <int Threads, class T>
  using type = block_scan_tree<Threads, T>;
};

/// Blocks per SM a kernel asks the compiler to fit (a register cap): ThreadsPerSm threads'
/// worth, when a thread's items take at most 64 bytes. Left to itself the compiler gave
/// the stable kernel 64 registers and the unordered one 80 (256 x 16 items of 4 bytes:
/// 4 and 3 blocks per SM), and the SMs waited on memory. Measured on an H100 at 2^28
/// int32 items (5% / 50% / 95% selected, µs): stable capped at 5 blocks (48 registers,
/// no spill) 544 / 636 / 880 against 585 / 685 / 878; unordered capped at 4 blocks (64
/// registers, 16 bytes spilled) 522 / 608 / 777 against 551 / 634 / 756, where 5
/// blocks (48 registers, 92 bytes spilled) gave 495 / 590 / 854: the spills cost most
/// where most items are written. Larger items would spill more: no cap.
template <int Threads, int ItemsPerThread, class V, int ThreadsPerSm>
inline constexpr int copy_if_min_blocks =
    (ItemsPerThread * sizeof(V) <= 64 && Threads <= ThreadsPerSm) ? ThreadsPerSm / Threads : 1;

/// Stable copy_if. A grid of resident blocks; each takes tile blockIdx.x where the grid
/// covers the input, else its tiles by an atomic ticket, in the order blocks ask. scratch
/// (more than one block): the ticket (64-bit, in the slot), the counter of finished
/// blocks, and one status word per tile, all zero at launch; where tickets were taken,
/// the last block to finish zeroes ticket and counter again.
///
/// A block works on two tiles at once: it counts its new tile and publishes the new
/// tile's aggregate before it looks back for the tile it counted one round earlier.
/// So a tile's aggregate appears as soon as its items have arrived, never after its
/// block has waited on a look-back, and the look-back finds its predecessors' aggregates
/// long published (waiting for a tile whose block is itself waiting would chain the
/// blocks into a convoy). Two staging buffers hold the two tiles' items.
template <class Selector, class It, class Select, class OutIt, class CountOut>
__device__ TALLY_FORCEINLINE void stable_copy_if_body(It first, std::int64_t n, Select select, OutIt result,
                                                     CountOut count, unsigned int status_epoch, scratch_view scratch) {
  constexpr tuning::launch_policy policy = compiled_policy<Selector>();
  static_assert(tuning::is_valid(policy),
                "tally: no valid launch policy for this copy_if (a tuning table without a rule for it?)");
  constexpr int Threads = policy.threads;
  constexpr int ItemsPerThread = policy.items_per_thread;
  using V = iter_value_t<It>;
  constexpr bool double_buffered =
      tile_compaction<copy_if_scan<policy.backend>::template type, Threads, ItemsPerThread, V, Select, 2>::staged;
  using compaction_t = tile_compaction<copy_if_scan<policy.backend>::template type, Threads, ItemsPerThread, V,
                                       Select, double_buffered ? 2 : 1>;
  constexpr int tile_items = compaction_t::tile_items;
  __shared__ typename compaction_t::temp_storage storage;
  const int tid = static_cast<int>(threadIdx.x);
  const bool single = gridDim.x == 1;
  auto* ticket = static_cast<unsigned long long*>(scratch.slot);
  const tile_status status(static_cast<tile_status::word*>(scratch.partials), status_epoch);
  wait_for_prior_grids();

  const std::int64_t tiles = n > 0 ? (n + tile_items - 1) / tile_items : 1;
  compaction_t compaction{storage};
  // Where the grid covers the input (every small input), block b takes tile b and no
  // other: no ticket before the first load and no counter after the last write (at
  // 2^14..2^20 items, 4 to 256 blocks of 512 x 8, those two atomics' round trips were a
  // fifth to a quarter of the call's GPU time). Blocks start in index order and the grid is resident at once, so tile b's
  // predecessors are held by blocks already running (the assumption of CUB's look-back).
  // Otherwise tiles come by a ticket, in the order blocks ask: a tile waits only for
  // tiles that blocks already hold (at 2^24, tiles by index were 4-5% slower).
  // (One block takes tile 0, then the next ones in turn, with no scratch at all.)
  const bool by_index = single || tiles <= static_cast<std::int64_t>(gridDim.x);
  if (!by_index) {
    if (tid == 0) storage.next_tile = static_cast<long long>(atomicAdd(ticket, 1ull));
    __syncthreads();
  }
  long long fresh = by_index ? static_cast<long long>(blockIdx.x) : storage.next_tile;  // loaded (>= tiles: none)
  long long held = -1;                  // the tile counted and staged, not yet written (-1: none)
  int fresh_total = 0, held_total = 0;
  int buffer = 0;                       // the staging buffer of `fresh`
  long long running = 0;                // one block: the count of the tiles before (thread 0)

  // Under tickets, over at least two tiles a block, warp 1's first lane (warp 0 looks
  // back) asks for the next ticket before the fresh tile's count and, once the count is
  // done, asks L2 for that tile: its reads are then in flight while the block stages,
  // publishes and looks back, where the block had none from the fresh tile's arrival to
  // the next tile's loads (0.88-0.91x the time at 2^26..2^28 on the H200). With fewer
  // tiles (2^22 items: 1.55 a block) it cost 4-5%: the ticket is taken after the count.
  const bool ahead_of_loads = !single && !by_index && tiles >= 2 * static_cast<std::int64_t>(gridDim.x);
  constexpr int asker = Threads > 32 ? 32 : 0;
  if (fresh < tiles) compaction.load(first, n, fresh, select);
  while (true) {
    unsigned long long ahead = 0;  // thread `asker`: the next tile's ticket
    if (ahead_of_loads && fresh < tiles && tid == asker) ahead = atomicAdd(ticket, 1ull);
    // 1. Count the fresh tile, stage it, publish its aggregate.
    if (fresh < tiles) {
      fresh_total = compaction.count(n, fresh, select);
      compaction.stage(buffer);
      if (tid == 0 && !single)
        status.publish(fresh, fresh == 0 ? tile_status::prefix : tile_status::aggregate, fresh_total);
      if (ahead_of_loads && tid == asker && static_cast<long long>(ahead) < tiles)
        compaction_t::prefetch_l2(first, n, static_cast<long long>(ahead), select);
    } else {
      __syncthreads();  // everyone has read the last round's out_start and next_tile
    }
    if (!double_buffered) {
      // One buffer: finish the fresh tile now (the items stay in registers).
      held = fresh < tiles ? fresh : -1;
      held_total = fresh_total;
    }
    // 2. Where the held tile's output starts (the look-back), and the next ticket.
    if (tid == 0) {
      if (single) {
        storage.out_start = running;
        running += held >= 0 ? held_total : 0;
        storage.next_tile = fresh + 1;
      } else {
        if (held == 0) storage.out_start = 0;
        // Asked before the look-back, so that the atomic's latency overlaps it.
        if (fresh < tiles && !ahead_of_loads)
          storage.next_tile = by_index ? tiles : static_cast<long long>(atomicAdd(ticket, 1ull));
      }
    }
    // (After the count's barriers: every thread has read the last round's next_tile.)
    if (ahead_of_loads && fresh < tiles && tid == asker) storage.next_tile = static_cast<long long>(ahead);
    if (!single && held > 0 && tid < 32) {
      const long long exclusive = status.exclusive_prefix(held);
      if (tid == 0) {
        status.publish(held, tile_status::prefix, exclusive + held_total);
        storage.out_start = exclusive;
      }
    }
    __syncthreads();  // out_start, next_tile and the staged items
    const long long start = storage.out_start;
    const long long next = fresh < tiles ? storage.next_tile : tiles;
    // 3. Load the next tile (the fresh one is staged) and write the held one out.
    if constexpr (double_buffered) {
      if (next < tiles) compaction.load(first, n, next, select);
      if (held >= 0) compaction.write(result, start, held_total, 1 - buffer);
    } else {
      if (held >= 0) compaction.write(result, start, held_total);
      if (next < tiles) compaction.load(first, n, next, select);
    }
    if (held == tiles - 1 && tid == 0) *count = static_cast<std::int64_t>(start + held_total);
    if (double_buffered) {
      held = fresh < tiles ? fresh : -1;
      held_total = fresh_total;
      buffer = 1 - buffer;
    }
    fresh = next;
    if (fresh >= tiles && (!double_buffered || held < 0)) break;
  }

  if (single || by_index || tid != 0) return;
  if (arrive_and_check_last(scratch.counter)) {
    // Every block has taken its last ticket: ticket and counter are free again.
    *ticket = 0;
    reset_counter(scratch.counter);
  }
}

TALLY_KERNELS_BEGIN
template <class Selector, class It, class Select, class OutIt, class CountOut>
TALLY_KERNEL void __launch_bounds__(compiled_policy<Selector>().threads,
                                    copy_if_min_blocks<compiled_policy<Selector>().threads,
                                                       compiled_policy<Selector>().items_per_thread,
                                                       iter_value_t<It>, 1280>)
    stable_copy_if_kernel(It first, std::int64_t n, Select select, OutIt result, CountOut count,
                          unsigned int status_epoch, scratch_view scratch) {
  // A small-input kernel that this architecture has no rule for is never launched: no body.
  if constexpr (kernel_launches<Selector>())
    stable_copy_if_body<Selector, It, Select, OutIt, CountOut>(first, n, select, result, count, status_epoch, scratch);
}
TALLY_KERNELS_END
using kernels::stable_copy_if_kernel;

/// Unordered copy_if. scratch (when the grid has more than one block): the counter of
/// finished blocks and the slot (a 64-bit output counter), zero between calls.
///
/// Below 2^48 items the slot counts arrivals too: the output count in bits 0-47, the
/// blocks done in bits 48-63. A block's last tile reserves its room and arrives in one
/// atomic, and the block whose atomic finds every other block arrived has the final
/// count in its return value: one atomic round trip per block fewer than reserving and
/// then arriving at the counter (at 2^12..2^20 items, 4 to 1024 blocks of 128 x 8, that
/// round trip and the read of the count after it were a fifth to a quarter of the call's
/// GPU time). No ordering is needed:
/// the count is all the last block reads, and it is in the word its atomic returns.
template <class Selector, class It, class Select, class OutIt, class CountOut>
__device__ TALLY_FORCEINLINE void unordered_copy_if_body(It first, std::int64_t n, Select select, OutIt result,
                                                        CountOut count, scratch_view scratch) {
  constexpr tuning::launch_policy policy = compiled_policy<Selector>();
  static_assert(tuning::is_valid(policy),
                "tally: no valid launch policy for this copy_if (a tuning table without a rule for it?)");
  constexpr int Threads = policy.threads;
  constexpr int ItemsPerThread = policy.items_per_thread;
  using compaction_t =
      tile_compaction<copy_if_scan<policy.backend>::template type, Threads, ItemsPerThread, iter_value_t<It>, Select>;
  constexpr int tile_items = compaction_t::tile_items;
  constexpr int arrival_shift = 48;
  constexpr unsigned long long arrival = 1ull << arrival_shift;
  constexpr unsigned long long count_mask = arrival - 1;
  __shared__ typename compaction_t::temp_storage storage;
  const int tid = static_cast<int>(threadIdx.x);
  wait_for_prior_grids();

  // With one block the output counter lives in a register of thread 0.
  unsigned long long* out_counter = gridDim.x > 1 ? static_cast<unsigned long long*>(scratch.slot) : nullptr;
  unsigned long long local_counter = 0;
  const bool fused = n < std::int64_t(arrival) && gridDim.x < (1u << (64 - arrival_shift));
  const unsigned long long start_mask = fused ? count_mask : ~0ull;
  bool arrived = false, last = false;  // thread 0, fused: this block's arrival, and whether it came last

  const std::int64_t tiles = n > 0 ? (n + tile_items - 1) / tile_items : 0;
  compaction_t compaction{storage};
  std::int64_t tile = blockIdx.x;
  if (tile < tiles) compaction.load(first, n, tile, select);
  while (tile < tiles) {
    const int total = compaction.count(n, tile, select);
    compaction.stage();
    const std::int64_t next = tile + gridDim.x;
    if (tid == 0) {
      // One atomic per tile reserves the tile's room in the output.
      if (!out_counter) {
        storage.out_start = static_cast<long long>(local_counter);
        local_counter += static_cast<unsigned long long>(total);
      } else if (fused && next >= tiles) {
        const unsigned long long before = atomicAdd(out_counter, static_cast<unsigned long long>(total) + arrival);
        storage.out_start = static_cast<long long>(before & count_mask);
        arrived = true;
        last = (before >> arrival_shift) == gridDim.x - 1;
        local_counter = (before & count_mask) + static_cast<unsigned long long>(total);
      } else {
        // Under `fused`, blocks that have arrived show in the high bits.
        storage.out_start =
            total ? static_cast<long long>(atomicAdd(out_counter, static_cast<unsigned long long>(total)) & start_mask)
                  : 0;
      }
    }
    __syncthreads();  // out_start and the staged items
    compaction.finish_and_load_next(first, n, next, tiles, select, result, storage.out_start, total);
    tile = next;
  }

  if (tid != 0) return;
  if (!out_counter) {
    *count = static_cast<std::int64_t>(local_counter);
    return;
  }
  if (fused) {
    if (!arrived) {  // a block without a tile
      const unsigned long long before = atomicAdd(out_counter, arrival);
      last = (before >> arrival_shift) == gridDim.x - 1;
      local_counter = before & count_mask;
    }
    if (last) {
      *count = static_cast<std::int64_t>(local_counter);
      *out_counter = 0;  // every other block's last atomic is behind us
    }
    return;
  }
  // Program order puts this block's atomics before its arrival; arrival releases them.
  if (arrive_and_check_last(scratch.counter)) {
    *count = static_cast<std::int64_t>(detail::atomic_load_word(out_counter));
    *out_counter = 0;
    reset_counter(scratch.counter);
  }
}

TALLY_KERNELS_BEGIN
template <class Selector, class It, class Select, class OutIt, class CountOut>
TALLY_KERNEL void __launch_bounds__(compiled_policy<Selector>().threads,
                                    copy_if_min_blocks<compiled_policy<Selector>().threads,
                                                       compiled_policy<Selector>().items_per_thread,
                                                       iter_value_t<It>, 1024>)
    unordered_copy_if_kernel(It first, std::int64_t n, Select select, OutIt result, CountOut count,
                             scratch_view scratch) {
  // A small-input kernel that this architecture has no rule for is never launched: no body.
  if constexpr (kernel_launches<Selector>())
    unordered_copy_if_body<Selector, It, Select, OutIt, CountOut>(first, n, select, result, count, scratch);
}
TALLY_KERNELS_END
using kernels::unordered_copy_if_kernel;

}  // namespace detail
TALLY_NAMESPACE_END
