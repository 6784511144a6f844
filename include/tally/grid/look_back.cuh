#pragma once
// Decoupled look-back (Merrill and Garland, "Single-pass Parallel Prefix Scan with
// Decoupled Look-back", 2016) for the stable copy_if: how tile i learns how many items
// the tiles before it selected, without a second pass and without waiting for every one
// of them.
//
// Each tile has one 64-bit status word: a 2-bit state in the top bits, a 16-bit epoch and
// a 46-bit count. `none` (0): nothing published yet; `aggregate`: the tile's own count;
// `prefix`: the count of this tile and every tile before it. A tile publishes its
// aggregate as soon as it has counted, looks back over its predecessors, summing
// aggregates until it meets a prefix, and then publishes its own prefix.
//
// The epoch numbers the launches that use the same scratch (detail/runtime/scratch.cuh): a word written
// by an earlier launch has another epoch and reads as `none`, so the words need no
// clearing between calls, which would cost a memset node per call (about 2 µs at small
// sizes). The scratch clears them only when their epoch can't be trusted.
//
// Memory ordering: the only data that passes between tiles is the count, and it travels
// inside the status word itself, written and read with one 64-bit atomic. So relaxed
// atomics at device scope are enough: a reader sees either the old word or the whole new
// one, never a state without its count. (They must be atomics, not plain accesses: a
// plain load may be served from a stale L1 line and spin forever, and device scope makes
// the access go to L2, where every SM sees it.) Nothing else is published: each tile
// writes its items to its own part of the output, which no other tile reads.
//
// Progress: each block loops, taking tiles by an atomic ticket, so its tiles increase.
// It publishes a fresh tile's aggregate after waiting only on the look-back of a smaller
// tile it holds (counted one round earlier), and that look-back waits only on tiles
// smaller still; so, by induction on the tile number, every tile publishes. A block that
// holds no ticket has not started, so no tile waits on a block that is not scheduled.

#include <tally/warp/shuffle.cuh>

#include <cuda/atomic>

TALLY_NAMESPACE_BEGIN
namespace detail {

struct tile_status {
  using word = unsigned long long;
  // A word: the state in bits 62-63, the epoch in bits 46-61, the count in bits 0-45.
  static constexpr int epoch_shift = 46;
  static constexpr word none = 0;
  static constexpr word aggregate = 1;
  static constexpr word prefix = 2;
  static constexpr word count_mask = (word(1) << epoch_shift) - 1;
  static constexpr word epoch_mask = ((word(1) << 62) - 1) & ~count_mask;
  /// The largest count a word holds: a stable call takes at most this many items.
  static constexpr long long max_count = static_cast<long long>(count_mask);

  word* words;
  word epoch;  // this launch's epoch, in place (scratch_lease::status_epoch() << epoch_shift)

  __device__ tile_status(word* words_, unsigned int epoch_) : words(words_), epoch(word(epoch_) << epoch_shift) {}

  __device__ TALLY_FORCEINLINE void publish(long long tile, word state, long long count) const {
    cuda::atomic_ref<word, cuda::thread_scope_device>(words[tile]).store((state << 62) | epoch | word(count),
                                                                      cuda::std::memory_order_relaxed);
  }
  /// The state of tile `tile` in this launch: a word of another epoch (an earlier call's,
  /// left in place) reads as `none`.
  __device__ TALLY_FORCEINLINE word read(long long tile, word& count) const {
    const word w = cuda::atomic_ref<word, cuda::thread_scope_device>(words[tile]).load(cuda::std::memory_order_relaxed);
    count = w & count_mask;
    return (w & epoch_mask) == epoch ? w >> 62 : none;
  }

  /// Called by all 32 lanes of one warp of tile `tile` (> 0) after it published its
  /// aggregate: the number of items selected by tiles [0, tile). Lane l reads tile
  /// (window end - 1 - l), so a window of 32 predecessors is read at once; the window
  /// moves back until a lane finds a prefix.
  __device__ long long exclusive_prefix(long long tile) const {
    const int lane = static_cast<int>(threadIdx.x) & 31;
    long long sum = 0;
    long long end = tile;  // the window is [end - 32, end), lane 0 nearest to the tile
    while (true) {
      const long long mine = end - 1 - lane;
      word count = 0;
      word state = mine >= 0 ? read(mine, count) : prefix;  // before tile 0: a prefix of 0
      // Wait until every lane's tile has published something.
      while (!__all_sync(full_warp_mask, state != none)) {
        if (state == none) {
          __nanosleep(32);
          state = read(mine, count);
        }
      }
      const unsigned int prefixes = __ballot_sync(full_warp_mask, state == prefix);
      // Sum the lanes up to and including the nearest prefix (the lowest such lane), or
      // all 32 aggregates when there is none.
      const int last = prefixes ? __ffs(prefixes) - 1 : 31;
      long long value = lane <= last ? static_cast<long long>(count) : 0;
#pragma unroll
      for (int offset = 16; offset > 0; offset /= 2) value += __shfl_xor_sync(full_warp_mask, value, offset);
      sum += value;
      if (prefixes) return sum;
      end -= 32;
    }
  }
};

}  // namespace detail
TALLY_NAMESPACE_END
