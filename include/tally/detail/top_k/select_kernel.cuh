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
// Then the k chosen items are sorted by composite key (best first): one block sorts up to
// select_sort_chunk of them in shared memory (a bitonic network); more are sorted in
// chunks and the sorted chunks merged in rounds, each item placed by a binary search for
// its rank in the other run of its pair (the keys are distinct, so ranks never collide).
//
// Blocks meet at grid barriers (grid/barrier.cuh): the launch is cooperative, so every
// block is resident. Scratch: the select_state (zeroed by block 0 at the start, before
// the first barrier), the chosen list (k indices), two buffers, two sort arrays.

#include <tally/detail/float_order.cuh>
#include <tally/detail/runtime/pdl.cuh>
#include <tally/grid/barrier.cuh>

#include <cstdint>

TALLY_NAMESPACE_BEGIN
namespace detail {

inline constexpr int select_threads = 512;
inline constexpr int select_digit_bits = 11;
inline constexpr int select_buckets = 1 << select_digit_bits;  // 2048: one u32 per thread-quad in shared memory
inline constexpr int select_sort_chunk = 2048;                 // 32 KB of keys: one block's shared sort
inline constexpr int select_items_per_thread = 4;              // loads in flight per thread in a pass

/// An item's composite key: larger is better.
struct select_key {
  unsigned long long key;
  unsigned long long inv;
};

TALLY_HOST_DEVICE TALLY_FORCEINLINE bool select_better(const select_key& a, const select_key& b) {
  return a.key > b.key || (a.key == b.key && a.inv > b.inv);
}

/// The state the blocks share, zeroed at the start of each launch.
struct select_state {
  unsigned long long selected;                // entries in the chosen list
  unsigned long long buffered[2];             // entries written to buffer 0 / 1
  unsigned long long hist[3][select_buckets]; // per pass (three in rotation: see run_select_pass)
  unsigned long long bits[3][4];              // per pass: OR of key, ~key, inv, ~inv of the items counted
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
  select_key* sorted[2];          // k keys each (only when k > select_sort_chunk)
  unsigned int* arrivals;         // zero between calls
  unsigned int* exits;            // zero between calls
};

template <class P>
__device__ TALLY_FORCEINLINE select_key make_select_key(const P& p, std::int64_t index) {
  using V = iter_value_t<decltype(p.first)>;
  const unsigned long long key_mask = p.key_bits == 64 ? ~0ull : (1ull << p.key_bits) - 1;
  unsigned long long key = static_cast<unsigned long long>(to_order_key(static_cast<V>(p.first[index])));
  if (!p.largest) key = ~key & key_mask;
  return {key, ((1ull << p.index_bits) - 1) - static_cast<unsigned long long>(index)};
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
                                              unsigned long long value) {
  const unsigned int mask = __ballot_sync(0xffffffffu, want);
  if (mask == 0) return;
  const int lane = static_cast<int>(threadIdx.x & 31);
  const int leader = __ffs(mask) - 1;
  unsigned long long base = 0;
  if (lane == leader) base = atomicAdd(counter, static_cast<unsigned long long>(__popc(mask)));
  base = __shfl_sync(0xffffffffu, base, leader);
  if (want) array[base + __popc(mask & ((1u << lane) - 1u))] = value;
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
};

struct select_shared {
  unsigned int hist[select_buckets];
  unsigned long long bits[4];
};

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
        atomicAdd(&sh.hist[select_digit(p, key[u], s.npos, s.nw)], 1u);
        or_key |= key[u].key;
        or_not_key |= ~key[u].key & key_mask;
        or_inv |= key[u].inv;
        or_not_inv |= ~key[u].inv & inv_mask;
      }
    }
  }
  if (!s.histogram) return;
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

/// The bucket that holds the r-th best of a histogram (counting from the top bucket):
/// b, and how many items lie above it. Every thread calls it; `sums` is select_threads
/// words of shared memory.
struct select_bucket {
  unsigned int b;
  unsigned long long above;
  unsigned long long in_b;
  unsigned long long total;
};

__device__ select_bucket find_bucket(const unsigned long long* hist, unsigned long long r, unsigned long long* sums,
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
  sums[t] = own;
  __syncthreads();
  // Inclusive suffix sums over the threads (Hillis-Steele; 9 steps).
  for (int offset = 1; offset < select_threads; offset *= 2) {
    const unsigned long long add = t + offset < select_threads ? sums[t + offset] : 0;
    __syncthreads();
    sums[t] += add;
    __syncthreads();
  }
  const unsigned long long above_me = t + 1 < select_threads ? sums[t + 1] : 0;  // buckets above mine
  if (t == 0) result->total = sums[0];
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

/// Sorts s[0..count) best first in shared memory (count <= select_sort_chunk), padding
/// with the all-zero key, which no item has.
__device__ void block_sort_keys(select_key* s, int count) {
  int size = 1;
  while (size < count) size *= 2;
  for (int i = count + static_cast<int>(threadIdx.x); i < size; i += blockDim.x) s[i] = select_key{0, 0};
  __syncthreads();
  for (int span = 2; span <= size; span *= 2) {
    for (int stride = span / 2; stride > 0; stride /= 2) {
      for (int i = threadIdx.x; i < size / 2; i += blockDim.x) {
        const int lo = 2 * i - (i & (stride - 1));
        const int hi = lo + stride;
        const bool best_first = (lo & span) == 0;
        const select_key a = s[lo], b = s[hi];
        if (select_better(b, a) == best_first && (select_better(a, b) || select_better(b, a))) {
          s[lo] = b;
          s[hi] = a;
        }
      }
      __syncthreads();
    }
  }
}

template <class P>
__device__ TALLY_FORCEINLINE void write_result(const P& p, std::int64_t j, const select_key& c) {
  using Value = iter_value_t<decltype(p.first)>;
  const std::int64_t index = index_of(p, c);
  const Value v = p.first[index];
  p.values[j] = v;
  p.indices[j] = index;
}

template <class It, class ValueOut, class IndexOut>
__global__ __launch_bounds__(select_threads) void top_k_select_kernel(select_params<It, ValueOut, IndexOut> p) {
  wait_for_prior_grids();
  // One shared block, used by the passes (histogram), the decisions (suffix sums) and
  // the sort (keys), never two at a time.
  __shared__ union {
    select_shared pass;
    unsigned long long sums[select_threads];
    select_key keys[select_sort_chunk];
  } sh;
  __shared__ select_bucket bucket;
  select_state& st = *p.state;
  unsigned int round = 0;

  if (blockIdx.x == 0) {
    auto* words = reinterpret_cast<unsigned long long*>(&st);
    for (std::size_t i = threadIdx.x; i < sizeof(select_state) / sizeof(unsigned long long); i += blockDim.x) words[i] = 0;
  }
  grid_barrier(p.arrivals, ++round);

  // --- select: k indices into p.chosen ------------------------------------------------
  // The running items: those of `s.source` whose top `pos` bits are `prefix`'s; the last
  // pass histogrammed their digit (pos, w) into slot s.slot. `needed`: how many of the k
  // are still to be chosen among them.
  const int total_bits = p.key_bits + p.index_bits;
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
  run_select_pass(p, s, sh.pass);
  grid_barrier(p.arrivals, ++round);
  while (!done) {
    const select_bucket found = find_bucket(st.hist[s.slot], needed, sh.sums, &bucket);
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
      const unsigned long long key_diff = bits[0] & bits[1];
      const unsigned long long inv_diff = bits[2] & bits[3];
      int shared_bits = total_bits;
      if (key_diff != 0) shared_bits = p.key_bits - (64 - __clzll(static_cast<long long>(key_diff)));
      else if (inv_diff != 0) shared_bits = total_bits - (64 - __clzll(static_cast<long long>(inv_diff)));
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
        if (pos < p.key_bits) prefix.key |= static_cast<unsigned long long>(found.b) << (p.key_bits - pos - w);
        else prefix.inv |= static_cast<unsigned long long>(found.b) << (p.index_bits - (pos - p.key_bits) - w);
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
  if (k <= select_sort_chunk) {
    if (blockIdx.x == 0) {
      for (int i = threadIdx.x; i < k; i += blockDim.x) sh.keys[i] = make_select_key(p, static_cast<std::int64_t>(p.chosen[i]));
      block_sort_keys(sh.keys, static_cast<int>(k));
      for (int i = threadIdx.x; i < k; i += blockDim.x) write_result(p, i, sh.keys[i]);
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
  grid_barrier_reset(p.arrivals, p.exits);
}

}  // namespace detail
TALLY_NAMESPACE_END
