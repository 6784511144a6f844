#pragma once
// From a call over pieces to its launch: the argument checks, the kernel of the call site
// (detail/pieces/kernel.cuh, with the selector of the flat call's class: the same tuning
// rule, backend and shape; over rows a second one for the blocks way where its register
// cap differs, pieces_blocks_apart), and the way it runs, chosen from the shape:
//
// - rows of at most 2048 items: groups of G lanes per row, G the power of two nearest
//   length / 8 (1..32): every lane has about 8 items, a warp takes 32 / G rows;
// - more rows than 4 x the resident warps: a warp per row (G = 32), for rows of at most
//   max_packed_partition items (the groups fold the arg-extrema on packed keys only);
// - otherwise (long rows): blocks, one per row while the rows fill half the block slots,
//   else `chunks` per row that fill one round of them (chunks_per_piece);
// - where the blocks way has a kernel of its own (the 4-byte sums), rows of at most four
//   16-byte words, all aligned, run there a thread a row (pieces_short_rows);
// - segments (lengths known only on the device): a warp per segment, segments longer than
//   a chunk split across blocks in the same launch (detail/pieces/long_segments.cuh).

#include <tally/detail/pieces/kernel.cuh>
#include <tally/detail/runtime/launch.cuh>
#include <tally/detail/runtime/validate.cuh>
#include <tally/pieces.cuh>

#include <cstdint>
#include <limits>

TALLY_NAMESPACE_BEGIN
namespace detail {

/// The largest item index the pieces reach, plus one (the input's extent); for segments,
/// which the host cannot read, -1.
inline std::int64_t pieces_extent(const rows_t& r) {
  return r.num_rows == 0 || r.row_length == 0 ? 0 : (r.num_rows - 1) * r.row_stride + r.row_length;
}
template <class OffsetIt>
std::int64_t pieces_extent(const segments_t<OffsetIt>&) {
  return -1;
}

/// The checks of DESIGN §2 for the pieces themselves; throws tally::error.
inline void check_pieces(const char* algorithm, const rows_t& r) {
  if (r.num_rows < 0) throw_error(algorithm, "rows: the number of rows is negative");
  if (r.row_length < 0) throw_error(algorithm, "rows: the row length is negative");
  if (r.num_rows > 1 && r.row_stride < r.row_length)
    throw_error(algorithm, "rows: the row stride is smaller than the row length (rows would overlap)");
  if (r.num_rows > 1 && r.row_length > 0 &&
      r.row_stride > (std::numeric_limits<std::int64_t>::max() - r.row_length) / (r.num_rows - 1))
    throw_error(algorithm, "rows: num_rows x row_stride does not fit in 64 bits");
}
template <class OffsetIt>
void check_pieces(const char* algorithm, const segments_t<OffsetIt>& s) {
  if (s.num_segments < 0) throw_error(algorithm, "segments: the number of segments is negative");
  check_not_null(algorithm, "the segments' begin offsets", s.begin_offsets, s.num_segments);
  check_not_null(algorithm, "the segments' end offsets", s.end_offsets, s.num_segments);
}

/// The checks of an entry point over pieces: the pieces, the input (where the pieces
/// reach it) and the output; then, for a device policy, where the pointers point.
template <class It, class Pieces, class Out>
void check_pieces_call(const char* algorithm, It first, const Pieces& pieces, Out out) {
  check_pieces(algorithm, pieces);
  const std::int64_t extent = pieces_extent(pieces);
  // Segments: the host cannot tell which items they reach; any segment may.
  check_not_null(algorithm, "the input", first, extent < 0 ? pieces.count() : extent);
  check_not_null(algorithm, "the output", out, pieces.count());
}

template <class It, class Pieces, class Out>
void check_pieces_accessible(const char* algorithm, It first, const Pieces& pieces, Out out,
                             const device_context& ctx) {
  const std::int64_t extent = pieces_extent(pieces);
  if (extent != 0 && pieces.count() > 0) check_device_accessible(algorithm, "the input", first, ctx);
  if (pieces.count() > 0) check_device_accessible(algorithm, "the output", out, ctx);
  if constexpr (!std::is_same_v<Pieces, rows_t>) {
    if (pieces.count() > 0) {
      check_device_accessible(algorithm, "the segments' begin offsets", pieces.begin_offsets, ctx);
      // CSR (segments(offsets, n)): the end offsets are the same array, one further; one
      // query less per call.
      bool same_array = false;
      if constexpr (is_contiguous_iterator_v<decltype(pieces.begin_offsets)>)
        same_array = to_raw_pointer(pieces.end_offsets) == to_raw_pointer(pieces.begin_offsets) + 1;
      if (!same_array)
        check_device_accessible(algorithm, "the segments' end offsets", pieces.end_offsets, ctx);
    }
  }
}

/// Device iterators for the kernel: contiguous offsets as raw pointers.
inline rows_t unwrap_pieces(const rows_t& r) { return r; }
template <class OffsetIt>
auto unwrap_pieces(const segments_t<OffsetIt>& s) {
  using Raw = decltype(unwrap_iterator(s.begin_offsets));
  return segments_t<Raw>{unwrap_iterator(s.begin_offsets), unwrap_iterator(s.end_offsets), s.num_segments};
}

/// The smallest power of two >= x, capped at 32 (x >= 1).
inline int lanes_for(std::int64_t x) {
  int g = 1;
  while (g < 32 && g < x) g *= 2;
  return g;
}

/// Blocks per piece for `count` pieces of `tiles` tiles each on a grid of `resident`
/// blocks, which strides over the count x chunks units. One (each block streams whole
/// pieces) while the pieces alone keep half the slots busy: splitting pieces that already
/// fill the grid costs (512 x 131072 sums took 95.4 µs in 1024 chunks of 8 tiles against
/// 88.4 in 512 blocks of 16, H100). Else, of the chunks that fill one to four rounds of
/// the slots, those that give the busiest block least work, rounds x tiles per chunk: 16 x 2^24 on 396 slots is 2 rounds of 49 chunks of 42 tiles (84)
/// rather than one round of 24 of 86 (12 slots idle). Ties go to fewer chunks.
inline std::int64_t chunks_per_piece(std::int64_t count, std::int64_t tiles, std::int64_t resident) {
  if (2 * count >= resident || tiles <= 1) return 1;
  // With r rounds, the most chunks that fit them (fewer only lengthen the chunks).
  std::int64_t best = 1, best_cost = std::numeric_limits<std::int64_t>::max();
  for (std::int64_t rounds = 1; rounds <= 4; ++rounds) {
    std::int64_t chunks = rounds * resident / count;  // >= 2
    if (chunks > tiles) chunks = tiles;
    const std::int64_t cost = (count * chunks + resident - 1) / resident * ((tiles + chunks - 1) / chunks);
    if (cost < best_cost) best = chunks, best_cost = cost;
  }
  return best;
}

/// How a call over `pieces` runs on a kernel of `shape` (see the file comment); the blocks
/// way's chunks for the kernel of `blocks_shape` that runs it.
template <class Pieces>
pieces_launch choose_pieces_launch(const Pieces& pieces, const kernel_shape& shape, const kernel_shape& blocks_shape,
                                   const device_context& ctx) {
  pieces_launch launch;
  if constexpr (std::is_same_v<Pieces, rows_t>) {
    const std::int64_t length = pieces.row_length, count = pieces.num_rows;
    const std::int64_t resident_warps = std::int64_t(ctx.sm_count) * shape.blocks_per_sm * (shape.policy.threads / 32);
    if (length <= 2048) {
      launch.lanes = lanes_for(length / 8 > 0 ? length / 8 : 1);
    } else if (count >= 4 * resident_warps && length <= max_packed_partition) {
      launch.lanes = 32;
    } else {
      const std::int64_t tile = std::int64_t(blocks_shape.policy.threads) * blocks_shape.policy.items_per_thread;
      launch.lanes = 0;
      launch.chunks = chunks_per_piece(count, (length + tile - 1) / tile,
                                       std::int64_t(ctx.sm_count) * blocks_shape.blocks_per_sm);
    }
  } else {
    launch.lanes = 32;
  }
  return launch;
}

/// Runs `plan` over every piece of `pieces` (out[s] for piece s) in one launch of the call
/// site's kernel; Kind is the flat call's tuning class.
template <tuning::kernel_class Kind, class Policy, class It, class Pieces, class Out, class Plan>
void dispatch_pieces(const char* algorithm, const Policy& policy, const device_context& ctx, It first,
                     const Pieces& pieces, Out out, const Plan& plan) {
  constexpr bool atomic_allowed = !Policy::is_deterministic || Plan::exact;
  constexpr int value_bytes = int(sizeof(iter_value_t<It>));
  using T = typename Plan::accumulator;
  using selector = selector_for<Kind, value_bytes, 1, Policy, atomic_allowed>;
  const std::int64_t count = pieces.count();
  if (count == 0) return;
  const auto device_pieces = unwrap_pieces(pieces);
  using DevicePieces = std::remove_cv_t<decltype(device_pieces)>;
  constexpr auto kernel = pieces_kernel<selector, pieces_ways::any, Plan, It, DevicePieces, Out>;
  kernel_shape shape = shape_of<selector, kernel>(algorithm, ctx);
  pieces_launch launch = choose_pieces_launch(pieces, shape, shape, ctx);
  auto launched = kernel;
  if constexpr (std::is_same_v<Pieces, rows_t>) {
    // The blocks way over rows may have a kernel of its own (kernel.cuh: pieces_blocks_apart).
    constexpr auto blocks_kernel = pieces_kernel<selector, pieces_ways::blocks, Plan, It, DevicePieces, Out>;
    // Rows of at most four aligned 16-byte words: a thread a row in the blocks kernel.
    bool short_rows = false;
    using V = iter_value_t<It>;
    if constexpr (is_contiguous_iterator_v<It> && vector_shape<V, 16>::bytes == 16 && !ranks_on_keys<Plan>::value) {
      constexpr int width = vector_shape<V, 16>::width;
      const auto address = reinterpret_cast<std::uintptr_t>(to_raw_pointer(first));
      short_rows = pieces.row_length > 0 && pieces.row_length <= 4 * width && pieces.row_length % width == 0 &&
                   address % 16 == 0 && (pieces.row_stride * std::int64_t(sizeof(V))) % 16 == 0;
    }
    if ((launch.lanes == 0 || short_rows) && pieces_blocks_apart<selector, V>(shape.arch)) {
      const kernel_shape blocks_shape = shape_of<selector, blocks_kernel>(algorithm, ctx);
      launch = choose_pieces_launch(pieces, shape, blocks_shape, ctx);
      if (short_rows) launch.lanes = 1;
      launched = blocks_kernel;
      shape = blocks_shape;
    }
  }
  const int threads = shape.policy.threads;
  const std::int64_t resident = std::int64_t(ctx.sm_count) * shape.blocks_per_sm;
  std::int64_t wanted;  // blocks with work
  if (launch.lanes > 0) {
    const std::int64_t pieces_per_block = std::int64_t(threads / 32) * (32 / launch.lanes);
    wanted = (count + pieces_per_block - 1) / pieces_per_block;
  } else {
    wanted = count * launch.chunks;
  }
  const call_stream where = call_stream_of(policy);
  if constexpr (!std::is_same_v<Pieces, rows_t>) {
    // Segments: every block the GPU holds, whatever the count, since any segment may be
    // long and its chunks go to whichever blocks are free (detail/pieces/long_segments.cuh).
    scratch_lease lease(algorithm, ctx, where, long_segment_scratch_bytes<T>(), scratch_use::long_segments,
                        sizeof(long_segment<T>));
    check(launch_kernel(launched, ctx.arch, static_cast<int>(resident), threads, where.stream, first, device_pieces,
                        plan, out, launch, lease.view()),
          algorithm, "kernel launch failed");
    return;
  }
  const int grid = static_cast<int>(wanted < resident ? wanted : resident);
  if (launch.lanes == 0 && launch.chunks > 1) {
    // One slot per chunk: the counter word (in each piece's first) and the partial. The
    // counters must be zero: the lease clears the slots when something else wrote there.
    const std::size_t slot_bytes = sizeof(piece_slot<T>);
    const scratch_use use = pieces_slot_mode<selector, Plan>(shape.arch) == slot_mode::none
                                ? scratch_use::piece_slots
                                : scratch_use::piece_atomic_slots;
    scratch_lease lease(algorithm, ctx, where, std::size_t(count * launch.chunks) * slot_bytes, use, slot_bytes);
    check(launch_kernel(launched, ctx.arch, grid, threads, where.stream, first, device_pieces, plan, out, launch,
                        lease.view()),
          algorithm, "kernel launch failed");
  } else {
    check(launch_kernel(launched, ctx.arch, grid, threads, where.stream, first, device_pieces, plan, out, launch,
                        scratch_view{}),
          algorithm, "kernel launch failed");
  }
}

}  // namespace detail
TALLY_NAMESPACE_END
