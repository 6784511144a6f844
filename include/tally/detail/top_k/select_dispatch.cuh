#pragma once
// From a run-time-k top_k call to its one cooperative launch (select_kernel.cuh): the
// grid (every block resident: at most what the occupancy calculator allows, at most one
// block per 2048 items), the scratch and the parameters.

#include <tally/detail/extrema/plan.cuh>
#include <tally/detail/runtime/cuda_check.cuh>
#include <tally/detail/runtime/device_context.cuh>
#include <tally/detail/runtime/pdl.cuh>
#include <tally/detail/runtime/scratch.cuh>
#include <tally/detail/top_k/select_kernel.cuh>
#include <tally/detail/top_k/stream_dispatch.cuh>

#include <cuda/std/bit>

#include <algorithm>
#include <atomic>
#include <cmath>

TALLY_NAMESPACE_BEGIN
namespace detail {

/// What the run-time-k engine takes: arithmetic values under tally::less<> / greater<>.
template <class V, class Compare>
inline constexpr bool top_k_selects_v =
    is_arithmetic_v<V> && (is_default_less_v<Compare, V> || is_default_greater_v<Compare, V>);

/// Items kept in a buffer between passes once few enough are still running: an eighth
/// of the input, at least 2^16 and at most 2^22 (32 MB of indices each of two buffers).
inline std::int64_t select_buffer_capacity(std::int64_t n) {
  std::int64_t capacity = n / 8;
  if (capacity < (std::int64_t(1) << 16)) capacity = std::int64_t(1) << 16;
  if (capacity > (std::int64_t(1) << 22)) capacity = std::int64_t(1) << 22;
  return capacity < n ? capacity : n;
}

/// The threshold's samples where select_samples_balanced (below) finds no sure count, and
/// for 8-byte values: n / 64 up to 2^16, then n / 256 (at least 2^16 from there), at
/// least 2^12 (or n), at most 2^18 (not asked for inputs one block sorts); none when the
/// expected candidates would not fit a quarter of the buffer. (At 2^28 items 2^18 samples,
/// about 16400 candidates that the select narrows before the sort, took 0.94x the time of
/// 2^20, about 4100 that one block sorts: the draw of 2^20 and its two histograms cost
/// more, on the H200, docs/performance.md#select-native-pass.) sample_rank: the expected number of
/// items at least as good as the threshold is about sample_rank * n / m = 1.5 k + 16 n / m,
/// so that a draw with fewer than k is rare (its relative spread is 1 / sqrt(sample_rank)),
/// and for k up to about a thousand the candidates usually fit one block's sort (4096
/// packed keys): with n / 256 samples, 2^20 floats at k = 1024 expected 5632 candidates
/// (the select then ran its radix passes over them), with n / 64 2560.
struct select_sampling {
  std::int64_t count = 0;
  unsigned long long rank = 0;
};
/// The fewest samples (4096: every block finds the threshold itself; more: the grid draws
/// them, up to 2^18) whose rank can be set so that, on data in random order, both ways to
/// miss the grid's ranks are rare: the threshold lets fewer than k items in when at least
/// `rank` samples fall among the k best (a Poisson count of mean q = k m / n), and more
/// than the ranks' capacity (`rank_capacity` keys) when fewer than `rank` fall among the
/// best that many (mean rank_capacity m / n). rank = q + 3 sqrt(q) + 2 (Poisson tails of
/// 0.02-0.1% for q of 1 to 64: too few start the select over on the input), at least a run
/// of samples and one (sample_positions: data in order), and at most that second mean less
/// three of its deviations; two (a tail under 1%: too many cost radix passes over the
/// buffer, a few µs) for 4096 samples, whose threshold every block finds with no grid
/// barrier, and where three leave no count. On the H200 two everywhere took k = 1024 at
/// 2^19 to 4096 samples (0.84x the time) and at 2^25 to 2^18 (0.70x), but 1.02-1.13x at
/// 2^20..2^24, where the samples it saves cost more candidates to rank. select_samples'
/// margin (1.5 k + 16 n / m) expected 4480 candidates at 2^24, k = 256 (2^16 samples), so
/// that a draw went to the radix passes over the buffer about every other time (53 or 94
/// µs, the H200); here 2^17 samples and 1152. None (count 0) where no count up to 2^18
/// is sure enough (k above about 1000 at 2^20 and up).
inline select_sampling select_samples_balanced(std::int64_t n, std::int64_t k, std::int64_t rank_capacity) {
  select_sampling s;
  for (const bool last_resort : {false, true}) {
    for (std::int64_t m = select_one_block_samples; m <= (std::int64_t(1) << 18); m *= 2) {
      if (m >= n || (m > select_one_block_samples && m > n / 16)) break;
      const double q = double(k) * double(m) / double(n);
      // Above one block's sort only where that saves the grid's way to the threshold:
      // drawn over the grid, more samples cost less than more candidates to rank (2^21 at
      // k = 256: 16384 samples and 1034 candidates 26.8 µs, 8192 and 1987 28.9, H200).
      const std::int64_t capacity =
          m == select_one_block_samples ? rank_capacity : std::min<std::int64_t>(rank_capacity, 2 * select_sort_chunk);
      const double q_over = double(capacity) * double(m) / double(n);
      const double deviations = last_resort || m == select_one_block_samples ? 2.0 : 3.0;
      const double rank = std::max(std::ceil(q + 3.0 * std::sqrt(q) + 2.0), double(select_sample_run + 1));
      if (rank <= q_over - deviations * std::sqrt(q_over) && rank <= double(m / 4)) {
        s.count = m;
        s.rank = static_cast<unsigned long long>(rank);
        return s;
      }
    }
  }
  return s;
}

inline select_sampling select_samples(std::int64_t n, std::int64_t k, std::int64_t buffer_capacity,
                                      std::size_t value_bytes, std::int64_t rank_capacity) {
  if (value_bytes <= 4) {
    const select_sampling balanced = select_samples_balanced(n, k, rank_capacity);
    if (balanced.count > 0) return balanced;
  }
  select_sampling s;
  std::int64_t m = n / 64;
  if (m > (std::int64_t(1) << 16)) m = n / 256 > (std::int64_t(1) << 16) ? n / 256 : std::int64_t(1) << 16;
  if (m < 4096) m = n < 4096 ? n : 4096;
  if (m > (std::int64_t(1) << 18)) m = std::int64_t(1) << 18;
  // Whole rows of select_threads samples (grid_threshold_words draws a block's at a time).
  if (m >= select_threads) m = m / select_threads * select_threads;
  const double expected = 1.5 * double(k) + 16.0 * double(n) / double(m);
  if (4.0 * expected > double(buffer_capacity)) return s;
  const auto rank = static_cast<unsigned long long>(1.5 * double(k) * double(m) / double(n)) + 16;
  if (rank > static_cast<unsigned long long>(m / 4)) return s;
  s.count = m;
  s.rank = rank;
  return s;
}

/// Writes the k best of [first, first + n) (1 <= k <= n) and their indices, best first:
/// as one row split across the GPU whose chunks stream (stream_dispatch.cuh) where that
/// fits, else the select kernel.
template <class Policy, class It, class ValueOut, class IndexOut, class Compare>
void dispatch_top_k_select(const char* algorithm, const Policy& policy, const device_context& ctx, It first,
                           std::int64_t n, std::int64_t k, ValueOut values, IndexOut indices, Compare) {
  using V = iter_value_t<It>;
  static_assert(top_k_selects_v<V, Compare>,
                "tally: top_k with a run-time k takes arithmetic values under tally::less<> or tally::greater<> "
                "(use top_k<K> for other comparators)");
  if constexpr (sizeof(V) <= 4) {
    if (const std::int64_t chunks = flat_top_k_stream_chunks(n, k, ctx)) {
      const pieces_top_k_params<It, rows_t, ValueOut, IndexOut> p{
          first, rows_t{1, n, n}, k, is_default_less_v<Compare, V>, values, indices, false, chunks, nullptr, nullptr,
          nullptr, nullptr, 0u};
      return launch_top_k_stream(algorithm, ctx, call_stream_of(policy), p);
    }
  }
  constexpr auto kernel = top_k_select_kernel<It, ValueOut, IndexOut>;
  // The occupancy, once per device (the calculator costs microseconds per call).
  static std::atomic<int> occupancy[max_cached_devices] = {};
  int per_sm = ctx.device >= 0 && ctx.device < max_cached_devices ? occupancy[ctx.device].load() : 0;
  if (per_sm == 0) {
    check(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, select_threads, 0), algorithm,
          "cannot read the kernel's occupancy");
    if (per_sm < 1) throw_error(algorithm, "the selection kernel cannot run on this device");
    if (ctx.device >= 0 && ctx.device < max_cached_devices) occupancy[ctx.device].store(per_sm);
  }
  constexpr int key_bits = int(8 * sizeof(V));
  // The bit width of n (2^index_bits > n; n < 2^63, so at most 63).
  const int index_bits = cuda::std::bit_width(static_cast<std::uint64_t>(n));
  const std::int64_t items_per_block = std::int64_t(select_threads) * select_items_per_thread;
  std::int64_t grid = (n + items_per_block - 1) / items_per_block;
  const std::int64_t resident = std::int64_t(per_sm) * ctx.sm_count;
  if (grid > resident) grid = resident;

  select_params<It, ValueOut, IndexOut> p{};
  p.first = first;
  p.n = n;
  p.k = k;
  p.key_bits = key_bits;
  p.index_bits = index_bits;
  p.largest = is_default_less_v<Compare, V>;
  p.values = values;
  p.indices = indices;
  const call_stream where = call_stream_of(policy);
  // Cooperative where blocks meet at grid barriers: the driver refuses the launch unless
  // every block can be resident. One block meets no other, so it takes a plain launch
  // (cheaper for the driver), which may also overlap the previous kernel's end
  // (programmatic dependent launch, pdl.cuh); the cooperative one is launched without it.
  const auto launch = [&](std::int64_t blocks) {
    cudaLaunchConfig_t config{};
    config.gridDim = dim3(static_cast<unsigned int>(blocks));
    config.blockDim = dim3(select_threads);
    config.stream = where.stream;
    if (blocks == 1) {
      check(launch_kernel(config, ctx.arch, kernel, p), algorithm, "kernel launch failed");
      return;
    }
    cudaLaunchAttribute attribute{};
    attribute.id = cudaLaunchAttributeCooperative;
    attribute.val.cooperative = 1;
    config.attrs = &attribute;
    config.numAttrs = 1;
    check(cudaLaunchKernelEx(&config, kernel, p), algorithm, "kernel launch failed");
  };
  if (select_sorts_all(n, k, key_bits)) {
    // One block sorts it all and touches no scratch: no lease (nor, with a caller's
    // memory resource, an allocation a call).
    launch(1);
    return;
  }

  const std::int64_t capacity = select_buffer_capacity(n);
  const bool merge = k > select_sort_capacity(key_bits, index_bits);
  const std::size_t state_bytes = align_up(sizeof(select_state), 256);
  const std::size_t chosen_bytes = align_up(std::size_t(k) * sizeof(unsigned long long), 256);
  const std::size_t buffer_bytes = align_up(std::size_t(capacity) * sizeof(unsigned long long), 256);
  const std::size_t sorted_bytes = merge ? align_up(std::size_t(k) * sizeof(select_key), 256) : 0;
  // The candidates the threshold may let in: what the grid ranks (packed keys, where it has
  // the blocks for them), else what one block sorts.
  const std::int64_t rank_capacity = resident >= select_rank_blocks
                                         ? select_candidate_capacity(key_bits, index_bits, capacity)
                                         : select_sort_capacity(key_bits, index_bits);
  // No threshold where its count could reach the arrivals' bits of its barrier's word
  // (grid_barrier_counted: 2^44 items, beyond any GPU's memory but not an iterator's).
  const select_sampling sampling = n <= std::int64_t(counted_barrier_mask)
                                       ? select_samples(n, k, capacity, sizeof(V), rank_capacity)
                                       : select_sampling{};
  const std::size_t sample_bytes = align_up(std::size_t(sampling.count) * sizeof(select_key), 256);
  scratch_lease lease(algorithm, ctx, where, state_bytes + chosen_bytes + 2 * buffer_bytes + 2 * sorted_bytes + sample_bytes);
  auto* base = static_cast<unsigned char*>(lease.view().partials);

  p.state = reinterpret_cast<select_state*>(base);
  p.chosen = reinterpret_cast<unsigned long long*>(base + state_bytes);
  p.buffer[0] = reinterpret_cast<unsigned long long*>(base + state_bytes + chosen_bytes);
  p.buffer[1] = reinterpret_cast<unsigned long long*>(base + state_bytes + chosen_bytes + buffer_bytes);
  p.buffer_capacity = capacity;
  p.sorted[0] = merge ? reinterpret_cast<select_key*>(base + state_bytes + chosen_bytes + 2 * buffer_bytes) : nullptr;
  p.sorted[1] = merge ? p.sorted[0] + (sorted_bytes / sizeof(select_key)) : nullptr;
  p.samples = reinterpret_cast<select_key*>(base + state_bytes + chosen_bytes + 2 * buffer_bytes + 2 * sorted_bytes);
  p.sample_count = sampling.count;
  p.sample_rank = sampling.rank;
  p.sample_spacing = select_sample_spacing(n, sampling.count);
  p.arrivals = lease.view().counter;
  p.exits = static_cast<unsigned int*>(lease.view().slot);
  // The slot's second 8-byte word: zero between calls, as the exits' word before it.
  p.candidates = reinterpret_cast<unsigned long long*>(static_cast<unsigned char*>(lease.view().slot) + 8);

  // Where every block's samples set the threshold, its candidates (up to 16384) are ranked by
  // the whole grid (rank_and_write), count^2 / 32 warp compares: at least
  // select_rank_blocks blocks then, not one per 2048 items. On the H200 at k = 1024, 32
  // blocks took 3.9 µs to rank 1866 candidates at 2^16 and 264 blocks 0.15 µs, but their
  // pass, gathers and barriers took as much longer; against 64 and 264 blocks, 128 took
  // the least time at 2^13..2^18 (docs/performance.md#select-threshold-words). Elsewhere
  // (larger values, more samples) each pass folds every block's histogram into global
  // memory: blocks by n.
  // Every block then draws the same samples and finds the same threshold: one block an SM
  // (two blocks of an SM each ranking the 4096 took 4.5 µs to read them and 2.3 for a
  // histogram at 2^20, against 2.5 and 1.4 alone; 2^19 / 2^20 at k = 256 0.82x / 0.71x
  // the time with one an SM, the H200, docs/performance.md#select-rank-capacity).
  if (select_block_samples(sizeof(V), sampling.count)) {
    const std::int64_t per_sm = std::max<std::int64_t>(select_rank_blocks, std::min<std::int64_t>(grid, ctx.sm_count));
    grid = std::min(per_sm, resident);
  }
  launch(grid);
}

}  // namespace detail
TALLY_NAMESPACE_END
