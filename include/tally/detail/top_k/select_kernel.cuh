#pragma once
// top_k with a run-time k over one flat range: a radix select in one cooperative launch.
//
// Every item is ranked by a composite key, larger is better: the value's order key (the
// library's order: NaN greatest, -0.0 == +0.0; its bits inverted for tally::greater<>)
// above its inverted index (2^index_bits - 1 - index, so that the lower index wins a tie and
// no real item has the all-zero key). Composite keys are distinct, so the k best are
// exactly the items whose key is at least the k-th largest key, and finding that key
// digit by digit (11 bits at a time, from the top) needs no tie rule at all. The index
// takes index_bits = the bit width of n, so 2^index_bits - 1 - index >= 1.
//
// A pass reads the items still in the running (all of them at first) and, for the digit
// being decided, histograms them; every block then reads the same histogram and makes
// the same decision: the bucket b that holds the k-th best, how many of the k are above
// it. The next pass writes the items above b to the chosen list, keeps those in b in the
// running (and writes them to a buffer when they fit, so that later passes read the
// buffer, not the input) and histograms their next digit. It ends when the items in b are
// exactly the ones still needed. When a digit does not split the items at all (all
// equal values, a common exponent), the pass's OR of the keys and of their complements
// says how many more bits they share, and the next pass skips those bits: all-equal
// inputs go straight to the index bits.
//
// Most inputs never need those passes over the input: samples (select_samples in the
// dispatch: runs of adjacent items spread over the input) give a threshold that about
// 1.5 k + 16 n / m items beat. Up to 4096 samples of small values, every block finds the
// same one (block_threshold) and no grid barrier waits for it; more, the grid draws them
// into registers and finds it in three barriers (grid_threshold_words). One lean pass
// (threshold_pass: 16-byte loads, a native compare of the item with the threshold's
// value, one atomic a warp, or a block in its staged first round where every warp of
// the grid appends at once: block_append_all) writes those items to a buffer (with
// their packed keys, where keys pack in 64 bits), and the select runs on the buffer;
// or, when they are at most select_rank_capacity packed keys (rank_and_write: the grid
// ranks them) or 2048 wider ones (block 0 sorts them), they are the output's candidates
// directly. Only when fewer than k beat the threshold, or too many to keep, does the
// select start over on the input (one read more).
//
// Then the k chosen items are sorted by composite key (best first): one block sorts up to
// select_sort_capacity of them (sort_keys.cuh: a bitonic network, mostly in registers,
// after a radix select in the block keeps only the k best of more than 1024 candidates);
// more are sorted in chunks and the sorted chunks merged in rounds, each item placed by a
// binary search for its rank in the other run of its pair (the keys are distinct, so
// ranks never collide).
//
// Blocks meet at grid barriers (grid/barrier.cuh): the launch is cooperative, so every
// block is resident. Scratch: the select_state (zeroed by every block, a slice each,
// before the first barrier), the chosen list (k indices), two buffers, two sort arrays.

#include <tally/detail/float_order.cuh>
#include <tally/detail/runtime/pdl.cuh>
#include <tally/detail/top_k/sort_keys.cuh>
#include <tally/detail/top_k/stream_timeline.cuh>
#include <tally/grid/barrier.cuh>
#include <tally/warp/shuffle.cuh>
#include <tally/warp/slot_ballots.cuh>

#include <cuda/std/limits>

#include <cuda_pipeline_primitives.h>

#include <cstddef>
#include <cstdint>

TALLY_NAMESPACE_BEGIN
namespace detail {

inline constexpr int select_threads = 512;
inline constexpr int select_digit_bits = 11;
inline constexpr int select_buckets = 1 << select_digit_bits;  // 2048: one u32 per thread-quad in shared memory
inline constexpr int select_sort_chunk = 2048;                 // 32 KB of keys: one block's shared sort
inline constexpr int select_items_per_thread = 4;              // loads in flight per thread in a pass
// Two blocks (32 warps) per SM, so at most 64 registers: with one (107 registers
// unbounded) too few loads are in flight to keep a pass at the memory's speed.
inline constexpr int select_blocks_per_sm = 2;
/// The fewest blocks that rank a threshold's candidates (rank_and_write; select_dispatch.cuh).
inline constexpr std::int64_t select_rank_blocks = 128;

/// Keys one block sorts in its shared memory at once (sort_keys.cuh): select_sort_chunk
/// composite keys, or twice as many where they pack in 64 bits (the order key above the
/// inverted index: key_bits + index_bits <= 64).
TALLY_HOST_DEVICE constexpr std::int64_t select_sort_capacity(int key_bits, int index_bits) {
  return key_bits + index_bits <= 64 ? 2 * select_sort_chunk : select_sort_chunk;
}

/// Candidates a warp of rank_and_write ranks at once (their words in registers).
inline constexpr int select_rank_batch = 8;
/// The most threshold candidates of packed keys the grid ranks (rank_and_write) without a
/// select: up to select_rank_batch a warp over select_rank_blocks blocks. Four times one
/// block's sort (4096) lets 2^19..2^21 items at k = 256..1024 find their threshold in
/// every block from 4096 samples (select_dispatch.cuh), not over the grid's barriers.
inline constexpr std::int64_t select_rank_capacity = 16384;

/// The most threshold candidates written without a select: select_rank_capacity packed
/// keys (ranked by the grid), else what block 0 sorts; at most what the buffers hold.
TALLY_HOST_DEVICE constexpr std::int64_t select_candidate_capacity(int key_bits, int index_bits,
                                                                   std::int64_t buffer_capacity) {
  const std::int64_t most = key_bits + index_bits <= 64 ? select_rank_capacity : select_sort_chunk;
  return most < buffer_capacity ? most : buffer_capacity;
}

/// Whether one block sorts the whole input (no select): up to 1024 items, k most of at
/// most 2048, or, for values of at most 4 bytes (keys that pack in 64 bits up to 4096
/// items), up to 4096 items. On the H200 sorting 1024 packed keys in one block with the
/// network in shared memory took 12 µs, selecting 8 of them through the sampled threshold
/// 21 µs (its phases and barriers), and the select of k = 1024 of 4096 floats about 40 µs
/// on the H100 (docs/performance.md#stream-pass-mask). Sorting all 4096 in registers
/// (sort_keys.cuh) takes 20 µs of the select kernel's 24 on the H100, one SM's worth of
/// compare-exchanges (docs/performance.md#block-sort-registers).
TALLY_HOST_DEVICE constexpr bool select_sorts_all(std::int64_t n, std::int64_t k, int key_bits) {
  if (key_bits <= 32 && n <= 2 * select_sort_chunk) return true;
  return n <= 1024 || (n <= select_sort_chunk && 2 * k >= n);
}

/// The state the blocks share, zeroed at the start of each launch.
struct select_state {
  unsigned long long selected;                // entries in the chosen list
  unsigned long long buffered[2];             // entries written to buffer 0 / 1
  unsigned long long hist[3][select_buckets]; // per pass (three in rotation: see run_select_pass)
  unsigned long long bits[3][4];              // per pass: OR of key, ~key, inv, ~inv of the items counted
  unsigned long long sample_bits[4];          // the same over the samples
  unsigned long long sample_hist[2][select_buckets];
};

template <class It, class ValueOut, class IndexOut>
struct select_params {
  It first;
  std::int64_t n;
  std::int64_t k;  // 1 <= k <= n
  int key_bits;    // 8 * sizeof(value)
  int index_bits;  // the bit width of n (2^index_bits > n): every inverted index is >= 1
  bool largest;    // tally::less<>: the largest first; tally::greater<>: the smallest
  ValueOut values;
  IndexOut indices;
  select_state* state;
  unsigned long long* chosen;     // k indices
  unsigned long long* buffer[2];  // buffer_capacity indices each
  std::int64_t buffer_capacity;
  select_key* sorted[2];          // k keys each (only when k > select_sort_capacity)
  select_key* samples;            // sample_count keys (the threshold's estimate)
  std::int64_t sample_count;      // 0: no threshold pass
  unsigned long long sample_rank; // the threshold: about the sample_rank-th best sample
  std::int64_t sample_spacing;    // select_sample_spacing(n, sample_count)
  unsigned int* arrivals;         // zero between calls
  unsigned int* exits;            // zero between calls
  unsigned long long* candidates; // the threshold pass's count and, from counted_barrier_shift
                                  // up, its barrier's arrivals (grid_barrier_counted); zero
                                  // between calls (so no block has to clear it before the
                                  // others append)
};

/// The composite key of `value`, the item at `index`.
template <class P, class V>
__device__ TALLY_FORCEINLINE select_key select_key_of(const P& p, V value, std::int64_t index) {
  const unsigned long long key_mask = p.key_bits == 64 ? ~0ull : (1ull << p.key_bits) - 1;
  unsigned long long key = static_cast<unsigned long long>(to_order_key(value));
  if (!p.largest) key = ~key & key_mask;
  return {key, ((1ull << p.index_bits) - 1) - static_cast<unsigned long long>(index)};
}

/// Whether composite keys pack in 64 bits (the order key above the inverted index).
template <class P>
__device__ TALLY_FORCEINLINE bool select_keys_pack(const P& p) {
  return p.key_bits + p.index_bits <= 64;
}

/// The packed composite key of `value`, the item at `index` (select_keys_pack).
template <class P, class V>
__device__ TALLY_FORCEINLINE unsigned long long packed_word_of(const P& p, V value, std::int64_t index) {
  const select_key c = select_key_of(p, value, index);
  return (c.key << p.index_bits) | c.inv;
}

template <class P>
__device__ TALLY_FORCEINLINE select_key make_select_key(const P& p, std::int64_t index) {
  using V = iter_value_t<decltype(p.first)>;
  return select_key_of(p, static_cast<V>(p.first[index]), index);
}

template <class P>
__device__ TALLY_FORCEINLINE std::int64_t index_of(const P& p, const select_key& c) {
  return static_cast<std::int64_t>(((1ull << p.index_bits) - 1) - c.inv);
}

/// The w-bit digit at bit `pos` from the top of the composite key (digits never straddle
/// the key and the index: select_width).
template <class P>
__device__ TALLY_FORCEINLINE unsigned int select_digit(const P& p, const select_key& c, int pos, int w) {
  const unsigned long long mask = (1ull << w) - 1;
  if (pos < p.key_bits) return static_cast<unsigned int>((c.key >> (p.key_bits - pos - w)) & mask);
  return static_cast<unsigned int>((c.inv >> (p.index_bits - (pos - p.key_bits) - w)) & mask);
}

template <class P>
__device__ TALLY_FORCEINLINE int select_width(const P& p, int pos) {
  const int left = pos < p.key_bits ? p.key_bits - pos : p.key_bits + p.index_bits - pos;
  return left < select_digit_bits ? left : select_digit_bits;
}

/// Whether the top `keep` of the `bits`-bit values a and b are equal.
__device__ TALLY_FORCEINLINE bool top_bits_equal(unsigned long long a, unsigned long long b, int bits, int keep) {
  if (keep <= 0) return true;
  if (keep >= bits) return a == b;
  return (a >> (bits - keep)) == (b >> (bits - keep));
}

__device__ TALLY_FORCEINLINE unsigned long long keep_top_bits(unsigned long long a, int bits, int keep) {
  if (keep <= 0) return 0;
  if (keep >= bits) return a;
  return a >> (bits - keep) << (bits - keep);
}

/// Whether c's top `pos` bits are the prefix's.
template <class P>
__device__ TALLY_FORCEINLINE bool in_running(const P& p, const select_key& c, const select_key& prefix, int pos) {
  return top_bits_equal(c.key, prefix.key, p.key_bits, pos) &&
         top_bits_equal(c.inv, prefix.inv, p.index_bits, pos - p.key_bits);
}

/// Appends `value` to array[*counter...] for each lane that wants to: one atomic per warp.
/// Every lane of the warp calls it.
__device__ TALLY_FORCEINLINE void warp_append(unsigned long long* counter, unsigned long long* array, bool want,
                                              unsigned long long value,
                                              unsigned long long capacity = ~0ull) {
  const unsigned int mask = __ballot_sync(0xffffffffu, want);
  if (mask == 0) return;
  const int lane = static_cast<int>(threadIdx.x & 31);
  const int leader = __ffs(mask) - 1;
  unsigned long long base = 0;
  if (lane == leader) base = atomicAdd(counter, static_cast<unsigned long long>(__popc(mask)));
  base = __shfl_sync(0xffffffffu, base, leader);
  const unsigned long long at = base + __popc(mask & ((1u << lane) - 1u));
  if (want && at < capacity) array[at] = value;  // counted beyond the capacity, never written there
}

/// The writes of a warp's appended slots from `base` on (slot_ballots' masks): slot u of
/// the lanes that want it is one run of the array, value(u) at each, and also(u, at).
template <int N, class Value, class Also>
__device__ TALLY_FORCEINLINE void write_appended_slots(unsigned long long base, const unsigned int (&mask)[N],
                                                       const bool (&want)[N], unsigned long long* array,
                                                       unsigned long long capacity, Value value, Also also) {
  const unsigned int below = (1u << (threadIdx.x & 31)) - 1u;
#pragma unroll
  for (int u = 0; u < N; ++u) {
    const unsigned long long at = base + static_cast<unsigned int>(__popc(mask[u] & below));
    if (want[u] && at < capacity) {  // counted beyond the capacity, never written there
      array[at] = value(u);
      also(u, at);
    }
    base += static_cast<unsigned int>(__popc(mask[u]));
  }
}

/// warp_append_all's default `also`: nothing more a slot.
struct append_nothing_more {
  __device__ TALLY_FORCEINLINE void operator()(int, unsigned long long) const {}
};

/// Appends, for each lane, value(u) for every u < N with want[u], to array[*counter...]:
/// one atomic for the whole warp. The threshold pass's candidates all go to one counter,
/// so its atomics serialise: one a warp and round, not one per item slot
/// (docs/performance.md#keep-best). Slot u of the lanes that want it is one run of the
/// array (a ballot a slot): each store instruction writes adjacent words. (Each lane's
/// items adjacent instead, a lane's stores lie 8 words apart, a sector each: where the
/// candidates crowd into a few warps, as on data in order, those warps' stores held up
/// the pass.) also(u, at) then writes whatever else belongs to slot `at` (the threshold
/// pass: the packed word). The counter's bits from counted_barrier_shift up may count a
/// grid_barrier_counted's arrivals (the threshold pass's count): its old value is read
/// through counted_barrier_mask. Every lane of the warp calls it.
template <int N, class Value, class Also = append_nothing_more>
__device__ TALLY_FORCEINLINE void warp_append_all(unsigned long long* counter, unsigned long long* array,
                                                  const bool (&want)[N], Value value,
                                                  unsigned long long capacity = ~0ull, Also also = {}) {
  unsigned int mask[N];
  const unsigned int total = slot_ballots(want, mask);
  if (total == 0) return;
  unsigned long long base = 0;
  if ((threadIdx.x & 31) == 0) base = atomicAdd(counter, static_cast<unsigned long long>(total)) & counted_barrier_mask;
  write_appended_slots(__shfl_sync(0xffffffffu, base, 0), mask, want, array, capacity, value, also);
}

/// What one pass does (the same in every block).
struct select_pass {
  int source;              // -1: the input; 0 / 1: that buffer
  unsigned long long source_count;
  select_key prefix;       // the running items are those whose top `pos` bits are prefix's
  int pos;
  bool filter;             // split the running items on the digit (pos, w) at bucket b
  int w;
  unsigned int b;
  bool take_all;           // the items in b (or, without filter, all running items) are chosen
  bool histogram;          // histogram the next digit (npos, nw) of the items kept running
  int npos, nw;
  int slot;                // the histogram's slot (0..2)
  int buffer_out;          // -1: none; 0 / 1: write the items kept running there
  bool threshold;          // (the kernel's flag: run threshold_pass with t, t_bits first)
  select_key t;
  int t_bits;
};

struct select_shared {
  unsigned int hist[select_buckets];
  unsigned long long bits[4];
  unsigned int appended;           // block_append_all: the block's candidates (zeroed by block_threshold)
  unsigned long long append_base;  // block_append_all: where they go
};

/// warp_append_all for a whole block: each warp's count into the block's (sh.appended, zero
/// on entry), then one atomic of the block on `counter`; two barriers (every thread of
/// the block calls it). The threshold pass's staged round, where every warp of the grid
/// appends at once: one atomic a warp, the warps' 2048 or so on the one word at 2^19
/// (the grid's one round) were served one at a time, the last block arriving 2.6 µs
/// after the threshold (flat, k = 1024, the H200, benchmarks/timeline).
template <int N, class Value, class Also>
__device__ TALLY_FORCEINLINE void block_append_all(unsigned long long* counter, select_shared& sh,
                                                   unsigned long long* array, const bool (&want)[N], Value value,
                                                   unsigned long long capacity, Also also) {
  unsigned int mask[N];
  const unsigned int total = slot_ballots(want, mask);
  unsigned int at = 0;
  if ((threadIdx.x & 31) == 0 && total != 0) at = atomicAdd(&sh.appended, total);
  __syncthreads();
  if (threadIdx.x == 0) {
    const unsigned int block_total = sh.appended;
    sh.append_base =
        block_total != 0 ? atomicAdd(counter, static_cast<unsigned long long>(block_total)) & counted_barrier_mask : 0ull;
  }
  __syncthreads();
  if (total == 0) return;
  write_appended_slots(sh.append_base + __shfl_sync(0xffffffffu, at, 0), mask, want, array, capacity, value, also);
}

template <class P>
__device__ void run_select_pass(const P& p, const select_pass& s, select_shared& sh) {
  select_state& st = *p.state;
  if (s.histogram) {
    for (int i = threadIdx.x; i < select_buckets; i += blockDim.x) sh.hist[i] = 0;
    if (threadIdx.x < 4) sh.bits[threadIdx.x] = 0;
  }
  // Block 0 clears what the pass after this one fills: the next histogram slot (last read
  // by the decision before the previous pass) and the other buffer's counter (that buffer
  // is this pass's source, read by its count from the decision, not by the counter).
  if (blockIdx.x == 0) {
    const int clear = (s.slot + 1) % 3;
    for (int i = threadIdx.x; i < select_buckets; i += blockDim.x) st.hist[clear][i] = 0;
    if (threadIdx.x < 4) st.bits[clear][threadIdx.x] = 0;
    if (threadIdx.x == 0 && s.buffer_out >= 0) st.buffered[1 - s.buffer_out] = 0;
  }
  __syncthreads();
  unsigned long long or_key = 0, or_not_key = 0, or_inv = 0, or_not_inv = 0;
  unsigned int run_digit = 0xffffffffu, run_count = 0;
  const unsigned long long key_mask = p.key_bits == 64 ? ~0ull : (1ull << p.key_bits) - 1;
  const unsigned long long inv_mask = (1ull << p.index_bits) - 1;
  const std::int64_t total = s.source < 0 ? p.n : static_cast<std::int64_t>(s.source_count);
  const std::int64_t step = std::int64_t(gridDim.x) * blockDim.x * select_items_per_thread;
  // The bound is the same for every thread of the block, so whole warps iterate together
  // (warp_append's ballots).
  for (std::int64_t base = std::int64_t(blockIdx.x) * blockDim.x * select_items_per_thread; base < total; base += step) {
    std::int64_t index[select_items_per_thread];
    select_key key[select_items_per_thread];
#pragma unroll
    for (int u = 0; u < select_items_per_thread; ++u) {
      const std::int64_t j = base + std::int64_t(u) * blockDim.x + threadIdx.x;
      index[u] = -1;
      if (j < total) index[u] = s.source < 0 ? j : static_cast<std::int64_t>(p.buffer[s.source][j]);
    }
#pragma unroll
    for (int u = 0; u < select_items_per_thread; ++u)
      if (index[u] >= 0) key[u] = make_select_key(p, index[u]);
#pragma unroll
    for (int u = 0; u < select_items_per_thread; ++u) {
      const bool running = index[u] >= 0 && in_running(p, key[u], s.prefix, s.pos);
      bool chosen = false, kept = false;
      if (running) {
        if (s.filter) {
          const unsigned int d = select_digit(p, key[u], s.pos, s.w);
          chosen = d > s.b || (s.take_all && d == s.b);
          kept = !s.take_all && d == s.b;
        } else {
          chosen = s.take_all;
          kept = !s.take_all;
        }
      }
      warp_append(&st.selected, p.chosen, chosen, static_cast<unsigned long long>(index[u]));
      if (s.buffer_out >= 0)
        warp_append(&st.buffered[s.buffer_out], p.buffer[s.buffer_out], kept, static_cast<unsigned long long>(index[u]));
      if (kept && s.histogram) {
        // A thread counts a run of equal digits in registers and adds the run at once:
        // skewed data (all equal, few distinct top bits) would otherwise make every lane
        // of a warp hit one shared counter, which serialises them (and __match_any_sync,
        // which would merge them, is slow enough to make the pass compute-bound).
        const unsigned int digit = select_digit(p, key[u], s.npos, s.nw);
        if (digit == run_digit) {
          ++run_count;
        } else {
          if (run_count != 0) atomicAdd(&sh.hist[run_digit], run_count);
          run_digit = digit;
          run_count = 1;
        }
        or_key |= key[u].key;
        or_not_key |= ~key[u].key & key_mask;
        or_inv |= key[u].inv;
        or_not_inv |= ~key[u].inv & inv_mask;
      }
    }
  }
  if (!s.histogram) return;
  if (run_count != 0) atomicAdd(&sh.hist[run_digit], run_count);
  for (int offset = 16; offset > 0; offset /= 2) {
    or_key |= __shfl_xor_sync(0xffffffffu, or_key, offset);
    or_not_key |= __shfl_xor_sync(0xffffffffu, or_not_key, offset);
    or_inv |= __shfl_xor_sync(0xffffffffu, or_inv, offset);
    or_not_inv |= __shfl_xor_sync(0xffffffffu, or_not_inv, offset);
  }
  if ((threadIdx.x & 31) == 0) {
    atomicOr(&sh.bits[0], or_key);
    atomicOr(&sh.bits[1], or_not_key);
    atomicOr(&sh.bits[2], or_inv);
    atomicOr(&sh.bits[3], or_not_inv);
  }
  __syncthreads();
  for (int i = threadIdx.x; i < select_buckets; i += blockDim.x)
    if (sh.hist[i] != 0) atomicAdd(&st.hist[s.slot][i], static_cast<unsigned long long>(sh.hist[i]));
  if (threadIdx.x < 4 && sh.bits[threadIdx.x] != 0) atomicOr(&st.bits[s.slot][threadIdx.x], sh.bits[threadIdx.x]);
}

/// For threshold_pass over floats: a float `bound` such that an item's order key (inverted
/// for the smallest) is at least `low` exactly when, natively, !(x < bound) (largest: NaN
/// passes) or x <= bound (smallest: NaN fails); -0.0 and +0.0 compare equal both ways, as
/// their keys are one. The bound is the value of the first key at or above `low` that a
/// float has (largest; the last at or below ~low, smallest): no float has the keys of
/// -0.0's bits and of NaN payloads. False where no number bounds it (a threshold among
/// the NaN keys, or past every number's): the caller compares keys.
TALLY_HOST_DEVICE TALLY_FORCEINLINE bool float_threshold_bound(bool largest, unsigned int low, float& bound) {
  constexpr unsigned int minus_inf = 0x007fffffu, zero = 0x80000000u, plus_inf = 0xff800000u;
  if (largest) {
    if (low <= minus_inf) {
      bound = -cuda::std::numeric_limits<float>::infinity();
      return true;
    }
    if (low == zero - 1) low = zero;  // -0.0's bits: no float's key
    if (low > plus_inf) return false;
    bound = from_order_key<float>(low);
    return true;
  }
  unsigned int high = ~low;  // key <= high
  if (high == 0xffffffffu || high < minus_inf) return false;
  if (high >= plus_inf) {
    bound = cuda::std::numeric_limits<float>::infinity();
    return true;
  }
  if (high == zero - 1) high = zero - 2;  // -0.0's bits: the last key below is -denorm_min's
  bound = from_order_key<float>(high);
  return true;
}

/// threshold_pass's compare of 4-byte arithmetic items in their own type: an item is a
/// candidate when it passes `bound` (largest: !(x < bound); smallest: x <= bound) or equals
/// `tie` at an index of at most last_index (-1: none). From the threshold (a candidate's
/// order key, inverted for the smallest, is at least low = t_key << shift; or, with t_bits
/// past the key, above t_key, or equal to it at an index of at most last_index). False
/// where the item's type cannot say it (floats: a threshold among the NaN keys, or a tie
/// with a key no float has): the caller compares keys.
template <class V>
struct native_threshold {
  V bound{};
  V tie{};
  bool largest = true;
  std::int64_t last_index = -1;
};
template <class V>
TALLY_HOST_DEVICE TALLY_FORCEINLINE bool make_native_threshold(bool largest, bool key_only, int shift,
                                                               unsigned int t_key, std::int64_t last_index,
                                                               native_threshold<V>& out) {
  static_assert(sizeof(V) == 4, "4-byte items");
  out.largest = largest;
  out.last_index = key_only ? -1 : last_index;
  if (!key_only && t_key == 0xffffffffu) return false;  // nothing above it: the ties alone
  if (key_only && shift >= 32) return false;
  const unsigned int low = key_only ? t_key << shift : t_key + 1;
  if constexpr (std::is_same_v<V, float>) {
    if (!float_threshold_bound(largest, low, out.bound)) return false;
    if (!key_only) {
      // The tie's key must be a number's, and its only one (not -0.0's bits, not a NaN's).
      const unsigned int key = largest ? t_key : ~t_key;
      if (key == 0xffffffffu || key == 0x7fffffffu || key < 0x007fffffu || key > 0xff800000u) return false;
      out.tie = from_order_key<float>(key);
    }
    return true;
  } else {
    // Every 32-bit key is one integer's.
    out.bound = from_order_key<V>(static_cast<order_key_t<V>>(largest ? low : ~low));
    if (!key_only) out.tie = from_order_key<V>(static_cast<order_key_t<V>>(largest ? t_key : ~t_key));
    return true;
  }
}

/// 16-byte vectors a thread of threshold_pass_vectors reads a round: 8 items (4 vectors:
/// 1.05-1.07x the time at 2^24..2^28, H200).
inline constexpr int select_pass_vectors = 2;

/// The first vector of warp w's tile in the first round of threshold_pass_vectors: a warp
/// reads select_pass_vectors x 32 adjacent vectors a round (each of its loads 32 adjacent
/// vectors), and the grid's warps take the tiles round-robin over the blocks (tile w to
/// block w % grid, its warp w / grid), so that an input of fewer tiles than warps spreads
/// over every SM. With a block's tiles adjacent, 2^16 items were 16 blocks' whole pass,
/// and those 16 SMs' warps (their compares, appends and words, about 700 instructions a
/// warp) issued for 1.6-1.9 µs while the other blocks waited at the barrier (ncu: issue-
/// and latency-bound, not memory-bound; docs/performance.md#select-pass-spread).
__device__ TALLY_FORCEINLINE std::int64_t first_pass_tile() {
  const std::int64_t warp = std::int64_t(threadIdx.x >> 5) * gridDim.x + blockIdx.x;
  return warp * select_pass_vectors * 32;
}

/// Asks for the block's first round of threshold_pass_vectors (select_pass_vectors vectors
/// a thread: first_pass_tile) to be copied into `staged` in shared
/// memory, asynchronously (cp.async on sm_80+): where every block finds the threshold
/// itself, the copies arrive while it draws and ranks its samples, and up to
/// select_rank_blocks * select_threads * 8 items (2^19) that round is the whole pass. A
/// thread later reads only the vectors it asked for, after __pipeline_wait_prior(0).
template <class P>
__device__ TALLY_FORCEINLINE void stage_first_round(const P& p, uint4* staged) {
  const auto* in = reinterpret_cast<const uint4*>(p.first);
  const std::int64_t count = p.n / 4;
  const std::int64_t first = first_pass_tile();
#pragma unroll
  for (int u = 0; u < select_pass_vectors; ++u) {
    const std::int64_t at = first + u * 32 + (threadIdx.x & 31);
    if (at < count) __pipeline_memcpy_async(&staged[u * blockDim.x + threadIdx.x], &in[at], sizeof(uint4));
  }
  __pipeline_commit();
}

/// The 16-byte body of threshold_pass over 4-byte items (count vectors of 4 at `in`),
/// compared natively: a compare an item (two where the threshold reaches into the index),
/// where the order key's arithmetic and the index's (the kernel issued about 26
/// instructions an item, ncu) left the pass bound by the ALU pipe at 2.2 TB/s on the H200
/// (docs/performance.md#select-native-pass).
/// `staged`, where not null, holds the block's first round (stage_first_round), whose
/// candidates the block appends as one where that round has a tile for at least half the
/// grid's warps (block_append_all: every warp of the block takes that round, those past
/// the input with nothing).
template <bool Largest, class P, class V>
__device__ TALLY_FORCEINLINE void threshold_pass_vectors(const P& p, const uint4* in, std::int64_t count,
                                                         const native_threshold<V>& t, bool packed,
                                                         const uint4* staged, select_shared& sh) {
  constexpr int vectors = select_pass_vectors;
  const std::int64_t vstep = std::int64_t(gridDim.x) * blockDim.x * vectors;
  const std::int64_t first = first_pass_tile();  // the warp's; its lanes' vectors base + 32 u + lane
  const int lane = static_cast<int>(threadIdx.x & 31);
  // One round: the lane's vectors v of the tile at base, which of their items get in.
  const auto compare = [&](std::int64_t base, const uint4 (&v)[vectors], bool (&want)[vectors * 4]) {
    bool any = false;
#pragma unroll
    for (int u = 0; u < vectors; ++u) {
      const std::int64_t at = base + u * 32 + lane;
      const unsigned int words[4] = {v[u].x, v[u].y, v[u].z, v[u].w};
      bool c[4];
#pragma unroll
      for (int e = 0; e < 4; ++e) {
        const V x = bit_cast<V>(words[e]);
        c[e] = Largest ? !(x < t.bound) : x <= t.bound;
      }
      if (t.last_index >= 0) {
        // Ties (the same for every thread): item e of the vector ties in when e <= room
        // (its index at * 4 + e <= last_index). A uniform branch: the usual threshold
        // has none, and their compares cost it (1.10x the time at 2^28, H200).
        const std::int64_t room64 = t.last_index - at * 4;
        const int room = room64 < 0 ? -1 : room64 > 3 ? 3 : static_cast<int>(room64);
#pragma unroll
        for (int e = 0; e < 4; ++e) c[e] |= (bit_cast<V>(words[e]) == t.tie) & (e <= room);
      }
#pragma unroll
      for (int e = 0; e < 4; ++e) {
        want[u * 4 + e] = c[e] & (at < count);
        any |= want[u * 4 + e];
      }
    }
    return any;
  };
  // Item c of the lane's round at base: its index, and its packed word to buffer 0.
  const auto index_at = [&](std::int64_t base, int c) { return (base + lane + (c / 4) * 32) * 4 + c % 4; };
  const auto word_to = [&](std::int64_t base, const uint4 (&v)[vectors]) {
    return [&, base](int c, unsigned long long at) {
      if (packed) {
        const unsigned int words[4] = {v[c / 4].x, v[c / 4].y, v[c / 4].z, v[c / 4].w};
        p.buffer[0][at] = packed_word_of(p, bit_cast<V>(words[c % 4]), index_at(base, c));
      }
    };
  };
  std::int64_t base = first;
  if (staged) {
    uint4 v[vectors];
#pragma unroll
    for (int u = 0; u < vectors; ++u)
      v[u] = base + u * 32 + lane < count ? staged[u * blockDim.x + threadIdx.x] : make_uint4(0, 0, 0, 0);
    bool want[vectors * 4];
    const bool any = compare(base, v, want);
    const auto index = [&](int c) { return static_cast<unsigned long long>(index_at(base, c)); };
    if (2 * count >= vstep) {
      block_append_all(p.candidates, sh, p.buffer[1], want, index, static_cast<unsigned long long>(p.buffer_capacity),
                       word_to(base, v));
    } else if (__any_sync(0xffffffffu, any)) {
      // Fewer tiles than half the grid's warps: their atomics are few, and the block's
      // two barriers cost more than they save (1.01-1.03x the time at 2^14..2^18).
      warp_append_all(p.candidates, p.buffer[1], want, index, static_cast<unsigned long long>(p.buffer_capacity),
                      word_to(base, v));
    }
    base += vstep;
  }
  for (; base < count; base += vstep) {
    uint4 v[vectors];
#pragma unroll
    for (int u = 0; u < vectors; ++u) {
      const std::int64_t at = base + u * 32 + lane;
      v[u] = at < count ? in[at] : make_uint4(0, 0, 0, 0);
    }
    bool want[vectors * 4];
    if (__any_sync(0xffffffffu, compare(base, v, want))) {
      warp_append_all(
          p.candidates, p.buffer[1], want,
          [&](int c) { return static_cast<unsigned long long>(index_at(base, c)); },
          static_cast<unsigned long long>(p.buffer_capacity), word_to(base, v));
    }
  }
}

/// threshold_pass_vectors' last n % 4 items: block 0's first warp. Not inlined, nor is
/// threshold_pass_items: inlined, their code lay between the threshold pass's loop and the
/// grid barrier after it, and every SM fetched the code past them from L2 on a jump, all
/// its warps waiting (ncu's samples at 2^16; docs/performance.md#select-code-layout).
template <class P, class V>
__device__ __noinline__ void threshold_pass_tail(const P& p, native_threshold<V> t, bool packed) {
  const std::int64_t n = p.n;
  const std::int64_t j = n / 4 * 4 + threadIdx.x;
  bool c = false;
  if (j < n) {
    const V x = p.first[j];
    c = (t.largest ? !(x < t.bound) : x <= t.bound) || (x == t.tie && j <= t.last_index);
  }
  const bool wants[1] = {c};
  warp_append_all(
      p.candidates, p.buffer[1], wants, [&](int) { return static_cast<unsigned long long>(j); },
      static_cast<unsigned long long>(p.buffer_capacity), [&](int, unsigned long long at) {
        if (packed) p.buffer[0][at] = packed_word_of(p, p.first[j], j);
      });
}

/// threshold_pass by order keys, an item at a time: inputs that are not 4-byte items at a
/// 16-byte aligned pointer, or a threshold their type cannot say (native_threshold).
template <class P>
__device__ __noinline__ void threshold_pass_items(const P& p, unsigned long long t_key, int shift, bool key_only,
                                                  std::int64_t last_index, bool packed) {
  using V = iter_value_t<decltype(p.first)>;
  const unsigned long long key_mask = p.key_bits == 64 ? ~0ull : (1ull << p.key_bits) - 1;
  const std::int64_t n = p.n;
  const std::int64_t step = std::int64_t(gridDim.x) * blockDim.x * select_items_per_thread;
  for (std::int64_t base = std::int64_t(blockIdx.x) * blockDim.x * select_items_per_thread; base < n; base += step) {
    V value[select_items_per_thread];
#pragma unroll
    for (int u = 0; u < select_items_per_thread; ++u) {
      const std::int64_t j = base + std::int64_t(u) * blockDim.x + threadIdx.x;
      if (j < n) value[u] = p.first[j];
    }
    bool candidate[select_items_per_thread];
#pragma unroll
    for (int u = 0; u < select_items_per_thread; ++u) {
      const std::int64_t j = base + std::int64_t(u) * blockDim.x + threadIdx.x;
      candidate[u] = false;
      if (j < n) {
        unsigned long long key = static_cast<unsigned long long>(to_order_key(value[u]));
        if (!p.largest) key = ~key & key_mask;
        key >>= shift;
        candidate[u] = key > t_key || (key == t_key && (key_only || j <= last_index));
      }
    }
    warp_append_all(
        p.candidates, p.buffer[1], candidate,
        [&](int u) { return static_cast<unsigned long long>(base + std::int64_t(u) * blockDim.x + threadIdx.x); },
        static_cast<unsigned long long>(p.buffer_capacity), [&](int u, unsigned long long at) {
          if (packed) p.buffer[0][at] = packed_word_of(p, value[u], base + std::int64_t(u) * blockDim.x + threadIdx.x);
        });
  }
}

/// The threshold pass (select_kernel's one read of the input when the threshold holds):
/// appends to buffer 1 the index of every item whose composite key's top t_bits are at
/// least t's. Its own loop, not run_select_pass's: per item a compare or two in the item's
/// own type where that says it (threshold_pass_vectors), else the order key and a compare
/// (threshold_pass_items; the general pass's 64-bit prefix and digit arithmetic made it
/// compute-bound, at a fifth of the memory's speed).
template <class P>
__device__ TALLY_FORCEINLINE void threshold_pass(const P& p, const select_key& t, int t_bits, const uint4* staged,
                                                 select_shared& sh) {
  using V = iter_value_t<decltype(p.first)>;
  select_state& st = *p.state;
  // As the general pass with slot 0 would: clear slot 1 for the pass after this one.
  if (blockIdx.x == 0) {
    for (int i = threadIdx.x; i < select_buckets; i += blockDim.x) st.hist[1][i] = 0;
    if (threadIdx.x < 4) st.bits[1][threadIdx.x] = 0;
  }
  // Candidates: key > t_key, or key == t_key and index <= last_index (t_bits reaching into
  // the inverted index); with t_bits <= key_bits only the top t_bits of the key count.
  const bool key_only = t_bits <= p.key_bits;
  const int shift = key_only ? p.key_bits - t_bits : 0;
  const unsigned long long t_key = t.key >> shift;
  const std::int64_t last_index =
      key_only ? -1
               : static_cast<std::int64_t>(((1ull << p.index_bits) - 1) -
                                           keep_top_bits(t.inv, p.index_bits, t_bits - p.key_bits));
  // Packed keys: each candidate's packed word to buffer 0 too, at its index's slot, so
  // that rank_and_write reads the words, not the indices and then the items (buffer 0 is
  // free until a select pass after this one writes it).
  const bool packed = select_keys_pack(p);
  if constexpr (std::is_pointer_v<decltype(p.first)> && sizeof(V) == 4) {
    // 16-byte loads of 4 items where the input is aligned for them (the usual case) and
    // the item's type can say the threshold; threshold_pass_items takes the rest.
    native_threshold<V> native;
    if (reinterpret_cast<std::uintptr_t>(p.first) % 16 == 0 &&
        make_native_threshold(p.largest, key_only, shift, static_cast<unsigned int>(t_key), last_index, native)) {
      const std::int64_t count = p.n / 4;
      const auto* vectors = reinterpret_cast<const uint4*>(p.first);
      if (native.largest) threshold_pass_vectors<true>(p, vectors, count, native, packed, staged, sh);
      else threshold_pass_vectors<false>(p, vectors, count, native, packed, staged, sh);
      if (p.n % 4 != 0 && blockIdx.x == 0 && threadIdx.x < 32) threshold_pass_tail(p, native, packed);
      return;
    }
  }
  threshold_pass_items(p, t_key, shift, key_only, last_index, packed);
}

/// splitmix64's finaliser: the sample positions.
__device__ TALLY_FORCEINLINE unsigned long long mix64(unsigned long long x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

/// The samples every block draws and ranks itself (block_threshold): 4096, whose threshold
/// then costs no grid barrier (three barriers and the global histograms' round trips
/// fewer than the grid's way: about 3 µs each on the H100 at 2^14..2^18,
/// docs/performance.md#keep-best).
inline constexpr std::int64_t select_one_block_samples = 4096;

/// Whether every block finds the threshold itself (block_threshold): values of at most 4
/// bytes and exactly select_one_block_samples samples (select_samples never draws fewer
/// than 4096 from inputs the select kernel takes; block_threshold keeps 8 a thread with
/// no guard). The kernel and the dispatch (which then
/// launches at least select_rank_blocks blocks to rank the candidates) ask it alike.
TALLY_HOST_DEVICE constexpr bool select_block_samples(std::size_t value_bytes, std::int64_t sample_count) {
  return value_bytes <= 4 && sample_count == select_one_block_samples;
}
/// Samples a thread draws at once: their loads in flight together (a draw is one random
/// read each).
inline constexpr int select_sample_batch = 4;

/// A uniform position in [0, n) for sample i: the high half of hash * n (no 64-bit division).
__device__ TALLY_FORCEINLINE std::int64_t sample_position(std::int64_t i, std::int64_t n) {
  return static_cast<std::int64_t>(__umul64hi(mix64(static_cast<unsigned long long>(i)), static_cast<unsigned long long>(n)));
}

/// Over the samples, every block its share: with `draw`, draws them (sample i at
/// sample_position(i)) and ORs their bits into st.sample_bits; else histograms the digit
/// (pos, w) of the samples whose top `pos` bits are prefix's into `out`.
template <class P>
__device__ void sample_pass(const P& p, bool draw, const select_key& prefix, int pos, int w, unsigned long long* out,
                            select_shared& sh) {
  using V = iter_value_t<decltype(p.first)>;
  const unsigned long long key_mask = p.key_bits == 64 ? ~0ull : (1ull << p.key_bits) - 1;
  const unsigned long long inv_mask = (1ull << p.index_bits) - 1;
  const std::int64_t m = p.sample_count;
  if (draw) {
    unsigned long long bits[4] = {0, 0, 0, 0};
    const std::int64_t step = std::int64_t(gridDim.x) * blockDim.x * select_sample_batch;
    for (std::int64_t base = std::int64_t(blockIdx.x) * blockDim.x * select_sample_batch; base < m; base += step) {
      std::int64_t at[select_sample_batch];
      V value[select_sample_batch];
#pragma unroll
      for (int u = 0; u < select_sample_batch; ++u) {
        const std::int64_t i = base + std::int64_t(u) * blockDim.x + threadIdx.x;
        at[u] = sample_position(i, p.n);
        if (i < m) value[u] = p.first[at[u]];
      }
#pragma unroll
      for (int u = 0; u < select_sample_batch; ++u) {
        const std::int64_t i = base + std::int64_t(u) * blockDim.x + threadIdx.x;
        if (i < m) {
          const select_key c = select_key_of(p, value[u], at[u]);
          p.samples[i] = c;
          bits[0] |= c.key;
          bits[1] |= ~c.key & key_mask;
          bits[2] |= c.inv;
          bits[3] |= ~c.inv & inv_mask;
        }
      }
    }
    for (int q = 0; q < 4; ++q) {
      for (int offset = 16; offset > 0; offset /= 2) bits[q] |= __shfl_xor_sync(0xffffffffu, bits[q], offset);
      if ((threadIdx.x & 31) == 0 && bits[q] != 0) atomicOr(&p.state->sample_bits[q], bits[q]);
    }
    return;
  }
  for (int i = threadIdx.x; i < select_buckets; i += blockDim.x) sh.hist[i] = 0;
  __syncthreads();
  // Block-uniform bounds: whole warps iterate together (__match_any_sync).
  for (std::int64_t base = std::int64_t(blockIdx.x) * blockDim.x; base < m; base += std::int64_t(gridDim.x) * blockDim.x) {
    const std::int64_t i = base + threadIdx.x;
    const bool valid = i < m;
    select_key c{};
    if (valid) c = p.samples[i];
    const bool in = valid && in_running(p, c, prefix, pos);
    const unsigned int digit = in ? select_digit(p, c, pos, w) : 0xffffffffu;
    const unsigned int same = __match_any_sync(0xffffffffu, digit);
    if (in && (threadIdx.x & 31) == unsigned(__ffs(same) - 1)) atomicAdd(&sh.hist[digit], unsigned(__popc(same)));
  }
  __syncthreads();
  for (int i = threadIdx.x; i < select_buckets; i += blockDim.x)
    if (sh.hist[i] != 0) atomicAdd(&out[i], static_cast<unsigned long long>(sh.hist[i]));
}

/// How many top bits every key ORed into bits[] (OR of key, ~key, inv, ~inv) shares.
template <class P>
__device__ TALLY_FORCEINLINE int shared_top_bits(const P& p, const unsigned long long* bits) {
  const unsigned long long key_diff = bits[0] & bits[1];
  const unsigned long long inv_diff = bits[2] & bits[3];
  if (key_diff != 0) return p.key_bits - (64 - __clzll(static_cast<long long>(key_diff)));
  if (inv_diff != 0) return p.key_bits + p.index_bits - (64 - __clzll(static_cast<long long>(inv_diff)));
  return p.key_bits + p.index_bits;
}

/// prefix with digit d at (pos, w).
template <class P>
__device__ TALLY_FORCEINLINE select_key with_digit(const P& p, select_key prefix, int pos, int w, unsigned int d) {
  if (pos < p.key_bits) prefix.key |= static_cast<unsigned long long>(d) << (p.key_bits - pos - w);
  else prefix.inv |= static_cast<unsigned long long>(d) << (p.index_bits - (pos - p.key_bits) - w);
  return prefix;
}

/// The bucket that holds the r-th best of a histogram (counting from the top bucket):
/// b, and how many items lie above it. Every thread calls it; `sums` is select_threads / 32
/// words of shared memory.
struct select_bucket {
  unsigned int b;
  unsigned long long above;
  unsigned long long in_b;
  unsigned long long total;
};

template <class Count>
__device__ select_bucket find_bucket(Count* hist, unsigned long long r, unsigned long long* sums,
                                     select_bucket* result) {
  // Thread t owns buckets [4t, 4t + 4); the suffix sums run from the top bucket down.
  constexpr int per_thread = select_buckets / select_threads;
  const int t = static_cast<int>(threadIdx.x);
  unsigned long long mine[per_thread];
  unsigned long long own = 0;
#pragma unroll
  for (int i = 0; i < per_thread; ++i) {
    mine[i] = hist[t * per_thread + i];
    own += mine[i];
  }
  // Suffix sums over the threads: inside a warp by shuffles, across warps through one word
  // a warp of `sums` (two barriers; a scan of every thread's word in shared memory took 18).
  const int lane = t & 31, warp = t >> 5;
  unsigned long long suffix = own;  // own and every later lane's of the warp
#pragma unroll
  for (int offset = 1; offset < 32; offset *= 2) {
    const unsigned long long later = __shfl_down_sync(0xffffffffu, suffix, offset);
    if (lane + offset < 32) suffix += later;
  }
  if (lane == 0) sums[warp] = suffix;
  __syncthreads();
  unsigned long long total = 0, later_warps = 0;
  for (int w = 0; w < select_threads / 32; ++w) {
    const unsigned long long x = sums[w];
    total += x;
    if (w > warp) later_warps += x;
  }
  const unsigned long long above_me = suffix - own + later_warps;  // buckets above mine
  if (t == 0) result->total = total;
  if (above_me < r && above_me + own >= r) {
    unsigned long long acc = above_me;
    for (int i = per_thread - 1; i >= 0; --i) {
      if (acc + mine[i] >= r) {
        result->b = static_cast<unsigned int>(t * per_thread + i);
        result->above = acc;
        result->in_b = mine[i];
        break;
      }
      acc += mine[i];
    }
  }
  __syncthreads();
  return *result;
}

/// find_bucket over a block's own histogram (select_buckets 32-bit counts in shared
/// memory) by warp 0 alone, which also zeroes it for the next level's counts; every thread
/// calls it and reads the result past its barrier. Every warp of find_bucket's way (four
/// buckets a thread, 64-bit suffix sums over the block, three barriers) issued its ~200
/// instructions, and it took 0.8 µs a level on the H200 (timeline marks), where the 16
/// warps' samples are only 8 a thread. Here lane l sums buckets [64 l, 64 l + 64) (16-byte
/// loads rotated by the lane: each quarter-warp's eight touch all 32 banks once), one
/// suffix sum over the lanes finds the lane holding the r-th best, and a second over that
/// lane's 64 buckets, two a lane, the bucket.
__device__ TALLY_FORCEINLINE select_bucket block_find_bucket(unsigned int* hist, unsigned int r, select_bucket* result) {
  constexpr int per_lane = select_buckets / 32;
  constexpr int vectors = per_lane / 4;
  static_assert(per_lane == 64, "two buckets a lane in the second round");
  if (threadIdx.x < 32) {
    const unsigned int lane = threadIdx.x;
    auto* mine = reinterpret_cast<uint4*>(hist + lane * per_lane);
    // Suffix sums from the top bucket down: x and every later lane's.
    const auto suffix = [&](unsigned int x) {
#pragma unroll
      for (int offset = 1; offset < 32; offset *= 2) {
        const unsigned int later = __shfl_down_sync(0xffffffffu, x, offset);
        if (lane + offset < 32) x += later;
      }
      return x;
    };
    uint4 acc = {0u, 0u, 0u, 0u};
#pragma unroll
    for (int j = 0; j < vectors; ++j) {
      const uint4 v = mine[(j + lane) % vectors];
      acc.x += v.x;
      acc.y += v.y;
      acc.z += v.z;
      acc.w += v.w;
    }
    const unsigned int own = acc.x + acc.y + acc.z + acc.w;
    const unsigned int through = suffix(own);  // this lane's buckets and every one above
    const unsigned int holder = __ballot_sync(0xffffffffu, through - own < r && r <= through);
    const unsigned int owner = holder ? static_cast<unsigned int>(__ffs(holder) - 1) : 0u;
    const unsigned int above_owner = __shfl_sync(0xffffffffu, through - own, owner);
    const unsigned int total = __shfl_sync(0xffffffffu, through, 0);
    const uint2 pair = reinterpret_cast<const uint2*>(hist + owner * per_lane)[lane];
    const unsigned int two = pair.x + pair.y;
    const unsigned int above = above_owner + suffix(two) - two;
    if (above < r && r <= above + two) {
      const bool high = above + pair.y >= r;  // bucket 2 lane + 1 lies above 2 lane
      result->b = owner * per_lane + 2 * lane + (high ? 1u : 0u);
      result->above = high ? above : above + pair.y;
      result->in_b = high ? pair.y : pair.x;
      result->total = total;
    }
    __syncwarp();  // every lane has read the owner's buckets
#pragma unroll
    for (int j = 0; j < vectors; ++j) mine[(j + lane) % vectors] = uint4{0u, 0u, 0u, 0u};
  }
  __syncthreads();
  return *result;
}

/// The threshold from the samples whose bits (OR of key, ~key, inv, ~inv) are `bits`: a
/// composite key's top t_bits that about p.sample_rank samples are at least as good as,
/// found digit by digit over two levels; histogram(level, prefix, pos, w) histograms the
/// digit (pos, w) of the samples under prefix and returns the histogram, and find(hist,
/// rank) its bucket holding the rank-th best (find_bucket, or block_find_bucket over a
/// block's own). False when the samples are all equal (no threshold splits them).
template <class P, class Histogram, class Find>
__device__ bool threshold_from_samples(const P& p, const unsigned long long* bits, Histogram histogram, Find find,
                                       select_key& t, int& t_bits) {
  const int total_bits = p.key_bits + p.index_bits;
  const int common = shared_top_bits(p, bits);
  if (common >= total_bits) return false;
  t = select_key{keep_top_bits(bits[0], p.key_bits, common), keep_top_bits(bits[2], p.index_bits, common - p.key_bits)};
  t_bits = common;
  unsigned long long rank = p.sample_rank;
  for (int level = 0; level < 2 && t_bits < total_bits; ++level) {
    const int tw = select_width(p, t_bits);
    const select_bucket f = find(histogram(level, t, t_bits, tw), rank);
    t = with_digit(p, t, t_bits, tw, f.b);
    t_bits += tw;
    rank -= f.above;
  }
  return true;
}

/// The OR of the packed sample words (the order key above the inverted index) and of their
/// complements, which shared_top_bits reads as four words: key, ~key, inv, ~inv.
struct sample_word_bits {
  unsigned long long or_word = 0, or_not = 0;
  __device__ TALLY_FORCEINLINE void add(unsigned long long word, unsigned long long word_mask) {
    or_word |= word;
    or_not |= ~word & word_mask;
  }
  /// The warp's OR (two REDUX a word), then lane 0's atomics into bits[0..3], in shared or
  /// global memory: 32-bit ORs on each word's halves, which the hardware does in one
  /// instruction (a 64-bit atomicOr is a compare-and-swap loop, and the 16 warps of a
  /// block retried theirs on the same four words). Every lane of the warp calls it.
  __device__ TALLY_FORCEINLINE void publish(unsigned long long* bits, int index_bits) const {
    const unsigned long long w = (static_cast<unsigned long long>(warp_or(static_cast<unsigned int>(or_word >> 32))) << 32) |
                                 warp_or(static_cast<unsigned int>(or_word));
    const unsigned long long n = (static_cast<unsigned long long>(warp_or(static_cast<unsigned int>(or_not >> 32))) << 32) |
                                 warp_or(static_cast<unsigned int>(or_not));
    if ((threadIdx.x & 31) != 0) return;
    const unsigned long long inv_mask = (1ull << index_bits) - 1;
    const unsigned long long parts[4] = {w >> index_bits, n >> index_bits, w & inv_mask, n & inv_mask};
    auto* halves = reinterpret_cast<unsigned int*>(bits);  // little-endian: the low half first
#pragma unroll
    for (int j = 0; j < 4; ++j) {
      if (static_cast<unsigned int>(parts[j])) atomicOr(&halves[2 * j], static_cast<unsigned int>(parts[j]));
      if (parts[j] >> 32) atomicOr(&halves[2 * j + 1], static_cast<unsigned int>(parts[j] >> 32));
    }
  }
};

/// A packed sample word's running test under a prefix of `pos` bits and its digit (pos, w):
/// a 64-bit XOR, mask and shift, where select_key's two halves (in_running, select_digit)
/// cost about 60 instructions a sample and a level (block 0's threshold took 6-8 µs with
/// them; the H200, benchmarks/timeline). Digits never straddle the key and the index.
struct word_digit {
  unsigned long long under_word, running_mask;
  int shift;
  unsigned int digit_mask;
  template <class P>
  __device__ TALLY_FORCEINLINE word_digit(const P& p, const select_key& under, int pos, int w)
      : under_word((under.key << p.index_bits) | under.inv),
        running_mask(pos == 0 ? 0ull : ~0ull << (p.key_bits + p.index_bits - pos)),
        shift(p.key_bits + p.index_bits - pos - w),
        digit_mask((1u << w) - 1) {}
  __device__ TALLY_FORCEINLINE bool running(unsigned long long word) const {
    return ((word ^ under_word) & running_mask) == 0;
  }
  __device__ TALLY_FORCEINLINE unsigned int digit(unsigned long long word) const {
    return static_cast<unsigned int>(word >> shift) & digit_mask;
  }
};

/// Where the samples are: runs of select_sample_run adjacent items (a 32-byte sector of
/// 4-byte values), m / select_sample_run of them spread evenly over the input, the first at
/// its start and the last at its end; sample i is item i % run of run i / run. Runs of 512
/// (a block's loads) cost as many sectors, but on data in order (ascending, descending,
/// every item equal) the r-th best sample of 4096 then sat in the best run, r items from
/// its end, and the threshold let in r items, fewer than k: the select started over on
/// the input (k = 256 / 1024 at 2^14..2^18: 2.6x uniform data's time, the H200). With
/// runs of 8 and a rank above 8 it lets in at least one spacing, n / (m / 8) items.
inline constexpr int select_sample_run = 8;
/// The runs' spacing is computed on the host (select_params::sample_spacing): a 64-bit
/// division by a run-time count in the kernel spilled 44 bytes (sm_90).
TALLY_HOST_DEVICE constexpr std::int64_t select_sample_spacing(std::int64_t n, std::int64_t m) {
  return m / select_sample_run > 1 ? (n - select_sample_run) / (m / select_sample_run - 1) : 0;
}
struct sample_positions {
  std::int64_t spacing;  // between the runs' starts: at least a run, as n >= m here
  TALLY_HOST_DEVICE std::int64_t operator()(std::int64_t i) const {
    return (i / select_sample_run) * spacing + i % select_sample_run;
  }
  /// How far sample i + count is from sample i, for count a multiple of the run (a
  /// thread's positions are then one base and multiples of this).
  TALLY_HOST_DEVICE std::int64_t step(std::int64_t count) const { return count / select_sample_run * spacing; }
};

/// Samples a thread of block_threshold keeps (exactly: select_block_samples).
inline constexpr int select_block_samples_a_thread = static_cast<int>(select_one_block_samples / select_threads);

/// block_threshold's samples, this thread's (sample_positions: threadIdx.x + u blockDim.x),
/// loaded first thing in the kernel: their DRAM round trip is the threshold's first step,
/// where behind the first round's staging and the state's zeroing they were issued 0.35
/// µs after the block's start (flat 2^16, the H200, benchmarks/timeline; tally_ab: 0.97-0.98
/// the time at 2^19..2^20, 0.99-1.01 below).
template <class P, class V>
__device__ TALLY_FORCEINLINE void load_block_samples(const P& p, V (&value)[select_block_samples_a_thread]) {
  const sample_positions where{p.sample_spacing};
  const auto base = static_cast<unsigned int>(where(threadIdx.x));
  const auto step = static_cast<unsigned int>(where.step(blockDim.x));
#pragma unroll
  for (int u = 0; u < select_block_samples_a_thread; ++u) value[u] = p.first[base + static_cast<unsigned int>(u) * step];
}

/// A block's threshold from select_one_block_samples samples of values of at most 4
/// bytes, into t and t_bits; false when the samples cannot split. Every block computes
/// the same one from the same samples (no grid barrier waits for block 0's).
/// Each thread keeps its 8 samples in registers, packed in 64 bits (the order key above the
/// inverted index, n < 2^32), drawn by load_block_samples with all 8 loads in flight: written to
/// memory and read back for each histogram (sample_pass) they took 13 µs on the H200
/// (docs/performance.md#keep-best).
template <class P, class V>
__device__ TALLY_FORCEINLINE bool block_threshold(const P& p, const V (&value)[select_block_samples_a_thread],
                                                  select_shared& sh, select_bucket* bucket, select_key& t, int& t_bits) {
  constexpr int per_thread = select_block_samples_a_thread;
  if (threadIdx.x < 4) sh.bits[threadIdx.x] = 0;
  if (threadIdx.x == 0) sh.appended = 0;  // for the threshold pass's staged round (block_append_all)
  // The first level's histogram zeroed now, before the barrier below; block_find_bucket
  // zeroes it again for the second as it reads the first.
  for (int i = threadIdx.x; i < select_buckets; i += blockDim.x) sh.hist[i] = 0;
  // The histograms work on the packed words (the order key above the inverted index):
  // word_digit.
  unsigned long long word[per_thread];
  {
    // The samples: sample_positions (n > 4096 here: select_sorts_all takes smaller
    // inputs, so the runs do not overlap). Exactly per_thread a thread
    // (select_block_samples), and positions, keys and inverted indices in 32 bits (n <
    // 2^32: the packed words hold a 32-bit key above the index): with 64-bit positions,
    // a guard a sample and select_key_of's 64-bit key the conversion took about 57
    // instructions a sample (SASS, sm_90), 1.6 µs of the 2.4 from the state's zeroing to
    // the samples' ORs (flat 2^16, the H200).
    const sample_positions where{p.sample_spacing};
    const auto base = static_cast<unsigned int>(where(threadIdx.x));
    const auto step = static_cast<unsigned int>(where.step(blockDim.x));
    const unsigned int key_mask = p.key_bits == 32 ? ~0u : (1u << p.key_bits) - 1u;
    const unsigned int flip = p.largest ? 0u : key_mask;  // tally::greater<>: the key's bits inverted
    const unsigned int inv_top = p.index_bits == 32 ? ~0u : (1u << p.index_bits) - 1u;
    unsigned int or_key = 0, or_not_key = 0, or_inv = 0, or_not_inv = 0;
#pragma unroll
    for (int u = 0; u < per_thread; ++u) {
      const unsigned int key = static_cast<unsigned int>(to_order_key(value[u])) ^ flip;
      const unsigned int inv = inv_top - (base + static_cast<unsigned int>(u) * step);
      word[u] = (static_cast<unsigned long long>(key) << p.index_bits) | inv;
      or_key |= key;
      or_not_key |= ~key;
      or_inv |= inv;
      or_not_inv |= ~inv;
    }
    // The warp's ORs, then lane 0's into the low halves of sh.bits (key, ~key, inv, ~inv,
    // as shared_top_bits reads them; the high halves stay zero).
    const unsigned int parts[4] = {warp_or(or_key), warp_or(or_not_key) & key_mask, warp_or(or_inv),
                                   warp_or(or_not_inv) & inv_top};
    __syncthreads();  // sh.bits and sh.hist zeroed
    if ((threadIdx.x & 31) == 0) {
      auto* halves = reinterpret_cast<unsigned int*>(sh.bits);  // little-endian: the low half first
#pragma unroll
      for (int j = 0; j < 4; ++j)
        if (parts[j] != 0) atomicOr(&halves[2 * j], parts[j]);
    }
    __syncthreads();
    TALLY_STREAM_MARK(stream_mark_words_out);
  }
  return threshold_from_samples(
      p, sh.bits,
      [&](int level, const select_key& under, int pos, int w) -> unsigned int* {
        if (level == 1) TALLY_STREAM_MARK(stream_mark_cut);
        const word_digit d(p, under, pos, w);
#pragma unroll
        for (int u = 0; u < per_thread; ++u) {
          // A plain shared atomic a sample: __match_any_sync (sample_pass's merge of a
          // warp's equal digits) took 4 µs a level here; equal digits only serialise
          // (data of few distinct values: at most 8 rounds of 32 a warp).
          if (d.running(word[u])) atomicAdd(&sh.hist[d.digit(word[u])], 1u);
        }
        __syncthreads();
        return sh.hist;
      },
      [&](unsigned int* hist, unsigned long long rank) {
        return block_find_bucket(hist, static_cast<unsigned int>(rank), bucket);
      },
      t, t_bits);
}

/// Rows of select_threads samples a block keeps in registers on the grid's way to the
/// threshold (grid_threshold_words): at most 2^18 samples over 2 x SMs blocks (512 rows
/// over 264 blocks on the H200) are at most 2 a block. A GPU of fewer than 128 SMs takes
/// sample_pass at the largest sample counts (4 a block spilled 64 bytes, sm_90).
inline constexpr int select_grid_sample_rows = 2;

/// Whether the grid's samples (more than block 0 takes) go the packed-word way: their keys
/// pack in 64 bits, they are whole rows of select_threads samples (select_samples), and at
/// most select_grid_sample_rows rows a block.
template <class P>
__device__ TALLY_FORCEINLINE bool grid_samples_in_words(const P& p) {
  return p.key_bits + p.index_bits <= 64 && p.sample_count % select_threads == 0 &&
         p.sample_count / select_threads <= std::int64_t(select_grid_sample_rows) * gridDim.x;
}

/// The threshold from p.sample_count samples drawn by the whole grid, for values of at most
/// 4 bytes whose keys pack in 64 bits (grid_samples_in_words): at sample_positions, block b
/// taking samples 512 b .. 512 b + 511, then the same 512 grid places on, ...; each thread
/// keeps its packed words in registers.
/// The bits they share, then two levels of histograms, each folded from the blocks' shared
/// memory into st.sample_hist[level], a grid barrier (`barrier`) after each of the three;
/// every block then finds the same buckets. In place of sample_pass, which drew random
/// positions (a sector a sample), wrote 16-byte keys to memory and read them back for each
/// level, with select_key's two-part digits: its three steps and barriers took about 14 µs
/// at 2^20 on the H200 (benchmarks/timeline: 17.9 µs from the first barrier to the
/// threshold pass's end). Every thread of every block calls it.
template <class P, class Barrier>
__device__ bool grid_threshold_words(const P& p, select_shared& sh, unsigned long long* sums, select_bucket* bucket,
                                     Barrier barrier, select_key& t, int& t_bits) {
  using V = iter_value_t<decltype(p.first)>;
  select_state& st = *p.state;
  const std::int64_t rows = p.sample_count / select_threads;
  const sample_positions where{p.sample_spacing};
  const int total_bits = p.key_bits + p.index_bits;
  const unsigned long long word_mask = total_bits == 64 ? ~0ull : (1ull << total_bits) - 1;
  unsigned long long word[select_grid_sample_rows];
  {
    V value[select_grid_sample_rows] = {};
#pragma unroll
    for (int q = 0; q < select_grid_sample_rows; ++q) {
      const std::int64_t r = blockIdx.x + std::int64_t(q) * gridDim.x;
      if (r < rows) value[q] = static_cast<V>(p.first[where(r * select_threads + threadIdx.x)]);
    }
    sample_word_bits bits;
#pragma unroll
    for (int q = 0; q < select_grid_sample_rows; ++q) {
      const std::int64_t r = blockIdx.x + std::int64_t(q) * gridDim.x;
      word[q] = 0;
      if (r < rows) {
        const select_key c = select_key_of(p, value[q], where(r * select_threads + threadIdx.x));
        word[q] = (c.key << p.index_bits) | c.inv;
        bits.add(word[q], word_mask);
      }
    }
    // Into the block's shared words first, then one global atomic a word a block: every
    // warp's atomics on the same four global words serialised (12.4 µs from the samples
    // to past the next barrier at 2^23..2^24, 256 blocks of 16 warps, against 1.9 at 2^20
    // with 16 blocks drawing; the H200, benchmarks/timeline).
    if (threadIdx.x < 4) sh.bits[threadIdx.x] = 0;
    __syncthreads();
    bits.publish(sh.bits, p.index_bits);
    __syncthreads();
    if (threadIdx.x < 4 && sh.bits[threadIdx.x] != 0)  // st.sample_bits: zeroed before the first barrier
      atomicOr(&st.sample_bits[threadIdx.x], sh.bits[threadIdx.x]);
  }
  TALLY_STREAM_MARK(stream_mark_arrived);
  barrier();
  TALLY_STREAM_MARK(stream_mark_chosen);
  return threshold_from_samples(
      p, st.sample_bits,
      [&](int level, const select_key& under, int pos, int w) -> const unsigned long long* {
        const word_digit d(p, under, pos, w);
        for (int i = threadIdx.x; i < select_buckets; i += blockDim.x) sh.hist[i] = 0;
        __syncthreads();
#pragma unroll
        for (int q = 0; q < select_grid_sample_rows; ++q) {
          const bool valid = blockIdx.x + std::int64_t(q) * gridDim.x < rows;
          if (valid && d.running(word[q])) atomicAdd(&sh.hist[d.digit(word[q])], 1u);
        }
        __syncthreads();
        unsigned long long* out = st.sample_hist[level];
        for (int i = threadIdx.x; i < select_buckets; i += blockDim.x)
          if (sh.hist[i] != 0) atomicAdd(&out[i], static_cast<unsigned long long>(sh.hist[i]));
        barrier();
        if (level == 0) TALLY_STREAM_MARK(stream_mark_grid_first);
        else TALLY_STREAM_MARK(stream_mark_grid_second);
        return out;
      },
      [&](const unsigned long long* hist, unsigned long long rank) { return find_bucket(hist, rank, sums, bucket); },
      t, t_bits);
}

/// Output j: the item of composite key c. Its value comes from the key where the key says
/// it exactly (order_key_is_exact: all but a float's zeros and NaNs, whose bits only the
/// input has): no read of the input, an L2 round trip on the kernel's last step.
template <class P>
__device__ TALLY_FORCEINLINE void write_result(const P& p, std::int64_t j, const select_key& c) {
  using Value = iter_value_t<decltype(p.first)>;
  const std::int64_t index = index_of(p, c);
  const unsigned long long key_mask = p.key_bits == 64 ? ~0ull : (1ull << p.key_bits) - 1;
  Value v;
  if (!value_of_order_key<Value>(static_cast<order_key_t<Value>>(p.largest ? c.key : ~c.key & key_mask), v))
    v = p.first[index];
  p.values[j] = v;
  p.indices[j] = index;
}

/// One block: sorts the items at index_at(0 .. count) (count <= select_sort_capacity) best
/// first and writes the first min(k, count). The keys are packed in 64 bits (the order
/// key above the inverted index) where they fit, which halves the shared-memory traffic
/// of the sort and makes a comparison one 64-bit compare; then, where that makes the
/// network much smaller, only the k best of them are sorted (block_keep_best).
template <class P, class IndexAt>
__device__ __noinline__ void sort_and_write(const P& p, select_key* keys, int count, IndexAt index_at) {
  const int written = static_cast<int>(p.k < count ? p.k : count);
  if (p.key_bits + p.index_bits <= 64) {
    auto* packed = reinterpret_cast<unsigned long long*>(keys);
    const unsigned long long inv_mask = (1ull << p.index_bits) - 1;
    for (int i = threadIdx.x; i < count; i += blockDim.x) {
      const select_key c = make_select_key(p, index_at(i));
      packed[i] = (c.key << p.index_bits) | c.inv;
    }
    if (keep_best_pays(written, count)) {
      __syncthreads();
      block_keep_best(packed, count, written);
      count = written;
    }
    block_sort_keys(packed, count);
    for (int i = threadIdx.x; i < written; i += blockDim.x)
      write_result(p, i, select_key{packed[i] >> p.index_bits, packed[i] & inv_mask});
  } else {
    for (int i = threadIdx.x; i < count; i += blockDim.x) keys[i] = make_select_key(p, index_at(i));
    block_sort_keys(keys, count);
    for (int i = threadIdx.x; i < written; i += blockDim.x) write_result(p, i, keys[i]);
  }
}

/// Copies words[from .. from + length) into the block's shared `packed` (four loads a
/// thread in flight, past L1: the grid wrote them this launch).
__device__ TALLY_FORCEINLINE void gather_words(unsigned long long* packed, const unsigned long long* words, int from,
                                               int length) {
  constexpr int in_flight = 4;
  for (int base = 0; base < length; base += in_flight * static_cast<int>(blockDim.x)) {
    unsigned long long w[in_flight];
#pragma unroll
    for (int u = 0; u < in_flight; ++u) {
      const int i = base + u * static_cast<int>(blockDim.x) + static_cast<int>(threadIdx.x);
      w[u] = i < length ? __ldcg(words + from + i) : 0;
    }
#pragma unroll
    for (int u = 0; u < in_flight; ++u) {
      const int i = base + u * static_cast<int>(blockDim.x) + static_cast<int>(threadIdx.x);
      if (i < length) packed[i] = w[u];
    }
  }
}

/// rank_and_write's way for more candidates than the block's shared memory holds:
/// select_rank_batch candidates a warp at a time, the words a slice at a time. Every
/// block takes the same number of batches (the slices' barriers). Not inlined: its
/// unrolled batches are most of rank_and_write's code, and inlined they sat between the
/// threshold pass and the one-slice way, which every SM then fetched from L2 on a jump
/// (docs/performance.md#select-code-layout).
template <class P>
__device__ __noinline__ void rank_and_write_slices(const P& p, unsigned long long* packed, const unsigned long long* words,
                                                   int count) {
  constexpr int slice = 2 * select_sort_chunk;  // packed words in sh.keys
  const unsigned long long inv_mask = (1ull << p.index_bits) - 1;
  const int lane = static_cast<int>(threadIdx.x & 31);
  const int warps = static_cast<int>(gridDim.x * (blockDim.x >> 5));
  const int warp = static_cast<int>(blockIdx.x * (blockDim.x >> 5) + (threadIdx.x >> 5));
  const int batches = (count + select_rank_batch * warps - 1) / (select_rank_batch * warps);
  for (int b = 0; b < batches; ++b) {
    unsigned long long mine[select_rank_batch];
    unsigned int better[select_rank_batch];
#pragma unroll
    for (int r = 0; r < select_rank_batch; ++r) {
      const int j = (b * select_rank_batch + r) * warps + warp;
      mine[r] = j < count ? __ldcg(words + j) : 0;
      better[r] = 0;
    }
    for (int from = 0; from < count; from += slice) {
      const int length = count - from < slice ? count - from : slice;
      __syncthreads();  // every warp is done with the slice before
      gather_words(packed, words, from, length);
      __syncthreads();
#pragma unroll
      for (int r = 0; r < select_rank_batch; ++r) {
        if ((b * select_rank_batch + r) * warps + warp >= count) continue;  // uniform in the warp
        for (int u = lane; u < length; u += 32) better[r] += packed[u] > mine[r] ? 1u : 0u;
      }
    }
#pragma unroll
    for (int r = 0; r < select_rank_batch; ++r) {
      if ((b * select_rank_batch + r) * warps + warp >= count) continue;
#pragma unroll
      for (int d = 16; d > 0; d /= 2) better[r] += __shfl_xor_sync(0xffffffffu, better[r], d);
      if (lane == 0 && better[r] < static_cast<unsigned int>(p.k))
        write_result(p, better[r], select_key{mine[r] >> p.index_bits, mine[r] & inv_mask});
    }
  }
}

/// The threshold pass's candidates (their packed words words[0..count), count <=
/// select_rank_capacity), written by the whole grid, best first: each warp of the grid
/// ranks candidates g, g + warps, ... : a rank is how many words are better (distinct
/// words, distinct ranks), counted by the warp's lanes over the words in the block's
/// shared memory (select_sort_chunk keys' room: 4096 words; more are read from L2 a slice
/// at a time, rank_and_write_slices), and a rank below k is the candidate's place in the
/// output. In place of block 0's keys, keep-best and sort (about 9-11 µs of the kernel at
/// 2^16..2^20 on the H200, docs/performance.md#keep-best) while the other blocks wait to
/// exit. The words, not the indices: a gather of the indices and then of their items, two
/// dependent L2 round trips, took 0.9-3.0 µs of the kernel at 2^16..2^20 (1034-2097
/// candidates, the H200, benchmarks/timeline).
template <class P>
__device__ TALLY_FORCEINLINE void rank_and_write(const P& p, unsigned long long* packed, const unsigned long long* words,
                                                 int count) {
  if (count > 2 * select_sort_chunk) {
    rank_and_write_slices(p, packed, words, count);
    TALLY_STREAM_MARK(stream_mark_written);
    return;
  }
  // The ranks: a warp a candidate. The compares bound it (a 64-bit compare and a count
  // a word and candidate: count^2 / 32 warp compares over the grid's SMs), so the grid
  // has at least select_rank_blocks blocks here (select_dispatch.cuh).
  const unsigned long long inv_mask = (1ull << p.index_bits) - 1;
  const int lane = static_cast<int>(threadIdx.x & 31);
  const int warps = static_cast<int>(gridDim.x * (blockDim.x >> 5));
  const int warp = static_cast<int>(blockIdx.x * (blockDim.x >> 5) + (threadIdx.x >> 5));
  gather_words(packed, words, 0, count);
  __syncthreads();
  TALLY_STREAM_MARK(stream_mark_words_in);
  // A warp with two candidates (more candidates than the grid's warps) ranks both in one
  // scan of the words: with one scan each, those warps took twice the others' time, and
  // the kernel's last 1.2 µs were theirs (2176 candidates over 2112 warps at 2^19, k =
  // 1024, the H200, benchmarks/timeline).
  // The scans unrolled 4 times, not 16: every SM runs this code once, fetching it from
  // L2 as it goes (ncu: "no instruction" a third of these lines' samples at 2^16, k =
  // 1024), and the shorter code took 0.99x the time at 2^14..2^18 (H200).
  for (int j = warp; j < count; j += 2 * warps) {
    const unsigned long long w = packed[j];
    const int j2 = j + warps;
    if (j2 < count) {
      const unsigned long long w2 = packed[j2];
      unsigned int better = 0, better2 = 0;
#pragma unroll 4
      for (int u = lane; u < count; u += 32) {
        const unsigned long long x = packed[u];
        better += x > w ? 1u : 0u;
        better2 += x > w2 ? 1u : 0u;
      }
#pragma unroll
      for (int d = 16; d > 0; d /= 2) {
        better += __shfl_xor_sync(0xffffffffu, better, d);
        better2 += __shfl_xor_sync(0xffffffffu, better2, d);
      }
      if (lane == 0 && better < static_cast<unsigned int>(p.k))
        write_result(p, better, select_key{w >> p.index_bits, w & inv_mask});
      if (lane == 1 && better2 < static_cast<unsigned int>(p.k))
        write_result(p, better2, select_key{w2 >> p.index_bits, w2 & inv_mask});
    } else {
      unsigned int better = 0;
#pragma unroll 4
      for (int u = lane; u < count; u += 32) better += packed[u] > w ? 1u : 0u;
#pragma unroll
      for (int d = 16; d > 0; d /= 2) better += __shfl_xor_sync(0xffffffffu, better, d);
      if (lane == 0 && better < static_cast<unsigned int>(p.k))
        write_result(p, better, select_key{w >> p.index_bits, w & inv_mask});
    }
  }
  TALLY_STREAM_MARK(stream_mark_written);
}

template <class It, class ValueOut, class IndexOut>
__global__ __launch_bounds__(select_threads, select_blocks_per_sm) void top_k_select_kernel(const __grid_constant__ select_params<It, ValueOut, IndexOut> p) {
  wait_for_prior_grids();
  TALLY_STREAM_MARK(stream_mark_start);
  TALLY_STREAM_VALUE(stream_value_select, 1);
  // One shared block, used by the passes (histogram), the decisions (suffix sums) and
  // the sort (keys), never two at a time.
  __shared__ alignas(16) union {  // 16: the staged first round's vectors (stage_first_round)
    select_shared pass;
    select_key keys[select_sort_chunk];
  } sh;
  __shared__ unsigned long long sums[select_threads / 32];  // find_bucket's, beside a histogram in sh.pass
  __shared__ select_bucket bucket;
  // A small input, or k most of it (one block: the grid is at most one per 2048 items):
  // sort it all in shared memory.
  if (select_sorts_all(p.n, p.k, p.key_bits)) {
    sort_and_write(p, sh.keys, static_cast<int>(p.n), [](int i) { return std::int64_t(i); });
    return;
  }
  select_state& st = *p.state;
  unsigned int round = 0;

  // Few samples of small values: every block finds the same threshold from them
  // (block_threshold) and goes on to the threshold pass without a grid barrier.
  const bool block_samples = select_block_samples(sizeof(iter_value_t<It>), p.sample_count);
  iter_value_t<It> sample_value[select_block_samples_a_thread];
  if constexpr (sizeof(iter_value_t<It>) <= 4) {
    if (block_samples) load_block_samples(p, sample_value);
  }
  // Then the threshold pass's first round is asked for now (stage_first_round), into the
  // sort keys' shared memory past the histogram: block_threshold uses only sh.pass, and
  // nothing else that memory until rank_and_write, after the pass. (A DRAM round trip
  // off the pass, which up to 2^19 items is that one round.)
  const uint4* staged = nullptr;
  constexpr std::size_t stage_offset = (sizeof(select_shared) + 15) / 16 * 16;
  static_assert(stage_offset + sizeof(uint4) * select_pass_vectors * select_threads <= sizeof(sh),
                "the staged first round fits in the sort keys' shared memory");
  if constexpr (std::is_pointer_v<It> && sizeof(iter_value_t<It>) == 4) {
    if (block_samples && reinterpret_cast<std::uintptr_t>(p.first) % 16 == 0) {
      auto* area = reinterpret_cast<uint4*>(reinterpret_cast<char*>(&sh) + stage_offset);
      stage_first_round(p, area);
      staged = area;
    }
  }
  {
    // Every block zeroes a slice of the state (80 KB: block 0 alone took 1.4 µs on the
    // H200). The threshold pass counts outside it (p.candidates).
    auto* words = reinterpret_cast<unsigned long long*>(&st);
    constexpr unsigned int state_words = sizeof(select_state) / sizeof(unsigned long long);
    for (unsigned int i = blockIdx.x * blockDim.x + threadIdx.x; i < state_words; i += gridDim.x * blockDim.x)
      words[i] = 0;
  }
  bool own_found = false;
  select_key own_t{};
  int own_bits = 0;
  if constexpr (sizeof(iter_value_t<It>) <= 4) {
    if (block_samples) {
      TALLY_STREAM_MARK(stream_mark_slot);
      own_found = block_threshold(p, sample_value, sh.pass, &bucket, own_t, own_bits);
      TALLY_STREAM_MARK(stream_mark_reads);
    }
  }
  // The staged copies have arrived (long since, behind the samples) before anything but
  // the threshold pass may use that shared memory.
  if (staged) __pipeline_wait_prior(0);
  // The state's zeroing meets the passes that count into it here. A block with its own
  // threshold (every block, the same one) goes straight to the threshold pass, which
  // touches the state only to clear what the zeroing clears too; its next barrier orders
  // the rest. (own_found is the same in every block, so all take the same barriers.)
  if (!block_samples || !own_found) grid_barrier(p.arrivals, ++round);
  TALLY_STREAM_MARK(stream_mark_threshold);

  // --- select: k indices into p.chosen ------------------------------------------------
  // The running items: those of `s.source` whose top `pos` bits are `prefix`'s; the last
  // pass histogrammed their digit (pos, w) into slot s.slot. `needed`: how many of the k
  // are still to be chosen among them.
  select_pass s{};
  s.source = -1;
  s.source_count = static_cast<unsigned long long>(p.n);
  s.slot = 0;
  s.buffer_out = -1;
  unsigned long long needed = static_cast<unsigned long long>(p.k);
  bool done = needed == s.source_count;
  if (done) {
    s.take_all = true;  // k == n: every item
  } else {
    s.histogram = true;
    s.npos = 0;
    s.nw = select_width(p, 0);
  }
  select_key prefix{0, 0};
  int pos = 0;
  int w = s.nw;

  // The threshold: from random samples, a composite key that about sample_rank of them
  // beat, so that a few thousand items of the input are expected to (the dispatch's
  // sample_rank). The first pass then also writes every item at least that good to
  // buffer 1: when there are at least k of them (and they fit), the select runs on them
  // and the input is read once. Otherwise (a bad draw, or data the threshold cannot
  // split) the select starts over on the input, as without it (one read more).
  if (block_samples) {
    if (own_found) {
      s.threshold = true;
      s.t = own_t;
      s.t_bits = own_bits;
    }
  } else if (p.sample_count > 0) {
    // Every block draws and histograms its share; a grid barrier after each step.
    const auto barrier = [&] { grid_barrier(p.arrivals, ++round); };
    bool drawn = false;
    if constexpr (sizeof(iter_value_t<It>) <= 4) {
      if (grid_samples_in_words(p)) {
        s.threshold = grid_threshold_words(p, sh.pass, sums, &bucket, barrier, s.t, s.t_bits);
        drawn = true;
      }
    }
    if (!drawn) {
      sample_pass(p, true, prefix, 0, 0, nullptr, sh.pass);
      barrier();
      s.threshold = threshold_from_samples(
          p, st.sample_bits,
          [&](int level, const select_key& under, int at, int width) -> const unsigned long long* {
            sample_pass(p, false, under, at, width, st.sample_hist[level], sh.pass);
            barrier();
            return st.sample_hist[level];
          },
          [&](const unsigned long long* hist, unsigned long long rank) { return find_bucket(hist, rank, sums, &bucket); },
          s.t, s.t_bits);
    }
  }
  if (s.threshold) {
    // The threshold pass only collects: a histogram of every item would cost more than
    // the read (shared-memory atomics) and is needed only when the threshold fails.
    threshold_pass(p, s.t, s.t_bits, staged, sh.pass);
    // (Timeline: where every block found the threshold, the pass alone and its barrier;
    // the grid's samples mark their own phases in these slots.)
    // Its barrier counts the blocks in p.candidates's top bits: the count comes with it
    // (grid_barrier_counted; the arrivals' rounds go on from this round at the next).
    if (block_samples) TALLY_STREAM_MARK(stream_mark_arrived);
    const unsigned long long candidates = grid_barrier_counted(p.candidates);
    if (block_samples) TALLY_STREAM_MARK(stream_mark_chosen);
    TALLY_STREAM_MARK(stream_mark_filtered);
    TALLY_STREAM_VALUE(stream_value_count, candidates);
    s.threshold = false;
    s.histogram = true;
    if (candidates >= needed && candidates <= static_cast<unsigned long long>(
                                                  select_candidate_capacity(p.key_bits, p.index_bits, p.buffer_capacity))) {
      // Few enough to write directly: the k best are the first k. Packed keys: ranked by
      // the whole grid (rank_and_write); else block 0 sorts them.
      const unsigned long long* chosen = p.buffer[1];
      if (select_keys_pack(p)) {
        rank_and_write(p, reinterpret_cast<unsigned long long*>(sh.keys), p.buffer[0], static_cast<int>(candidates));
      } else if (blockIdx.x == 0) {
        sort_and_write(p, sh.keys, static_cast<int>(candidates),
                       [chosen](int i) { return static_cast<std::int64_t>(chosen[i]); });
      }
      if (grid_barrier_reset(p.arrivals, p.exits)) *p.candidates = 0;  // the last block out
      return;
    }
    if (candidates >= needed && static_cast<std::int64_t>(candidates) <= p.buffer_capacity) {
      // Select among them: histogram their first digit (slot 1), then as usual.
      s.source = 1;
      s.source_count = candidates;
      s.slot = 1;
    }
  }
  run_select_pass(p, s, sh.pass);
  grid_barrier(p.arrivals, ++round);
  while (!done) {
    const select_bucket found = find_bucket(st.hist[s.slot], needed, sums, &bucket);
    select_pass next{};
    next.source = s.source;
    next.source_count = s.source_count;
    next.prefix = prefix;
    next.pos = pos;
    next.slot = (s.slot + 1) % 3;
    next.buffer_out = -1;
    if (found.total == needed) {
      next.take_all = true;  // every running item is needed
      done = true;
    } else if (found.in_b == found.total) {
      // The digit does not split them: skip every bit they share (at least this digit;
      // not all of them: two distinct keys differ somewhere).
      const unsigned long long* bits = st.bits[s.slot];
      const int shared_bits = shared_top_bits(p, bits);
      prefix = select_key{keep_top_bits(bits[0], p.key_bits, shared_bits),
                          keep_top_bits(bits[2], p.index_bits, shared_bits - p.key_bits)};
      pos = shared_bits;
      w = select_width(p, pos);
      next.prefix = prefix;
      next.pos = pos;
      next.histogram = true;
      next.npos = pos;
      next.nw = w;
    } else {
      // Split on the digit: above b chosen, b kept running (or chosen, if exactly enough).
      const unsigned long long still = needed - found.above;
      next.filter = true;
      next.w = w;
      next.b = found.b;
      next.take_all = found.in_b == still;
      done = next.take_all;
      if (!done) {
        next.histogram = true;
        next.npos = pos + w;
        next.nw = select_width(p, next.npos);
        if (static_cast<std::int64_t>(found.in_b) <= p.buffer_capacity) next.buffer_out = s.source == 0 ? 1 : 0;
        prefix = with_digit(p, prefix, pos, w, found.b);
        pos = next.npos;
        w = next.nw;
      }
      needed = still;
    }
    run_select_pass(p, next, sh.pass);
    grid_barrier(p.arrivals, ++round);
    if (next.buffer_out >= 0) {
      next.source = next.buffer_out;
      next.source_count = found.in_b;
    }
    s = next;
  }

  // --- sort the k chosen, best first, and write them ----------------------------------
  const std::int64_t k = p.k;
  if (k <= select_sort_capacity(p.key_bits, p.index_bits)) {
    if (blockIdx.x == 0) {
      const unsigned long long* chosen = p.chosen;
      sort_and_write(p, sh.keys, static_cast<int>(k), [chosen](int i) { return static_cast<std::int64_t>(chosen[i]); });
    }
  } else {
    const std::int64_t chunks = (k + select_sort_chunk - 1) / select_sort_chunk;
    for (std::int64_t c = blockIdx.x; c < chunks; c += gridDim.x) {
      const std::int64_t begin = c * select_sort_chunk;
      const int count = static_cast<int>(k - begin < select_sort_chunk ? k - begin : select_sort_chunk);
      __syncthreads();
      for (int i = threadIdx.x; i < count; i += blockDim.x)
        sh.keys[i] = make_select_key(p, static_cast<std::int64_t>(p.chosen[begin + i]));
      block_sort_keys(sh.keys, count);
      for (int i = threadIdx.x; i < count; i += blockDim.x) p.sorted[0][begin + i] = sh.keys[i];
    }
    grid_barrier(p.arrivals, ++round);
    int in = 0;
    for (std::int64_t width = select_sort_chunk; width < k; width *= 2) {
      const std::int64_t stride = std::int64_t(gridDim.x) * blockDim.x;
      for (std::int64_t i = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < k; i += stride) {
        const std::int64_t run = i / width;
        const std::int64_t pair_begin = (run & ~std::int64_t(1)) * width;
        const std::int64_t other_begin = (run ^ 1) * width;
        const select_key e = p.sorted[in][i];
        std::int64_t place = pair_begin + (i - run * width);
        if (other_begin < k) {
          // How many of the other run are better than e: they come first in it.
          std::int64_t lo = other_begin, hi = other_begin + width < k ? other_begin + width : k;
          while (lo < hi) {
            const std::int64_t mid = lo + (hi - lo) / 2;
            if (select_better(p.sorted[in][mid], e)) lo = mid + 1;
            else hi = mid;
          }
          place += lo - other_begin;
        }
        p.sorted[1 - in][place] = e;
      }
      grid_barrier(p.arrivals, ++round);
      in = 1 - in;
    }
    const std::int64_t stride = std::int64_t(gridDim.x) * blockDim.x;
    for (std::int64_t i = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < k; i += stride)
      write_result(p, i, p.sorted[in][i]);
  }
  if (grid_barrier_reset(p.arrivals, p.exits)) *p.candidates = 0;  // the last block out
}

}  // namespace detail
TALLY_NAMESPACE_END
