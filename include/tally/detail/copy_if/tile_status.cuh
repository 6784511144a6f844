#pragma once
// Decoupled look-back (Merrill and Garland, "Single-pass Parallel Prefix Scan with
// Decoupled Look-back", 2016) for the stable copy_if: how tile i learns how many items
// the tiles before it selected, without a second pass and without waiting for every one
// of them.
//
// Each tile has one 64-bit status word: a 2-bit state in the top bits and a count in the
// low 62. `none` (0): nothing published yet; `aggregate`: the tile's own count;
// `prefix`: the count of this tile and every tile before it. A tile publishes its
// aggregate as soon as it has counted, looks back over its predecessors, summing
// aggregates until it meets a prefix, and then publishes its own prefix.
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

#include <tally/detail/shuffle.cuh>

#include <cuda/atomic>

TALLY_NAMESPACE_BEGIN
namespace detail {

struct tile_status {
  using word = unsigned long long;
  static constexpr word none = 0;
  static constexpr word aggregate = word(1) << 62;
  static constexpr word prefix = word(2) << 62;
  static constexpr word count_mask = (word(1) << 62) - 1;

  word* words;

  __device__ TALLY_FORCEINLINE void publish(long long tile, word state, long long count) const {
    cuda::atomic_ref<word, cuda::thread_scope_device>(words[tile]).store(state | word(count),
                                                                      cuda::std::memory_order_relaxed);
  }
  __device__ TALLY_FORCEINLINE word read(long long tile) const {
    return cuda::atomic_ref<word, cuda::thread_scope_device>(words[tile]).load(cuda::std::memory_order_relaxed);
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
      word w = mine >= 0 ? read(mine) : prefix;  // before tile 0: a prefix of 0
      // Wait until every lane's tile has published something.
      while (!__all_sync(full_warp_mask, (w >> 62) != 0)) {
        if ((w >> 62) == 0) {
          __nanosleep(32);
          w = read(mine);
        }
      }
      const bool is_prefix = (w & ~count_mask) == prefix;
      const unsigned int prefixes = __ballot_sync(full_warp_mask, is_prefix);
      // Sum the lanes up to and including the nearest prefix (the lowest such lane), or
      // all 32 aggregates when there is none.
      const int last = prefixes ? __ffs(prefixes) - 1 : 31;
      long long value = lane <= last ? static_cast<long long>(w & count_mask) : 0;
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
