#pragma once
// Per-thread accumulation, the first stage of every device reduction.
//
// The input is cut into tiles of Threads * ItemsPerThread items; block b takes tiles
// b, b + grid, b + 2 grid, ... (a grid-stride loop over tiles). Within a tile thread t
// loads its items with all loads issued before the first use, so that each thread has
// ItemsPerThread items (up to 128 bytes) in flight, and folds them as a pairwise tree
// (independent accumulators, not one serial chain). Contiguous inputs are read with
// 16-byte vector loads once the pointer is aligned: the unaligned head (fewer than
// 16 bytes) and the last partial tile are read item by item by the last block.
//
// Each item is turned into the accumulator type by `convert(item, index)`: a plain
// conversion for reduce, a (value, index) pair for max_element, an order key where a
// min/max is cheaper on keys. Unused indices cost nothing: the compiler drops them.
//
// The host sizes the grid to at most the number of full tiles, so when there is a full
// tile every thread of every block has at least one item; only a grid of one block
// over less than a tile leaves some threads empty, and those are a prefix-closed set
// (thread t has items iff t < count). `valid` returns how many threads hold a value.

#include <tally/detail/type_traits.cuh>
#include <tally/warp/shuffle.cuh>

TALLY_NAMESPACE_BEGIN
namespace detail {

/// How many items of V one vector load reads when a thread takes `items` per tile: up to
/// 16 bytes, and a divisor of `items`. Also called by the host (the launch computes the
/// unaligned head with the kernel's items per thread).
template <class V>
TALLY_HOST_DEVICE constexpr int vector_width(int items) {
  int w = (sizeof(V) <= 8 && 16 % sizeof(V) == 0) ? int(16 / sizeof(V)) : 1;
  while (w > 1 && items % w != 0) w /= 2;
  return w;
}

/// How a contiguous input of V is read with vector loads: Width items of V per load.
template <class V, int ItemsPerThread>
struct vector_shape {
  static constexpr int width = vector_width<V>(ItemsPerThread);
  static constexpr int bytes = width * int(sizeof(V));
  using word = std::conditional_t<
      bytes == 16, uint4,
      std::conditional_t<bytes == 8, uint2,
                         std::conditional_t<bytes == 4, unsigned int,
                                            std::conditional_t<bytes == 2, unsigned short, unsigned char>>>>;
};

/// Where the items of an input are and how they may be read. `head` items come before
/// the first vector-aligned item; `vectorized` is false when the input can't be read
/// with vector loads (not contiguous, or a pointer not aligned to its own type).
template <class It>
struct input_range {
  It first;
  std::int64_t n;
  int head;
  bool vectorized;
};

/// The input range of [first, first + n) for a kernel that takes `items` per thread.
template <class It>
input_range<It> make_input_range(It first, std::int64_t n, int items) {
  input_range<It> range{first, n, 0, false};
  if constexpr (is_contiguous_iterator_v<It>) {
    using V = iter_value_t<It>;
    const int width = vector_width<V>(items);
    if (width > 1) {
      const auto address = reinterpret_cast<std::uintptr_t>(to_raw_pointer(first));
      if (address % sizeof(V) == 0) {
        const std::size_t bytes = std::size_t(width) * sizeof(V);
        const auto misalignment = address % bytes;
        const std::int64_t head = misalignment ? std::int64_t((bytes - misalignment) / sizeof(V)) : 0;
        range.head = static_cast<int>(head < n ? head : n);
        range.vectorized = true;
      }
    }
  }
  return range;
}

/// Folds items[0..N) as a pairwise tree: log2(N) dependent steps instead of N.
template <int N, class T, class Op>
__device__ TALLY_FORCEINLINE T fold_tree(T (&items)[N], Op op) {
#pragma unroll
  for (int stride = 1; stride < N; stride *= 2) {
#pragma unroll
    for (int k = 0; k + stride < N; k += 2 * stride) items[k] = op(items[k], items[k + stride]);
  }
  return items[0];
}

template <class T, class Op>
__device__ TALLY_FORCEINLINE void accumulate(T& acc, bool& has, const T& value, Op op) {
  acc = has ? op(acc, value) : value;
  has = true;
}

/// Reads this block's share of the input: for each full tile the block takes, calls
/// `on_tile(items)` with this thread's ItemsPerThread items of the tile (converted, in
/// registers); for each item of the unaligned head and the partial last tile (read by
/// the last block), calls `on_item(item)`. Returns the number of threads of this block
/// that were given at least one item (block-uniform).
///
/// Pipelined: the loads of the block's next tile are issued before `on_tile` works on
/// this one, for folds that take longer than a load's latency to hide on their own
/// (top_k<2>'s compare-and-insert); a plain reduction has no need of the extra registers.
template <int Threads, int ItemsPerThread, class T, bool Pipelined = false, class It, class Convert, class OnTile,
          class OnItem>
__device__ TALLY_FORCEINLINE int for_each_item(const input_range<It>& in, Convert convert, OnTile&& on_tile,
                                               OnItem&& on_item) {
  constexpr int tile = Threads * ItemsPerThread;
  const int tid = static_cast<int>(threadIdx.x);
  const std::int64_t body = in.n - in.head;
  const std::int64_t full_tiles = body / tile;

  if constexpr (is_contiguous_iterator_v<It> && vector_width<iter_value_t<It>>(ItemsPerThread) > 1) {
    using V = iter_value_t<It>;
    using shape = vector_shape<V, ItemsPerThread>;
    constexpr int loads = ItemsPerThread / shape::width;
    if (in.vectorized) {
      const auto* words = reinterpret_cast<const typename shape::word*>(to_raw_pointer(in.first) + in.head);
      const auto load_tile = [&](std::int64_t t, typename shape::word(&loaded)[loads]) {
        const auto* tile_words = words + t * (tile / shape::width);
#pragma unroll
        for (int j = 0; j < loads; ++j) loaded[j] = tile_words[j * Threads + tid];  // coalesced: a warp reads 512 contiguous bytes
      };
      typename shape::word next[loads];
      if (Pipelined && std::int64_t(blockIdx.x) < full_tiles) load_tile(blockIdx.x, next);
      for (std::int64_t t = blockIdx.x; t < full_tiles; t += gridDim.x) {
        const std::int64_t tile_first = in.head + t * tile;
        typename shape::word loaded[loads];
        if constexpr (Pipelined) {
#pragma unroll
          for (int j = 0; j < loads; ++j) loaded[j] = next[j];
          if (t + gridDim.x < full_tiles) load_tile(t + gridDim.x, next);
        } else {
          load_tile(t, loaded);
        }
        T items[ItemsPerThread];
#pragma unroll
        for (int j = 0; j < loads; ++j) {
          V lanes[shape::width];
          memcpy(lanes, &loaded[j], sizeof(lanes));
#pragma unroll
          for (int k = 0; k < shape::width; ++k)
            items[j * shape::width + k] =
                convert(lanes[k], tile_first + std::int64_t(j * Threads + tid) * shape::width + k);
        }
        on_tile(items);
      }
    }
  }
  if (!in.vectorized) {
    for (std::int64_t t = blockIdx.x; t < full_tiles; t += gridDim.x) {
      const std::int64_t tile_first = t * tile;
      const It tile_items = in.first + tile_first;
      T items[ItemsPerThread];
#pragma unroll
      for (int j = 0; j < ItemsPerThread; ++j)
        items[j] = convert(tile_items[j * Threads + tid], tile_first + j * Threads + tid);
      on_tile(items);
    }
  }

  // The unaligned head and the partial last tile, read item by item by the last block.
  const int rest = static_cast<int>(body - full_tiles * tile);
  const int count = in.head + rest;
  if (blockIdx.x == gridDim.x - 1) {
    // Item i < head is the head's; item i >= head is the tail's, at full_tiles * tile + i.
    const std::int64_t rest_begin = full_tiles * tile;
    for (int i = tid; i < count; i += Threads) {
      const std::int64_t index = i < in.head ? std::int64_t(i) : rest_begin + i;
      on_item(convert(in.first[index], index));
    }
  }
  return full_tiles > 0 ? Threads : (count < Threads ? count : Threads);
}

/// The reading of a kernel that only ever runs on inputs of at most one tile (a
/// small-input kernel whose limit is its tile, so its grid is one block): each thread loads
/// its share of the tile, all of its loads issued before the first use, then calls
/// `body(each)` once, where `each(f)` calls f(value, index) for each of the thread's items
/// as read, from registers (as often as the body likes: a filter's bar first, then the
/// items that pass it). One round of loads, where the tile loop would read a partial
/// tile item by item, a load latency per few items. There is no loop over tiles, and the
/// code stays small, which at these sizes is part of a kernel's time: guarded loads of the
/// partial tile added to for_each_item made its full tiles 7-8% slower (H100,
/// docs/performance.md#small-reductions). Every thread calls the body (it may use warp
/// collectives). Returns the number of threads given at least one item (a prefix of the
/// threads).
template <int Threads, int ItemsPerThread, class It, class Body>
__device__ TALLY_FORCEINLINE int read_one_tile(const input_range<It>& in, Body&& body) {
  const int tid = static_cast<int>(threadIdx.x);
  const int n = static_cast<int>(in.n);  // at most one tile
  using V = iter_value_t<It>;
  if constexpr (is_contiguous_iterator_v<It> && vector_width<V>(ItemsPerThread) > 1) {
    using shape = vector_shape<V, ItemsPerThread>;
    constexpr int loads = ItemsPerThread / shape::width;
    if (in.vectorized) {
      // The unaligned head, whole words from there, then the items after the last word.
      const int words = (n - in.head) / shape::width;
      const auto* first_word = reinterpret_cast<const typename shape::word*>(to_raw_pointer(in.first) + in.head);
      // Loads without a guard, so that they issue back to back: a word past the last reads
      // the last word again (an L1 hit, never used); only the uses are guarded. (words is
      // 0 only below one word: then no thread reads.)
      typename shape::word loaded[loads];
      if (words > 0) {
#pragma unroll
        for (int j = 0; j < loads; ++j) loaded[j] = first_word[min(j * Threads + tid, words - 1)];
      }
      // Item i < head is the head's; item i >= head is after the last word.
      const int singles = n - words * shape::width;
      const std::int64_t single_index = tid < in.head ? std::int64_t(tid) : std::int64_t(words * shape::width + tid);
      V single{};
      if (tid < singles) single = in.first[single_index];
      body([&](auto&& f) {
#pragma unroll
        for (int j = 0; j < loads; ++j) {
          if (j * Threads + tid < words) {
            V lanes[shape::width];
            memcpy(lanes, &loaded[j], sizeof(lanes));
#pragma unroll
            for (int k = 0; k < shape::width; ++k)
              f(lanes[k], in.head + std::int64_t(j * Threads + tid) * shape::width + k);
          }
        }
        if (tid < singles) f(single, single_index);
      });
      const int holders = words > singles ? words : singles;
      return holders < Threads ? holders : Threads;
    }
  }
  V items[ItemsPerThread];
#pragma unroll
  for (int j = 0; j < ItemsPerThread; ++j)
    if (j * Threads + tid < n) items[j] = in.first[j * Threads + tid];
  body([&](auto&& f) {
#pragma unroll
    for (int j = 0; j < ItemsPerThread; ++j)
      if (j * Threads + tid < n) f(items[j], std::int64_t(j * Threads + tid));
  });
  return n < Threads ? n : Threads;
}

/// read_one_tile with each item converted and handed to `on_item`.
template <int Threads, int ItemsPerThread, class It, class Convert, class OnItem>
__device__ TALLY_FORCEINLINE int for_each_item_of_one_tile(const input_range<It>& in, Convert convert,
                                                           OnItem&& on_item) {
  using V = iter_value_t<It>;
  return read_one_tile<Threads, ItemsPerThread>(in, [&](auto&& each) {
    each([&](const V& value, std::int64_t index) { on_item(convert(value, index)); });
  });
}

/// An operator may offer `insert(acc, item)`, a cheaper fold of one converted item into an
/// accumulator that starts as `Op::empty_accumulator()` (top_k<2>'s pair of keys: one
/// compare against the second best, and rarely more, instead of a full pair merge).
template <class Op, class T, class = void>
struct has_insert : std::false_type {};
template <class Op, class T>
struct has_insert<Op, T, std::void_t<decltype(std::declval<const Op&>().insert(std::declval<T&>(), std::declval<const T&>()))>>
    : std::true_type {};

/// A conversion into an accumulator with `insert` may also offer a filter on the items as
/// read, so that most are never converted (top_k<2>: a value no better than the second
/// best's cannot enter):
///   bar_key(acc)         an unsigned key, larger the more it excludes; 0: none yet.
///                        Keys of a warp's lanes may be combined by their maximum.
///   bar_value(key)       the value of a key.
///   may_enter(raw, bar)  false when the item, as read, cannot enter an accumulator
///                        whose bar_key is key, nor any of the warp's with a larger one.
///   value_key(raw)       an item's value as read, as a key of bar_key's order.
///   worse(raw, bar)      whether the item is strictly worse than the value: false for an
///                        equal item and for a NaN.
template <class Convert, class T, class V, class = void>
struct has_item_filter : std::false_type {};
template <class Convert, class T, class V>
struct has_item_filter<
    Convert, T, V,
    std::void_t<decltype(std::declval<const Convert&>().may_enter(
        std::declval<const V&>(), std::declval<const Convert&>().bar_value(std::declval<const Convert&>().bar_key(
                                      std::declval<const T&>()))))>> : std::true_type {};

/// An item as read and its index: what for_each_item hands on when the conversion waits
/// for the filter.
template <class V>
struct raw_item {
  V value;
  std::int64_t index;
};

/// Inserts a warp's first items (`each(f)` calls f(value, index) for each of this lane's,
/// from registers), where no lane holds a bar yet, past a bar taken from the items as read:
/// each lane's best item L (a native compare an item, no conversion), then the bar = the
/// second best of the warp's 32 L by their keys. At least two lanes' L are at least as good
/// as the bar and get in (an equal item or a NaN is never excluded here: the test is
/// `worse`, strict, since the bar's holders need not have the lower indices), so an item
/// strictly worse than the bar loses to two keys the warp keeps. On uniform data about 2
/// of a warp's 256 items at 8 a lane get in, where all 256 were converted and inserted:
/// the whole fold of an input of one tile a thread. All 32 lanes must call it; a lane
/// without items offers the lowest key.
template <class V, class T, class Each, class Convert, class Op>
__device__ TALLY_FORCEINLINE void insert_past_first_bar(T& acc, Each&& each, const Convert& convert, const Op& op) {
  V best{};
  bool has = false;
  each([&](const V& value, std::int64_t) {
    if (!has || convert.may_enter(value, best)) best = value;
    has = true;
  });
  const unsigned int mine = has ? convert.value_key(best) : 0u;
  const unsigned int top = warp_max(mine);
  const bool shared_top = __popc(__ballot_sync(full_warp_mask, mine == top)) > 1;
  const auto bar = convert.bar_value(shared_top ? top : warp_max(mine == top ? 0u : mine));
  each([&](const V& value, std::int64_t index) {
    if (!convert.worse(value, bar)) op.insert(acc, convert(value, index));
  });
}

/// The full tiles of an operator with `insert` under a conversion with a filter: per tile,
/// the warp's bar (the largest of its lanes' bar_key: a lane's items must beat the best
/// bar of the warp, a sharper test than its own), one compare an item, and the conversion
/// and insert only for items that pass. Sharing the bar is exact where the filter says
/// so (top2_merge: see convert_to_top2) and matters: with a bar per lane a warp skips a
/// tile only when all 32 lanes do.
template <int ItemsPerThread, class T, class V, class Convert, class Op>
__device__ TALLY_FORCEINLINE void insert_passing(T& acc, const raw_item<V> (&items)[ItemsPerThread],
                                                 const Convert& convert, const Op& op) {
  const unsigned int key = warp_max(convert.bar_key(acc));
  if (key != 0) {
    const auto bar = convert.bar_value(key);
    bool any = false;
#pragma unroll
    for (int j = 0; j < ItemsPerThread; ++j) any |= convert.may_enter(items[j].value, bar);
    if (!any) return;  // the common case once the warp has seen a few tiles
#pragma unroll
    for (int j = 0; j < ItemsPerThread; ++j)
      if (convert.may_enter(items[j].value, bar)) op.insert(acc, convert(items[j].value, items[j].index));
  } else {
    // The warp's first tile: no lane holds two keys yet.
    const auto each = [&](auto&& f) {
#pragma unroll
      for (int j = 0; j < ItemsPerThread; ++j) f(items[j].value, items[j].index);
    };
    insert_past_first_bar<V>(acc, each, convert, op);
  }
}

/// Returns this thread's fold of its items; `valid` (block-uniform) gets the number of
/// threads of this block that have at least one item. OneTile: the kernel only runs on
/// inputs of at most one tile (for_each_item_of_one_tile).
template <int Threads, int ItemsPerThread, class T, bool OneTile = false, class It, class Convert, class Op>
__device__ T thread_accumulate(const input_range<It>& in, Convert convert, Op op, int& valid) {
  if constexpr (has_insert<Op, T>::value) {
    T acc = Op::empty_accumulator();
    const auto on_item = [&](const T& item) { op.insert(acc, item); };
    using V = iter_value_t<It>;
    if constexpr (!OneTile && has_item_filter<Convert, T, V>::value) {
      // The items reach the tile callback as read; the filter decides which to convert.
      const auto as_read = [](const V& value, std::int64_t index) { return raw_item<V>{value, index}; };
      valid = for_each_item<Threads, ItemsPerThread, raw_item<V>, true>(
          in, as_read, [&](raw_item<V> (&items)[ItemsPerThread]) { insert_passing(acc, items, convert, op); },
          [&](const raw_item<V>& item) { op.insert(acc, convert(item.value, item.index)); });
    } else if constexpr (OneTile && has_item_filter<Convert, T, V>::value) {
      // One round: every item of the thread is a first item.
      valid = read_one_tile<Threads, ItemsPerThread>(
          in, [&](auto&& each) { insert_past_first_bar<V>(acc, each, convert, op); });
    } else if constexpr (OneTile) {
      valid = for_each_item_of_one_tile<Threads, ItemsPerThread>(in, convert, on_item);
    } else {
      valid = for_each_item<Threads, ItemsPerThread, T, true>(
          in, convert,
          [&](T (&items)[ItemsPerThread]) {
#pragma unroll
            for (int j = 0; j < ItemsPerThread; ++j) op.insert(acc, items[j]);
          },
          on_item);
    }
    return acc;
  } else {
    T acc;
    bool has = false;
    const auto on_item = [&](const T& item) { accumulate(acc, has, item, op); };
    if constexpr (OneTile) {
      valid = for_each_item_of_one_tile<Threads, ItemsPerThread>(in, convert, on_item);
    } else {
      valid = for_each_item<Threads, ItemsPerThread, T>(
          in, convert, [&](T (&items)[ItemsPerThread]) { accumulate(acc, has, fold_tree(items, op), op); },
          on_item);
    }
    return acc;
  }
}

}  // namespace detail
TALLY_NAMESPACE_END
