#pragma once
// Which items copy_if selects: `by_value` asks pred(item), `by_stencil` asks
// pred(stencil[i]). The kernels ask in two steps: fetch<Threads, ItemsPerThread>() when
// they load a tile's items (tile_compaction.cuh: a thread's item j is tile item
// (j / 4) * Threads * 4 + threadIdx.x * 4 + j % 4 where ItemsPerThread is a multiple
// of 4), test() when they count it.
//
// Only a stencil of 1-byte values (bool, uint8 masks: Python's select) fetches anything.
// Read one byte an item at counting time, such a stencil cost the stable kernel 40% over
// the same copy without one (H100, int32 at 2^24), for 25% more bytes: the byte loads
// were issued only after the items had arrived (a memory latency a tile), one load
// instruction a byte. Fetched with the items, one byte a register, the kernel spilled.
// So a full tile's stencil bytes are read as 4-byte words with the items: a thread's
// group of 4 consecutive items has its 4 bytes in one word (a warp reads 128
// consecutive bytes a group), one register per four items. Partial tiles and unaligned
// stencils read bytes as before.

#include <tally/detail/config.cuh>
#include <tally/detail/copy_if/prefetch.cuh>

#include <cstdint>
#include <cstring>
#include <type_traits>

TALLY_NAMESPACE_BEGIN
namespace detail {

/// What a selector fetches with a tile when it fetches nothing.
struct nothing_fetched {};

template <class Pred>
struct by_value {
  Pred pred;
  template <int Threads, int ItemsPerThread>
  using fetched_type = nothing_fetched;
  template <int Threads, int ItemsPerThread>
  __device__ TALLY_FORCEINLINE void fetch(nothing_fetched&, std::int64_t, int) const {}
  template <class T>
  __device__ TALLY_FORCEINLINE bool test(const T& item, std::int64_t, bool in_range, const nothing_fetched&,
                                         int) const {
    return in_range && static_cast<bool>(pred(item));
  }
  __device__ TALLY_FORCEINLINE void prefetch_l2(std::int64_t, int) const {}
};

/// True for a raw pointer to 1-byte values: the stencils read as words.
template <class It>
inline constexpr bool is_byte_stencil_v =
    std::is_pointer_v<It> && sizeof(std::remove_pointer_t<It>) == 1 &&
    std::is_trivially_copyable_v<std::remove_cv_t<std::remove_pointer_t<It>>>;

/// A full tile's stencil bytes, four to a word: word g of thread t holds the bytes of
/// tile items g * Threads * 4 + t * 4 + 0..3 (the thread's items 4g..4g+3).
template <int ItemsPerThread>
struct stencil_words {
  unsigned int words[ItemsPerThread / 4];
  bool full;  // the words were read (a full tile, an aligned stencil); else read bytes
};

template <class StencilIt, class Pred>
struct by_stencil {
  StencilIt stencil;
  Pred pred;

  template <int ItemsPerThread>
  static constexpr bool reads_words = is_byte_stencil_v<StencilIt> && ItemsPerThread % 4 == 0;

  template <int Threads, int ItemsPerThread>
  using fetched_type = std::conditional_t<reads_words<ItemsPerThread>, stencil_words<ItemsPerThread>, nothing_fetched>;

  template <int Threads, int ItemsPerThread>
  __device__ TALLY_FORCEINLINE void fetch(fetched_type<Threads, ItemsPerThread>& fetched, std::int64_t base,
                                          int tile_n) const {
    if constexpr (reads_words<ItemsPerThread>) {
      const bool aligned = (reinterpret_cast<std::uintptr_t>(stencil) & 3) == 0;
      fetched.full = aligned && tile_n == Threads * ItemsPerThread;  // the same in the whole block
      if (!fetched.full) return;
      const auto* bytes = reinterpret_cast<const unsigned char*>(stencil) + base + 4 * static_cast<int>(threadIdx.x);
#pragma unroll
      for (int g = 0; g < ItemsPerThread / 4; ++g)
        fetched.words[g] = *reinterpret_cast<const unsigned int*>(bytes + std::int64_t(g) * Threads * 4);
    }
  }

  /// Asks L2 for the stencil's bytes of items [base, base + count) (a byte stencil only).
  __device__ TALLY_FORCEINLINE void prefetch_l2(std::int64_t base, int count) const {
    if constexpr (is_byte_stencil_v<StencilIt>)
      prefetch_l2_bytes(reinterpret_cast<const unsigned char*>(stencil) + base, static_cast<std::size_t>(count));
  }

  template <class T, class Fetched>
  __device__ TALLY_FORCEINLINE bool test(const T&, std::int64_t index, bool in_range, const Fetched& fetched,
                                         int j) const {
    if constexpr (!std::is_same_v<Fetched, nothing_fetched>) {
      if (fetched.full) {
        const unsigned char byte = static_cast<unsigned char>(fetched.words[j / 4] >> (8 * (j % 4)));
        std::remove_cv_t<std::remove_pointer_t<StencilIt>> value;
        memcpy(&value, &byte, 1);
        return static_cast<bool>(pred(value));
      }
    }
    return in_range && static_cast<bool>(pred(stencil[index]));
  }
};

}  // namespace detail
TALLY_NAMESPACE_END
