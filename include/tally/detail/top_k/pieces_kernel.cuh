#pragma once
// top_k with a run-time k over pieces (tally::rows, tally::segments): one block per piece,
// all pieces in one launch.
//
// A block ranks its piece's items by a word (larger is better): the value's order key
// (the library's order: NaN greatest, -0.0 == +0.0; inverted for tally::greater<>) above
// 2^32 - 1 - the item's position, so that the lower index wins a tie and words are
// distinct. Values of at most 4 bytes pack that into 64 bits, 8-byte values use a
// select_key (key, inverted position). A piece is ranked in windows of at most 2^17
// items (one for a row of 131072), each merged with the best k of the windows before it
// (the running list, positions 0..kept-1, which have lower indices than every item of the
// window at positions kept + i).
//
// A window that fits shared memory beside the running list is loaded whole. A longer one
// (one read of it when the threshold holds):
// 1. 1024 samples, one in each of 1024 equal strata at a pseudo-random place in it,
//    sorted best first: the threshold t is the r-th best sample, r = lambda + 3
//    sqrt(lambda) + 3 for lambda = k m / L, the number of samples expected among the
//    window's k best. Fewer than k items beat t with probability below 10^-3, and about
//    r L / m items do. Once the running list holds k, its k-th best is a threshold too,
//    and the better of the two is used.
// 2. One pass appends every item whose word is at least t to the shared buffer (one
//    shared atomic per warp and iteration).
// 3. When fewer than k of the window's items got in, or more than the buffer holds, a
//    radix select (8-bit digits over the word, one read of the window a digit) finds the
//    k-th best word exactly and the pass runs again with it: exactly k get in.
// Then the block sorts the buffer (the running list and the window's candidates; a
// bitonic network), keeps the best k as the new running list, and at the end writes it:
// values[s * k + j] and the index within the piece, index -1 past the piece's length.

#include <tally/detail/float_order.cuh>
#include <tally/detail/runtime/pdl.cuh>
#include <tally/detail/top_k/select_kernel.cuh>

#include <cuda/std/cmath>

#include <cstdint>
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
/// Items of a piece ranked at a time. 1024 samples of 2^17 items (one in 128) give a
/// threshold that about k + (3 sqrt(k / 128) + 3) 128 items beat: 670 for k = 50, 2500 for
/// k = 1024, so that k + the window's candidates fit the buffer; windows longer would
/// overflow it, for k = 50 too (positions, running list + window, fit 32 bits either way).
inline constexpr std::int64_t pieces_top_k_window = std::int64_t(1) << 17;
/// Items each thread loads before it compares any (loads in flight per thread).
inline constexpr int pieces_top_k_unroll = 8;

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
/// 64..127, a select_key's key there and its 32-bit inverted position in bits 32..63.
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
/// The lowest bit of the radix select's view that a word uses.
TALLY_HOST_DEVICE constexpr int piece_word_low_bit(unsigned long long) { return 64; }
TALLY_HOST_DEVICE constexpr int piece_word_low_bit(const select_key&) { return 32; }

template <class It, class Pieces, class ValueOut, class IndexOut>
struct pieces_top_k_params {
  It first;
  Pieces pieces;
  std::int64_t k;  // 1 <= k <= pieces_top_k_max_k
  bool largest;    // tally::less<>: the largest first; tally::greater<>: the smallest
  ValueOut values;
  IndexOut indices;
};

/// Shared memory beside the dynamic buffer.
template <class W>
struct pieces_top_k_shared {
  unsigned int hist[256];
  unsigned int count;
  unsigned int bucket;
  unsigned int remaining;
  bool exact;
};

template <class W, class P, class It>
__device__ TALLY_FORCEINLINE W piece_word_at(const P& p, It window, std::int64_t i, std::uint32_t position) {
  using V = iter_value_t<It>;
  constexpr int key_bits = int(8 * sizeof(V));
  constexpr unsigned long long key_mask = key_bits == 64 ? ~0ull : (1ull << key_bits) - 1;
  unsigned long long key = static_cast<unsigned long long>(to_order_key(static_cast<V>(window[i])));
  if (!p.largest) key = ~key & key_mask;
  return make_piece_word(key, position, W{});
}

/// Appends w to buffer[*count...] for each lane that wants to (counted beyond the
/// capacity, never written there). Every lane of the warp calls it.
template <class W>
__device__ TALLY_FORCEINLINE void piece_append(unsigned int* count, W* buffer, bool want, const W& w) {
  const unsigned int mask = __ballot_sync(0xffffffffu, want);
  if (mask == 0) return;
  const int lane = static_cast<int>(threadIdx.x & 31);
  const int leader = __ffs(mask) - 1;
  unsigned int base = 0;
  if (lane == leader) base = atomicAdd(count, static_cast<unsigned int>(__popc(mask)));
  base = __shfl_sync(0xffffffffu, base, leader);
  const unsigned int at = base + __popc(mask & ((1u << lane) - 1u));
  if (want && at < static_cast<unsigned int>(pieces_top_k_capacity)) buffer[at] = w;
}

/// Appends every item of the window whose word is at least t, at position kept + i.
template <class W, class P, class It>
__device__ void piece_filter_pass(const P& p, It window, std::int64_t length, unsigned int kept, const W& t,
                                  W* buffer, unsigned int* count) {
  constexpr std::int64_t step = std::int64_t(pieces_top_k_threads) * pieces_top_k_unroll;
  for (std::int64_t base = 0; base < length; base += step) {
    W w[pieces_top_k_unroll];
    bool in[pieces_top_k_unroll];
#pragma unroll
    for (int u = 0; u < pieces_top_k_unroll; ++u) {
      const std::int64_t i = base + std::int64_t(u) * pieces_top_k_threads + threadIdx.x;
      in[u] = i < length;
      if (in[u]) w[u] = piece_word_at<W>(p, window, i, kept + static_cast<std::uint32_t>(i));
    }
#pragma unroll
    for (int u = 0; u < pieces_top_k_unroll; ++u) piece_append(count, buffer, in[u] && piece_word_at_least(w[u], t), w[u]);
  }
}

/// The need-th best word of the window (need <= length), digit by digit from the top
/// (8 bits, one read of the window each); stops early when a digit's bucket holds
/// exactly the items still needed (then the lower bits are zero: every item of the
/// bucket is at least the result).
template <class W, class P, class It>
__device__ W piece_radix_select(const P& p, It window, std::int64_t length, unsigned int kept, unsigned int need,
                                pieces_top_k_shared<W>& sh) {
  unsigned __int128 prefix = 0;
  unsigned int remaining = need;
  for (int shift = 120; shift >= piece_word_low_bit(W{}); shift -= 8) {
    for (int b = threadIdx.x; b < 256; b += blockDim.x) sh.hist[b] = 0;
    __syncthreads();
    for (std::int64_t i = threadIdx.x; i < length; i += blockDim.x) {
      const unsigned __int128 bits = piece_word_bits(piece_word_at<W>(p, window, i, kept + static_cast<std::uint32_t>(i)));
      if (shift + 8 >= 128 || (bits >> (shift + 8)) == (prefix >> (shift + 8)))
        atomicAdd(&sh.hist[static_cast<unsigned int>(bits >> shift) & 255u], 1u);
    }
    __syncthreads();
    if (threadIdx.x == 0) {
      unsigned int above = 0;
      int b = 255;
      while (b > 0 && above + sh.hist[b] < remaining) above += sh.hist[b--];
      sh.bucket = static_cast<unsigned int>(b);
      sh.remaining = remaining - above;
      sh.exact = sh.hist[b] == remaining - above;
    }
    __syncthreads();
    prefix |= static_cast<unsigned __int128>(sh.bucket) << shift;
    remaining = sh.remaining;
    const bool exact = sh.exact;
    __syncthreads();  // sh is written again by the next digit
    if (exact) break;
  }
  W t;
  piece_word_from_bits(prefix, t);
  return t;
}

/// Ranks one window of a piece (window = the piece's items from `offset`, `length` of
/// them) with the running list (buffer[0..kept), indices in run_index) and returns the
/// new running list's length, min(k, kept + length), with its indices in run_index.
template <class W, class P, class It>
__device__ unsigned int piece_rank_window(const P& p, It window, std::int64_t offset, std::int64_t length,
                                          unsigned int kept, W* buffer, std::int64_t* run_index,
                                          pieces_top_k_shared<W>& sh) {
  const unsigned int need = static_cast<unsigned int>(p.k < length ? p.k : length);
  unsigned int count = 0;
  if (length <= std::int64_t(pieces_top_k_capacity) - kept) {
    for (std::int64_t i = threadIdx.x; i < length; i += blockDim.x)
      buffer[kept + i] = piece_word_at<W>(p, window, i, kept + static_cast<std::uint32_t>(i));
    count = kept + static_cast<unsigned int>(length);
  } else {
    // The samples sit at the end of the buffer, above the running list (kept <= 2048),
    // and are dead once t is read: the pass may overwrite them.
    constexpr int m = pieces_top_k_samples;
    W* samples = buffer + (pieces_top_k_capacity - m);
    for (int i = threadIdx.x; i < m; i += blockDim.x) {
      const std::int64_t lo = length * i / m, hi = length * (i + 1) / m;
      const std::int64_t at = lo + static_cast<std::int64_t>(mix64(static_cast<unsigned long long>(i)) %
                                                             static_cast<unsigned long long>(hi - lo));
      samples[i] = piece_word_at<W>(p, window, at, kept + static_cast<std::uint32_t>(at));
    }
    __syncthreads();
    block_sort_keys(samples, m);
    const double lambda = double(need) * m / double(length);
    int rank = static_cast<int>(lambda + 3.0 * cuda::std::sqrt(lambda)) + 3;
    if (rank > m) rank = m;
    W t = samples[rank - 1];
    // With a full running list its k-th best is a threshold too (no item below it can
    // enter), and the better of the two is used: the samples' holds on data whose best
    // items come late (ascending), the running one on the windows after the first.
    const bool running_threshold = kept == p.k && piece_word_at_least(buffer[kept - 1], t);
    if (running_threshold) t = buffer[kept - 1];
    __syncthreads();  // every thread has read the samples and the running k-th
    if (threadIdx.x == 0) sh.count = kept;
    __syncthreads();
    piece_filter_pass(p, window, length, kept, t, buffer, &sh.count);
    __syncthreads();
    count = sh.count;
    // The running threshold is always safe (k items are at least as good as it); the
    // samples' fails when fewer than `need` items beat it (rare: an unlucky draw, or data
    // that repeats with the strata's period). Either fails when too many do.
    if ((!running_threshold && count < kept + need) || count > static_cast<unsigned int>(pieces_top_k_capacity)) {
      // The exact need-th best word of the window, then the pass again: exactly need get in.
      const W exact = piece_radix_select(p, window, length, kept, need, sh);
      if (threadIdx.x == 0) sh.count = kept;
      __syncthreads();
      piece_filter_pass(p, window, length, kept, exact, buffer, &sh.count);
      __syncthreads();
      count = sh.count;
    }
  }
  block_sort_keys(buffer, static_cast<int>(count));
  const unsigned int next = static_cast<unsigned int>(p.k < count ? p.k : count);
  // Positions back to indices in the piece: the running list's from run_index, the
  // window's from the offset. Read all before any is written.
  constexpr int per_thread = int(pieces_top_k_max_k / pieces_top_k_threads);
  std::int64_t index[per_thread];
#pragma unroll
  for (int q = 0; q < per_thread; ++q) {
    const unsigned int j = threadIdx.x + q * pieces_top_k_threads;
    if (j < next) {
      const std::uint32_t position = piece_word_position(buffer[j]);
      index[q] = position < kept ? run_index[position] : offset + (position - kept);
    }
  }
  __syncthreads();
#pragma unroll
  for (int q = 0; q < per_thread; ++q) {
    const unsigned int j = threadIdx.x + q * pieces_top_k_threads;
    if (j < next) {
      run_index[j] = index[q];
      buffer[j] = with_position(buffer[j], j);
    }
  }
  __syncthreads();
  return next;
}

/// Dynamic shared memory of the kernel for value type V: the buffer and the running
/// list's indices.
template <class V>
constexpr std::size_t pieces_top_k_shared_bytes() {
  return pieces_top_k_capacity * sizeof(piece_word_t<V>) + pieces_top_k_max_k * sizeof(std::int64_t);
}

template <class It, class Pieces, class ValueOut, class IndexOut>
__global__ __launch_bounds__(pieces_top_k_threads) void top_k_pieces_kernel(
    pieces_top_k_params<It, Pieces, ValueOut, IndexOut> p) {
  using V = iter_value_t<It>;
  using W = piece_word_t<V>;
  extern __shared__ __align__(16) unsigned char dynamic_shared[];
  W* buffer = reinterpret_cast<W*>(dynamic_shared);
  auto* run_index = reinterpret_cast<std::int64_t*>(dynamic_shared + pieces_top_k_capacity * sizeof(W));
  __shared__ pieces_top_k_shared<W> sh;
  wait_for_prior_grids();
  const std::int64_t pieces = p.pieces.count();
  for (std::int64_t s = blockIdx.x; s < pieces; s += gridDim.x) {
    const std::int64_t length = p.pieces.length(s);
    const It piece = p.first + p.pieces.begin(s);
    unsigned int kept = 0;
    for (std::int64_t offset = 0; offset < length; offset += pieces_top_k_window) {
      const std::int64_t rest = length - offset;
      kept = piece_rank_window(p, piece + offset, offset, rest < pieces_top_k_window ? rest : pieces_top_k_window,
                               kept, buffer, run_index, sh);
    }
    const std::int64_t out = s * p.k;
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
  }
}

}  // namespace detail
TALLY_NAMESPACE_END
