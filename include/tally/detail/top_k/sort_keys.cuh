#pragma once
// Sorting the top_k kernels' keys best (largest) first inside one block: words packed in
// 64 bits (up to 4096) in warps' registers, composite keys (select_key, 16 bytes) in
// shared memory.
//
// A bitonic network whose stages run where they are cheapest. A warp holds 32 E keys in
// registers (key 32 j + lane of its share in the lane's v[j]): strides of 32 and more are
// exchanges inside a lane, smaller ones shuffles, and neither needs a barrier. Only the
// stages whose pairs lie in two warps' shares go through shared memory, one barrier a
// stage. The whole network in shared memory paid a barrier at every stage (66 for 2048
// keys; 36 of them for 256 words took 10 µs on the H200, docs/performance.md); here 2048
// words in 16 warps' shares of 128 pay 16 barriers, and what one warp holds (up to 256
// words) two.
//
// The merges across warps use the network's "flip" form: every share is sorted best
// first (not in alternating directions), and a merge of two sorted runs compares key i of
// the first with key span - 1 - i of the second (the second run reversed), which leaves
// the better half of the pair in the first run as a bitonic sequence; half-cleaners
// (strides span / 4 .. 1, the better key to the lower index) then sort each run.

#include <tally/detail/config.cuh>

#include <type_traits>

TALLY_NAMESPACE_BEGIN
namespace detail {

/// An item's composite key: larger is better.
struct select_key {
  unsigned long long key;
  unsigned long long inv;
};

TALLY_HOST_DEVICE TALLY_FORCEINLINE bool select_better(const select_key& a, const select_key& b) {
  return a.key > b.key || (a.key == b.key && a.inv > b.inv);
}
TALLY_HOST_DEVICE TALLY_FORCEINLINE bool select_better(unsigned long long a, unsigned long long b) { return a > b; }
/// The all-zero key, which no item has: the padding of a sort.
TALLY_HOST_DEVICE TALLY_FORCEINLINE unsigned long long select_worst(unsigned long long) { return 0; }
TALLY_HOST_DEVICE TALLY_FORCEINLINE select_key select_worst(const select_key&) { return select_key{0, 0}; }

template <class W>
__device__ TALLY_FORCEINLINE W shfl_xor_word(const W& w, int mask) {
  if constexpr (std::is_same_v<W, unsigned long long>) {
    return __shfl_xor_sync(0xffffffffu, w, mask);
  } else {
    return W{__shfl_xor_sync(0xffffffffu, w.key, mask), __shfl_xor_sync(0xffffffffu, w.inv, mask)};
  }
}

/// A warp's 32 E words in registers (word i = 32 j + lane in v[j]) sorted best first: a
/// bitonic network; exchanges across lanes by shuffles, across a lane's words (strides of
/// 32 and more) in place.
template <int E, class W>
__device__ TALLY_FORCEINLINE void warp_sort_registers(W (&v)[E]) {
  const int lane = static_cast<int>(threadIdx.x & 31);
#pragma unroll
  for (int span = 2; span <= 32 * E; span *= 2) {
#pragma unroll
    for (int stride = span / 2; stride > 0; stride /= 2) {
      if (stride >= 32) {
        const int s = stride / 32;
#pragma unroll
        for (int j = 0; j < E; ++j) {
          if (j & s) continue;
          const bool best_first = ((32 * j + lane) & span) == 0;
          const bool swap = select_better(v[j + s], v[j]) == best_first;
          if (swap) {
            const W x = v[j];
            v[j] = v[j + s];
            v[j + s] = x;
          }
        }
      } else {
#pragma unroll
        for (int j = 0; j < E; ++j) {
          const int i = 32 * j + lane;
          const W other = shfl_xor_word(v[j], stride);
          const bool best_first = (i & span) == 0, lower = (i & stride) == 0;
          if (select_better(other, v[j]) == (lower == best_first)) v[j] = other;
        }
      }
    }
  }
}

/// The half-cleaners of a merge (strides 16 E .. 1, the better word to the lower index)
/// over a warp's 32 E words in registers: a bitonic sequence in, sorted best first out.
template <int E, class W>
__device__ TALLY_FORCEINLINE void warp_merge_registers(W (&v)[E]) {
  const int lane = static_cast<int>(threadIdx.x & 31);
#pragma unroll
  for (int stride = 16 * E; stride > 0; stride /= 2) {
    if (stride >= 32) {
      const int s = stride / 32;
#pragma unroll
      for (int j = 0; j < E; ++j) {
        if (j & s) continue;
        if (select_better(v[j + s], v[j])) {
          const W x = v[j];
          v[j] = v[j + s];
          v[j + s] = x;
        }
      }
    } else {
      const bool lower = (lane & stride) == 0;
#pragma unroll
      for (int j = 0; j < E; ++j) {
        const W other = shfl_xor_word(v[j], stride);
        if (lower ? select_better(other, v[j]) : select_better(v[j], other)) v[j] = other;
      }
    }
  }
}

/// One compare-exchange stage of the network over s[0..size) in shared memory: pair q of
/// size / 2 is (lo, hi), the better word to lo; then a barrier.
template <class W, class Pair>
__device__ TALLY_FORCEINLINE void shared_stage(W* s, int size, Pair pair) {
  for (int q = static_cast<int>(threadIdx.x); q < size / 2; q += static_cast<int>(blockDim.x)) {
    int lo, hi;
    pair(q, lo, hi);
    const W a = s[lo], b = s[hi];
    if (select_better(b, a)) {
      s[lo] = b;
      s[hi] = a;
    }
  }
  __syncthreads();
}

/// s[0..size) (size a power of two, 32 E <= size <= 32 E x the block's warps) sorted best
/// first: the first size / (32 E) warps each sort a share of 32 E in registers, then the
/// shares merge in rounds (the flip and the strides across shares in shared memory, the
/// strides inside a share in registers). Every thread calls it; ends synchronised.
template <int E, class W>
__device__ void block_sort_shares(W* s, int size) {
  constexpr int share = 32 * E;
  const int lane = static_cast<int>(threadIdx.x & 31);
  const bool holds = static_cast<int>(threadIdx.x >> 5) < size / share;  // whole warps: shuffles need all lanes
  W* mine = s + (threadIdx.x >> 5) * share;
  W v[E];
  if (holds) {
#pragma unroll
    for (int j = 0; j < E; ++j) v[j] = mine[32 * j + lane];
    warp_sort_registers(v);
  }
  for (int span = 2 * share; span <= size; span *= 2) {
    if (holds) {
#pragma unroll
      for (int j = 0; j < E; ++j) mine[32 * j + lane] = v[j];
    }
    __syncthreads();
    const int half = span / 2;
    // The flip: key o of a span's first run against key span - 1 - o (its second run read backwards).
    shared_stage(s, size, [&](int q, int& lo, int& hi) {
      const int base = (q / half) * span, o = q & (half - 1);
      lo = base + o;
      hi = base + span - 1 - o;
    });
    for (int stride = span / 4; stride >= share; stride /= 2)
      shared_stage(s, size, [&](int q, int& lo, int& hi) {
        lo = 2 * q - (q & (stride - 1));
        hi = lo + stride;
      });
    if (holds) {
#pragma unroll
      for (int j = 0; j < E; ++j) v[j] = mine[32 * j + lane];
      warp_merge_registers(v);
    }
  }
  if (holds) {
#pragma unroll
    for (int j = 0; j < E; ++j) mine[32 * j + lane] = v[j];
  }
  __syncthreads();
}

/// The whole network in shared memory: s[0..count) sorted best first, s having room for
/// the next power of two >= count, whose tail is filled with the worst key. A barrier a
/// stage; block_sort_keys' fallback, and the sort of the top_k pieces kernel, whose
/// register budget (two blocks of 512 an SM, with its passes' state live) leaves none for
/// shares in registers.
template <class W>
__device__ void block_sort_keys_shared(W* s, int count) {
  int size = 1;
  while (size < count) size *= 2;
  for (int i = count + static_cast<int>(threadIdx.x); i < size; i += static_cast<int>(blockDim.x))
    s[i] = select_worst(W{});
  __syncthreads();
  for (int span = 2; span <= size; span *= 2) {
    for (int stride = span / 2; stride > 0; stride /= 2)
      shared_stage(s, size, [&](int q, int& lo, int& hi) {
        lo = 2 * q - (q & (stride - 1));
        hi = lo + stride;
        if (lo & span) {  // a run sorted worst first: the better key goes up
          const int x = lo;
          lo = hi;
          hi = x;
        }
      });
  }
}

/// Sorts s[0..count) best first; s has room for the next power of two >= max(count, 128),
/// whose tail is filled with the worst key (no item's). Every thread of the block calls
/// it; ends synchronised. Words packed in 64 bits go in shares of 128 a warp (E = 4), or
/// 256 (E = 8) where that is one warp or fills the block (4096 words on 16 warps): two
/// shapes, so that a call site compiles two networks (each unrolled), not one per E.
/// Beyond what the block's warps hold, the network in shared memory alone. Not inlined:
/// the select kernel calls it from four places, and inlined there the networks made the
/// kernel spill 2 KB.
template <class W>
__device__ __noinline__ void block_sort_keys(W* s, int count) {
  if constexpr (sizeof(W) > 8) {
    // Composite keys that do not pack (8-byte values, or inputs of 2^32 items or more):
    // not worth networks of their own at every call site (each costs about 0.5 s of
    // nvcc -O3); they keep the shared-memory network. (In the else branch, so that the
    // register networks are not even instantiated for them.)
    block_sort_keys_shared(s, count);
  } else {
    int size = 128;
    while (size < count) size *= 2;
    for (int i = count + static_cast<int>(threadIdx.x); i < size; i += static_cast<int>(blockDim.x))
      s[i] = select_worst(W{});
    __syncthreads();
    const int warps = static_cast<int>(blockDim.x >> 5);
    if (size == 256 || size == 256 * warps) {
      block_sort_shares<8>(s, size);
    } else if (size <= 128 * warps) {
      block_sort_shares<4>(s, size);
    } else {
      block_sort_keys_shared(s, count);
    }
  }
}

/// The padded size block_sort_keys sorts count packed words in.
TALLY_HOST_DEVICE constexpr int block_sort_size(int count) {
  int size = 128;
  while (size < count) size *= 2;
  return size;
}

/// Whether keeping the best `keep` of `count` words before the sort (block_keep_best)
/// pays: where the network would be at least 2048 wide (count > 1024) and becomes
/// narrower. Its rounds take about 4 µs (H200: 1551 -> 1024 3.8, 2542 -> 1024 4.2,
/// 1024 -> 256 4.6), and the network over 1024 words 4.9, over 2048 9.9, over 4096 about
/// 20: below 1024 it costs what it saves (1024 -> 256 then sorted took 1.37x the sort of
/// the 1024) (docs/performance.md#keep-best).
TALLY_HOST_DEVICE constexpr bool keep_best_pays(int keep, int count) {
  return count > 1024 && block_sort_size(keep) < block_sort_size(count);
}

/// Moves the `keep` best (largest) of the distinct words s[0..count) to s[0..keep), in no
/// particular order (0 < keep < count <= PerThread x the block's threads). A radix select inside
/// the block: 8-bit digits from the highest bit where the words differ, each round a
/// histogram in shared memory and one warp's scan of it, until the bucket holding the
/// keep-th best holds exactly the ones still needed; then the words at least that good
/// are gathered to the front. Sorting k = 1024 of 4096 words then costs a network of 1024
/// (docs/performance.md#keep-best). Every thread calls it; ends synchronised.
/// (A template, so that the definition in this header is not one per translation unit:
/// a plain __device__ __noinline__ function is also a host symbol.)
template <int PerThread = 8>
__device__ __noinline__ void block_keep_best(unsigned long long* s, int count, int keep) {
  constexpr int per_thread = PerThread;
  __shared__ unsigned int hist[256];
  __shared__ unsigned long long or_words, and_words;
  __shared__ unsigned long long prefix;  // the decided top bits of the keep-th best
  __shared__ int low, needed, settled;   // the current digit's lowest bit; still needed; done
  __shared__ unsigned int gathered;
  const int t = static_cast<int>(threadIdx.x), lane = t & 31;
  const int threads = static_cast<int>(blockDim.x);
  unsigned long long mine[per_thread];
  unsigned long long any = 0, all = ~0ull;
#pragma unroll
  for (int j = 0; j < per_thread; ++j) {
    const int i = t + j * threads;
    mine[j] = i < count ? s[i] : 0;
    if (i < count) {
      any |= mine[j];
      all &= mine[j];
    }
  }
  if (t == 0) {
    or_words = 0;
    and_words = ~0ull;
    gathered = 0;
  }
  __syncthreads();
  for (int offset = 16; offset > 0; offset /= 2) {
    any |= __shfl_xor_sync(0xffffffffu, any, offset);
    all &= __shfl_xor_sync(0xffffffffu, all, offset);
  }
  if (lane == 0) {
    atomicOr(&or_words, any);
    atomicAnd(&and_words, all);
  }
  __syncthreads();
  if (t == 0) {
    // Distinct words differ somewhere: the highest such bit starts the first digit.
    const int high = 63 - __clzll(static_cast<long long>(or_words & ~and_words));
    low = high - 7;
    prefix = high == 63 ? 0 : and_words >> (high + 1) << (high + 1);  // the bits they all share
    needed = keep;
    settled = 0;
  }
  __syncthreads();
  while (!settled) {
    for (int i = t; i < 256; i += threads) hist[i] = 0;
    __syncthreads();
    // The round's state, read by every thread between the barriers that keep warp 0's
    // writes (below) out: no thread reads these words after warp 0 writes them.
    const int lo = low < 0 ? 0 : low;
    const int top = low + 8;  // the digit is bits [lo, top); above it the prefix decides
    const unsigned long long decided = prefix;
    const unsigned int need = static_cast<unsigned int>(needed);
#pragma unroll
    for (int j = 0; j < per_thread; ++j) {
      const bool in = t + j * threads < count && (top >= 64 || (mine[j] >> top) == (decided >> top));
      if (in) atomicAdd(&hist[(mine[j] >> lo) & ((1u << (top - lo)) - 1)], 1u);
    }
    __syncthreads();
    if (t < 32) {
      // Lane l holds buckets 255 - 8 l .. 248 - 8 l (best first); a prefix sum over lanes.
      unsigned int c[8], own = 0;
#pragma unroll
      for (int j = 0; j < 8; ++j) {
        c[j] = hist[255 - 8 * lane - j];
        own += c[j];
      }
      unsigned int before = own;
      for (int offset = 1; offset < 32; offset *= 2) {
        const unsigned int x = __shfl_up_sync(0xffffffffu, before, offset);
        if (lane >= offset) before += x;
      }
      before -= own;  // items in better buckets than mine
      if (before < need && before + own >= need) {
        unsigned int acc = before;
#pragma unroll
        for (int j = 0; j < 8; ++j) {
          if (acc < need && acc + c[j] >= need) {
            const unsigned int b = 255u - 8u * lane - j;
            prefix = decided | (static_cast<unsigned long long>(b) << lo);
            needed = static_cast<int>(need - acc);
            settled = c[j] == need - acc || lo == 0;
            low = low - 8;
          }
          acc += c[j];
        }
      }
    }
    __syncthreads();
  }
  // The keep best: the words whose bits from `lo` up are at least the prefix's (the last
  // bucket held exactly the ones still needed).
  const int lo = low + 8 < 0 ? 0 : low + 8;
  const unsigned long long bound = prefix >> lo;
#pragma unroll
  for (int j = 0; j < per_thread; ++j) {
    const bool kept = t + j * threads < count && (mine[j] >> lo) >= bound;
    const unsigned int ballot = __ballot_sync(0xffffffffu, kept);
    unsigned int base = 0;
    if (lane == 0 && ballot != 0) base = atomicAdd(&gathered, static_cast<unsigned int>(__popc(ballot)));
    base = __shfl_sync(0xffffffffu, base, 0);
    if (kept) s[base + __popc(ballot & ((1u << lane) - 1u))] = mine[j];
  }
  __syncthreads();
}

}  // namespace detail
TALLY_NAMESPACE_END
