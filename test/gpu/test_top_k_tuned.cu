// tally::top_k<K> and tally::top_k_into<K> under tuned launch shapes
// (policy.tune<Threads, Items>()), at their tile boundaries and with more tiles than the
// grid has blocks, aligned and misaligned, both forms, both ways a block's lists merge
// (shared_memory's tree; the shuffles of the other backends):
//   tune<128, 4>  (4 warps) and tune<512, 8> (16 warps): K = 3, and K = 32 with the
//                  shuffles at 128 x 4 and the tree at 512 x 8 (where 512 threads leave
//                  a thread 128 registers, fewer than a list of 32 wide candidates);
//   tune<96, 5>   (3 warps: a tree with an odd warp out, a shuffle over 4 lanes with one
//                  list empty; odd items per thread): K = 16;
//   tune<32, 1>   (one warp: no merge between warps): K = 2;
//   tune<1024, 2> (32 warps: five rounds of the tree): K = 5;
// on int32 with many ties and strictly ascending (every item enters a list), under
// tally::less<>, against CUB's stable radix sort (the packed keys; the wide kernels of the
// same shapes compile too but run only past 2^32 - 1 items). One kernel per shape, K and merge: the other types and tally::greater<>
// use the same tile and merge code, tested by the per-type suites.
#include "top_k_common.cuh"

// Named namespace, not an anonymous one (nvcc's #1407-D with hidden kernels).
namespace top_k_tuned_test {
/// i: strictly ascending, so that every item a thread reads enters its list.
struct ascending {
  __host__ __device__ int operator()(long long i) const { return static_cast<int>(i); }
};
}  // namespace top_k_tuned_test

namespace {

/// Tile boundaries of the policy's shape and up to thousands of tiles.
template <class Policy>
std::vector<long long> tuned_sizes() {
  constexpr long long tile = static_cast<long long>(Policy::threads) * Policy::items_per_thread;
  const long long many = std::min(5000 * tile - 1, (1LL << 24) + 1);
  return {1, 2, tile - 1, tile, tile + 1, 2 * tile - 1, 2 * tile + 1, 300 * tile + 17, many};
}

template <int... Ks, class Policy>
void check_tuned(const Policy& policy, const std::string& label) {
  for (long long n : tuned_sizes<Policy>()) {
    for (int offset : {0, 1}) {
      INFO("policy=", label, " n=", n, " offset=", offset);
      const auto ints = tt::make_ties<int>(n, offset);
      const std::vector<long long> largest = tt::cub_top_indices(ints.ptr, n, true);
      const tt::top_list<int> expect_largest{largest, tt::gather(ints.ptr, largest)};
      (tt::check_top_k_forms<Ks>(policy, ints.ptr, n, tally::less<>{}, expect_largest, label + " int32 ties"), ...);
      const auto sorted = tt::make_generated<int>(n, top_k_tuned_test::ascending{}, offset);
      const std::vector<long long> sorted_largest = tt::cub_top_indices(sorted.ptr, n, true);
      const tt::top_list<int> expect_sorted{sorted_largest, tt::gather(sorted.ptr, sorted_largest)};
      (tt::check_top_k_forms<Ks>(policy, sorted.ptr, n, tally::less<>{}, expect_sorted, label + " int32 ascending"),
       ...);
    }
  }
}

}  // namespace

TEST_CASE("top_k: tuned launch shapes at their tile boundaries, both merges") {
  tt::failure_budget budget;
  const auto shuffle = tally::par.with(tally::backend::warp_shuffle);
  const auto tree = tally::par.with(tally::backend::shared_memory);
  check_tuned<3, 32>(tally::par.tune<128, 4>(), "automatic tune<128, 4>");
  check_tuned<3>(tree.tune<128, 4>(), "shared_memory tune<128, 4>");
  check_tuned<3>(tally::par.tune<512, 8>(), "automatic tune<512, 8>");
  check_tuned<3, 32>(tree.tune<512, 8>(), "shared_memory tune<512, 8>");
  check_tuned<16>(shuffle.tune<96, 5>(), "warp_shuffle tune<96, 5>");
  check_tuned<16>(tree.tune<96, 5>(), "shared_memory tune<96, 5>");
  check_tuned<2>(shuffle.tune<32, 1>(), "warp_shuffle tune<32, 1>");
  check_tuned<2>(tree.tune<32, 1>(), "shared_memory tune<32, 1>");
  check_tuned<5>(shuffle.tune<1024, 2>(), "warp_shuffle tune<1024, 2>");
  check_tuned<5>(tree.tune<1024, 2>(), "shared_memory tune<1024, 2>");
}
