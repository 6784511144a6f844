#pragma once
// From a top_k call over pieces to its one launch (pieces_kernel.cuh): a block per piece,
// or per chunk of a row when the rows are too few to fill the GPU (a grid-stride loop past
// 2^30 blocks), those chunks (or whole rows of at most 131072 items) streaming
// (top_k_stream_kernel, a second kernel) where the values have at most 4 bytes and k is
// small; the dynamic shared memory granted once per device.

#include <tally/detail/runtime/cuda_check.cuh>
#include <tally/detail/runtime/device_context.cuh>
#include <tally/detail/runtime/pdl.cuh>
#include <tally/detail/runtime/scratch.cuh>
#include <tally/detail/top_k/pieces_kernel.cuh>
#include <tally/detail/top_k/select_dispatch.cuh>
#include <tally/detail/top_k/stream_dispatch.cuh>

#include <atomic>

TALLY_NAMESPACE_BEGIN
namespace detail {

/// Writes the k best of every piece (1 <= k <= pieces_top_k_max_k) at values[s * k + j],
/// indices[s * k + j] (index within the piece; -1 past its length).
template <class Policy, class It, class Pieces, class ValueOut, class IndexOut, class Compare>
void dispatch_top_k_pieces(const char* algorithm, const Policy& policy, const device_context& ctx, It first,
                           const Pieces& pieces, std::int64_t k, ValueOut values, IndexOut indices, Compare) {
  using V = iter_value_t<It>;
  static_assert(top_k_selects_v<V, Compare>,
                "tally: top_k with a run-time k takes arithmetic values under tally::less<> or tally::greater<> "
                "(use top_k<K> for other comparators)");
  constexpr auto kernel = top_k_pieces_kernel<It, Pieces, ValueOut, IndexOut>;
  constexpr std::size_t shared_bytes = pieces_top_k_shared_bytes<V>();
  // More than 48 KB of dynamic shared memory needs the kernel's consent, once per device.
  static std::atomic<bool> granted[max_cached_devices] = {};
  const bool cacheable = ctx.device >= 0 && ctx.device < max_cached_devices;
  if (!cacheable || !granted[ctx.device].load()) {
    check(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, int(shared_bytes)), algorithm,
          "the kernel's shared memory does not fit this device");
    if (cacheable) granted[ctx.device].store(true);
  }
  // Rows of at most pieces_top_k_warp_row items: a warp each, sorted; up to
  // pieces_top_k_warp_stream_row (values of at most 4 bytes, k at most
  // pieces_top_k_warp_stream_max_k), rows enough: a warp each, streamed. Rows too few to fill the
  // GPU's block slots (two blocks of 512 an SM) are split: up to the slots, chunks of at
  // least pieces_top_k_min_chunk items, and the chunks' lists (chunks * k entries)
  // fitting the last block's buffer. Segments: a block each.
  std::int64_t chunks = 1;
  bool warp_rows = false;
  [[maybe_unused]] bool streams = false;
  if constexpr (std::is_same_v<Pieces, rows_t>) {
    warp_rows = pieces.row_length <= pieces_top_k_warp_row ||
                (sizeof(V) <= 4 && pieces.row_length <= pieces_top_k_warp_stream_row &&
                 k <= pieces_top_k_warp_stream_max_k &&
                 pieces.num_rows >= pieces_top_k_warp_stream_rows_per_sm * std::int64_t(ctx.sm_count));
    const std::int64_t slots = 2 * std::int64_t(ctx.sm_count);
    if (pieces.num_rows > 0 && pieces.num_rows < slots) {
      chunks = slots / pieces.num_rows;
      if (chunks > pieces.row_length / pieces_top_k_min_chunk) chunks = pieces.row_length / pieces_top_k_min_chunk;
      if (chunks > pieces_top_k_capacity / k) chunks = pieces_top_k_capacity / k;
      if (chunks < 1) chunks = 1;
    }
    // Chunks that stream (pieces_kernel.cuh, top_k_stream_kernel): 32-bit keys, positions
    // in 32 bits, k and the chunks small enough that a chunk's candidates fit the buffer.
    // A whole row (chunks == 1, rows enough to fill the GPU) is such a chunk too: no
    // samples and no select of them: on the H100 1024 rows of 65536 floats at k = 32 took
    // 0.92x the GPU time of the one-kernel way, and 512 rows of 131072 at k = 50 0.96x once
    // the stream kernel's choice and threshold had got cheaper (at first 1.03x: 1.5% of
    // a row got past chunk_threshold, and appending them slowed the pass more than the
    // samples cost; docs/performance.md#top-k-whole-rows-stream).
    if (sizeof(V) <= 4 && pieces.num_rows > 0 && pieces.row_length < (std::int64_t(1) << 32))
      streams = top_k_chunks_stream((pieces.row_length + chunks - 1) / chunks, k, chunks == 1);
  }
  std::int64_t grid = warp_rows ? (pieces.count() + pieces_top_k_threads / 32 - 1) / (pieces_top_k_threads / 32)
                                 : pieces.count() * chunks;
  if (grid > (std::int64_t(1) << 30)) grid = std::int64_t(1) << 30;
  pieces_top_k_params<It, Pieces, ValueOut, IndexOut> p{
      first, pieces, k, is_default_less_v<Compare, V>, values, indices, warp_rows, chunks, nullptr, nullptr, nullptr,
      nullptr, 0u};
  cudaLaunchConfig_t config{};
  config.gridDim = dim3(static_cast<unsigned int>(grid));
  config.blockDim = dim3(pieces_top_k_threads);
  config.dynamicSmemBytes = shared_bytes;
  const call_stream where = call_stream_of(policy);
  config.stream = where.stream;
  if constexpr (sizeof(V) <= 4 && std::is_same_v<Pieces, rows_t>) {
    if (streams) {
      if (chunks == 1) p.ask = stream_threshold_ask(pieces.row_length, k);
      return launch_top_k_stream(algorithm, ctx, where, p);
    }
  }
  if (chunks == 1) {
    check(launch_kernel(config, ctx.arch, kernel, p), algorithm, "kernel launch failed");
    return;
  }
  // The counters (zero between calls: the lease clears them when something else wrote
  // there; pieces_top_k_counter_bytes): arrivals, then the second room (the stream
  // kernel's 64-bit counters span both), then the lists.
  const std::size_t counter_bytes = pieces_top_k_counter_bytes(ctx);
  const std::size_t list_bytes = std::size_t(pieces.count() * chunks * k) * sizeof(std::int64_t);
  scratch_lease lease(algorithm, ctx, where, 2 * counter_bytes + list_bytes, scratch_use::top_k_lists);
  auto* base = static_cast<unsigned char*>(lease.view().partials);
  p.arrivals = reinterpret_cast<unsigned int*>(base);
  p.lists = reinterpret_cast<std::int64_t*>(base + 2 * counter_bytes);
  check(launch_kernel(config, ctx.arch, kernel, p), algorithm, "kernel launch failed");
}

}  // namespace detail
TALLY_NAMESPACE_END
