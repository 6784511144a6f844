#pragma once
// The launch of top_k_stream_kernel (pieces_kernel.cuh) over rows, whole a block or split
// in chunks whose candidates meet in scratch, and the rule by which a flat run-time-k
// top_k runs as one such row split across the GPU.

#include <tally/detail/runtime/cuda_check.cuh>
#include <tally/detail/runtime/device_context.cuh>
#include <tally/detail/runtime/pdl.cuh>
#include <tally/detail/runtime/scratch.cuh>
#include <tally/detail/top_k/pieces_kernel.cuh>

#include <cstddef>
#include <cstdint>

TALLY_NAMESPACE_BEGIN
namespace detail {

inline std::size_t align_up(std::size_t bytes, std::size_t to) { return (bytes + to - 1) / to * to; }

/// Bytes of each of the two counter rooms ahead of a split row's lists or words: a 32-bit
/// counter for each of the 2 x SMs pieces that can be split (top_k_pieces_kernel's
/// arrivals, in the first), or one 64-bit counter a piece over both
/// (top_k_stream_kernel's room and arrivals). The same for every call on
/// the device and both ways of a split row (top_k_pieces_kernel's lists,
/// top_k_stream_kernel's words), so that a call never reads as a counter what an earlier
/// call left in its lists or words, and a stream that changes ways pays no clearing (the
/// kernels leave their counters at zero).
inline std::size_t pieces_top_k_counter_bytes(const device_context& ctx) {
  return align_up(std::size_t(2 * ctx.sm_count) * sizeof(unsigned int), 256);
}

/// Whether chunks (or whole rows: whole) of `chunk` items stream at this k: values of at
/// most 4 bytes (the caller's), positions in 32 bits, and a chunk's candidates in the
/// buffer. A whole row's threshold scales with its length (stream_threshold_ask), so that
/// its candidates fit for every k up to pieces_top_k_stream_max_k.
inline bool top_k_chunks_stream(std::int64_t chunk, std::int64_t k, bool whole = false) {
  return chunk >= pieces_top_k_min_chunk && chunk <= pieces_top_k_stream_chunk &&
         (k <= pieces_top_k_stream_small_k ||
          (k <= pieces_top_k_stream_max_k && (whole || chunk <= pieces_top_k_stream_short_chunk)));
}

/// What chunk_threshold's reads (pieces_top_k_threshold_items a thread, 8192 items) must
/// leave at least as good in a whole row of `length` items that streams (p.ask; 0: k, the
/// exact need): r = length / 8192 >= 2 times longer than the reads, each read item stands
/// for r of the row, so about k / r: 2 ceil(k / r) + 8, so that on uniform data a few
/// times k items get in (rows of 131072 at k = 50: about 1840 with k, 480 with this; at
/// k = 256 about 8000 with k, more than the buffer, and 1200 with this), fewer to append
/// and to choose from. Data in order is seen and given the exact need (warps_threshold);
/// where fewer than k get in all the same, the block passes again (top_k_stream_filter).
inline unsigned int stream_threshold_ask(std::int64_t length, std::int64_t k) {
  constexpr std::int64_t reads = std::int64_t(pieces_top_k_threshold_items) * pieces_top_k_threads;
  const std::int64_t r = length / reads;
  if (r < 2) return 0;
  const std::int64_t ask = 2 * ((k + r - 1) / r) + 8;
  return ask < k ? static_cast<unsigned int>(ask) : 0;
}

/// The bar of each chunk of a row split in `chunks` (p.bar_warps; 0: none): the m-th best
/// of its 16 warps' best threshold reads. Of 8192 reads of distinct words in random order,
/// about f(m) = 16 (1/16 + 1/15 + ... + 1/(17 - m)) beat it (the m-th smallest of 16
/// exponential gaps of mean 1/512), and r = chunk / 8192 times as many of the chunk. The
/// last block keeps the words at least as good as the best bar: a fraction g of the
/// chunks' f(m) r each, the worse the more chunks (a simulation of uniform floats: g about
/// 0.75, 0.63, 0.55, 0.5 for 2, 4, 8, 16 chunks). m is the least for which that is 2 k
/// for one or two rows: one row of 131072 at k = 50, m = 9 for its 16 chunks of 8192
/// (kept: a median of 101, the 1st percentile 53, none of 300 simulated rows short of k);
/// where fewer than k are kept the cut finds its own threshold. A call takes as long as its
/// slowest row, so over more rows 2.3 k: 64 rows of 131072, m = 9 for 4 chunks of 32768
/// (136 and 72; at m = 8, 109 and 52, 1% of rows short). The keeps' ranks cost about 10 ns a
/// word (H200), so not more. Up to 16 chunks: the best of more bars keeps too few. None
/// where no m keeps enough (k above about 4 chunks r), k < 16 (few candidates, no cut) or
/// k > pieces_top_k_stream_small_k (the keeps outgrow the ranks; not measured).
inline unsigned int stream_bar_warps(std::int64_t rows, std::int64_t length, std::int64_t chunks, std::int64_t k) {
  constexpr int warps = pieces_top_k_threads / 32;
  constexpr double reads = double(pieces_top_k_threshold_items) * pieces_top_k_threads;
  if (chunks < 2 || chunks > 16 || k < 16 || k > pieces_top_k_stream_small_k) return 0;
  const double g = chunks <= 2 ? 0.75 : chunks <= 4 ? 0.63 : chunks <= 8 ? 0.55 : 0.5;
  const double r = double(length) / double(chunks) / reads;
  const double want = (rows <= 2 ? 2.0 : 2.3) * double(k) / (double(chunks) * r * g);
  double f = 0;
  for (int m = 1; m <= warps; ++m) {
    f += double(warps) / double(warps + 1 - m);
    if (f >= want) return static_cast<unsigned int>(m);
  }
  return 0;
}

/// The largest flat input that runs as one streaming row, by k. Its chunks' candidates
/// grow with n (chunk_threshold reads 8192 items a chunk whatever its length: about 60 of
/// every 8192 uniform floats get in at k = 32, 134 at k = 64, 500 at k = 256) and with k;
/// the row's last block cuts tens of thousands of them from L2 (stream_choose), and past
/// these sizes the select kernel is faster. Interleaved A/B on the H100, GPU time of the
/// one-row way / the select kernel's: k = 8: 0.21-0.43 up to 2^23; k = 32: 0.31-0.53 up
/// to 2^22, 0.74 at 2^23; k = 64: 0.38-0.57 up to 2^21, 0.89 at 2^22; k = 256 (chunks of
/// at most 16384): 0.56-0.91 up to 2^20, 1.00 at 2^21
/// (docs/performance.md#flat-top-k-one-row). Once the select kernel's pass compared
/// natively, k = 256 streamed faster only up to 2^16 (H200, back to back, the select
/// kernel's time / the stream's: 2^16 1.08, 2^17 0.96, 2^18 0.96, 2^19 0.91, 2^20 0.61;
/// docs/performance.md#select-native-pass). Once the select kernel ranked its candidates
/// over the grid and found its threshold on packed words, k = 256 streamed faster only up
/// to 2^13 (H200, back to back, the select kernel's time / the stream's: 2^14 0.90, 2^15
/// 0.86, 2^16 0.75; docs/performance.md#select-threshold-words); k = 65..128, not measured
/// since, keep 2^16.
inline std::int64_t flat_top_k_stream_max_n(std::int64_t k) {
  if (k <= 32) return std::int64_t(1) << 23;
  if (k <= 64) return std::int64_t(1) << 22;
  if (k <= 128) return std::int64_t(1) << 16;
  return std::int64_t(1) << 13;
}

/// The chunks in which a flat top_k of n items (values of at most 4 bytes, 1 <= k <= n)
/// streams as one row, a block a chunk: up to two an SM for k <= 16, one above (the
/// chunks' candidates, which the last block cuts, grow with k: on the H200, one chunk an
/// SM against two, at 2^21 / 2^22 / 2^23 items, took k = 8 1.04 / 0.99 / 1.08 the time,
/// k = 32 0.98 / 0.95 / 1.01, k = 64 0.95 / 0.94 / 1.00, int32 at k = 32 0.94 / 0.87 /
/// 1.00; docs/performance.md#select-native-pass); 0 where it does not. Fewer than
/// pieces_top_k_min_chunk items: one block, its chunk read whole, for k <= 64 or at
/// least 16 k items (H100, GPU time: 4096 floats at k = 8, 64, 256 0.27x, 0.32x, 0.51x
/// the select kernel's; 1024 at k = 8 and 64 0.52x and 0.70x, at k = 256 1.27x, so
/// there the select kernel's one-block sort).
inline std::int64_t flat_top_k_stream_chunks(std::int64_t n, std::int64_t k, const device_context& ctx) {
  if (n > flat_top_k_stream_max_n(k)) return 0;
  if (n < pieces_top_k_min_chunk)
    return k <= pieces_top_k_stream_small_k || (k <= pieces_top_k_stream_max_k && n >= 16 * k) ? 1 : 0;
  std::int64_t chunks = n / pieces_top_k_min_chunk;
  const std::int64_t most = (k <= 16 ? 2 : 1) * std::int64_t(ctx.sm_count);
  if (chunks > most) chunks = most;
  return top_k_chunks_stream((n + chunks - 1) / chunks, k) ? chunks : 0;
}

/// Launches top_k_stream_kernel over p.pieces, p.chunks blocks a row (p.chunks > 1: the
/// rows are at most 2 x SMs, the counters' room): the scratch of a split row's words,
/// then the launch.
template <class It, class ValueOut, class IndexOut>
void launch_top_k_stream(const char* algorithm, const device_context& ctx, const call_stream& where,
                         pieces_top_k_params<It, rows_t, ValueOut, IndexOut> p) {
  std::int64_t grid = p.pieces.count() * p.chunks;
  if (grid > (std::int64_t(1) << 30)) grid = std::int64_t(1) << 30;  // a grid-stride loop beyond
  cudaLaunchConfig_t config{};
  config.gridDim = dim3(static_cast<unsigned int>(grid));
  config.blockDim = dim3(pieces_top_k_threads);
  config.dynamicSmemBytes = pieces_top_k_stream_shared_bytes;
  config.stream = where.stream;
  const auto kernel = top_k_stream_kernel<It, ValueOut, IndexOut>;
  if (p.chunks == 1) {
    // A whole row a block: no scratch (the block chooses from its own buffer).
    check(launch_kernel(config, ctx.arch, kernel, p), algorithm, "kernel launch failed");
    return;
  }
  // The rows' counters (a 64-bit word a row over both counter rooms: 2 x SMs rows at
  // most, 16 bytes an SM), then chunks x capacity words a row, then the chunks' bars.
  const std::size_t counter_bytes = pieces_top_k_counter_bytes(ctx);
  const std::size_t word_bytes =
      std::size_t(p.pieces.count() * p.chunks) * pieces_top_k_capacity * sizeof(unsigned long long);
  p.bar_warps = stream_bar_warps(p.pieces.count(), p.pieces.row_length, p.chunks, p.k);
  const std::size_t bar_bytes = p.bar_warps ? std::size_t(p.pieces.count() * p.chunks) * sizeof(unsigned long long) : 0;
  scratch_lease lease(algorithm, ctx, where, 2 * counter_bytes + word_bytes + bar_bytes, scratch_use::top_k_lists);
  auto* base = static_cast<unsigned char*>(lease.view().partials);
  p.counters = reinterpret_cast<unsigned long long*>(base);
  p.words = reinterpret_cast<unsigned long long*>(base + 2 * counter_bytes);
  p.bars = reinterpret_cast<unsigned long long*>(base + 2 * counter_bytes + word_bytes);
  check(launch_kernel(config, ctx.arch, kernel, p), algorithm, "kernel launch failed");
}

}  // namespace detail
TALLY_NAMESPACE_END
