#pragma once
// One tile's compaction by one block: the work the copy_if kernels (kernels.cuh) do on
// a tile of Threads * ItemsPerThread items.
//
// A thread's items come in groups of `vector` consecutive items (4 where ItemsPerThread
// allows), and the groups are striped over the block: item j of thread t is tile item
// (j / vector) * Threads * vector + t * vector + j % vector. So a warp's load of a group
// reads 32 * vector consecutive items, as one 16-byte load a thread for 4-byte items
// (from a raw pointer, in a full tile), and a byte stencil's group is one 4-byte word.
//
// Where a selected item goes within the tile: each thread counts its selected items of
// each group (0..vector), the counts of up to four groups are packed 16 bits apiece into
// one word, and one block scan of those words (the backend's: shuffles or a tree in
// shared memory) gives every thread, for each group, the count of the group's selected
// items before its own and the group's count over the block. A field cannot carry into
// the next: a group holds Threads * vector <= 4096 items. Counting costs the scan and a
// few integer instructions a group; the earlier layout (item j at j * Threads + t, one
// __ballot_sync an item slot, a scan of the (slot, warp) counts) took about 13
// instructions an item slot and a shuffle each for a stencil's byte.
//
// The selected items are then gathered in shared memory in tile order and written out
// with consecutive threads writing consecutive places (tiles too large for shared memory
// scatter them from registers instead).

#include <tally/detail/config.cuh>
#include <tally/detail/copy_if/prefetch.cuh>
#include <tally/detail/type_traits.cuh>

#include <cstdint>
#include <cstring>
#include <new>
#include <type_traits>

TALLY_NAMESPACE_BEGIN
namespace detail {

template <template <int, class> class BlockScan, int Threads, int ItemsPerThread, class V, class Select, int Buffers = 1>
struct tile_compaction {
  static_assert(ItemsPerThread <= 32, "tally: copy_if takes at most 32 items per thread");
  static constexpr int vector = ItemsPerThread % 4 == 0 ? 4 : ItemsPerThread % 2 == 0 ? 2 : 1;
  static constexpr int groups = ItemsPerThread / vector;
  static constexpr int tile_items = Threads * ItemsPerThread;
  static_assert(Threads * vector < (1 << 16), "tally: a group's count must fit its 16-bit field");
  // Counts packed 16 bits apiece: two groups in a 32-bit word, else four in a 64-bit one.
  static constexpr int fields = groups <= 2 ? 2 : 4;
  static constexpr int words = (groups + fields - 1) / fields;
  using word_t = std::conditional_t<fields == 2, unsigned int, unsigned long long>;
  using scan_t = BlockScan<Threads, word_t>;
  // Staging costs Buffers * tile_items * sizeof(V) bytes of shared memory; up to 32 KiB
  // leaves room under the 48 KiB static limit for the rest.
  static constexpr bool staged = std::size_t(Buffers) * tile_items * sizeof(V) <= 32 * 1024;
  // A group's bytes: read as one to four 4-, 8- or 16-byte words where it is one of those.
  static constexpr std::size_t group_bytes = vector * sizeof(V);
  static constexpr std::size_t group_align = group_bytes % 16 == 0 ? 16 : group_bytes;

  struct temp_storage {
    typename scan_t::temp_storage scan;
    long long out_start;  // where the tile's output starts
    long long next_tile;  // the stable kernel's next ticket
    // Raw bytes: V need not be default-constructible.
    alignas(alignof(V)) unsigned char staging[staged ? Buffers * std::size_t(tile_items) * sizeof(V) : 1];
  };

  temp_storage& storage;
  V items[ItemsPerThread];
  // What the selector reads with the items besides them (select.cuh: a byte stencil's words).
  typename Select::template fetched_type<Threads, ItemsPerThread> fetched;
  unsigned int selected;      // bit j: item j is selected
  int group_at[groups];       // where this thread's first selected item of group g goes in the tile

  /// The tile index of this thread's item j.
  __device__ static TALLY_FORCEINLINE int local_index(int j, int tid) {
    return (j / vector) * (Threads * vector) + tid * vector + j % vector;
  }

  __device__ static int tile_size(std::int64_t n, std::int64_t tile) {
    const std::int64_t left = n - tile * tile_items;
    return left < tile_items ? static_cast<int>(left) : tile_items;
  }

  template <class It>
  static constexpr bool loads_groups =
      std::is_pointer_v<It> && std::is_trivially_copyable_v<V> &&
      (group_bytes == 4 || group_bytes == 8 || group_bytes % 16 == 0);

  /// Issues the loads of this thread's items of `tile` and of what the selector fetches with them.
  template <class It>
  __device__ TALLY_FORCEINLINE void load(It first, std::int64_t n, std::int64_t tile, const Select& select) {
    const std::int64_t base = tile * tile_items;
    const int tile_n = tile_size(n, tile);
    const int tid = static_cast<int>(threadIdx.x);
    select.template fetch<Threads, ItemsPerThread>(fetched, base, tile_n);
    if constexpr (loads_groups<It>) {
      if (tile_n == tile_items && reinterpret_cast<std::uintptr_t>(first) % group_align == 0) {
        const auto* bytes = reinterpret_cast<const unsigned char*>(first + base + tid * vector);
#pragma unroll
        for (int g = 0; g < groups; ++g) load_group(bytes + std::size_t(g) * Threads * group_bytes, g);
        return;
      }
    }
#pragma unroll
    for (int j = 0; j < ItemsPerThread; ++j) {
      const int local = local_index(j, tid);
      if (local < tile_n) items[j] = first[base + local];
    }
  }

  /// Asks L2 for `tile`'s items (from a raw pointer) and what the selector reads with
  /// them; one thread calls it.
  template <class It>
  __device__ static TALLY_FORCEINLINE void prefetch_l2(It first, std::int64_t n, std::int64_t tile,
                                                       const Select& select) {
    const std::int64_t base = tile * tile_items;
    const int tile_n = tile_size(n, tile);
    if constexpr (std::is_pointer_v<It>) prefetch_l2_bytes(first + base, std::size_t(tile_n) * sizeof(V));
    select.prefetch_l2(base, tile_n);
  }

  /// Selects among the loaded items of `tile` and scans the counts; returns the tile's
  /// count (every thread). The block scan's barriers also order this tile's stage()
  /// after every thread's reads of the staging area for the tile before.
  __device__ TALLY_FORCEINLINE int count(std::int64_t n, std::int64_t tile, const Select& select) {
    const std::int64_t base = tile * tile_items;
    const int tile_n = tile_size(n, tile);
    const int tid = static_cast<int>(threadIdx.x);
    word_t packed[words] = {};
    selected = 0;
#pragma unroll
    for (int g = 0; g < groups; ++g) {
      int in_group = 0;
#pragma unroll
      for (int e = 0; e < vector; ++e) {
        const int j = g * vector + e;
        const int local = local_index(j, tid);
        const bool flag = select.test(items[j], base + local, local < tile_n, fetched, j);
        selected |= static_cast<unsigned int>(flag) << j;
        in_group += flag;
      }
      packed[g / fields] += static_cast<word_t>(in_group) << (16 * (g % fields));
    }
    int total = 0;  // the tile's selected items in the groups so far
#pragma unroll
    for (int w = 0; w < words; ++w) {
      if (w > 0) __syncthreads();  // the scan's storage is read to the end of the last scan
      word_t block_counts;
      const word_t before = scan_t(storage.scan).exclusive_sum(packed[w], block_counts);
#pragma unroll
      for (int f = 0; f < fields && w * fields + f < groups; ++f) {
        group_at[w * fields + f] = total + static_cast<int>((before >> (16 * f)) & 0xffff);
        total += static_cast<int>((block_counts >> (16 * f)) & 0xffff);
      }
    }
    return total;
  }

  __device__ TALLY_FORCEINLINE V* staging(int buffer) const {
    return reinterpret_cast<V*>(storage.staging) + std::size_t(buffer) * tile_items;
  }

  /// Moves the selected items into staging buffer `buffer`, in tile order (staged tiles only).
  __device__ TALLY_FORCEINLINE void stage(int buffer = 0) {
    if constexpr (staged) {
      V* staging = this->staging(buffer);
#pragma unroll
      for (int g = 0; g < groups; ++g) {
        int at = group_at[g];
#pragma unroll
        for (int e = 0; e < vector; ++e)
          if (selected >> (g * vector + e) & 1u) new (&staging[at++]) V(items[g * vector + e]);
      }
    }
  }

  /// Writes the tile's `total` selected items to result[start...]: from the staging
  /// area (after a barrier that follows stage()) or from registers.
  template <class OutIt>
  __device__ TALLY_FORCEINLINE void write(OutIt result, long long start, int total, int buffer = 0) {
    if constexpr (staged) {
      const V* staging = this->staging(buffer);
      for (int i = static_cast<int>(threadIdx.x); i < total; i += Threads) result[start + i] = staging[i];
    } else {
#pragma unroll
      for (int g = 0; g < groups; ++g) {
        long long at = start + group_at[g];
#pragma unroll
        for (int e = 0; e < vector; ++e)
          if (selected >> (g * vector + e) & 1u) result[at++] = items[g * vector + e];
      }
    }
  }

  /// The end of a tile: with the output position known (after a barrier), loads the
  /// next tile (when there is one) and writes this one; staged tiles load first, so the
  /// reads are in flight during the writes.
  template <class It, class OutIt>
  __device__ TALLY_FORCEINLINE void finish_and_load_next(It first, std::int64_t n, std::int64_t next_tile,
                                                         std::int64_t tiles, const Select& select, OutIt result,
                                                         long long start, int total) {
    if constexpr (staged) {
      if (next_tile < tiles) load(first, n, next_tile, select);
      write(result, start, total);
    } else {
      write(result, start, total);
      if (next_tile < tiles) load(first, n, next_tile, select);
    }
  }

 private:
  /// Group g's items from `bytes` (aligned to group_align) in 4-, 8- or 16-byte words.
  __device__ TALLY_FORCEINLINE void load_group(const unsigned char* bytes, int g) {
    if constexpr (group_bytes == 4) {
      const unsigned int word = *reinterpret_cast<const unsigned int*>(bytes);
      memcpy(&items[g * vector], &word, group_bytes);
    } else if constexpr (group_bytes == 8) {
      const uint2 word = *reinterpret_cast<const uint2*>(bytes);
      memcpy(&items[g * vector], &word, group_bytes);
    } else {
      uint4 words[group_bytes / 16];
#pragma unroll
      for (std::size_t i = 0; i < group_bytes / 16; ++i) words[i] = reinterpret_cast<const uint4*>(bytes)[i];
      memcpy(&items[g * vector], words, group_bytes);
    }
  }
};

}  // namespace detail
TALLY_NAMESPACE_END
