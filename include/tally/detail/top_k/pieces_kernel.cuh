#pragma once
// top_k with a run-time k over pieces (tally::rows, tally::segments), all pieces in one
// launch: a warp per row for rows of at most 256 items, else a block per piece, or per
// chunk of a row when the rows are too few to fill the GPU.
//
// Items are ranked by a word (larger is better): the value's order key (the library's
// order: NaN greatest, -0.0 == +0.0; inverted for tally::greater<>) above 2^32 - 1 - the
// item's position, so that the lower index wins a tie and words are distinct. Values of
// at most 4 bytes pack that into 64 bits, 8-byte values use a select_key (key, inverted
// position). A block ranks its chunk in windows of at most 2^17 items, each merged with
// the best k of the windows before it (the running list, positions 0..kept-1, which have
// lower indices than every item of the window at positions kept + i).
//
// A window that fits shared memory beside the running list is loaded whole. A longer one
// (one read of it when the threshold holds):
// 1. 1024 samples, one in each of 1024 equal strata at a pseudo-random place in it; the
//    threshold t is about the r-th best sample, r = lambda + 3 sqrt(lambda) + 6 for
//    lambda = k m / L, the number of samples expected among the window's k best. Fewer
//    than k items beat t with probability below 10^-7 for lambda <= 2 (10^-4 at
//    lambda = 16), and about r L / m items do. (With + 3, about 10^-4 a window for
//    k = 32..50 over rows of 2^17: a call over 512 rows found one row failing in many
//    calls, and that row's exact select, five more reads of it by one block, took the
//    call from 134 to 451 µs on the H100.) Once
//    the running list holds k, its k-th best is a threshold too, and the better of the
//    two is used.
// 2. One pass appends every item whose word is at least t to the shared buffer (16-byte
//    loads; per item its key, one compare and a ballot).
// 3. When fewer than k of the window's items got in, or more than the buffer holds, a
//    radix select over the window finds the k-th best word exactly and the pass runs
//    again with it: exactly k get in.
// Then a radix select over the buffer (shared memory) finds the k-th best of the running
// list and the candidates, those at least as good move to `chosen`, and only they are
// sorted (one warp's registers up to 256, a bitonic network in shared memory above): the
// new running list. At the end the block writes it: values[s * k + j] and the index within
// the piece, index -1 past the piece's length. A row split across blocks: each block
// writes its list (indices) to scratch, and the last to finish merges the lists the same
// way (the chunks' entries ranked by value, then chunk, then place in the list).
//
// Rows split across blocks whose values have at most 4 bytes and whose k is small take a
// kernel of their own, top_k_stream_kernel (the rule: pieces_top_k_stream_max_k): a
// block's threshold comes from 16 runs of items spread over its chunk, with no draw that
// can fail (chunk_threshold); one pass appends the items that beat it to shared memory,
// the block adds them to the row's words in scratch, and the last block of the row
// chooses and sorts the k best of them all. No samples, no select and no sort a block.
// A row in 2..16 chunks also has a bar a chunk (stream_bar_warps), below which nothing of
// the chunk was left out; the last block cuts the row's words at the best bar where at
// least k reach it, with no threshold of its own to find. Rows of at most
// pieces_top_k_stream_chunk items, enough of them to fill the GPU, take it too, a block a
// row: the block chooses from its own buffer, with no scratch.

#include <tally/detail/float_order.cuh>
#include <tally/detail/runtime/pdl.cuh>
#include <tally/detail/top_k/select_kernel.cuh>
#include <tally/detail/top_k/stream_timeline.cuh>
#include <tally/grid/fence.cuh>
#include <tally/warp/shuffle.cuh>
#include <tally/warp/slot_ballots.cuh>

#include <cuda/std/cmath>

#include <cstdint>
#include <cstring>
#include <type_traits>

TALLY_NAMESPACE_BEGIN
namespace detail {

inline constexpr int pieces_top_k_threads = 512;
/// Words of the shared buffer: the running list (at most pieces_top_k_max_k) and a
/// window's candidates. 32 KB of 64-bit words (64 KB of 16-byte ones), so that two blocks
/// fit an SM.
inline constexpr int pieces_top_k_capacity = 4096;
/// The largest k over pieces: the running list and a window's k best fit the buffer.
inline constexpr std::int64_t pieces_top_k_max_k = 2048;
inline constexpr int pieces_top_k_samples = 1024;
/// Samples are drawn as runs of this many adjacent items (one memory sector).
inline constexpr int pieces_top_k_sample_run = 4;
/// The chunks' lists of a row are merged by ranking up to this many lists (interleaved
/// A/B, H100, µs: 64 x 131072 k = 50 in 4 chunks 40.0 -> 37.2, 64 x 131072 k = 2048 in 2
/// 257.5 -> 237.9; 16 x 131072 in 16 chunks 27.1 -> 34.9, so not there; with 8 chunks,
/// 32 x 131072, k = 50 30.0 -> 29.3 but k = 256 46.8 -> 52.0, so not there either).
inline constexpr std::int64_t pieces_top_k_rank_lists = 4;
/// Items of a piece ranked at a time. 1024 samples of 2^17 items (one in 128) give a
/// threshold that about k + (3 sqrt(k / 128) + 6) 128 items beat: 1060 for k = 50, 2880
/// for k = 1024, so that k + the window's candidates fit the buffer; windows longer would
/// overflow it, for k = 50 too (positions, running list + window, fit 32 bits either way).
inline constexpr std::int64_t pieces_top_k_window = std::int64_t(1) << 17;
/// The longest rows a warp ranks alone (in registers, no barrier), a block's warps each a
/// row: a block of 512 threads a row of 16 items spent its time in barriers.
inline constexpr std::int64_t pieces_top_k_warp_row = 256;
/// The longest rows a warp streams alone (top_k_warp_stream_rows, values of at most 4
/// bytes, k at most pieces_top_k_warp_stream_max_k), a block's warps each a row.
inline constexpr std::int64_t pieces_top_k_warp_stream_row = 4096;
inline constexpr std::int64_t pieces_top_k_warp_stream_max_k = 256;
/// The fewest rows, per SM, that stream a warp a row: a warp takes a row alone, for longer
/// than a block does, and fewer rows left the GPU idle (H200, back to back, the time a warp
/// a row took / a block a row: 128 rows of 512 at k = 50 2.11, 512 of them 1.00, 2048 0.32;
/// 256 rows of 1024 at k = 256 3.75, 1024 of them 1.08, 4096 0.56; 256 rows of 4096 at
/// k = 50 2.38, 1024 of them 0.76; docs/performance.md#medium-rows-warp-streams).
inline constexpr std::int64_t pieces_top_k_warp_stream_rows_per_sm = 8;
/// A streaming warp's words of shared memory: its best so far and its candidates, 256
/// each (the kernel's dynamic area over 16 warps).
inline constexpr int pieces_top_k_warp_stream_slice = 512;
static_assert(pieces_top_k_warp_stream_max_k < pieces_top_k_warp_row + 1, "k is below a streamed row's length");
/// Rows of at most 32 items a warp ranks at once (their loads in flight together).
inline constexpr int pieces_top_k_rows_at_once = 4;
/// The fewest items of a row's chunk when rows are split across blocks: below it a
/// block's fixed costs (the samples, the selects, the sort) outweigh its read.
inline constexpr std::int64_t pieces_top_k_min_chunk = 8192;
/// Chunks that stream (top_k_stream_kernel: rows split across blocks, or whole rows a
/// block, values of at most 4 bytes, chunks of at most pieces_top_k_stream_chunk items, and k at most
/// pieces_top_k_stream_small_k, or at most pieces_top_k_stream_max_k over chunks of at most
/// pieces_top_k_stream_short_chunk): a block's threshold comes from items spread over its
/// chunk (chunk_threshold), no samples and no select a block; its candidates go to the
/// row's words and the last block chooses among them all. The threshold is weaker for a
/// larger k (j = k / 16 lanes a warp), and k = 256 over 64 rows of 131072 (chunks of
/// 32768) was slower this way (56.7 -> 59.5 µs, H100), one row (chunks of 8192) faster
/// (40.7 -> 31.9).
inline constexpr std::int64_t pieces_top_k_stream_max_k = 256;
inline constexpr std::int64_t pieces_top_k_stream_small_k = 64;
inline constexpr std::int64_t pieces_top_k_stream_chunk = 131072;
inline constexpr std::int64_t pieces_top_k_stream_short_chunk = 16384;
/// Items each thread loads before it compares any (loads in flight per thread).
inline constexpr int pieces_top_k_unroll = 8;
/// 16-byte loads each thread has in flight in a pass over a pointer input.
inline constexpr int pieces_top_k_vector_unroll = 4;

/// The word of a value type: 64-bit packed for values of at most 4 bytes, else a select_key.
template <class V>
using piece_word_t = std::conditional_t<sizeof(V) <= 4, unsigned long long, select_key>;

TALLY_HOST_DEVICE TALLY_FORCEINLINE unsigned long long make_piece_word(unsigned long long key, std::uint32_t position,
                                                                       unsigned long long) {
  return (key << 32) | (0xffffffffu - position);
}
TALLY_HOST_DEVICE TALLY_FORCEINLINE select_key make_piece_word(unsigned long long key, std::uint32_t position,
                                                               select_key) {
  return {key, 0xffffffffull - position};
}
TALLY_HOST_DEVICE TALLY_FORCEINLINE std::uint32_t piece_word_position(unsigned long long w) {
  return 0xffffffffu - static_cast<std::uint32_t>(w);
}
TALLY_HOST_DEVICE TALLY_FORCEINLINE std::uint32_t piece_word_position(const select_key& w) {
  return 0xffffffffu - static_cast<std::uint32_t>(w.inv);
}
TALLY_HOST_DEVICE TALLY_FORCEINLINE unsigned long long with_position(unsigned long long w, std::uint32_t position) {
  return make_piece_word(w >> 32, position, w);
}
TALLY_HOST_DEVICE TALLY_FORCEINLINE select_key with_position(const select_key& w, std::uint32_t position) {
  return make_piece_word(w.key, position, w);
}
/// Whether a is at least as good as b.
TALLY_HOST_DEVICE TALLY_FORCEINLINE bool piece_word_at_least(unsigned long long a, unsigned long long b) {
  return a >= b;
}
TALLY_HOST_DEVICE TALLY_FORCEINLINE bool piece_word_at_least(const select_key& a, const select_key& b) {
  return !select_better(b, a);
}
/// The word as the top bits of 128 (the radix select's view): a 64-bit word in bits
/// 64..127, a select_key's key there and its 32-bit inverted position in bits 32..63
/// (the bits below are zero in every word).
TALLY_HOST_DEVICE TALLY_FORCEINLINE unsigned __int128 piece_word_bits(unsigned long long w) {
  return static_cast<unsigned __int128>(w) << 64;
}
TALLY_HOST_DEVICE TALLY_FORCEINLINE unsigned __int128 piece_word_bits(const select_key& w) {
  return (static_cast<unsigned __int128>(w.key) << 64) | (static_cast<unsigned __int128>(w.inv) << 32);
}
TALLY_HOST_DEVICE TALLY_FORCEINLINE void piece_word_from_bits(unsigned __int128 b, unsigned long long& w) {
  w = static_cast<unsigned long long>(b >> 64);
}
TALLY_HOST_DEVICE TALLY_FORCEINLINE void piece_word_from_bits(unsigned __int128 b, select_key& w) {
  w = {static_cast<unsigned long long>(b >> 64), static_cast<unsigned long long>(b >> 32) & 0xffffffffull};
}

/// The kernels' parameters. Mind their size: the stream kernel runs at its 64-register
/// cap, and one more field at the end (8 bytes) made it spill 72 bytes (sm_90); a new
/// field goes into existing padding (docs/performance.md#stream-staging-tries).
template <class It, class Pieces, class ValueOut, class IndexOut>
struct pieces_top_k_params {
  It first;
  Pieces pieces;
  std::int64_t k;  // 1 <= k <= pieces_top_k_max_k
  bool largest;    // tally::less<>: the largest first; tally::greater<>: the smallest
  ValueOut values;
  IndexOut indices;
  bool warp_rows;           // rows of at most pieces_top_k_warp_row items: a warp a row
  std::int64_t chunks;      // blocks per piece (rows only; chunks * k <= pieces_top_k_capacity)
  std::int64_t* lists;      // chunks > 1: each block's k best, k indices a block (-1: none)
  unsigned int* arrivals;   // chunks > 1: blocks of each piece done; zero between calls
  // Chunks that stream (top_k_stream_kernel): no list a block, but every candidate of the
  // row's chunks, a word each (position: the index in the row), chunks * capacity a row.
  unsigned long long* words;
  // A split row's counters, a word a row, zero between calls: the candidates it has room
  // for so far (the low 32 bits) and its blocks arrived (the high 32), one word so that the
  // last to arrive reads the row's count from its own atomic.
  unsigned long long* counters;
  // Whole rows that stream (chunks == 1): what chunk_threshold's reads must leave at least
  // as good, a scaled k (stream_threshold_ask); 0: need, the exact one.
  unsigned int ask;
  // Rows split in 2..16 chunks that stream (stream_bar_warps; 0: none): each chunk's bar
  // is the bar_warps-th best of its warps' best threshold reads, or its threshold if
  // higher, a word a chunk in `bars` (chunks a row); the row's last block cuts its words
  // at the best of the bars (stream_choose).
  unsigned int bar_warps = 0;
  unsigned long long* bars = nullptr;
};

/// Shared memory beside the dynamic buffers.
template <class W>
struct pieces_top_k_shared {
  unsigned int hist[2][256];  // alternating: one counted, the other cleared
  unsigned long long fold[pieces_top_k_threads / 32][4];  // per warp: OR and AND of the bits
  unsigned int count;
  unsigned int bucket;
  unsigned int remaining;
  bool exact;
  bool last;  // the last block of its piece to finish (chunks > 1)
  unsigned long long threshold;                             // warps_threshold's
  unsigned long long warp_words[pieces_top_k_threads / 32];  // warps_threshold's: a word a warp
  unsigned long long warp_tops[pieces_top_k_threads / 32];   // a chunk's bar: each warp's best read
  unsigned long long bar;      // a chunk's bar: its final threshold (top_k_stream_filter)
  unsigned long long row_bar;  // the row's last block: the best of its chunks' bars
};

/// The value's order key as the word holds it (inverted for tally::greater<>).
template <class P, class V>
__device__ TALLY_FORCEINLINE order_key_t<V> piece_key_of(const P& p, V value) {
  const order_key_t<V> key = to_order_key(value);
  return p.largest ? key : static_cast<order_key_t<V>>(~key);
}

template <class W, class P, class V>
__device__ TALLY_FORCEINLINE W piece_word_of(const P& p, V value, std::uint32_t position) {
  return make_piece_word(static_cast<unsigned long long>(piece_key_of(p, value)), position, W{});
}

TALLY_HOST_DEVICE TALLY_FORCEINLINE unsigned long long piece_word_key(unsigned long long w) { return w >> 32; }
TALLY_HOST_DEVICE TALLY_FORCEINLINE unsigned long long piece_word_key(const select_key& w) { return w.key; }

template <class W, class P, class It>
__device__ TALLY_FORCEINLINE W piece_word_at(const P& p, It window, std::int64_t i, std::uint32_t position) {
  using V = iter_value_t<It>;
  return piece_word_of<W>(p, static_cast<V>(window[i]), position);
}

/// Appends w to buffer[*count...] for each lane that wants to (counted beyond
/// `capacity`, never written there). Every lane of the warp calls it.
template <class W>
__device__ TALLY_FORCEINLINE void piece_append(unsigned int* count, W* buffer, bool want, const W& w,
                                               unsigned int capacity = pieces_top_k_capacity) {
  const unsigned int mask = __ballot_sync(0xffffffffu, want);
  if (mask == 0) return;
  const int lane = static_cast<int>(threadIdx.x & 31);
  const int leader = __ffs(mask) - 1;
  unsigned int base = 0;
  if (lane == leader) base = atomicAdd(count, static_cast<unsigned int>(__popc(mask)));
  base = __shfl_sync(0xffffffffu, base, leader);
  const unsigned int at = base + __popc(mask & ((1u << lane) - 1u));
  if (want && at < capacity) buffer[at] = w;
}

/// piece_append of N words a lane at once, with one atomic a warp (the stream kernel's cut:
/// of 1800 words at k = 50, some 120 get in, and an atomic a ballot left most of a warp's
/// time waiting on the count).
template <int N, class W>
__device__ TALLY_FORCEINLINE void piece_append_all(unsigned int* count, W* buffer, const bool (&want)[N],
                                                   const W (&w)[N], unsigned int capacity) {
  unsigned int mask[N];
  const unsigned int total = slot_ballots(want, mask);
  if (total == 0) return;
  const int lane = static_cast<int>(threadIdx.x & 31);
  unsigned int base = 0;
  if (lane == 0) base = atomicAdd(count, total);
  base = __shfl_sync(0xffffffffu, base, 0);
  const unsigned int below = (1u << lane) - 1u;
#pragma unroll
  for (int u = 0; u < N; ++u) {
    const unsigned int at = base + static_cast<unsigned int>(__popc(mask[u] & below));
    if (want[u] && at < capacity) buffer[at] = w[u];
    base += static_cast<unsigned int>(__popc(mask[u]));
  }
}

/// Appends every item of window[from..to) whose word is at least t (item i at position
/// kept + i), pieces_top_k_unroll loads in flight per thread.
template <class W, class P, class It>
__device__ void piece_filter_range(const P& p, It window, std::int64_t from, std::int64_t to, unsigned int kept,
                                   const W& t, W* buffer, unsigned int* count) {
  constexpr std::int64_t step = std::int64_t(pieces_top_k_threads) * pieces_top_k_unroll;
  for (std::int64_t base = from; base < to; base += step) {
    W w[pieces_top_k_unroll];
    bool in[pieces_top_k_unroll];
#pragma unroll
    for (int u = 0; u < pieces_top_k_unroll; ++u) {
      const std::int64_t i = base + std::int64_t(u) * pieces_top_k_threads + threadIdx.x;
      in[u] = i < to;
      if (in[u]) w[u] = piece_word_at<W>(p, window, i, kept + static_cast<std::uint32_t>(i));
    }
#pragma unroll
    for (int u = 0; u < pieces_top_k_unroll; ++u) piece_append(count, buffer, in[u] && piece_word_at_least(w[u], t), w[u]);
  }
}

/// Which items of the vector pass beat or tie the threshold's key: a float or double
/// with one native compare (exact while the threshold is a number: NaN is above every
/// number and fails `<`; -0.0 == +0.0 in both), every other type by its order key.
/// Largest: tally::less<> (the largest first).
template <class V, bool Largest, bool Native = std::is_floating_point_v<V>>
struct pass_compare {
  order_key_t<V> t_key;
  __device__ TALLY_FORCEINLINE order_key_t<V> key(V x) const {
    const order_key_t<V> k = to_order_key(x);
    return Largest ? k : static_cast<order_key_t<V>>(~k);
  }
  __device__ TALLY_FORCEINLINE bool beats(V x) const { return key(x) > t_key; }
  __device__ TALLY_FORCEINLINE bool ties(V x) const { return key(x) == t_key; }
};
template <class V, bool Largest>
struct pass_compare<V, Largest, true> {
  V t_value;  // a number (the caller's check)
  __device__ TALLY_FORCEINLINE bool beats(V x) const { return Largest ? !(x <= t_value) : x < t_value; }
  __device__ TALLY_FORCEINLINE bool ties(V x) const { return x == t_value; }
};

/// The vector body of piece_filter_pass: four 16-byte loads a thread a round; per item
/// a compare with the threshold's value (and one of the position where the value ties)
/// into a bit of a mask, no branch, and only the items that get in (about 1.5% of a row
/// at k = 50) pay for their word and a shared atomic. The pass had made every item's
/// word and paid a ballot, a shuffle and a branch for it: about one warp instruction an
/// item (ncu, H100, a chunk of 8192: 66K warp instructions), which left a block's pass
/// bound by issue, not by memory (rows of 131072 at k = 50: 0.89x the time).
template <bool Largest, class W, class P, class V>
__device__ void piece_filter_vectors(const P& p, const uint4* body, std::int64_t vectors, std::uint32_t first_position,
                                     const W& t, W* buffer, unsigned int* count) {
  constexpr int per_vector = int(16 / sizeof(V));
  constexpr int unroll = pieces_top_k_vector_unroll;
  using mask_t = std::conditional_t<(per_vector * unroll > 32), unsigned long long, unsigned int>;
  pass_compare<V, Largest> compare;
  if constexpr (std::is_floating_point_v<V>) {
    const auto k = static_cast<order_key_t<V>>(piece_word_key(t));
    compare.t_value = from_order_key<V>(Largest ? k : static_cast<order_key_t<V>>(~k));
  } else {
    compare.t_key = static_cast<order_key_t<V>>(piece_word_key(t));
  }
  const std::uint32_t t_position = piece_word_position(t);
  for (std::int64_t base = 0; base < vectors; base += std::int64_t(pieces_top_k_threads) * unroll) {
    // Loads without a condition (past the end: the last vector again, masked out below).
    // ptxas still issues the third and fourth after the first vector's compares.
    uint4 r[unroll];
#pragma unroll
    for (int u = 0; u < unroll; ++u) {
      const std::int64_t v = base + std::int64_t(u) * pieces_top_k_threads + threadIdx.x;
      r[u] = body[v < vectors ? v : vectors - 1];
    }
    // Item (u, e) has position at + u * threads * per_vector + e; it ties in when that
    // is at most t_position (a lower index wins a tie): when its offset is at most
    // tie_room (clamped to 32 bits: offsets are below 2^13).
    const std::uint32_t at = first_position + static_cast<std::uint32_t>((base + threadIdx.x) * per_vector);
    const std::int64_t room = std::int64_t(t_position) - std::int64_t(at);
    const int tie_room = room < 0 ? -1 : room > 0x7fffffff ? 0x7fffffff : static_cast<int>(room);
    // Bitwise, not short-circuit: with a branch an item, the pieces kernel's rows of
    // 131072 at k = 256 took 1.38x as long, without 1.12x (so it keeps the ballot body).
    mask_t mask = 0;
#pragma unroll
    for (int u = 0; u < unroll; ++u) {
      const bool in = base + std::int64_t(u) * pieces_top_k_threads + threadIdx.x < vectors;
      V items[per_vector];
      memcpy(items, &r[u], sizeof(items));
#pragma unroll
      for (int e = 0; e < per_vector; ++e) {
        const int offset = u * pieces_top_k_threads * per_vector + e;
        const bool want = in & (compare.beats(items[e]) | (compare.ties(items[e]) & (offset <= tie_room)));
        mask |= mask_t(want) << (u * per_vector + e);
      }
    }
    while (mask != 0) {
      const int b = std::is_same_v<mask_t, unsigned int> ? __ffs(static_cast<unsigned int>(mask)) - 1
                                                         : __ffsll(static_cast<long long>(mask)) - 1;
      mask &= mask - 1;
      // The item of bit b, picked out of the registers by compares (an index would put
      // them in local memory).
      V item{};
#pragma unroll
      for (int u = 0; u < unroll; ++u) {
        V items[per_vector];
        memcpy(items, &r[u], sizeof(items));
#pragma unroll
        for (int e = 0; e < per_vector; ++e)
          if (u * per_vector + e == b) item = items[e];
      }
      const int u = b / per_vector, e = b % per_vector;
      const std::uint32_t position = at + static_cast<std::uint32_t>(u * pieces_top_k_threads * per_vector + e);
      const unsigned int slot = atomicAdd(count, 1u);
      if (slot < static_cast<unsigned int>(pieces_top_k_capacity)) buffer[slot] = piece_word_of<W>(p, item, position);
    }
  }
}

/// piece_filter_vectors with a ballot and an append an item: top_k_pieces_kernel's body.
/// Its windows of 2^17 items took 1.12x as long with piece_filter_vectors' masks (rows of
/// 131072 at k = 256, H100), ptxas there issuing the third and fourth loads after the
/// first vector's compares; the stream kernel gained (0.89x).
template <class W, class P, class V>
__device__ void piece_filter_vectors_ballot(const P& p, const uint4* body, std::int64_t vectors,
                                            std::uint32_t first_position, const W& t, W* buffer,
                                            unsigned int* count) {
  constexpr int per_vector = int(16 / sizeof(V));
  constexpr int unroll = pieces_top_k_vector_unroll;
  for (std::int64_t base = 0; base < vectors; base += std::int64_t(pieces_top_k_threads) * unroll) {
    uint4 r[unroll];
#pragma unroll
    for (int u = 0; u < unroll; ++u) {
      const std::int64_t v = base + std::int64_t(u) * pieces_top_k_threads + threadIdx.x;
      if (v < vectors) r[u] = body[v];
    }
    // Per item only its key and a compare with t's: the word (and its position) is
    // made for the items that may beat t.
    using K = order_key_t<V>;
    const K t_key = static_cast<K>(piece_word_key(t));
#pragma unroll
    for (int u = 0; u < unroll; ++u) {
      const std::int64_t v = base + std::int64_t(u) * pieces_top_k_threads + threadIdx.x;
      V items[per_vector];
      memcpy(items, &r[u], sizeof(items));
#pragma unroll
      for (int e = 0; e < per_vector; ++e) {
        const K key = piece_key_of(p, items[e]);
        const std::uint32_t position = first_position + static_cast<std::uint32_t>(v * per_vector + e);
        const W w = make_piece_word(static_cast<unsigned long long>(key), position, W{});
        const bool want = v < vectors && key >= t_key && (key > t_key || piece_word_at_least(w, t));
        piece_append(count, buffer, want, w);
      }
    }
  }
}

/// Appends every item of the window whose word is at least t, at position kept + i. A
/// pointer input is read in 16-byte loads (four a thread a round: 32 KB a block) from its
/// first 16-byte boundary, by piece_filter_vectors (Ballot: piece_filter_vectors_ballot);
/// one block per SM reading 4-byte loads, eight in flight, read a row at 9 GB/s (H200), a
/// fifth of what the SM can take.
template <bool Ballot, class W, class P, class It>
__device__ void piece_filter_pass(const P& p, It window, std::int64_t length, unsigned int kept, const W& t,
                                  W* buffer, unsigned int* count) {
  using V = iter_value_t<It>;
  if constexpr (std::is_pointer_v<It> && sizeof(V) <= 16 && 16 % sizeof(V) == 0) {
    constexpr int per_vector = int(16 / sizeof(V));
    const auto address = reinterpret_cast<std::uintptr_t>(window);
    if (address % sizeof(V) == 0) {
      std::int64_t head = static_cast<std::int64_t>((16 - address % 16) % 16 / sizeof(V));
      if (head > length) head = length;
      piece_filter_range(p, window, 0, head, kept, t, buffer, count);
      const std::int64_t vectors = (length - head) / per_vector;
      const std::int64_t tail = head + vectors * per_vector;
      const uint4* body = reinterpret_cast<const uint4*>(window + head);
      const std::uint32_t first_position = kept + static_cast<std::uint32_t>(head);
      if constexpr (Ballot) {
        piece_filter_vectors_ballot<W, P, V>(p, body, vectors, first_position, t, buffer, count);
      } else {
        bool native = true;  // a float threshold that is a number (NaN takes the item loop)
        if constexpr (std::is_floating_point_v<V>) {
          const auto k = static_cast<order_key_t<V>>(piece_word_key(t));
          native = !is_nan(from_order_key<V>(p.largest ? k : static_cast<order_key_t<V>>(~k)));
        }
        if (!native) piece_filter_range(p, window, head, tail, kept, t, buffer, count);
        else if (p.largest) piece_filter_vectors<true, W, P, V>(p, body, vectors, first_position, t, buffer, count);
        else piece_filter_vectors<false, W, P, V>(p, body, vectors, first_position, t, buffer, count);
      }
      piece_filter_range(p, window, tail, length, kept, t, buffer, count);
      return;
    }
  }
  piece_filter_range(p, window, 0, length, kept, t, buffer, count);
}

/// A threshold over count distinct words, word_at(i) for i < count (shared memory, or
/// items of the input): a word t such that between r and r + slack of them are at least
/// t (1 <= r <= count; slack 0: exactly r, t then being the r-th best or a prefix of it).
/// A radix select, 8 bits a digit from the first bit the words do not all share (their
/// OR and AND say where), one pass over the words a digit; it stops once the words at
/// least as good as the bucket holding the r-th best number at most r + slack, and
/// returns that bucket's prefix with the lower bits zero. Two barriers a digit (the
/// histograms alternate, so that one is cleared while the other is read). Every thread
/// calls it; it ends with the block synchronised.
template <class W, class WordAt>
__device__ W block_radix_select(std::int64_t count, WordAt word_at, unsigned int r, pieces_top_k_shared<W>& sh,
                                unsigned int slack = 0) {
  const int lane = static_cast<int>(threadIdx.x & 31), warp = static_cast<int>(threadIdx.x >> 5);
  // The bits every word shares: the top ones of (AND | ~OR).
  unsigned long long fold[4] = {0, 0, ~0ull, ~0ull};  // OR high, OR low, AND high, AND low
  for (std::int64_t i = threadIdx.x; i < count; i += blockDim.x) {
    const unsigned __int128 b = piece_word_bits(word_at(i));
    fold[0] |= static_cast<unsigned long long>(b >> 64);
    fold[1] |= static_cast<unsigned long long>(b);
    fold[2] &= static_cast<unsigned long long>(b >> 64);
    fold[3] &= static_cast<unsigned long long>(b);
  }
#pragma unroll
  for (int d = 16; d > 0; d /= 2) {
    fold[0] |= __shfl_xor_sync(0xffffffffu, fold[0], d);
    fold[1] |= __shfl_xor_sync(0xffffffffu, fold[1], d);
    fold[2] &= __shfl_xor_sync(0xffffffffu, fold[2], d);
    fold[3] &= __shfl_xor_sync(0xffffffffu, fold[3], d);
  }
  if (lane == 0)
    for (int q = 0; q < 4; ++q) sh.fold[warp][q] = fold[q];
  for (int b = threadIdx.x; b < 2 * 256; b += blockDim.x) sh.hist[b / 256][b % 256] = 0;
  __syncthreads();
  unsigned long long any_hi = 0, any_lo = 0, all_hi = ~0ull, all_lo = ~0ull;
  for (int w = 0; w < static_cast<int>(blockDim.x >> 5); ++w) {
    any_hi |= sh.fold[w][0];
    any_lo |= sh.fold[w][1];
    all_hi &= sh.fold[w][2];
    all_lo &= sh.fold[w][3];
  }
  const unsigned long long differ_hi = any_hi ^ all_hi, differ_lo = any_lo ^ all_lo;
  // Below bit `top` the words differ; above it every word has the bits of `all`.
  int top = 0;
  if (differ_hi != 0) top = 128 - __clzll(static_cast<long long>(differ_hi));
  else if (differ_lo != 0) top = 64 - __clzll(static_cast<long long>(differ_lo));
  const unsigned __int128 all = (static_cast<unsigned __int128>(all_hi) << 64) | all_lo;
  unsigned __int128 prefix = top >= 128 ? 0 : (all >> top) << top;
  unsigned int remaining = r;
  int cur = 0;
  while (top > 0) {
    const int width = top < 8 ? top : 8;
    const int shift = top - width;
    unsigned int* hist = sh.hist[cur];
    for (std::int64_t i = threadIdx.x; i < count; i += blockDim.x) {
      const unsigned __int128 b = piece_word_bits(word_at(i));
      if (top >= 128 || (b >> top) == (prefix >> top))
        atomicAdd(&hist[static_cast<unsigned int>(b >> shift) & ((1u << width) - 1u)], 1u);
    }
    __syncthreads();
    if (warp == 0) {
      // Lane l holds buckets 8l .. 8l + 7; the bucket with the remaining-th best from the top.
      unsigned int mine = 0;
#pragma unroll
      for (int q = 0; q < 8; ++q) mine += hist[lane * 8 + q];
      unsigned int from_top = mine;  // the buckets of this lane and every lane above it
#pragma unroll
      for (int d = 1; d < 32; d *= 2) {
        const unsigned int up = __shfl_down_sync(0xffffffffu, from_top, d);
        if (lane + d < 32) from_top += up;
      }
      if (from_top >= remaining && from_top - mine < remaining) {
        unsigned int above = from_top - mine;
        int b = lane * 8 + 7;
        while (above + hist[b] < remaining) above += hist[b--];
        sh.bucket = static_cast<unsigned int>(b);
        sh.remaining = remaining - above;
        sh.exact = hist[b] - (remaining - above) <= slack;
      }
    } else {
      // The other histogram, for the next digit.
      for (int b = static_cast<int>(threadIdx.x) - 32; b < 256; b += static_cast<int>(blockDim.x) - 32)
        sh.hist[cur ^ 1][b] = 0;
    }
    __syncthreads();
    prefix |= static_cast<unsigned __int128>(sh.bucket) << shift;
    remaining = sh.remaining;
    top = shift;
    cur ^= 1;
    if (sh.exact) break;
  }
  // sh.fold, sh.bucket and sh.exact are read above; the caller may call again at once.
  __syncthreads();
  W t;
  piece_word_from_bits(prefix, t);
  return t;
}

/// One warp sorts a[0..count) (count <= 32 E) best first in its registers.
template <int E, class W>
__device__ void warp_sort_words(W* a, int count) {
  const int lane = static_cast<int>(threadIdx.x & 31);
  W v[E];
#pragma unroll
  for (int j = 0; j < E; ++j) v[j] = 32 * j + lane < count ? a[32 * j + lane] : select_worst(W{});
  warp_sort_registers(v);
#pragma unroll
  for (int j = 0; j < E; ++j)
    if (32 * j + lane < count) a[32 * j + lane] = v[j];
}

/// Lane `from`'s value of x, for any trivially copyable type of at most 8 bytes.
template <class V>
__device__ TALLY_FORCEINLINE V shfl_value(const V& x, int from) {
  using Bits = std::conditional_t<(sizeof(V) <= 4), unsigned int, unsigned long long>;
  Bits bits = 0;
  memcpy(&bits, &x, sizeof(V));
  bits = __shfl_sync(0xffffffffu, bits, from);
  V y;
  memcpy(&y, &bits, sizeof(V));
  return y;
}

/// Sorts a[0..count) best first (count <= pieces_top_k_max_k): one warp's registers up to
/// 256 (a block's bitonic network in shared memory pays a barrier a stage: 36 of them
/// for 256 words took 10 µs on the H200), the block's network above (not compiled where
/// Large is false: callers whose count is at most 256). Ends synchronised.
template <class W, bool Large = true>
__device__ void sort_words(W* a, int count) {
  if (!Large || count <= 256) {
    if (threadIdx.x < 32) {
      if (count <= 64) warp_sort_words<2>(a, count);
      else if (count <= 128) warp_sort_words<4>(a, count);
      else warp_sort_words<8>(a, count);
    }
    __syncthreads();
  } else if constexpr (Large) {
    block_sort_keys_shared(a, count);
  }
}

/// The r-th best of the distinct words buffer[0..count) (shared memory): one instantiation
/// of the radix select for every caller that selects in the buffer. Ends synchronised.
template <class W>
__device__ W select_in_buffer(const W* buffer, unsigned int count, unsigned int r, pieces_top_k_shared<W>& sh) {
  return block_radix_select(count, [&](std::int64_t i) { return buffer[i]; }, r, sh);
}

/// The best `next` of the distinct words buffer[0..count) to chosen[0..next), sorted
/// best first (next <= pieces_top_k_max_k): a radix select of the next-th best when not
/// all are kept, those at least as good appended, then a sort of next words only. (One
/// warp sorting all of up to 64 or 256 words and keeping the best was slower in an
/// interleaved A/B on the H100: 64 x 131072, k = 50, 39.9 -> 48.4 µs with 64. So was a
/// tree of warp merges (each warp sorts 64, four levels keep the best 64 of two lists) for
/// up to 1024 words and 64 chosen, on the H200: 512 x 131072 126.9 -> 136.8 µs, though
/// one row of 131072 went 19.4 -> 15.8 µs at k = 1.)
template <class W, bool Large = true>
__device__ void choose_best(const W* buffer, unsigned int count, unsigned int next, W* chosen,
                            pieces_top_k_shared<W>& sh) {
  if (next < count) {
    const W t = select_in_buffer(buffer, count, next, sh);
    if (threadIdx.x == 0) sh.count = 0;
    __syncthreads();
    for (unsigned int base = 0; base < count; base += blockDim.x) {
      const unsigned int i = base + threadIdx.x;
      const W w = i < count ? buffer[i] : W{};
      piece_append(&sh.count, chosen, i < count && piece_word_at_least(w, t), w,
                   static_cast<unsigned int>(pieces_top_k_max_k));
    }
  } else {
    for (unsigned int i = threadIdx.x; i < count; i += blockDim.x) chosen[i] = buffer[i];
  }
  __syncthreads();
  sort_words<W, Large>(chosen, static_cast<int>(next));
}

/// The rank-th best (1 <= rank <= 32) of the pieces_top_k_samples distinct words
/// samples[0..), two for each of the block's threads: each warp sorts its 64 in registers
/// and leaves its best 32 in scratch[32 warp..], then warp 0 merges the warps' lists into
/// the best 32 (a bitonic merge of two sorted lists of 32 a step: the better of a[l] and
/// b[31 - l], then five shuffle stages). About as long as the radix select it replaces
/// (3.3 against 3.2-5.2 µs of a block on the H100: fifteen merges in a chain), but exact:
/// the select's slack ("between rank and 1.5 rank + 2 samples") let a large k overflow
/// the buffer and pay the exact fallback's second pass (4 x 2^20, k = 1024: 445.7 -> 144.8
/// µs). scratch: pieces_top_k_threads + 1 words. Ends synchronised.
template <class W>
__device__ W sample_threshold(const W* samples, int rank, W* scratch) {
  static_assert(pieces_top_k_samples == 2 * pieces_top_k_threads, "two samples a thread");
  const int lane = static_cast<int>(threadIdx.x & 31), warp = static_cast<int>(threadIdx.x >> 5);
  W v[2] = {samples[64 * warp + lane], samples[64 * warp + 32 + lane]};
  warp_sort_registers(v);  // v[0] across the lanes: the warp's best 32, best first
  scratch[32 * warp + lane] = v[0];
  __syncthreads();
  if (warp == 0) {
    W a = v[0];
    for (int w = 1; w < pieces_top_k_threads / 32; ++w) {
      const W b = scratch[32 * w + 31 - lane];
      if (select_better(b, a)) a = b;  // the best 32 of both, a bitonic sequence
#pragma unroll
      for (int stride = 16; stride > 0; stride /= 2) {
        const W other = shfl_xor_word(a, stride);
        if (select_better(other, a) == ((lane & stride) == 0)) a = other;
      }
    }
    if (lane == rank - 1) scratch[pieces_top_k_threads] = a;
  }
  __syncthreads();
  return scratch[pieces_top_k_threads];
}

/// The best `next` words of `lists` sorted lists of `length` distinct words each
/// (words[c length ..], best first; padding: the worst word), to chosen[0..next), best
/// first: each word's rank is its place in its own list plus, for every other list, how
/// many of that list's words are better (a binary search); the words ranked below next
/// land at their rank. No select and no sort: the chunks' merge took 5.3-5.9 µs of the
/// last block on the H100 as a radix select over all entries and a sort of the best; this
/// pays lists - 1 binary searches a word, so it is for few lists. Not inlined: inlined,
/// its registers cost the rest of the kernel 1-7% (32 x 131072 30.0 -> 31.9 µs, 512 x
/// 131072 134.4 -> 137.0 on the H100); a call, once a row, costs nothing measurable.
/// Every thread calls it; it ends synchronised.
template <class W>
__device__ __noinline__ void merge_sorted_lists(const W* words, int lists, int length, unsigned int next, W* chosen) {
  int top = 1;
  while (top * 2 <= length) top *= 2;
  const int entries = lists * length;
  for (int q = static_cast<int>(threadIdx.x); q < entries; q += static_cast<int>(blockDim.x)) {
    const int own = q / length;
    const W w = words[q];
    unsigned int rank = static_cast<unsigned int>(q - own * length);
    if (rank >= next) continue;  // at least `rank` better words in its own list
    for (int c = 0; c < lists && rank < next; ++c) {
      if (c == own) continue;
      const W* list = words + c * length;
      int better = 0;  // list[0..better) are better than w
      for (int step = top; step > 0; step /= 2)
        if (better + step <= length && select_better(list[better + step - 1], w)) better += step;
      rank += static_cast<unsigned int>(better);
    }
    if (rank < next) chosen[rank] = w;
  }
  __syncthreads();
}

/// Ranks one window of a piece (window = the piece's items from `offset`, `length` of
/// them) with the running list (buffer[0..kept), indices in run_index) and returns the
/// new running list's length, min(k, kept + length): sorted in buffer[0..), its indices
/// in run_index. `chosen`: pieces_top_k_max_k words.
template <class W, class P, class It>
__device__ unsigned int piece_rank_window(const P& p, It window, std::int64_t offset, std::int64_t length,
                                          unsigned int kept, W* buffer, W* chosen, std::int64_t* run_index,
                                          pieces_top_k_shared<W>& sh) {
  const unsigned int need = static_cast<unsigned int>(p.k < length ? p.k : length);
  const auto from_window = [&](std::int64_t i) {
    return piece_word_at<W>(p, window, i, kept + static_cast<std::uint32_t>(i));
  };
  unsigned int count = 0;
  if (length <= std::int64_t(pieces_top_k_capacity) - kept) {
    for (std::int64_t i = threadIdx.x; i < length; i += blockDim.x) buffer[kept + i] = from_window(i);
    count = kept + static_cast<unsigned int>(length);
    __syncthreads();
  } else {
    // The samples sit at the end of the buffer, above the running list (kept <= 2048),
    // and are dead once t is known: the pass may overwrite them.
    // Runs of pieces_top_k_sample_run adjacent items at a random place of each of m / run
    // strata: a run is one memory sector, where m single items cost m sectors (the samples
    // took 3.6-7 µs of a block on the H100 with all blocks drawing them at once).
    constexpr int m = pieces_top_k_samples, run = pieces_top_k_sample_run, strata = m / run;
    W* samples = buffer + (pieces_top_k_capacity - m);
    for (int i = threadIdx.x; i < m; i += blockDim.x) {
      const int g = i / run;  // length > 2048 here: a stratum holds at least 8 items
      const std::int64_t lo = length * g / strata, hi = length * (g + 1) / strata;
      const std::int64_t at = lo + i % run +
                              static_cast<std::int64_t>(mix64(static_cast<unsigned long long>(g)) %
                                                        static_cast<unsigned long long>(hi - lo - run + 1));
      samples[i] = from_window(at);
    }
    __syncthreads();
    const double lambda = double(need) * m / double(length);
    int rank = static_cast<int>(lambda + 3.0 * cuda::std::sqrt(lambda)) + 6;
    if (rank > m) rank = m;
    // The rank-th best sample: up to 32 by the warps' sorts and one warp's merge; beyond,
    // a radix select, where any threshold that between rank and 1.5 rank + 2 samples beat
    // will do (usually the first digit after the samples' common bits settles it).
    W t = rank <= 32 ? sample_threshold(samples, rank, chosen)
                     : block_radix_select(m, [&](std::int64_t i) { return samples[i]; },
                                          static_cast<unsigned int>(rank), sh, static_cast<unsigned int>(rank / 2 + 2));
    // With a full running list its k-th best is a threshold too (no item below it can
    // enter), and the better of the two is used: the samples' holds on data whose best
    // items come late (ascending), the running one on the windows after the first.
    const bool running_threshold = kept == p.k && piece_word_at_least(buffer[kept - 1], t);
    if (running_threshold) t = buffer[kept - 1];
    if (threadIdx.x == 0) sh.count = kept;
    __syncthreads();
    piece_filter_pass<true>(p, window, length, kept, t, buffer, &sh.count);
    __syncthreads();
    count = sh.count;
    // The running threshold is always safe (k items are at least as good as it); the
    // samples' fails when fewer than `need` items beat it (rare: an unlucky draw, or data
    // that repeats with the strata's period). Either fails when too many do.
    if ((!running_threshold && count < kept + need) || count > static_cast<unsigned int>(pieces_top_k_capacity)) {
      // The exact need-th best word of the window, then the pass again: exactly need get in.
      const W exact = block_radix_select(length, from_window, need, sh);
      if (threadIdx.x == 0) sh.count = kept;
      __syncthreads();
      piece_filter_pass<true>(p, window, length, kept, exact, buffer, &sh.count);
      __syncthreads();
      count = sh.count;
    }
  }
  const unsigned int next = static_cast<unsigned int>(p.k < count ? p.k : count);
  choose_best(buffer, count, next, chosen, sh);
  // Positions back to indices in the piece: the running list's from run_index, the
  // window's from the offset. Read all before any is written.
  constexpr int per_thread = int(pieces_top_k_max_k / pieces_top_k_threads);
  std::int64_t index[per_thread];
#pragma unroll
  for (int q = 0; q < per_thread; ++q) {
    const unsigned int j = threadIdx.x + q * pieces_top_k_threads;
    if (j < next) {
      const std::uint32_t position = piece_word_position(chosen[j]);
      index[q] = position < kept ? run_index[position] : offset + (position - kept);
    }
  }
  __syncthreads();
#pragma unroll
  for (int q = 0; q < per_thread; ++q) {
    const unsigned int j = threadIdx.x + q * pieces_top_k_threads;
    if (j < next) {
      run_index[j] = index[q];
      buffer[j] = with_position(chosen[j], j);
    }
  }
  __syncthreads();
  return next;
}

/// Words the stream kernel's choice keeps after its cut (stream_choose), and ranks: for
/// k = 256 the cut keeps a few hundred of a row's thousands of candidates.
inline constexpr int pieces_top_k_stream_room = 1024;
static_assert(pieces_top_k_stream_room >= pieces_top_k_stream_max_k, "the chosen k fit the room");

/// Dynamic shared memory of top_k_stream_kernel: the buffer and the chosen (the cut's
/// room), under the 48 KB that need no attribute.
inline constexpr std::size_t pieces_top_k_stream_shared_bytes =
    (pieces_top_k_capacity + pieces_top_k_stream_room) * sizeof(unsigned long long);
static_assert(pieces_top_k_stream_shared_bytes <= 48 * 1024, "no attribute needed");

/// Dynamic shared memory of the kernel for value type V: the buffer and the running
/// list's indices.
template <class V>
constexpr std::size_t pieces_top_k_shared_bytes() {
  return pieces_top_k_capacity * sizeof(piece_word_t<V>) + pieces_top_k_max_k * sizeof(piece_word_t<V>) +
         pieces_top_k_max_k * sizeof(std::int64_t);
}
static_assert(pieces_top_k_threads / 32 * pieces_top_k_warp_stream_slice * sizeof(unsigned long long) <=
                  pieces_top_k_shared_bytes<float>(),
              "the streaming warps' slices fit the dynamic area of 4-byte values");

/// Rows of at most 32 items: a warp ranks pieces_top_k_rows_at_once rows at a time, an
/// item a lane, all in registers (their loads in flight together; a row's sort is a
/// network of shuffles; the values come back from the lane that read them).
template <class W, class P>
__device__ void top_k_short_rows(const P& p) {
  using V = iter_value_t<decltype(p.first)>;
  constexpr int at_once = pieces_top_k_rows_at_once;
  const int lane = static_cast<int>(threadIdx.x & 31);
  const std::int64_t warp = blockIdx.x * std::int64_t(blockDim.x / 32) + threadIdx.x / 32;
  const std::int64_t warps = std::int64_t(gridDim.x) * (blockDim.x / 32);
  const std::int64_t count = p.pieces.count();
  for (std::int64_t base = warp * at_once; base < count; base += warps * at_once) {
    V item[at_once];
    W word[at_once][1];
    int length[at_once];
#pragma unroll
    for (int r = 0; r < at_once; ++r) {
      const std::int64_t s = base + r;
      length[r] = s < count ? static_cast<int>(p.pieces.length(s)) : 0;
      word[r][0] = select_worst(W{});
      item[r] = V();
      if (lane < length[r]) {
        item[r] = p.first[p.pieces.begin(s) + lane];
        word[r][0] = piece_word_of<W>(p, item[r], static_cast<std::uint32_t>(lane));
      }
    }
#pragma unroll
    for (int r = 0; r < at_once; ++r) {
      const std::int64_t s = base + r;
      warp_sort_registers(word[r]);
      const int position = static_cast<int>(piece_word_position(word[r][0]) & 31u);
      const V value = shfl_value(item[r], position);  // every lane: a shuffle needs them all
      if (s >= count) continue;
      const std::int64_t out = s * p.k;
      if (lane < p.k) {
        if (lane < length[r]) {
          p.values[out + lane] = value;
          p.indices[out + lane] = position;
        } else {
          p.indices[out + lane] = -1;
        }
      }
      for (std::int64_t j = 32 + lane; j < p.k; j += 32) p.indices[out + j] = -1;
    }
  }
}

/// Rows of 33 to pieces_top_k_warp_row items: a warp a row, its words sorted in its
/// registers; its slices of the buffer (the words) and of `chosen` (the values, so that
/// the writes need no second read of the input), pieces_top_k_warp_row entries a warp.
template <class W, class P>
__device__ void top_k_warp_rows(const P& p, W* buffer, W* chosen) {
  using V = iter_value_t<decltype(p.first)>;
  static_assert(pieces_top_k_threads / 32 * pieces_top_k_warp_row * sizeof(V) <= pieces_top_k_max_k * sizeof(W),
                "the values' slices fit `chosen`");
  const int lane = static_cast<int>(threadIdx.x & 31), warp = static_cast<int>(threadIdx.x >> 5);
  W* words = buffer + warp * pieces_top_k_warp_row;
  V* items = reinterpret_cast<V*>(chosen) + warp * pieces_top_k_warp_row;
  const std::int64_t warps_per_block = blockDim.x / 32;
  const std::int64_t warps = std::int64_t(gridDim.x) * warps_per_block;
  for (std::int64_t s = blockIdx.x * warps_per_block + warp; s < p.pieces.count(); s += warps) {
    const int length = static_cast<int>(p.pieces.length(s));
    const auto piece = p.first + p.pieces.begin(s);
    for (int i = lane; i < length; i += 32) {
      const V value = piece[i];
      items[i] = value;
      words[i] = piece_word_of<W>(p, value, static_cast<std::uint32_t>(i));
    }
    __syncwarp();
    if (length <= 64) warp_sort_words<2>(words, length);
    else if (length <= 128) warp_sort_words<4>(words, length);
    else warp_sort_words<8>(words, length);
    __syncwarp();
    const std::int64_t out = s * p.k;
    for (std::int64_t j = lane; j < p.k; j += 32) {
      if (j < length) {
        const std::uint32_t index = piece_word_position(words[j]);
        p.values[out + j] = items[index];
        p.indices[out + j] = static_cast<std::int64_t>(index);
      } else {
        p.indices[out + j] = -1;
      }
    }
    __syncwarp();  // the next row reuses the slices
  }
}

/// Rows of pieces_top_k_warp_row + 1 to pieces_top_k_warp_stream_row items, values of at
/// most 4 bytes, k <= 32 E: a warp a row, which reads it once. The warp keeps its best
/// 32 E words so far sorted in its slice of shared memory; an item gets into the slice's
/// other half only if its word beats the k-th best of those (the threshold t: 0, every
/// item, until there are k). When that half may not hold another round's items, its words
/// are sorted 32 E at a time in registers and merged into the best (the better of best
/// word i and the group's word 32 E - 1 - i, a bitonic sequence, then half-cleaners).
/// Uniform data lets few in once the first 32 E are held (about k ln(L / 32 E) more);
/// data in order (ascending) lets every item in, and the row is sorted a group at a time.
/// The best stay in shared memory between merges: held in registers beside the group
/// (E = 8, 32 registers of words), the function spilled 580 bytes (sm_90). Not inlined:
/// inlined, the kernel's other paths spilled 328 bytes instead of 88. A block a row
/// (samples, a radix select over the buffer, a sort of the chosen: about 6 µs on the
/// H200) held 264 rows at a time over the GPU, and rows of 512 at k = 50 ran at 2% of the
/// DRAM's rate (docs/performance.md#medium-rows-warp-streams). `words`: the kernel's
/// dynamic shared memory, pieces_top_k_warp_stream_slice words a warp.
template <int E, class It, class ValueOut, class IndexOut>
__device__ __noinline__ void top_k_warp_stream_rows(It first, rows_t rows, int k, bool largest, ValueOut values,
                                                    IndexOut indices, unsigned long long* words) {
  using W = unsigned long long;
  using V = iter_value_t<It>;
  const struct {
    bool largest;
  } order{largest};  // what piece_word_of reads of the kernel's parameters
  constexpr int unroll = 4;  // a lane's loads in flight: a round is 32 unroll items
  constexpr int room = pieces_top_k_warp_stream_slice / 2;  // the candidates' half
  static_assert(room >= 2 * 32 * unroll && room >= 32 * E, "the half holds two rounds, and the best");
  const int lane = static_cast<int>(threadIdx.x & 31), warp = static_cast<int>(threadIdx.x >> 5);
  const unsigned int below = (1u << lane) - 1u;
  W* slice = words + warp * pieces_top_k_warp_stream_slice;
  W* best = slice + room;  // word 32 j + lane: best[32 j + lane], sorted best first
  const std::int64_t warps_per_block = blockDim.x / 32;
  const std::int64_t warps = std::int64_t(gridDim.x) * warps_per_block;
  for (std::int64_t s = blockIdx.x * warps_per_block + warp; s < rows.count(); s += warps) {
    const int length = static_cast<int>(rows.length(s));
    const auto piece = first + rows.begin(s);
#pragma unroll
    for (int j = 0; j < E; ++j) best[32 * j + lane] = select_worst(W{});
    W t = 0;
    int count = 0;  // words in the slice (the same in every lane)
    // The slice's words into the best, 32 E at a time, t from the new best each time.
    auto merge_slice = [&] {
      __syncwarp();  // the lanes' appends
      for (int g = 0; g < count; g += 32 * E) {
        W c[E];
        bool any = false;
#pragma unroll
        for (int j = 0; j < E; ++j) {
          const int i = g + 32 * j + lane;
          c[j] = i < count && slice[i] > t ? slice[i] : select_worst(W{});
          any |= c[j] != select_worst(W{});
        }
        if (!__any_sync(0xffffffffu, any)) continue;  // t rose past the whole group
        warp_sort_registers(c);
        W b[E];
#pragma unroll
        for (int j = 0; j < E; ++j) {
          const W other = shfl_xor_word(c[E - 1 - j], 31);  // the group reversed
          const W mine = best[32 * j + lane];
          b[j] = select_better(other, mine) ? other : mine;
        }
        warp_merge_registers(b);
        W kth = b[0];
#pragma unroll
        for (int j = 0; j < E; ++j) {
          best[32 * j + lane] = b[j];
          if (j == (k - 1) / 32) kth = b[j];
        }
        t = __shfl_sync(0xffffffffu, kth, (k - 1) & 31);  // 0 until the best hold k
      }
      __syncwarp();  // read before the next round's appends
      count = 0;
    };
    for (int base = 0; base < length; base += 32 * unroll) {
      V item[unroll];
#pragma unroll
      for (int u = 0; u < unroll; ++u) {
        const int i = base + 32 * u + lane;
        if (i < length) item[u] = piece[i];
      }
#pragma unroll
      for (int u = 0; u < unroll; ++u) {
        const int i = base + 32 * u + lane;
        const W w = i < length ? piece_word_of<W>(order, item[u], static_cast<std::uint32_t>(i)) : select_worst(W{});
        // Words are distinct and t is one of the best's (or 0, which no word is).
        const bool in = w > t;
        const unsigned int mask = __ballot_sync(0xffffffffu, in);
        if (in) slice[count + __popc(mask & below)] = w;
        count += __popc(mask);
      }
      if (count > room - 32 * unroll) merge_slice();
    }
    if (count > 0) merge_slice();
    const std::int64_t out = s * k;
    for (int i = lane; i < k; i += 32) {
      const std::uint32_t index = piece_word_position(best[i]);
      values[out + i] = static_cast<V>(piece[index]);
      indices[out + i] = static_cast<std::int64_t>(index);
    }
    __syncwarp();  // the next row clears the best
  }
}

inline constexpr unsigned int warps_never_refine = 0xffffffffu;

/// From each thread's best word (0: none): each warp's j-th best of its lanes' (taken out
/// one a round), and the m-th best of the warps' (j = ceil(need / m)). The m best warps'
/// j best lanes hold m j >= need distinct words at least as good, so at least `need` words
/// beat it. m = need up to 8 (j = 1), 8 up to k = 64, then 16: of 8192 uniform items
/// (16 a lane), the fewest that beat it (a simulation: k = 1, 32, 50, 256: 1, 60, 115, 497
/// items; m = 16 throughout: 16-50, 84, 136, 497). Where that leaves more than
/// `refine_over` threads' words at least as good (at most 256 of them), the need-th best
/// of them instead (warps_never_refine: never). A scaled need (stream_threshold_ask:
/// exact_need > need) that leaves more than refine_over is redone with exact_need (and
/// refined over 2 exact_need + 64, stream_refines' whole row): data in order, where the
/// scaled one would let fewer than exact_need items of the chunk in. pieces_top_k_threads
/// threads, every one calls it (need >= 1); it ends synchronised.
template <class W>
__device__ W warps_threshold(W best, unsigned int need, pieces_top_k_shared<W>& sh, unsigned int refine_over,
                             unsigned int exact_need = 0) {
  static_assert(std::is_same_v<W, unsigned long long>, "64-bit words");
  constexpr int warps = pieces_top_k_threads / 32;
  const int lane = static_cast<int>(threadIdx.x & 31), warp = static_cast<int>(threadIdx.x >> 5);
  for (;;) {
    const unsigned int m = need <= 8 ? need : need <= 64 ? 8u : unsigned(warps);
    int remaining = static_cast<int>((need + m - 1) / m);
    W mine = best, warp_best = 0;
    for (;;) {
      const W top = warp_max_word(mine);
      // Words are distinct: one lane holds top. A lane out of the running reads 0; when 0
      // is the best, the warp has fewer than j lanes left, and 0 is a safe threshold.
      if (remaining == 1 || top == 0) {
        warp_best = top;
        break;
      }
      --remaining;
      if (mine == top) mine = 0;
    }
    if (lane == 0) sh.warp_words[warp] = warp_best;
    __syncthreads();
    if (warp == 0) {
      // The largest warp word that at least m warps' words reach (0 reaches nothing more
      // than it promises: a threshold of 0 lets every word in).
      const W v = lane < warps ? sh.warp_words[lane] : W{0};
      unsigned int reached = 0;
      for (int u = 0; u < warps; ++u) reached += sh.warp_words[u] >= v ? 1u : 0u;
      const W t = warp_max_word(lane < warps && reached >= m ? v : W{0});
      if (lane == 0) {
        sh.threshold = t;
        sh.remaining = 0;
      }
    }
    __syncthreads();
    const W t = sh.threshold;
    if (refine_over == warps_never_refine || t == 0) return t;
    // At least `need` threads' words are at least t (the m warps' j lanes). On data in
    // order (ascending, constant) many more are: the best words sit in adjacent lanes,
    // so the m warps' j-th best lanes are far down (k = 8: about 256 items of a chunk of
    // 8192 got in, against 11 of uniform data). Then the need-th best of those words is
    // the threshold: each ranks its word among them (S compares a word).
    constexpr unsigned int room = static_cast<unsigned int>(sizeof(sh.hist) / sizeof(W));
    const bool in = best >= t;
    const unsigned int survivors = static_cast<unsigned int>(__syncthreads_count(in));
    if (survivors <= refine_over) return t;
    if (exact_need > need) {
      need = exact_need;
      refine_over = 2 * exact_need + 64;
      continue;
    }
    if (survivors > room) return t;
    W* list = reinterpret_cast<W*>(sh.hist);  // free: a radix select clears it first
    piece_append(&sh.remaining, list, in, best, room);
    __syncthreads();
    if (in) {
      unsigned int rank = 0;
      for (unsigned int u = 0; u < survivors; ++u) rank += list[u] > best ? 1u : 0u;
      if (rank == need - 1) sh.threshold = best;
    }
    __syncthreads();
    return sh.threshold;
  }
}

/// Above how many threads' words a streaming chunk's threshold is refined
/// (warps_threshold): where it pays. More than 16 chunks whose candidates would outgrow
/// the last block's buffer (about 2 need + 8 a chunk unrefined, on uniform data): above
/// need + 8, so that uniform data's thresholds tighten too (2^22 floats, k = 64: 0.79x
/// the GPU time; about 33 items a chunk get in at k = 32, against 60). More than 16
/// whose candidates fit: above 2 need + 64 only, data in order, as a whole row's (flat
/// 2^18 at k = 32, 32 chunks: 0.93x the time at need + 8, the refinement's ranks a
/// microsecond of every block; refined never, equal items at k = 8 took 1.07-1.65x as
/// long at 2^18..2^20, H200). A whole row: above 2 need + 64 only, data in order
/// (ascending, constant: 256 items of a chunk against need); refined at need + 8, rows
/// of 8192 took 1.10-1.13x as long. Up to 16 chunks never: over 8 chunks of ascending
/// floats at k = 64 the ranks cost more (1.14x) than the last block's cut of 2000 words.
template <class P>
__device__ TALLY_FORCEINLINE unsigned int stream_refines(const P& p, unsigned int need) {
  if (p.chunks > pieces_top_k_capacity / 256)
    return static_cast<unsigned int>(p.chunks) * (2 * need + 8) > static_cast<unsigned int>(pieces_top_k_capacity)
               ? need + 8
               : 2 * need + 64;
  return p.chunks == 1 ? 2 * need + 64 : warps_never_refine;
}

/// Items per thread that chunk_threshold reads. 8, 12, 24 or 32 took 64 rows of 131072
/// at k = 50 1.13, 1.06, 1.03, 1.05x as long (H200; docs/performance.md#stream-staging-tries).
inline constexpr int pieces_top_k_threshold_items = 16;
static_assert(pieces_top_k_min_chunk >= std::int64_t(pieces_top_k_threshold_items) * pieces_top_k_threads,
              "a chunk holds chunk_threshold's reads");

/// A split row's chunk bar (p.bar_warps), first half: each warp's best threshold read, for
/// top_k_stream_finish (warps_threshold syncs before they are read).
template <class W, class P>
__device__ TALLY_FORCEINLINE void stream_warp_tops(const P& p, W best, pieces_top_k_shared<W>& sh) {
  if (!p.bar_warps) return;
  const W top = warp_max_word(best);
  if ((threadIdx.x & 31) == 0) sh.warp_tops[threadIdx.x >> 5] = top;
}

/// A threshold word for one chunk of a row (need <= pieces_top_k_stream_max_k, need <=
/// length), from 16 runs of pieces_top_k_threads items spread
/// over the chunk (the first at its start, the last at its end, so that ascending and
/// descending rows find their best items): each thread's best word (value, then lower
/// index) of its 16 items, then warps_threshold: at least `need` items of the chunk beat
/// it, no draw that can fail. Words, not keys: on a constant row the index decides, and
/// only the first few hundred items get in. On uniform floats, k = 50, about 1.4% of a
/// chunk beats it. The items are read again by the pass (from L2). A chunk shorter than
/// the runs (a flat input of fewer than 8192 items, one block) is read whole, each item
/// once. Every thread calls it; it ends synchronised.
template <class W, class P, class It>
__device__ W chunk_threshold(const P& p, It chunk, std::int64_t length, std::uint32_t from, unsigned int need,
                             pieces_top_k_shared<W>& sh) {
  static_assert(std::is_same_v<W, unsigned long long>, "64-bit words (values of at most 4 bytes)");
  using V = iter_value_t<It>;
  constexpr int runs = pieces_top_k_threshold_items;
  W best = 0;
  if (length < std::int64_t(runs) * pieces_top_k_threads) {
    // Adjacent runs, items past the end left out (a word read twice would be counted
    // twice by warps_threshold).
#pragma unroll
    for (int q = 0; q < runs; ++q) {
      const std::int64_t i = std::int64_t(q) * pieces_top_k_threads + threadIdx.x;
      const bool in = i < length;
      const V value = static_cast<V>(chunk[in ? i : length - 1]);
      const W w = in ? piece_word_of<W>(p, value, from + static_cast<std::uint32_t>(i)) : W{0};
      best = w > best ? w : best;
    }
    TALLY_STREAM_MARK(stream_mark_reads);
    stream_warp_tops(p, best, sh);
    return warps_threshold(best, need, sh, stream_refines(p, need));
  }
  const std::int64_t spacing = (length - pieces_top_k_threads) / (runs - 1);
#pragma unroll
  for (int q = 0; q < runs; ++q) {
    const std::int64_t i = q * spacing + threadIdx.x;
    const W w = piece_word_of<W>(p, static_cast<V>(chunk[i]), from + static_cast<std::uint32_t>(i));
    best = w > best ? w : best;
  }
  TALLY_STREAM_MARK(stream_mark_reads);
  stream_warp_tops(p, best, sh);
  // A whole row's scaled need (p.ask), redone exact on data in order (warps_threshold).
  const unsigned int ask = p.ask ? p.ask : need;
  return warps_threshold(best, ask, sh, stream_refines(p, ask), need);
}

/// A chunk that streams (top_k_stream_kernel), first half: the chunk's candidates to
/// buffer[0..count), their positions the indices in the row: the items at least as good as
/// chunk_threshold's word. Where more get in than the buffer holds (data that defeats the
/// threshold's runs), the need-th best of the buffer's words is a better threshold (they
/// are items of the chunk, all at least as good as the last one) and the pass runs again;
/// each round raises it. Returns count.
template <class W, class P, class It>
__device__ unsigned int top_k_stream_filter(const P& p, It piece, std::int64_t from, std::int64_t to, W* buffer,
                                            pieces_top_k_shared<W>& sh) {
  const std::int64_t length = to - from;  // at least pieces_top_k_min_chunk, or a flat input's one chunk
  const unsigned int need = static_cast<unsigned int>(p.k < length ? p.k : length);
  const It chunk = piece + from;
  W t = chunk_threshold<W>(p, chunk, length, static_cast<std::uint32_t>(from), need, sh);
  TALLY_STREAM_MARK(stream_mark_threshold);
  for (;;) {
    if (threadIdx.x == 0) {
      sh.count = 0;
      sh.bar = t;  // for the chunk's bar (top_k_stream_finish): every item left out is below t
    }
    __syncthreads();
    piece_filter_pass<false>(p, chunk, length, static_cast<unsigned int>(from), t, buffer, &sh.count);
    __syncthreads();
    const unsigned int count = sh.count;
    if (count >= need && count <= static_cast<unsigned int>(pieces_top_k_capacity)) {
      TALLY_STREAM_MARK(stream_mark_filtered);
      TALLY_STREAM_VALUE(stream_value_count, count);
      return count;
    }
    // More than the buffer holds: the need-th best of its words (items of the chunk, at
    // least as good as t) raises t. Fewer than need, past a whole row's scaled threshold
    // (data that it misjudged and warps_threshold did not see in order): every item gets
    // in, and the buffer's select raises that. (A second chunk_threshold, inlined or
    // called, cost the kernel 20-130 bytes of spill; as did keeping the threads' words.)
    if (count > static_cast<unsigned int>(pieces_top_k_capacity)) {
      t = select_in_buffer(buffer, static_cast<unsigned int>(pieces_top_k_capacity), need, sh);
    } else {
      __syncthreads();  // every thread has read sh.count before thread 0 zeroes it again
      t = W{0};
    }
  }
}

/// The best `next` of count distinct words to chosen[0..next), sorted best first: the
/// stream kernel's choice (chosen holds pieces_top_k_stream_room words; the buffer is
/// scratch afterwards). The words are buffer[0..count) (words == nullptr), or
/// words[0..count) in global memory, read through L2 (a split row's, more than the buffer
/// holds). Over more than 256 words, first a cut that needs no select: warps_threshold
/// over each thread's best word (at least `next` words beat it; of 2000 candidates of
/// uniform floats, k = 50, about 140 do), those words appended to chosen. When at most 256
/// are left, each one's rank among them (how many are better), all at once, places the
/// best `next` in order; on the H100 (clock64, the row's last block, 2000 words, k = 50)
/// the radix select, append and sort of choose_best took 12.2K cycles, this 9.0K (the cut
/// 4.3K, the ranks 2.6K), and one warp's sort of the kept words in place of the ranks
/// 6.0-7.0K. When more are left (k = 256 keeps some hundreds), choose_best over the kept;
/// when more than the room, choose_best over the buffer, or a radix select over the words
/// where they are. The cut reads them with four loads in flight a thread: from L2 the
/// radix select's passes, a load at a time, were the slow part. A row's bar (0: none; every
/// item of the row left out of the words is below it) is the cut's threshold in place of
/// warps_threshold's where at least `next` words reach it (exact: the best `next` of those
/// are the row's); where fewer do, warps_threshold's cut follows. Ends synchronised.
template <class W>
__device__ void stream_choose(W* buffer, const unsigned long long* words, unsigned int count, unsigned int next,
                              W* chosen, pieces_top_k_shared<W>& sh, W bar = W{0}) {
  constexpr unsigned int room = static_cast<unsigned int>(pieces_top_k_stream_room);
  constexpr int in_flight = 4;
  const auto word_at = [&](unsigned int i) { return words ? W(__ldcg(words + i)) : buffer[i]; };
  // What choose_best reads, where more are left than ranks serve: the buffer, or the
  // kept words in chosen (nullptr: the words in L2, for the radix select there).
  W* from = words ? nullptr : buffer;
  unsigned int from_count = count;
  // The cut pays over many words: for a k above pieces_top_k_stream_small_k it keeps
  // some hundreds and choose_best follows, so there it runs over more than 8 k words only
  // (H100, flat k = 256: over ~500 and ~1000 words 1.18x and 1.17x the GPU time of
  // choose_best alone, over ~4000 0.91x).
  const bool cut_pays = next <= static_cast<unsigned int>(pieces_top_k_stream_small_k) || count > 8 * next;
  if (next < count && (count <= static_cast<unsigned int>(pieces_top_k_stream_max_k) || cut_pays)) {
    unsigned int kept = count;
    // Ranks cost kept^2 compares (1024 words: 16 us on the H100), so the cut runs over
    // more than 256 words (one warp's sort, 36 stages, was no faster there).
    if (count > static_cast<unsigned int>(pieces_top_k_stream_max_k)) {
      for (W t = bar;; t = bar = W{0}) {
        if (t == 0) {
          W best = 0;
          for (unsigned int base = threadIdx.x; base < count; base += in_flight * blockDim.x) {
            W w[in_flight];
#pragma unroll
            for (int u = 0; u < in_flight; ++u) {
              const unsigned int i = base + u * blockDim.x;
              w[u] = i < count ? word_at(i) : W{0};
            }
#pragma unroll
            for (int u = 0; u < in_flight; ++u) best = w[u] > best ? w[u] : best;
          }
          t = warps_threshold(best, next, sh, 2 * next + 64);
        }
        if (threadIdx.x == 0) sh.count = 0;
        __syncthreads();
        for (unsigned int base = 0; base < count; base += in_flight * blockDim.x) {
          W w[in_flight];
#pragma unroll
          for (int u = 0; u < in_flight; ++u) {
            const unsigned int i = base + u * blockDim.x + threadIdx.x;
            w[u] = i < count ? word_at(i) : W{0};
          }
          bool in[in_flight];
#pragma unroll
          for (int u = 0; u < in_flight; ++u) {
            const unsigned int i = base + u * blockDim.x + threadIdx.x;
            in[u] = i < count && piece_word_at_least(w[u], t);
          }
          piece_append_all(&sh.count, chosen, in, w, room);
        }
        __syncthreads();
        kept = sh.count;
        if (kept >= next || bar == 0) break;
        __syncthreads();  // every thread has read sh.count before thread 0 zeroes it again
      }
      TALLY_STREAM_MARK(stream_mark_cut);
      TALLY_STREAM_VALUE(stream_value_kept, kept);
    } else {
      for (unsigned int i = threadIdx.x; i < count; i += blockDim.x) chosen[i] = word_at(i);
      __syncthreads();
    }
    if (kept <= static_cast<unsigned int>(pieces_top_k_stream_max_k)) {
      // Each word's rank among the kept (how many are better: distinct words, distinct
      // ranks), the best `next` to buffer[rank] (free now), then back to chosen. All at
      // once, where one warp's sort of up to 256 words is 36 dependent stages.
      for (unsigned int i = threadIdx.x; i < kept; i += blockDim.x) {
        const W w = chosen[i];
        unsigned int rank = 0;
        for (unsigned int u = 0; u < kept; ++u) rank += chosen[u] > w ? 1u : 0u;
        if (rank < next) buffer[rank] = w;
      }
      __syncthreads();
      for (unsigned int j = threadIdx.x; j < next; j += blockDim.x) chosen[j] = buffer[j];
      __syncthreads();
      return;
    }
    if (kept <= room) {
      // More kept than ranks serve (k = 256's cut keeps some hundreds): choose_best
      // among them, into the buffer (free now), then back to chosen.
      from = chosen;
      from_count = kept;
    }
  }
  if (from) {
    // One call of choose_best (a second, inlined, cost 1.1-1.6 s of compile time).
    W* to = from == chosen ? buffer : chosen;
    choose_best<W, false>(from, from_count, next, to, sh);
    if (to != chosen) {
      for (unsigned int j = threadIdx.x; j < next; j += blockDim.x) chosen[j] = to[j];
      __syncthreads();
    }
    return;
  }
  // More than the buffer holds: the select reads them where they are (L2).
  const auto l2_word_at = [&](std::int64_t i) { return W(__ldcg(words + i)); };
  const W best = block_radix_select(count, l2_word_at, next, sh);
  if (threadIdx.x == 0) sh.count = 0;
  __syncthreads();
  for (unsigned int base = 0; base < count; base += blockDim.x) {
    const unsigned int i = base + threadIdx.x;
    const W w = i < count ? l2_word_at(i) : W{};
    piece_append(&sh.count, chosen, i < count && piece_word_at_least(w, best), w, room);
  }
  __syncthreads();
  sort_words<W, false>(chosen, static_cast<int>(next));
}

/// A chunk that streams, second half: its `count` candidates (buffer[0..count), positions
/// the indices in the row) appended to the row's words (one atomic a block for the room),
/// then the arrival (release, then arrive: the last block sees every block's words);
/// the last block of the row chooses the k best of all the words and writes them.
template <class W, class P, class It>
__device__ void top_k_stream_finish(const P& p, std::int64_t b, It piece, unsigned int count, W* buffer, W* chosen,
                                    pieces_top_k_shared<W>& sh) {
  const std::int64_t s = b / p.chunks;  // the row (b: the block's chunk of all rows')
  const std::int64_t room = p.chunks * pieces_top_k_capacity;
  unsigned long long* words = p.chunks > 1 ? p.words + s * room : nullptr;
  unsigned int total = count;
  if (p.chunks > 1) {
    if (threadIdx.x < 32) {
      const unsigned long long before = threadIdx.x == 0 ? atomicAdd(&p.counters[s], count) : 0ull;
      if (p.bar_warps) {
        // The chunk's bar while the room's atomic is out: the bar_warps-th best of the
        // warps' best threshold reads (chunk_threshold), or the threshold if higher (every
        // item of the chunk left out is below both).
        constexpr int warps = pieces_top_k_threads / 32;
        const int lane = static_cast<int>(threadIdx.x);
        const W top = lane < warps ? sh.warp_tops[lane] : W{0};
        unsigned int above = 0;
        for (int u = 0; u < warps; ++u) above += sh.warp_tops[u] >= top ? 1u : 0u;
        const W bar = warp_max_word(lane < warps && above >= p.bar_warps ? top : W{0});
        if (lane == 0) p.bars[b] = bar > sh.bar ? bar : sh.bar;  // published by the arrival, as the words
      }
      if (threadIdx.x == 0) sh.bucket = static_cast<unsigned int>(before);
    }
    __syncthreads();
    TALLY_STREAM_MARK(stream_mark_slot);
    const unsigned int at = sh.bucket;
    for (unsigned int i = threadIdx.x; i < count; i += blockDim.x) words[at + i] = buffer[i];
    __syncthreads();
    TALLY_STREAM_MARK(stream_mark_words_out);
    if (threadIdx.x == 0) {
      release_fence();
      const unsigned long long before = atomicAdd(&p.counters[s], 1ull << 32);
      sh.last = static_cast<unsigned int>(before >> 32) == static_cast<unsigned int>(p.chunks - 1);
      if (sh.last) {
        acquire_fence();
        // Every block took its room before it arrived (one thread's atomics on one word
        // stay in order), so the low half is the row's count: no load of it after.
        sh.count = static_cast<unsigned int>(before);
        p.counters[s] = 0;  // zero for the next call
      }
    }
    __syncthreads();
    TALLY_STREAM_MARK(stream_mark_arrived);
    if (!sh.last) return;
    total = sh.count;
  }
  const unsigned int next = static_cast<unsigned int>(p.k < total ? p.k : total);
  // A whole row in one block (chunks == 1): its candidates are in the buffer already; a
  // split row's, where they fit, are copied there (one pass), else read from L2.
  // One call of stream_choose for both (a second, inlined, cost 1.1-1.6 s of compile time).
  const bool in_buffer = p.chunks == 1 || total <= static_cast<unsigned int>(pieces_top_k_capacity);
  if (p.chunks > 1 && in_buffer) {
    // All loads in flight at once (a round fills the buffer; past `total`, word 0 again):
    // a load at a time, 1896 words took 0.9 µs (H100, 2^18 floats at k = 32).
    constexpr int per_thread = pieces_top_k_capacity / pieces_top_k_threads;
    unsigned long long w[per_thread];
#pragma unroll
    for (int u = 0; u < per_thread; ++u) {
      const unsigned int i = u * pieces_top_k_threads + threadIdx.x;
      w[u] = __ldcg(words + (i < total ? i : 0u));
    }
#pragma unroll
    for (int u = 0; u < per_thread; ++u) {
      const unsigned int i = u * pieces_top_k_threads + threadIdx.x;
      if (i < total) buffer[i] = w[u];
    }
  }
  if (p.bar_warps && threadIdx.x < 32) {
    // The row's bar: the best of its chunks' (p.bar_warps), loaded after the words (a
    // register holding it across their loads cost the kernel 2-5% with no bar at all).
    const W row_bar = warp_max_word(threadIdx.x < p.chunks ? W(__ldcg(p.bars + s * p.chunks + threadIdx.x)) : W{0});
    if (threadIdx.x == 0) sh.row_bar = row_bar;
  }
  if (p.chunks > 1 && (in_buffer || p.bar_warps)) __syncthreads();
  TALLY_STREAM_MARK(stream_mark_words_in);
  TALLY_STREAM_VALUE(stream_value_total, total);
  stream_choose(buffer, in_buffer ? nullptr : words, total, next, chosen, sh, p.bar_warps ? sh.row_bar : W{0});
  TALLY_STREAM_MARK(stream_mark_chosen);
  const std::int64_t out = s * p.k;
  for (std::int64_t j = threadIdx.x; j < p.k; j += blockDim.x) {
    if (j < next) {
      // The value from its key where that is exact (write_result, select_kernel.cuh).
      using V = iter_value_t<It>;
      const W w = chosen[j];
      const std::uint32_t index = piece_word_position(w);
      V v;
      if (!value_of_order_key<V>(static_cast<order_key_t<V>>(p.largest ? piece_word_key(w) : ~piece_word_key(w)), v))
        v = piece[index];
      p.values[out + j] = v;
      p.indices[out + j] = index;
    } else {
      p.indices[out + j] = -1;
    }
  }
  TALLY_STREAM_MARK(stream_mark_written);
  __syncthreads();
}

template <class It, class Pieces, class ValueOut, class IndexOut>
__global__ __launch_bounds__(pieces_top_k_threads, 2) void top_k_pieces_kernel(
    pieces_top_k_params<It, Pieces, ValueOut, IndexOut> p) {
  using V = iter_value_t<It>;
  using W = piece_word_t<V>;
  extern __shared__ __align__(16) unsigned char dynamic_shared[];
  W* buffer = reinterpret_cast<W*>(dynamic_shared);
  W* chosen = buffer + pieces_top_k_capacity;
  auto* run_index = reinterpret_cast<std::int64_t*>(chosen + pieces_top_k_max_k);
  __shared__ pieces_top_k_shared<W> sh;
  wait_for_prior_grids();
  if (p.warp_rows) {
    const std::int64_t length = p.pieces.length(0);  // rows: every row is as long
    if (length <= 32) {
      top_k_short_rows<W>(p);
    } else if (length <= pieces_top_k_warp_row) {
      top_k_warp_rows(p, buffer, chosen);
    } else if constexpr (std::is_same_v<Pieces, rows_t> && std::is_same_v<W, unsigned long long>) {
      // Its parameters by value: a reference to the kernel's made a copy of them all in
      // local memory, and the other paths spilled more.
      const int k = static_cast<int>(p.k);  // buffer, chosen, run_index: one area
      if (k <= 64) top_k_warp_stream_rows<2>(p.first, p.pieces, k, p.largest, p.values, p.indices, buffer);
      else top_k_warp_stream_rows<8>(p.first, p.pieces, k, p.largest, p.values, p.indices, buffer);
    }
    return;
  }
  const std::int64_t blocks = p.pieces.count() * p.chunks;
  for (std::int64_t b = blockIdx.x; b < blocks; b += gridDim.x) {
    const std::int64_t s = b / p.chunks, c = b % p.chunks;
    const std::int64_t length = p.pieces.length(s);
    const It piece = p.first + p.pieces.begin(s);
    // This block's chunk of the piece: [from, to).
    const std::int64_t size = (length + p.chunks - 1) / p.chunks;
    const std::int64_t from = c * size < length ? c * size : length;
    const std::int64_t to = from + size < length ? from + size : length;
    unsigned int kept = 0;
    for (std::int64_t offset = from; offset < to; offset += pieces_top_k_window) {
      const std::int64_t rest = to - offset;
      kept = piece_rank_window(p, piece + offset, offset, rest < pieces_top_k_window ? rest : pieces_top_k_window,
                               kept, buffer, chosen, run_index, sh);
    }
    const std::int64_t out = s * p.k;
    if (p.chunks == 1) {
      for (std::int64_t j = threadIdx.x; j < p.k; j += blockDim.x) {
        if (j < kept) {
          const std::int64_t index = run_index[j];
          p.values[out + j] = piece[index];
          p.indices[out + j] = index;
        } else {
          p.indices[out + j] = -1;
        }
      }
      __syncthreads();  // the next piece reuses shared memory
      continue;
    }
    // Several blocks a piece: each leaves its k best in the lists; the last to finish
    // merges them (release, then arrive: the lists are written, then the arrival is
    // counted, so the last block sees every list).
    std::int64_t* lists = p.lists + s * p.chunks * p.k;
    for (std::int64_t j = threadIdx.x; j < p.k; j += blockDim.x) lists[c * p.k + j] = j < kept ? run_index[j] : -1;
    __syncthreads();
    if (threadIdx.x == 0) {
      release_fence();
      const unsigned int before = atomicAdd(&p.arrivals[s], 1u);
      sh.last = before == static_cast<unsigned int>(p.chunks - 1);
      if (sh.last) p.arrivals[s] = 0;  // zero for the next call
      if (sh.last) acquire_fence();
      sh.count = 0;
    }
    __syncthreads();
    if (!sh.last) continue;
    // Entry j of chunk c' has position c' k + j: equal values keep the lower index first,
    // as the chunks are in index order and each list is. Up to pieces_top_k_rank_lists
    // lists stay in place, sorted (a chunk's missing entries are the worst word), and are
    // merged by ranking; more, the entries are gathered and chosen (a word's rank costs a
    // binary search in every other list, a chain that 16 lists make longer than a select).
    const std::int64_t entries = p.chunks * p.k;
    const bool by_rank = p.chunks <= pieces_top_k_rank_lists;
    for (std::int64_t base = 0; base < entries; base += blockDim.x) {
      const std::int64_t q = base + threadIdx.x;
      const std::int64_t index = q < entries ? __ldcg(reinterpret_cast<const long long*>(lists) + q) : -1;
      const W w = index >= 0 ? piece_word_at<W>(p, piece, index, static_cast<std::uint32_t>(q)) : select_worst(W{});
      if (by_rank) {
        if (q < entries) buffer[q] = w;
        if (index >= 0) atomicAdd(&sh.count, 1u);
      } else {
        piece_append(&sh.count, buffer, index >= 0, w);
      }
    }
    __syncthreads();
    const unsigned int count = sh.count;
    const unsigned int next = static_cast<unsigned int>(p.k < count ? p.k : count);
    if (by_rank) merge_sorted_lists(buffer, static_cast<int>(p.chunks), static_cast<int>(p.k), next, chosen);
    else choose_best(buffer, count, next, chosen, sh);
    for (std::int64_t j = threadIdx.x; j < p.k; j += blockDim.x) {
      if (j < next) {
        const std::int64_t index = __ldcg(reinterpret_cast<const long long*>(lists) + piece_word_position(chosen[j]));
        p.values[out + j] = piece[index];
        p.indices[out + j] = index;
      } else {
        p.indices[out + j] = -1;
      }
    }
    __syncthreads();
  }
}

/// Rows split across blocks whose chunks stream (the rule: pieces_top_k_stream_max_k):
/// each block filters its chunk (top_k_stream_filter) and adds its candidates to
/// the row's words; the last block of a row chooses. A whole row a block (chunks == 1):
/// the block chooses from its buffer. A kernel of its own: inside
/// top_k_pieces_kernel its code took the registers of the other ways (float rows: spill
/// stores 88 -> 360 bytes, `nvcc -Xptxas -v`, sm_90) and they slowed down.
template <class It, class ValueOut, class IndexOut>
__global__ __launch_bounds__(pieces_top_k_threads, 2) void top_k_stream_kernel(
    pieces_top_k_params<It, rows_t, ValueOut, IndexOut> p) {
  using W = unsigned long long;
  static_assert(std::is_same_v<piece_word_t<iter_value_t<It>>, W>, "values of at most 4 bytes");
  extern __shared__ __align__(16) unsigned char dynamic_shared[];
  W* buffer = reinterpret_cast<W*>(dynamic_shared);
  W* chosen = buffer + pieces_top_k_capacity;
  __shared__ pieces_top_k_shared<W> sh;
  wait_for_prior_grids();
  const std::int64_t blocks = p.pieces.count() * p.chunks;
  for (std::int64_t b = blockIdx.x; b < blocks; b += gridDim.x) {
    const std::int64_t s = b / p.chunks, c = b % p.chunks;
    const std::int64_t length = p.pieces.length(s);
    const It piece = p.first + p.pieces.begin(s);
    // Balanced chunks: every one at least length / chunks >= pieces_top_k_min_chunk items,
    // what chunk_threshold reads.
    const std::int64_t from = length * c / p.chunks, to = length * (c + 1) / p.chunks;
    TALLY_STREAM_MARK(stream_mark_start);
    const unsigned int count = top_k_stream_filter(p, piece, from, to, buffer, sh);
    top_k_stream_finish(p, b, piece, count, buffer, chosen, sh);
  }
}

}  // namespace detail
TALLY_NAMESPACE_END
