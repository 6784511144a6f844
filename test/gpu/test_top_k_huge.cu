// tally::top_k<K> and tally::top_k_into<K> over more than 2^31 items (64-bit counts and
// indices) through fancy iterators with closed-form answers, under tally::par (the
// shuffle merges) and par.with(shared_memory) (the tree), both forms:
//   counting_iterator<long long>(0), n = 2^31 + 17 (8-byte values: wide candidates):
//     less<>: n - 1, n - 2, ...; greater<>: 0, 1, ...; also under cuda::std::less<>
//     ((value, index) pairs)
//   transform i % 1000 as int, n = 2^31 + 17 (packed keys): less<>: the first K indices
//     with i % 1000 == 999 (999, 1999, ...: ties in index order); greater<>: 0, 1000, ...
//   the same with spikes (5000 at `high`, -5000 at `low`), which come first:
//     n = 2^32 - 1, the largest count that packs, spikes at the last two indices (index
//     2^32 - 2 packs to a low word of 1);
//     n = 2^32, the first count that does not (4-byte values as wide candidates);
//     n = 2^32 + 5, spikes at 2^32 + 3 and 2^32 + 1 (which a 32-bit index wraps to 3, 1).
#include "top_k_common.cuh"

#include <cuda/std/functional>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/transform_iterator.h>

namespace top_k_huge_test {

/// i % 1000 as int, except 5000 at `high` and -5000 at `low` (-1: none).
struct spiked_mod {
  long long high = -1, low = -1;
  __host__ __device__ int operator()(long long i) const {
    if (i == high) return 5000;
    if (i == low) return -5000;
    return static_cast<int>(i % 1000);
  }
};

/// The expected lists. count entries of spiked_mod over n items: the spike first, then
/// the first items of residue 999 (largest) or 0 (smallest) in index order. Assumes the
/// spikes lie past those items.
inline tt::top_list<int> spiked_top(const spiked_mod& f, bool largest, int count) {
  tt::top_list<int> t;
  const long long spike = largest ? f.high : f.low;
  if (spike >= 0) {
    t.indices.push_back(spike);
    t.values.push_back(f(spike));
  }
  for (long long j = 0; static_cast<int>(t.indices.size()) < count; ++j) {
    const long long i = 1000 * j + (largest ? 999 : 0);
    t.indices.push_back(i);
    t.values.push_back(f(i));
  }
  return t;
}
inline tt::top_list<long long> counting_top(long long n, bool largest, int count) {
  tt::top_list<long long> t;
  for (long long j = 0; j < count && j < n; ++j) {
    const long long i = largest ? n - 1 - j : j;
    t.indices.push_back(i);
    t.values.push_back(i);
  }
  return t;
}

}  // namespace top_k_huge_test

using top_k_huge_test::counting_top;
using top_k_huge_test::spiked_mod;
using top_k_huge_test::spiked_top;

TEST_CASE("top_k: the closed forms of the huge tests hold on the host") {
  const long long n = 100003;
  std::vector<long long> count(n);
  std::iota(count.begin(), count.end(), 0LL);
  CHECK(tt::host_top_indices(count, tt::lib_order_less{}) == counting_top(n, true, tt::reference_length).indices);
  CHECK(tt::host_top_indices(count, tt::lib_order_greater{}) == counting_top(n, false, tt::reference_length).indices);
  for (const spiked_mod f : {spiked_mod{}, spiked_mod{n - 1, n - 2}, spiked_mod{n - 2, n - 4}}) {
    std::vector<int> values(n);
    for (long long i = 0; i < n; ++i) values[std::size_t(i)] = f(i);
    const auto largest = spiked_top(f, true, tt::reference_length);
    const auto smallest = spiked_top(f, false, tt::reference_length);
    CHECK(tt::host_top_indices(values, tt::lib_order_less{}) == largest.indices);
    CHECK(tt::host_top_indices(values, tt::lib_order_greater{}) == smallest.indices);
    for (std::size_t i = 0; i < largest.indices.size(); ++i) {
      CHECK(largest.values[i] == values[std::size_t(largest.indices[i])]);
      CHECK(smallest.values[i] == values[std::size_t(smallest.indices[i])]);
    }
  }
}

TEST_CASE("top_k over more than 2^31 items") {
  tt::failure_budget budget;
  const thrust::counting_iterator<long long> count(0);
  auto run = [&](const auto& policy, const std::string& label) {
    {
      const long long n = (1LL << 31) + 17;
      INFO("n=2^31+17 counting_iterator<long long>");
      const std::string what = label + " counting";
      tt::check_top_k_forms<1>(policy, count, n, tally::less<>{}, counting_top(n, true, 1), what);
      tt::check_top_k_forms<8>(policy, count, n, tally::less<>{}, counting_top(n, true, 8), what);
      tt::check_top_k_forms<3>(policy, count, n, tally::greater<>{}, counting_top(n, false, 3),
                               what + " comp=greater<>");
      tt::check_top_k_forms<4>(policy, count, n, cuda::std::less<>{}, counting_top(n, true, 4),
                               what + " comp=cuda::std::less<>");
    }
    auto check_spiked = [&](long long n, spiked_mod f, const std::string& what) {
      const auto values = thrust::make_transform_iterator(count, f);
      tt::check_top_k_forms<1>(policy, values, n, tally::less<>{}, spiked_top(f, true, 1), what);
      tt::check_top_k_forms<32>(policy, values, n, tally::less<>{}, spiked_top(f, true, 32), what);
      tt::check_top_k_forms<5>(policy, values, n, tally::greater<>{}, spiked_top(f, false, 5),
                               what + " comp=greater<>");
    };
    {
      INFO("n=2^31+17 transform i % 1000 as int");
      check_spiked((1LL << 31) + 17, spiked_mod{}, label + " i % 1000");
    }
    {
      INFO("n=2^32-1 (the largest packed count): 5000 at 2^32-2, -5000 at 2^32-3");
      const long long n = (1LL << 32) - 1;
      check_spiked(n, spiked_mod{n - 1, n - 2}, label + " spikes at the end");
    }
    {
      INFO("n=2^32 (the first count past the packed keys): 5000 at 2^32-1, -5000 at 2^32-2");
      const long long n = 1LL << 32;
      check_spiked(n, spiked_mod{n - 1, n - 2}, label + " spikes at the end");
    }
    {
      INFO("n=2^32+5: 5000 at 2^32+3, -5000 at 2^32+1");
      check_spiked((1LL << 32) + 5, spiked_mod{(1LL << 32) + 3, (1LL << 32) + 1}, label + " spikes past 2^32");
    }
  };
  run(tally::par, "backend=automatic (tally::par)");
  run(tally::par.with(tally::backend::shared_memory), "backend=shared_memory");
}
