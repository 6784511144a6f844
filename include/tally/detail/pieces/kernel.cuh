#pragma once
// The reduction over pieces (rows, segments), for every plan of detail/reduce/plan.cuh
// (sums and other operators, min/max on keys, the extrema's (value, index) pairs with
// indices local to the piece): one kernel per call site and architecture, and over rows
// a second for the blocks way where its register cap differs (pieces_blocks_apart, below).
// The launch (pieces_launch, chosen by the host from the shape: detail/pieces/dispatch.cuh)
// picks one of these ways at run time:
//
// - groups (lanes = G, 1 to 32): G lanes of a warp take one piece, the warp's 32 / G
//   groups consecutive pieces, the warps of the grid stride over the pieces. Lane l folds
//   items l, l + G, ... with four loads in flight (or, over rows that all start 16-byte
//   aligned, 16-byte words l, l + G, ..., where the plan does not rank on packed keys);
//   the group combines by the backend's mechanism (shuffles for warp_shuffle and atomic,
//   a tree in shared memory for shared_memory: warp/group_reduce.cuh), the arg-extrema on
//   packed keys combining the keys; its first lane finishes the piece. For many
//   short or medium pieces: no block per piece, no barrier.
// - blocks (lanes = 0): `chunks` blocks per piece, block u taking chunk u % chunks of
//   piece u / chunks (the grid strides over the units); chunk c is the piece's tiles c,
//   c + chunks, ... (fold_chunk). The block folds its chunk with
//   Items loads in flight per thread and combines like the backend's reduction (a tree in
//   shared memory or shuffles; the arg-extrema on packed keys combine the keys, one 64-bit
//   max a step). With one chunk its thread 0 finishes the piece; with more
//   it writes its partial into the chunk's slot and arrives at the piece's counter (the
//   word of the piece's first slot), and the block that arrives last folds the piece's
//   partials in chunk order (deterministic: the same tree whatever the arrival order; up
//   to 32 partials by warp 0 alone, without a barrier, except on shared_memory) and
//   finishes. Under the atomic backend, sums, max and min fold each chunk's total into
//   one atomic word of the piece's first slot instead, and the last block only reads it
//   (pieces_slot_mode), as the flat reduction's atomic backend does. For long pieces:
//   1 x 2^28 is the flat reduction's single pass.
// - short rows (lanes = 1 in the blocks way's own kernel): a thread a row of at most four
//   aligned 16-byte words (pieces_short_rows).
//
// The counters are zero between calls: the last block to arrive at a piece sets its counter
// back to zero, so nothing is cleared before a call, and no block ever waits for another.
// Arrival is one atomic add, not a compare-and-swap loop: with 2112 blocks on one row
// (1 x 2^28) a CAS loop's retries serialized them (978 µs against the flat call's 355 µs,
// H100). The scratch lease (scratch_use::piece_slots, or piece_atomic_slots where the
// chunks fold into atomic words, which must read zero) clears the slots when another kind
// of use or another slot layout wrote there since (so a counter word may hold a partial).

#include <tally/block/for_each_item.cuh>
#include <tally/block/reduce_shuffle.cuh>
#include <tally/block/reduce_tree.cuh>
#include <tally/detail/packed_key.cuh>
#include <tally/detail/pieces/fold.cuh>
#include <tally/detail/pieces/long_segments.cuh>
#include <tally/detail/runtime/kernel_policy.cuh>
#include <tally/detail/runtime/pdl.cuh>
#include <tally/detail/runtime/scratch.cuh>
#include <tally/functional.cuh>
#include <tally/grid/fence.cuh>
#include <tally/grid/slot.cuh>
#include <tally/warp/group_reduce.cuh>
#include <tally/warp/shuffle.cuh>

#include <cuda/atomic>

#include <cstdint>

TALLY_NAMESPACE_BEGIN
namespace detail {

/// How a launch over pieces runs (chosen on the host at each call).
struct pieces_launch {
  int lanes = 0;             ///< groups: lanes per piece (1, 2, 4, ..., 32); 0: blocks
  std::int64_t chunks = 1;   ///< blocks: blocks per piece
};

/// A chunk's slot: the counter word (meaningful in a piece's first slot: the arrivals,
/// zero between calls) and the chunk's partial.
template <class T>
struct piece_slot {
  unsigned long long word;
  maybe<T> partial;
};

/// Called by one thread of each block of a piece of `chunks` chunks after writing its
/// partial: true in the last to arrive, which also sets the counter back to zero for the
/// next call (every other block of the piece has arrived: nobody else touches it). acq_rel:
/// the partial before the arrival is published (release); the last arrival sees every
/// other block's partial (acquire).
__device__ TALLY_FORCEINLINE bool arrive_at_piece(unsigned long long* word, std::int64_t chunks) {
  cuda::atomic_ref<unsigned long long, cuda::thread_scope_device> counter(*word);
  const unsigned long long before = counter.fetch_add(1ull, cuda::std::memory_order_acq_rel);
  if (static_cast<std::int64_t>(before) + 1 != chunks) return false;
  counter.store(0ull, cuda::std::memory_order_relaxed);  // the next kernel sees it after this one ends
  return true;
}

/// The slot mode of the blocks way's combine by atomics (slot_mode::none: partials).
/// Under the atomic backend, where atomics may decide the order (not deterministic() on a
/// floating-point sum, even with the atomic backend forced), a plan whose operator has a
/// native atomic on its 4- or 8-byte accumulator (sums, max and min; not the
/// arg-extrema's packed keys, which fold in the block) folds each chunk's total into one
/// word of the piece's first slot, as the flat reduction folds its blocks'
/// (backend/atomic/reduce.cuh), and the block that arrives last only reads it. Folding
/// the partials in chunk order instead, after the last arrival (a fence, a read of every
/// chunk's partial, a block reduction), kept the kernel about 2 µs past the flat
/// reduction of the same bytes: 1 x 2^28 and 16 x 2^24 floats 241.0 and 241.9 µs against
/// 238.7 (H200, 2026-11-28; a variant without that fold 238.9 and 240.2). Elsewhere the
/// partials stay: the same tree whatever the arrival order.
template <class Selector, class Plan>
TALLY_HOST_DEVICE constexpr slot_mode pieces_slot_mode(int arch) {
  using T = typename Plan::accumulator;
  using Op = typename Plan::accumulator_op;
  if (ranks_on_keys<Plan>::value || !Selector::atomic_allowed || Selector::for_arch(arch).backend != backend_id::atomic ||
      (sizeof(T) != 4 && sizeof(T) != 8))
    return slot_mode::none;
  const slot_mode mode = slot_mode_of<Op, T>(arch);
  return mode == slot_mode::float_sum || mode == slot_mode::integer_sum || mode == slot_mode::keyed ? mode
                                                                                                   : slot_mode::none;
}

/// Folds chunk c of a piece's `chunks` into `fold`: the piece's full tiles c, c + chunks,
/// c + 2 chunks, ... (so that the blocks at work on one piece read neighbouring tiles at a
/// time, as the flat reduction's grid stride does, instead of each streaming a region of
/// its own), then, in the last chunk, the items before the first aligned one and after the
/// last full tile, one by one. A pointer aligned to its type is read with 16-byte vector
/// loads as the flat reduction reads (block/for_each_item.cuh): a warp reads 512
/// contiguous bytes. Returns how many threads hold a value, a prefix of the block
/// (block-uniform): all when the chunk has a full tile, else those of the head and tail.
template <int Threads, int Items, class Fold, class It>
__device__ TALLY_FORCEINLINE int fold_chunk(Fold& fold, It p, std::int64_t length, std::int64_t c,
                                            std::int64_t chunks) {
  using V = iter_value_t<It>;
  constexpr std::int64_t tile = std::int64_t(Threads) * Items;
  const int tid = static_cast<int>(threadIdx.x);
  std::int64_t head = 0;  // items before the first vector-aligned one (0: not vectorized)
  bool vectorized = false;
  if constexpr (is_contiguous_iterator_v<It> && vector_width<V>(Items) > 1) {
    using shape = vector_shape<V, Items>;
    const V* raw = to_raw_pointer(p);
    const auto address = reinterpret_cast<std::uintptr_t>(raw);
    if (address % sizeof(V) == 0) {
      vectorized = true;
      const std::int64_t misaligned = std::int64_t(address % shape::bytes);
      head = misaligned ? (shape::bytes - misaligned) / std::int64_t(sizeof(V)) : 0;
      if (head > length) head = length;
      constexpr int width = shape::width, loads = Items / width;
      const std::int64_t full_tiles = (length - head) / tile;
      const auto* words = reinterpret_cast<const typename shape::word*>(raw + head);
      for (std::int64_t t = c; t < full_tiles; t += chunks) {
        typename shape::word loaded[loads];
#pragma unroll
        for (int j = 0; j < loads; ++j) loaded[j] = words[t * (tile / width) + j * Threads + tid];
        V items[Items];
#pragma unroll
        for (int j = 0; j < loads; ++j) memcpy(&items[j * width], &loaded[j], sizeof(V) * width);
        // Item r = j * width + k of this thread is at head + t * tile + (j * Threads + tid) * width + k.
        const std::int64_t tile_first = head + t * tile + std::int64_t(tid) * width;
        fold.tile(items, [&](int r) { return tile_first + std::int64_t(r / width) * Threads * width + r % width; });
      }
    }
  }
  const std::int64_t full_tiles = (length - head) / tile;
  if (!vectorized) {
    for (std::int64_t t = c; t < full_tiles; t += chunks) {
      const std::int64_t i = t * tile + tid;
      V items[Items];
#pragma unroll
      for (int j = 0; j < Items; ++j) items[j] = p[i + j * Threads];
      fold.tile(items, [&](int r) { return i + std::int64_t(r) * Threads; });
    }
  }
  int valid = full_tiles > c ? Threads : 0;
  if (c == chunks - 1) {
    // The head and the tail as one list: item k < head is item k, the others follow the tiles.
    const std::int64_t tail_begin = head + full_tiles * tile, count = head + (length - tail_begin);
    for (std::int64_t k = tid; k < count; k += Threads) {
      const std::int64_t i = k < head ? k : tail_begin + (k - head);
      fold.item(p[i], i);
    }
    if (valid == 0) valid = count < Threads ? static_cast<int>(count) : Threads;
  }
  return valid;
}

/// The block reductions of the blocks way: the chunk's values, then the partials' folds.
template <backend_id Backend, int Threads, class T>
struct pieces_block_reduce {
  using values = std::conditional_t<Backend == backend_id::shared_memory, block_reduce_tree<T, Threads>,
                                    block_reduce_shuffle<T, Threads>>;
  using keys = std::conditional_t<Backend == backend_id::shared_memory, block_reduce_tree<unsigned long long, Threads>,
                                  block_reduce_shuffle<unsigned long long, Threads>>;
  using partials = std::conditional_t<Backend == backend_id::shared_memory, block_reduce_tree<maybe<T>, Threads>,
                                      block_reduce_shuffle<maybe<T>, Threads>>;
};

/// Shared memory of the kernel, one buffer for whichever way and stage runs (each use is
/// separated from the next by a barrier): the groups' slots (one per thread, for the
/// shared_memory backend's trees) or a block reduction's storage.
template <backend_id Backend, int Threads, class T>
TALLY_HOST_DEVICE constexpr std::size_t pieces_shared_bytes() {
  using reduce = pieces_block_reduce<Backend, Threads, T>;
  const std::size_t slots = Backend == backend_id::shared_memory ? sizeof(maybe<T>) * Threads : 0;
  const std::size_t a = sizeof(typename reduce::values::temp_storage);
  const std::size_t b = sizeof(typename reduce::partials::temp_storage);
  const std::size_t k = sizeof(typename reduce::keys::temp_storage);
  const std::size_t m = (a > b ? a : b) > k ? (a > b ? a : b) : k;
  return slots > m ? slots : m;
}

/// A group's lane `l` of `g` folds items l, l + g, ... of a piece at `p`, four loads in
/// flight (folded as a tree, in index order).
template <class Fold, class It>
__device__ TALLY_FORCEINLINE void fold_group_items(Fold& fold, It p, std::int64_t length, int l, int g) {
  std::int64_t i = l;
  for (; i + 3 * std::int64_t(g) < length; i += 4 * std::int64_t(g)) {
    const iter_value_t<It> items[4] = {p[i], p[i + g], p[i + 2 * g], p[i + 3 * g]};
    fold.tile(items, [&](int r) { return i + std::int64_t(r) * g; });
  }
  for (; i < length; i += g) fold.item(p[i], i);
}

/// The same over a piece that starts 16-byte aligned, read as 16-byte words: lane l folds
/// words l, l + g, ... (each as a tree of its items), then the items after the last whole
/// word one by one. A row of 16 floats is 2 loads a lane, not 8. One word a step: with
/// two in flight the kernel, capped at 40 registers on sm_90 (pieces_min_blocks), spilled.
template <class Fold, class It>
__device__ TALLY_FORCEINLINE void fold_group_words(Fold& fold, It p, std::int64_t length, int l, int g) {
  using V = iter_value_t<It>;
  using shape = vector_shape<V, 16>;
  static_assert(is_contiguous_iterator_v<It> && shape::bytes == 16, "16-byte words of a contiguous input");
  constexpr int width = shape::width;
  const auto* words = reinterpret_cast<const typename shape::word*>(to_raw_pointer(p));
  const std::int64_t whole = length / width;
  for (std::int64_t w = l; w < whole; w += g) {
    const typename shape::word word = words[w];
    V items[width];
    memcpy(items, &word, sizeof(items));
    fold.tile(items, [&](int r) { return w * width + r; });
  }
  for (std::int64_t i = whole * width + l; i < length; i += g) fold.item(p[i], i);
}

template <backend_id Backend, int Threads, class Plan, class It, class Pieces, class Out>
__device__ void pieces_by_groups(It first, const Pieces& pieces, const Plan& plan, Out out, int g,
                                 unsigned char* shared) {
  using T = typename Plan::accumulator;
  auto* slots_storage = reinterpret_cast<maybe<T>*>(shared);
  const int tid = static_cast<int>(threadIdx.x);
  const int lane = tid & 31;
  const int per_warp = 32 / g;
  const std::int64_t warp = (std::int64_t(blockIdx.x) * blockDim.x + tid) / 32;
  const std::int64_t warps = std::int64_t(gridDim.x) * blockDim.x / 32;
  const std::int64_t count = pieces.count();
  // Rows that all start 16-byte aligned are read as 16-byte words (grid-uniform). Not for
  // the plans that rank on packed keys (the arg-extrema): at their 32-register cap
  // (pieces_min_blocks) the word path made the float arg-max kernel spill more.
  constexpr bool reads_words = std::is_same_v<Pieces, rows_t> && is_contiguous_iterator_v<It> &&
                               vector_shape<iter_value_t<It>, 16>::bytes == 16 && !ranks_on_keys<Plan>::value;
  bool vectorized = false;
  if constexpr (reads_words) {
    const auto address = reinterpret_cast<std::uintptr_t>(to_raw_pointer(first));
    vectorized = address % 16 == 0 && (pieces.row_stride * std::int64_t(sizeof(iter_value_t<It>))) % 16 == 0;
  }
  const auto fold_lane = [&](auto& fold, It p, std::int64_t length) {
    if constexpr (reads_words) {
      if (vectorized) return fold_group_words(fold, p, length, lane & (g - 1), g);
    }
    fold_group_items(fold, p, length, lane & (g - 1), g);
  };
  for (std::int64_t base = warp * per_warp; base < count; base += warps * per_warp) {
    const std::int64_t s = base + lane / g;
    maybe<T> acc{T{}, false};
    if constexpr (ranks_on_keys<Plan>::value) {
      // The arg-extrema on packed keys fold and combine keys only (a 64-bit max a step, as
      // the blocks way does; the launch gives the groups rows of at most
      // max_packed_partition items), and only the group's first lane turns its key into a
      // candidate. With (value, index) pairs as well, the float arg-max kernel, capped at
      // 32 registers, spilled 84 bytes (`nvcc -Xptxas -v`, sm_90); with keys only, 8.
      key_fold<Plan, T> fold{plan};
      if (s < count) fold_lane(fold, first + pieces.begin(s), pieces.length(s));
      maybe<unsigned long long> key{fold.best, fold.best != 0};
      static_assert(sizeof(maybe<unsigned long long>) <= sizeof(maybe<T>), "a key's slot fits a candidate's");
      if constexpr (Backend == backend_id::shared_memory)
        key = group_reduce_tree(key, g, reinterpret_cast<maybe<unsigned long long>*>(slots_storage) + (tid & ~31),
                                maximum<unsigned long long>{});
      else
        key = group_reduce_shuffle(key, g, maximum<unsigned long long>{});
      if (s < count && (lane & (g - 1)) == 0) acc = fold.result_of(key.has ? key.value : 0);
    } else {
      if (s < count) {
        const std::int64_t length = pieces.length(s);
        const It p = first + pieces.begin(s);
        acc = fold_piece(plan, length, [&](auto& fold) { fold_lane(fold, p, length); });
      }
      if constexpr (Backend == backend_id::shared_memory)
        acc = group_reduce_tree(acc, g, slots_storage + (tid & ~31), plan.op);
      else
        acc = group_reduce_shuffle(acc, g, plan.op);
    }
    if (s < count && (lane & (g - 1)) == 0) {
      if (acc.has) plan.finish(out + s, acc.value);
      else plan.finish.empty(out + s);
    }
  }
}

/// Short rows in the blocks way's own kernel (where it is apart: the 4-byte sums): rows of
/// at most four 16-byte words (16 floats), every row starting 16-byte aligned. A thread a
/// row, its words loaded at once, no combine across lanes (what CUB 3.5 does for segments
/// this short). In the groups way, two lanes a row of 16 ran 126 warp instructions a
/// step of 16 rows and waited on its two loads in turn, at the first kernel's 40-register
/// cap (three blocks an SM); here, at a full SM's threads: 2^20 rows of 16 0.91x, 2^15 rows
/// 0.83x of the GPU's time (H200, docs/performance.md#rows-blocks-kernel).
template <class Plan, class It, class Out>
__device__ void pieces_short_rows(It first, const rows_t& rows, const Plan& plan, Out out) {
  using V = iter_value_t<It>;
  using T = typename Plan::accumulator;
  if constexpr (is_contiguous_iterator_v<It> && vector_shape<V, 16>::bytes == 16) {
    using shape = vector_shape<V, 16>;
    constexpr int width = shape::width;
    const auto* words = reinterpret_cast<const typename shape::word*>(to_raw_pointer(first));
    const int row_words = static_cast<int>(rows.row_length / width);
    const std::int64_t stride_words = rows.row_stride / width;
    const std::int64_t step = std::int64_t(gridDim.x) * blockDim.x;
    for (std::int64_t s = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x; s < rows.num_rows; s += step) {
      const auto* row = words + s * stride_words;
      typename shape::word loaded[4];
#pragma unroll
      for (int j = 0; j < 4; ++j)
        if (j < row_words) loaded[j] = row[j];
      value_fold<Plan, T> fold{plan};
#pragma unroll
      for (int j = 0; j < 4; ++j)
        if (j < row_words) {
          V items[width];
          memcpy(items, &loaded[j], sizeof(items));
          fold.tile(items, [&](int r) { return std::int64_t(j) * width + r; });
        }
      const maybe<T> acc = fold.result();
      if (acc.has) plan.finish(out + s, acc.value);
      else plan.finish.empty(out + s);
    }
  }
}

template <backend_id Backend, int Threads, int Items, slot_mode Combine, class Plan, class It, class Pieces, class Out>
__device__ void pieces_by_blocks(It first, const Pieces& pieces, const Plan& plan, Out out, std::int64_t chunks,
                                 const scratch_view& scratch, unsigned char* shared) {
  using T = typename Plan::accumulator;
  using block_reduce_t = typename pieces_block_reduce<Backend, Threads, T>::values;
  using block_fold_t = typename pieces_block_reduce<Backend, Threads, T>::partials;
  using key_reduce_t = typename pieces_block_reduce<Backend, Threads, T>::keys;
  auto& storage = *reinterpret_cast<typename block_reduce_t::temp_storage*>(shared);
  auto& key_storage = *reinterpret_cast<typename key_reduce_t::temp_storage*>(shared);
  auto& fold_storage = *reinterpret_cast<typename block_fold_t::temp_storage*>(shared);
  __shared__ bool is_last;
  const int tid = static_cast<int>(threadIdx.x);
  auto* slots = static_cast<piece_slot<T>*>(scratch.partials);
  const std::int64_t count = pieces.count();
  const std::int64_t units = count * chunks;
  for (std::int64_t u = blockIdx.x; u < units; u += gridDim.x) {
    const std::int64_t s = u / chunks, c = u % chunks;
    const std::int64_t length = pieces.length(s);
    const It p = first + pieces.begin(s);
    int valid = 0;
    maybe<T> block_total{};
    bool on_keys = false;
    if constexpr (ranks_on_keys<Plan>::value) {
      // The arg-extrema on packed keys: the block's combine on the 64-bit keys too (one
      // max a step, where a (value, index) pair is 16 bytes to shuffle and a compare of
      // both), the key turned into the plan's accumulator once, by thread 0.
      if (length <= max_packed_partition) {
        on_keys = true;
        key_fold<Plan, T> fold{plan};
        valid = fold_chunk<Threads, Items>(fold, p, length, c, chunks);
        // A thread without items holds 0, "nothing yet", which no max is moved by.
        const unsigned long long best =
            key_reduce_t(key_storage).reduce(fold.best, Threads, maximum<unsigned long long>{});
        if (tid == 0) block_total = fold.result_of(best);
      }
    }
    if (!on_keys) {
      const maybe<T> acc =
          fold_piece(plan, length, [&](auto& fold) { valid = fold_chunk<Threads, Items>(fold, p, length, c, chunks); });
      block_total.has = valid > 0;
      if (valid > 0) block_total.value = block_reduce_t(storage).reduce(acc.value, valid, plan.op);
    }
    if (chunks == 1) {
      if (tid == 0) {
        if (block_total.has) plan.finish(out + s, block_total.value);
        else plan.finish.empty(out + s);
      }
    } else if constexpr (Combine != slot_mode::none) {
      if (tid == 0) {
        // The word after the piece's counter, all zero between calls ("nothing yet").
        piece_slot<T>& first_slot = slots[s * chunks];
        void* word = &first_slot.partial;
        using slot_t = slot<T, typename Plan::accumulator_op, Combine>;
        if (block_total.has) slot_t::combine(word, block_total.value, plan.op);
        // Program order puts the atomic before the arrival; its release publishes it.
        if (arrive_at_piece(&first_slot.word, chunks)) {
          plan.finish(out + s, slot_t::read(word));
          // Zero again for the next call: the slot's own width, not slot::reset's 16 bytes
          // (the flat slot's size), which would run past a 4-byte value's slot.
          first_slot.partial = maybe<T>{};
        }
      }
    } else {
      if (tid == 0) {
        slots[u].partial = block_total;
        is_last = arrive_at_piece(&slots[s * chunks].word, chunks);
      }
      __syncthreads();  // is_last is set, and every thread is done with `storage`
      if (is_last) {
        // As in last_block_reduce: thread 0 acquired the other blocks' partials, the
        // barrier passes that on, and the fence keeps loads from a stale L1 line.
        acquire_fence();
        const auto fold_op = [&](const maybe<T>& a, const maybe<T>& b) { return fold_maybe(a, b, plan.op); };
        maybe<T> folded{};
        folded.has = false;
        for (std::int64_t k = tid; k < chunks; k += Threads)
          folded = fold_maybe(folded, slots[s * chunks + k].partial, plan.op);
        // Threads [0, min(chunks, Threads)) hold a (maybe empty) fold; fold those in order.
        const int holders = chunks < Threads ? static_cast<int>(chunks) : Threads;
        maybe<T> total;
        if (Backend != backend_id::shared_memory && holders <= 32) {
          // Warp 0 alone, no barrier: the same shuffles, in the same order, as the block
          // reduction's first warp makes with the other warps empty (the same result).
          // (Warp 0 folding any number of partials of an exact plan was slower: the
          // 32-register cap then spilled in the item loop; 2026-11-27, H200.)
          if (tid < 32) total = warp_reduce<false>(folded, holders, fold_op);
        } else {
          total = block_fold_t(fold_storage).reduce(folded, holders, fold_op);
        }
        if (tid == 0) {
          if (total.has) plan.finish(out + s, total.value);
          else plan.finish.empty(out + s);
        }
      }
    }
    __syncthreads();  // storage and is_last are reused by the next unit
  }
}

/// The threads an SM holds on `arch` (10 * major + minor; 0 in the host pass, which
/// compiles no kernel body): 1536 on sm_86, sm_87, sm_89 and sm_120/121, where asking for
/// 2048 made ptxas ignore the launch bounds' block count; 1024 on sm_75.
TALLY_HOST_DEVICE constexpr int pieces_sm_threads(int arch) {
  return arch == 86 || arch == 87 || arch == 89 || arch == 120 || arch == 121 ? 1536 : arch == 75 ? 1024 : 2048;
}

/// Blocks per SM the kernel asks the compiler to fit (a register cap): a full SM's
/// threads when a thread's tile is under 64 bytes, since then only many threads keep
/// enough loads in flight. Left to itself the compiler gave the float arg-max (512 x 4
/// items, the flat max_element's shape) 50 registers, two blocks per SM and 16 KB in
/// flight per SM: 1 x 2^28 took 393 µs against 368 at 32 registers (H100).
TALLY_HOST_DEVICE constexpr int pieces_min_blocks(int arch, int threads, int items, int value_bytes) {
  const int sm = pieces_sm_threads(arch);
  if (value_bytes > 4 || threads > sm) return 1;
  const int tile_bytes = threads * items * value_bytes;
  const int for_bytes = (98304 + tile_bytes - 1) / tile_bytes;
  return for_bytes < sm / threads ? for_bytes : sm / threads;
}

/// The blocks way's: a full SM's threads for values of at most 4 bytes, whatever the tile.
/// Over long rows the slots decide the rounds: the float sum (512 x 16, three blocks an SM
/// under pieces_min_blocks, 396 slots on 132 SMs) ran 512 rows of 131072 in two rounds and
/// 1024 of 65536 in three; with four blocks (528 slots, 30 registers, no spill) in one and
/// two: 0.94x and 0.91x the time (H200, 2026-11-28, docs/performance.md#rows-blocks-kernel).
/// The groups way keeps pieces_min_blocks: at 32 registers it spilled and 2^20 rows of 16
/// took 1.32x.
TALLY_HOST_DEVICE constexpr int pieces_blocks_min_blocks(int arch, int threads, int value_bytes) {
  const int sm = pieces_sm_threads(arch);
  return value_bytes > 4 || threads > sm ? 1 : sm / threads;
}

/// Whether, over rows, the blocks way runs in a kernel of its own on `arch`: where its
/// register cap differs from the groups way's (the 4-byte sums' 512 x 16). Elsewhere one
/// kernel runs every way, and the second is compiled empty and never launched.
template <class Selector, class V>
TALLY_HOST_DEVICE constexpr bool pieces_blocks_apart(int arch) {
  const tuning::launch_policy p = Selector::for_arch(arch);
  return pieces_min_blocks(arch, p.threads, p.items_per_thread, int(sizeof(V))) !=
         pieces_blocks_min_blocks(arch, p.threads, int(sizeof(V)));
}

/// The ways a pieces kernel runs: `any` every way the launch asks for, `blocks` the blocks
/// way over rows alone (launched where it is apart; the first kernel is then unchanged, its
/// blocks way unused: a kernel of the groups way alone, as much code as it needs and no
/// more, ran rows of 256 at 1.05x and, with two words in flight a lane, rows of 16 at 1.05x).
enum class pieces_ways { any, blocks };

template <class Selector, pieces_ways Ways, class Plan, class It, class Pieces, class Out>
__device__ TALLY_FORCEINLINE void pieces_body(It first, Pieces pieces, Plan plan, Out out, pieces_launch launch,
                                              scratch_view scratch) {
  constexpr tuning::launch_policy policy = compiled_policy<Selector>();
  static_assert(tuning::is_valid(policy),
                "tally: no valid launch policy for this reduction over pieces (a tuning table without a rule for it?)");
  using T = typename Plan::accumulator;
  __shared__ alignas(16) unsigned char shared[pieces_shared_bytes<policy.backend, policy.threads, T>()];
  wait_for_prior_grids();
  constexpr bool groups_too = Ways == pieces_ways::any;  // the blocks kernel runs no groups
  if constexpr (!std::is_same_v<Pieces, rows_t>)
    pieces_by_segments<policy.backend, policy.threads>(first, pieces, plan, out, scratch, shared);
  else if (groups_too && launch.lanes > 0)
    pieces_by_groups<policy.backend, policy.threads>(first, pieces, plan, out, launch.lanes, shared);
  else if (!groups_too && launch.lanes == 1)
    pieces_short_rows(first, pieces, plan, out);
  else
    pieces_by_blocks<policy.backend, policy.threads, policy.items_per_thread,
                     pieces_slot_mode<Selector, Plan>(TALLY_COMPILED_ARCH)>(first, pieces, plan, out, launch.chunks,
                                                                              scratch, shared);
}

/// The kernel's register cap, as above, for the architecture being compiled.
template <class Selector, pieces_ways Ways, class V>
TALLY_HOST_DEVICE constexpr int pieces_kernel_min_blocks() {
  constexpr tuning::launch_policy p = compiled_policy<Selector>();
  return Ways == pieces_ways::blocks ? pieces_blocks_min_blocks(TALLY_COMPILED_ARCH, p.threads, int(sizeof(V)))
                                     : pieces_min_blocks(TALLY_COMPILED_ARCH, p.threads, p.items_per_thread,
                                                         int(sizeof(V)));
}

TALLY_KERNELS_BEGIN
template <class Selector, pieces_ways Ways, class Plan, class It, class Pieces, class Out>
TALLY_KERNEL void __launch_bounds__(compiled_policy<Selector>().threads,
                                    pieces_kernel_min_blocks<Selector, Ways, iter_value_t<It>>())
    pieces_kernel(It first, Pieces pieces, Plan plan, Out out, pieces_launch launch, scratch_view scratch) {
  // The blocks way's own kernel has a body only where it is apart (never launched elsewhere).
  if constexpr (Ways == pieces_ways::any ||
                (std::is_same_v<Pieces, rows_t> && pieces_blocks_apart<Selector, iter_value_t<It>>(TALLY_COMPILED_ARCH)))
    pieces_body<Selector, Ways, Plan, It, Pieces, Out>(first, pieces, plan, out, launch, scratch);
}
TALLY_KERNELS_END
using kernels::pieces_kernel;

}  // namespace detail
TALLY_NAMESPACE_END
