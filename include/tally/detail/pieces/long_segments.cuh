#pragma once
// Segments (lengths known only on the device) balanced inside the launch that reduces
// them, with no host round trip: a segment far longer than the others must not leave one
// warp streaming it while the rest of the GPU idles.
//
// Every block first takes its own segments, a warp each (the grid strides over them).
// A warp folds a segment of at most one base chunk (Warps x sub_chunk_items items)
// itself. A longer one it lists in scratch first, with a slot per chunk from a pool;
// then every block, once its own short segments are done, takes the list's
// chunks one at a time (an atomic claim per chunk), its warps folding a sub-chunk each,
// writes the chunk's value into its slot and arrives at the segment's counter. The last
// chunk to arrive folds the segment's slots in chunk order and writes the result. (An
// in-order chain, each chunk waiting for its predecessor's running value, took 835 µs on
// a segment of 2^24 items: a microsecond a link.)
//
// Chunk geometry comes from the length alone: base chunks of Warps x sub_chunk_items, at
// most max_segment_chunks chunks (a longer segment takes k base chunks a chunk).
//
// Determinism: a long segment's value is always the same fold, whoever computes it: the
// sub-chunks folded by one warp each (warp_fold_span), folded in order into the chunk, the
// chunks in order into the segment. A long segment the list or the slot pool cannot take
// is folded by its own warp in exactly that order (warp_fold_long), so the capacity
// changes the speed, never a bit of the result.
//
// Progress: no block waits for a block that may not have started. A block leaves once no
// chunk is left to claim and every block that has started has listed its long segments;
// a block that starts later takes its own list entries' chunks itself. So a grid larger than the GPU holds at once is slow, not a hang.
//
// Scratch (scratch_use::long_segments): a header of counters, the list and the slots, the
// counters and the list zero between calls. The last block to leave sets every word it
// used back to zero.

#include <tally/detail/config.cuh>
#include <tally/detail/pieces/fold.cuh>
#include <tally/detail/runtime/scratch.cuh>
#include <tally/grid/fence.cuh>
#include <tally/warp/group_reduce.cuh>

#include <cuda/atomic>

#include <cstddef>
#include <cstdint>

TALLY_NAMESPACE_BEGIN
namespace detail {

/// Items of a long segment one warp folds as one sub-chunk of a base chunk (8 KB of
/// floats: 16 loads of four in flight per lane); a base chunk is a block's warps' sub-chunks.
inline constexpr std::int64_t sub_chunk_items = 2048;
/// Long segments the list holds per call, and chunk slots in the pool.
inline constexpr int long_segment_capacity = 2048;
inline constexpr int long_segment_slots = 65536;
/// The most chunks of one segment (more: longer chunks). 2^28 items in 4096 chunks keep
/// 396 blocks busy to about 3% (10.3 rounds).
inline constexpr std::int64_t max_segment_chunks = 4096;

template <class T>
struct long_segment {
  std::int64_t segment;
  std::int64_t chunks;         // 0: no slots were left (its warp folds it)
  std::int64_t first_slot;
  unsigned long long claimed;  // chunks handed out (overshoots by the blocks that found none)
  unsigned long long arrived;  // chunks whose value is in their slot
  unsigned int ready;          // 1 once the fields above are written
};

struct long_segment_header {
  unsigned int registered;  // registrations tried (entries: the first long_segment_capacity)
  unsigned int started;     // blocks that began
  unsigned int listed;      // blocks that have listed their long segments
  unsigned int exited;      // blocks done with everything
  unsigned long long slots_taken;
};

inline constexpr std::size_t long_segment_header_bytes = 64;

template <class T>
TALLY_HOST_DEVICE constexpr std::size_t long_segment_list_bytes() {
  return (std::size_t(long_segment_capacity) * sizeof(long_segment<T>) + 15) / 16 * 16;
}
template <class T>
TALLY_HOST_DEVICE constexpr std::size_t long_segment_scratch_bytes() {
  return long_segment_header_bytes + long_segment_list_bytes<T>() + std::size_t(long_segment_slots) * sizeof(maybe<T>);
}

/// A long segment's chunks: `base` base chunks (Warps x sub_chunk_items items) a chunk, so
/// that there are at most max_segment_chunks.
template <int Warps>
struct segment_chunks {
  std::int64_t base, count;
  __device__ TALLY_FORCEINLINE explicit segment_chunks(std::int64_t length) {
    constexpr std::int64_t base_items = Warps * sub_chunk_items;
    const std::int64_t bases = (length + base_items - 1) / base_items;
    base = (bases + max_segment_chunks - 1) / max_segment_chunks;
    count = (length + base * base_items - 1) / (base * base_items);
  }
  /// Sub-chunk k of chunk c: items [begin, begin + sub_items()).
  __device__ TALLY_FORCEINLINE std::int64_t sub_items() const { return base * sub_chunk_items; }
  __device__ TALLY_FORCEINLINE std::int64_t sub_begin(std::int64_t c, int k) const {
    return (c * Warps + k) * sub_items();
  }
};

template <class Word>
__device__ TALLY_FORCEINLINE cuda::atomic_ref<Word, cuda::thread_scope_device> device_atomic(Word& word) {
  return cuda::atomic_ref<Word, cuda::thread_scope_device>(word);
}

/// The fold of items [lo, hi) of a piece of `length` items by one warp, every lane getting
/// it: lane l folds items lo + l, lo + l + 32, ..., four loads in flight folded as a tree in
/// index order, and the warp combines by the backend's mechanism.
template <backend_id Backend, class Plan, class It>
__device__ TALLY_FORCEINLINE maybe<typename Plan::accumulator> warp_fold_span(const Plan& plan, It p,
                                                                              std::int64_t length, std::int64_t lo,
                                                                              std::int64_t hi,
                                                                              maybe<typename Plan::accumulator>* lanes) {
  const int lane = static_cast<int>(threadIdx.x) & 31;
  const auto acc = fold_piece(plan, length, [&](auto& fold) {
    std::int64_t i = lo + lane;
    for (; i + 96 < hi; i += 128) {
      const iter_value_t<It> items[4] = {p[i], p[i + 32], p[i + 64], p[i + 96]};
      fold.tile(items, [&](int r) { return i + std::int64_t(r) * 32; });
    }
    for (; i < hi; i += 32) fold.item(p[i], i);
  });
  if constexpr (Backend == backend_id::shared_memory)
    return group_reduce_tree(acc, 32, lanes, plan.op);
  else
    return group_reduce_shuffle(acc, 32, plan.op);
}

/// A long segment folded by one warp alone, in the order the list's chunks fold it.
template <backend_id Backend, int Warps, class Plan, class It>
__device__ maybe<typename Plan::accumulator> warp_fold_long(const Plan& plan, It p, std::int64_t length,
                                                            maybe<typename Plan::accumulator>* lanes) {
  using T = typename Plan::accumulator;
  const segment_chunks<Warps> geometry(length);
  maybe<T> running{T{}, false};
  for (std::int64_t c = 0; c < geometry.count; ++c) {
    maybe<T> chunk{T{}, false};
    for (int k = 0; k < Warps; ++k) {
      const std::int64_t lo = geometry.sub_begin(c, k);
      if (lo >= length) break;
      const std::int64_t hi = lo + geometry.sub_items() < length ? lo + geometry.sub_items() : length;
      chunk = fold_maybe(chunk, warp_fold_span<Backend>(plan, p, length, lo, hi, lanes), plan.op);
    }
    running = fold_maybe(running, chunk, plan.op);
  }
  return running;
}

template <backend_id Backend, int Threads, class Plan, class It, class Pieces, class Out>
__device__ void pieces_by_segments(It first, const Pieces& pieces, const Plan& plan, Out out,
                                   const scratch_view& scratch, unsigned char* shared) {
  using T = typename Plan::accumulator;
  constexpr int warps_per_block = Threads / 32;
  constexpr std::int64_t base_chunk_items = warps_per_block * sub_chunk_items;
  // Raw storage: a __shared__ array of maybe<T> would need T to be trivially constructible.
  constexpr int batch_size = 256;  // >= warps_per_block
  __shared__ alignas(maybe<T>) unsigned char batch_storage[sizeof(maybe<T>) * batch_size];
  auto* batch = reinterpret_cast<maybe<T>*>(batch_storage);  // sub-chunk values, then slots
  __shared__ long long claimed_entry;
  __shared__ unsigned long long claimed_chunk;
  __shared__ bool is_last;
  auto* lane_slots = reinterpret_cast<maybe<T>*>(shared) + (threadIdx.x & ~31u);
  auto* bytes = static_cast<unsigned char*>(scratch.partials);
  auto& header = *reinterpret_cast<long_segment_header*>(bytes);
  auto* list = reinterpret_cast<long_segment<T>*>(bytes + long_segment_header_bytes);
  auto* slots = reinterpret_cast<maybe<T>*>(bytes + long_segment_header_bytes + long_segment_list_bytes<T>());
  const int tid = static_cast<int>(threadIdx.x), lane = tid & 31, warp_in_block = tid / 32;
  const std::int64_t count = pieces.count();
  const auto finish = [&](std::int64_t s, const maybe<T>& result) {
    if (result.has) plan.finish(out + s, result.value);
    else plan.finish.empty(out + s);
  };

  if (tid == 0) device_atomic(header.started).fetch_add(1u, cuda::std::memory_order_relaxed);

  // Own segments, a warp each (the grid strides over them). First the long ones are
  // listed, 32 of the warp's segments at a time, a lane each, so that every block can
  // start on their chunks as soon as its own short ones are done and leave as soon as no
  // chunk is left: blocks that linger until the slowest block is done cost the next
  // kernel its early start (CSR of 2^16 segments: 69.9 µs against 62.5).
  const std::int64_t warps = std::int64_t(gridDim.x) * warps_per_block;
  const std::int64_t own = std::int64_t(blockIdx.x) * warps_per_block + warp_in_block;
  for (std::int64_t batch_first = own; batch_first < count; batch_first += 32 * warps) {
    const std::int64_t s = batch_first + lane * warps;
    bool unlisted = false;
    if (s < count) {
      const std::int64_t length = pieces.length(s);
      if (length > base_chunk_items) {
        const unsigned int entry = device_atomic(header.registered).fetch_add(1u, cuda::std::memory_order_relaxed);
        unlisted = true;
        if (entry < unsigned(long_segment_capacity)) {
          const std::int64_t chunks = segment_chunks<warps_per_block>(length).count;
          const unsigned long long slot =
              device_atomic(header.slots_taken).fetch_add(static_cast<unsigned long long>(chunks),
                                                           cuda::std::memory_order_relaxed);
          unlisted = slot + chunks > static_cast<unsigned long long>(long_segment_slots);
          list[entry].segment = s;
          list[entry].chunks = unlisted ? 0 : chunks;
          list[entry].first_slot = static_cast<std::int64_t>(slot);
          device_atomic(list[entry].ready).store(1u, cuda::std::memory_order_release);
        }
      }
    }
    // A long segment the list or the slots cannot take: the warp folds it now, alone.
    for (unsigned int left = __ballot_sync(full_warp_mask, unlisted); left != 0; left &= left - 1) {
      const std::int64_t u = batch_first + std::int64_t(__ffs(left) - 1) * warps;
      const maybe<T> result =
          warp_fold_long<Backend, warps_per_block>(plan, first + pieces.begin(u), pieces.length(u), lane_slots);
      if (lane == 0) finish(u, result);
    }
  }
  __syncthreads();
  // Release: this block's list entries before its count as listed.
  if (tid == 0) device_atomic(header.listed).fetch_add(1u, cuda::std::memory_order_release);
  for (std::int64_t s = own; s < count; s += warps) {
    const std::int64_t length = pieces.length(s);
    if (length > base_chunk_items) continue;  // listed, or folded above
    const maybe<T> result = warp_fold_span<Backend>(plan, first + pieces.begin(s), length, 0, length, lane_slots);
    if (lane == 0) finish(s, result);
  }

  // The list's chunks, a block each.
  unsigned int scan = 0;  // entries before it have no chunk left
  for (;;) {
    if (tid == 0) {
      claimed_entry = -1;
      unsigned int pause = 128;  // ns; backs off to 2 µs, so that idle blocks poll the counters rarely
      for (;;) {
        // Listed before started: equal counts mean every block that had started by the
        // second read had listed its long segments by the first, so the list read after is
        // complete for them; blocks that start later take their own entries.
        const unsigned int listed = device_atomic(header.listed).load(cuda::std::memory_order_acquire);
        const unsigned int started = device_atomic(header.started).load(cuda::std::memory_order_acquire);
        unsigned int entries = device_atomic(header.registered).load(cuda::std::memory_order_acquire);
        if (entries > unsigned(long_segment_capacity)) entries = long_segment_capacity;
        for (; scan < entries; ++scan) {
          long_segment<T>& e = list[scan];
          while (device_atomic(e.ready).load(cuda::std::memory_order_acquire) == 0) __nanosleep(32);
          if (e.chunks == 0) continue;
          const unsigned long long c = device_atomic(e.claimed).fetch_add(1ull, cuda::std::memory_order_relaxed);
          if (c < static_cast<unsigned long long>(e.chunks)) {
            claimed_entry = scan;
            claimed_chunk = c;
            break;
          }
        }
        if (claimed_entry >= 0 || listed == started) break;
        __nanosleep(pause);
        if (pause < 2048) pause *= 2;
      }
    }
    __syncthreads();
    const long long entry = claimed_entry;
    if (entry < 0) break;
    long_segment<T>& e = list[entry];
    const std::int64_t c = static_cast<std::int64_t>(claimed_chunk);
    const std::int64_t s = e.segment, length = pieces.length(s), chunks = e.chunks, first_slot = e.first_slot;
    const It p = first + pieces.begin(s);
    const segment_chunks<warps_per_block> geometry(length);
    const std::int64_t lo = geometry.sub_begin(c, warp_in_block);
    maybe<T> sub{T{}, false};
    if (lo < length) {
      const std::int64_t hi = lo + geometry.sub_items() < length ? lo + geometry.sub_items() : length;
      sub = warp_fold_span<Backend>(plan, p, length, lo, hi, lane_slots);
    }
    if (lane == 0) batch[warp_in_block] = sub;
    __syncthreads();
    if (tid == 0) {
      maybe<T> folded{T{}, false};
      for (int k = 0; k < warps_per_block; ++k) folded = fold_maybe(folded, batch[k], plan.op);
      slots[first_slot + c] = folded;
      // acq_rel: the slot before the arrival (release); the last arrival sees every slot.
      const unsigned long long before = device_atomic(e.arrived).fetch_add(1ull, cuda::std::memory_order_acq_rel);
      is_last = static_cast<std::int64_t>(before) + 1 == chunks;
    }
    __syncthreads();
    if (is_last) {
      // As in the rows' last block: thread 0 acquired, the barrier passes it on, the fence
      // keeps the loads from a stale L1 line. The slots folded in chunk order, a batch at a
      // time through shared memory.
      acquire_fence();
      maybe<T> running{T{}, false};
      for (std::int64_t b = 0; b < chunks; b += batch_size) {
        const int n = chunks - b < batch_size ? static_cast<int>(chunks - b) : batch_size;
        for (int k = tid; k < n; k += Threads) batch[k] = slots[first_slot + b + k];
        __syncthreads();
        if (tid == 0) {
          for (int k = 0; k < n; ++k) running = fold_maybe(running, batch[k], plan.op);
        }
        __syncthreads();
      }
      if (tid == 0) finish(s, running);
    }
    __syncthreads();  // batch, is_last and the claim are reused
  }

  // The last block to leave: every other block has left, so nothing else touches the
  // scratch; zero what this call used for the next.
  if (tid == 0) {
    const unsigned int before = device_atomic(header.exited).fetch_add(1u, cuda::std::memory_order_acq_rel);
    if (before + 1 == gridDim.x) {
      unsigned int entries = header.registered;
      if (entries > unsigned(long_segment_capacity)) entries = long_segment_capacity;
      for (unsigned int k = 0; k < entries; ++k) {
        list[k].claimed = 0;
        list[k].arrived = 0;
        list[k].ready = 0;
      }
      header.registered = 0;
      header.started = 0;
      header.listed = 0;
      header.exited = 0;
      header.slots_taken = 0;
    }
  }
}

}  // namespace detail
TALLY_NAMESPACE_END
