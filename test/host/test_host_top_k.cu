// The host backend's top_k (tally::host) against a stable sort: the same semantics as the
// device backends (the K best, best first, equal values in index order, NaN greatest
// under the default comparators), checked where CI can run it.
#include <tally/tally.cuh>

#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <cstdint>
#include <numeric>
#include <random>
#include <vector>

namespace {

/// The first min(K, n) indices of a stable sort, best first, under comp.
template <class T, class Compare>
std::vector<std::int64_t> expected_indices(const std::vector<T>& v, int k, Compare comp) {
  std::vector<std::int64_t> index(v.size());
  std::iota(index.begin(), index.end(), std::int64_t(0));
  std::stable_sort(index.begin(), index.end(), [&](std::int64_t a, std::int64_t b) { return comp(v[b], v[a]); });
  index.resize(std::min<std::size_t>(index.size(), std::size_t(k)));
  return index;
}

template <int K, class T, class Compare>
void check_top_k(const std::vector<T>& v, Compare comp) {
  CAPTURE(K);
  CAPTURE(v.size());
  const auto expected = expected_indices(v, K, comp);
  const tally::top_k_result<T, K> r = tally::top_k<K>(tally::host, v.begin(), v.end(), comp);
  REQUIRE(r.count == static_cast<int>(expected.size()));
  for (int i = 0; i < r.count; ++i) {
    CAPTURE(i);
    CHECK(r.indices[i] == expected[i]);
    CHECK(std::memcmp(&r.values[i], &v[expected[i]], sizeof(T)) == 0);
  }
  // top_k_into writes the same min(K, n) entries and nothing after them.
  std::vector<T> values(K + 2, T(77));
  std::vector<std::int64_t> indices(K + 2, -3);
  tally::top_k_into<K>(tally::host, v.begin(), v.end(), values.begin(), indices.begin(), comp);
  for (int i = 0; i < r.count; ++i) CHECK(indices[i] == expected[i]);
  for (int i = r.count; i < K + 2; ++i) CHECK(indices[i] == -3);
}

}  // namespace

TEST_CASE("host top_k: random, tied and sorted data, every size around K") {
  std::mt19937 rng(12345);
  for (std::size_t n : {0, 1, 2, 3, 7, 8, 9, 31, 32, 33, 100, 1000}) {
    std::vector<int> random(n), ties(n), ascending(n);
    for (std::size_t i = 0; i < n; ++i) {
      random[i] = int(rng() % 1000) - 500;
      ties[i] = int(rng() % 4);
      ascending[i] = int(i);
    }
    for (const auto* v : {&random, &ties, &ascending}) {
      check_top_k<1>(*v, tally::less<>{});
      check_top_k<3>(*v, tally::less<>{});
      check_top_k<8>(*v, tally::less<>{});
      check_top_k<32>(*v, tally::less<>{});
      check_top_k<3>(*v, tally::greater<>{});
    }
  }
}

TEST_CASE("host top_k: NaN is greatest, -0.0 equals +0.0, a user comparator is used as given") {
  std::vector<float> v = {1.0f, NAN, -0.0f, 0.0f, -INFINITY, INFINITY, NAN, 2.0f, 0.0f, -1.0f};
  check_top_k<4>(v, tally::less<>{});
  check_top_k<10>(v, tally::less<>{});
  const auto r = tally::top_k<2>(tally::host, v.begin(), v.end());
  CHECK(r.indices[0] == 1);  // the first NaN
  CHECK(r.indices[1] == 6);
  const auto smallest = tally::top_k<3>(tally::host, v.begin(), v.end(), tally::greater<>{});
  CHECK(smallest.indices[0] == 4);  // -inf
  CHECK(smallest.indices[1] == 9);  // -1
  CHECK(smallest.indices[2] == 2);  // -0.0, equal to +0.0 at 3 and 8: the lowest index
  std::vector<float> plain = {3.0f, -5.0f, 4.0f, -4.0f};
  auto by_magnitude = [](float a, float b) { return std::fabs(a) < std::fabs(b); };
  const auto m = tally::top_k<2>(tally::host, plain.begin(), plain.end(), by_magnitude);
  CHECK(m.indices[0] == 1);
  CHECK(m.indices[1] == 2);  // 4.0 before -4.0: the lower index
}

// The select kernel's threshold pass compares 4-byte items natively, with a bound and a
// tie value, in place of their order keys (detail::make_native_threshold): wherever it
// accepts a threshold, the native compare must say what the key compare says, for floats
// of every class (NaN payloads of both signs, +-inf, +-0.0, denormals, the keys'
// neighbours) and for ints; where it declines, no value could stand for the threshold.
namespace {

template <class V>
std::vector<V> threshold_items() {
  std::vector<std::uint32_t> bits = {0x00000000u, 0x80000000u, 0x00000001u, 0x80000001u, 0x007fffffu, 0x807fffffu,
                                     0x00800000u, 0x80800000u, 0x3f800000u, 0xbf800000u, 0x7f7fffffu, 0xff7fffffu,
                                     0x7f800000u, 0xff800000u, 0x7fc00000u, 0xffc00000u, 0x7f800001u, 0xff800001u,
                                     0x7fffffffu, 0xffffffffu, 0x3effffffu, 0x3f000000u, 0x3f000001u, 0x7ffffffeu};
  std::mt19937 gen(21);
  for (int i = 0; i < 600; ++i) bits.push_back(static_cast<std::uint32_t>(gen()));
  std::vector<V> xs;
  for (std::uint32_t b : bits) {
    V x;
    std::memcpy(&x, &b, sizeof x);
    xs.push_back(x);
  }
  return xs;
}

template <class V>
void check_native_threshold() {
  using tally::detail::to_order_key;
  const std::vector<V> xs = threshold_items<V>();
  // Thresholds: every item's key and its neighbours, both ways up, and the special keys.
  std::vector<std::uint32_t> keys = {0u, 1u, 0x007ffffeu, 0x007fffffu, 0x00800000u, 0x7ffffffeu, 0x7fffffffu,
                                     0x80000000u, 0x80000001u, 0xff7fffffu, 0xff800000u, 0xff800001u, 0xfffffffeu,
                                     0xffffffffu};
  for (V x : xs) {
    const std::uint32_t key = static_cast<std::uint32_t>(to_order_key(x));
    for (std::uint32_t d : {0u, 1u}) {
      keys.push_back(key + d);
      keys.push_back(key - d);
      keys.push_back(~key + d);
      keys.push_back(~key - d);
    }
  }
  long long checked = 0, declined = 0;
  for (bool largest : {true, false}) {
    for (int shift : {-1, 0, 1, 9, 23, 31}) {  // -1: past the key (t_bits reach the index)
      const bool key_only = shift >= 0;
      for (std::uint32_t key : keys) {
        const std::uint32_t t_key = key_only ? key >> shift : key;
        const std::int64_t last_index = 5;
        tally::detail::native_threshold<V> t;
        if (!tally::detail::make_native_threshold(largest, key_only, key_only ? shift : 0, t_key, last_index, t)) {
          ++declined;
          // Integers decline only a tie threshold with nothing above it (the ties alone).
          if constexpr (!std::is_same_v<V, float>) CHECK((!key_only && t_key == 0xffffffffu));
          continue;
        }
        for (V x : xs) {
          const std::uint32_t k = largest ? static_cast<std::uint32_t>(to_order_key(x)) : ~static_cast<std::uint32_t>(to_order_key(x));
          for (std::int64_t j : {std::int64_t(4), std::int64_t(5), std::int64_t(6)}) {
            const bool want = key_only ? (k >> shift) >= t_key : k > t_key || (k == t_key && j <= last_index);
            const bool passes = t.largest ? !(x < t.bound) : x <= t.bound;
            const bool got = passes || (x == t.tie && j <= t.last_index);
            if (want != got) {
              FAIL_CHECK("largest ", largest, " shift ", shift, " t_key ", t_key, " x key ", to_order_key(x), " j ", j,
                         ": want ", want);
              return;
            }
            ++checked;
          }
        }
      }
    }
  }
  CHECK(checked > 100000);
  if constexpr (std::is_same_v<V, float>) CHECK(declined > 0);  // NaN keys, -0.0's bits
}

}  // namespace

TEST_CASE_TEMPLATE("select threshold pass: the native compare says what the order keys say", V, float, int,
                   unsigned int) {
  check_native_threshold<V>();
}
