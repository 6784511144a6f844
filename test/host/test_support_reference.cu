// The shared data generator and host references of the tests, `tally verify` and the
// benchmarks (support/tally_support/data.cuh, compare.hpp, reference.cuh), on the host:
// the default options give the anchors' data bit for bit (the benchmarks' comparisons
// depend on it), patterns and options do what they say, and the library-order keys that
// the CUB top-k reference sorts by order values as the library does. No GPU needed.
#include <tally_support/compare.hpp>
#include <tally_support/data.cuh>
#include <tally_support/reference.cuh>

#include <doctest/doctest.h>

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <stdexcept>
#include <vector>

namespace {

namespace ts = tally_support;

/// splitmix64's finaliser, written out again: the anchors' generator.
std::uint64_t anchor_hash(std::uint64_t x) {
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

template <class T>
bool same_bits(const T& a, const T& b) {
  return std::memcmp(&a, &b, sizeof(T)) == 0;
}

}  // namespace

TEST_CASE("support data: the default options are the anchors' data, bit for bit") {
  CHECK(ts::hash(0) == 0xe220a8397b1dcdafull);  // splitmix64's first output from state 0
  const std::uint64_t n = (1ull << 28) + 3;
  for (std::uint64_t k = 0; k < 100000; ++k) {
    const std::uint64_t i = (k * 2654435761ull) % n;
    const std::uint64_t h = anchor_hash(i);
    REQUIRE(ts::hash(i) == h);
    REQUIRE(ts::host_item<int>(i, n, ts::pattern::random) == int(h % 4));
    const float f = float(h >> 40) * 0x1.0p-24f;
    REQUIRE(same_bits(ts::host_item<float>(i, n, ts::pattern::random), f));
    REQUIRE(same_bits(ts::host_item<double>(i, n, ts::pattern::random), double(h >> 11) * 0x1.0p-53));
    REQUIRE(same_bits(ts::host_item<__half>(i, n, ts::pattern::random), __half(f)));
    const float with_nan = ts::host_item<float>(i, n, ts::pattern::with_nan);
    if (i % 1000 == 999) REQUIRE(std::isnan(with_nan));
    else REQUIRE(same_bits(with_nan, f));
  }
  // Another modulus and a seed (fill_hash_mod's arguments).
  ts::fill_options o;
  o.seed = 5;
  o.int_modulus = 1u << 31;
  for (std::uint64_t i = 0; i < 1000; ++i)
    REQUIRE(ts::host_item<int>(i, 1000, ts::pattern::random, o) == int(anchor_hash(i ^ anchor_hash(5)) % (1u << 31)));
}

TEST_CASE("support data: ranges, ramps, constants, NaN and zeros as the options say") {
  ts::fill_options o;
  o.seed = 0x7a11e5u;
  o.int_low = -31;
  o.int_modulus = 63;
  o.float_low = -1.0;
  o.float_high = 1.0;
  o.constant = 3.0;
  o.nan_every = 61;
  o.nan_scattered = true;
  const std::uint64_t n = 100003;
  int nans = 0;
  for (std::uint64_t i = 0; i < n; ++i) {
    const int x = ts::host_item<int>(i, n, ts::pattern::random, o);
    REQUIRE(x >= -31);
    REQUIRE(x <= 31);
    const float f = ts::host_item<float>(i, n, ts::pattern::random, o);
    REQUIRE(f >= -1.0f);
    REQUIRE(f < 1.0f);
    nans += std::isnan(ts::host_item<float>(i, n, ts::pattern::with_nan, o));
    if (i > 0) {
      REQUIRE(ts::host_item<int>(i - 1, n, ts::pattern::sorted, o) <= ts::host_item<int>(i, n, ts::pattern::sorted, o));
      REQUIRE(ts::host_item<int>(i - 1, n, ts::pattern::reversed, o) >=
              ts::host_item<int>(i, n, ts::pattern::reversed, o));
    }
    const double z = ts::host_item<double>(i, n, ts::pattern::neg_and_zeros, o);
    REQUIRE(z <= 0.0);
    if (i % 3 == 0) REQUIRE(std::signbit(z));
    if (i % 3 == 1) REQUIRE(!std::signbit(z));
  }
  CHECK(std::isnan(ts::host_item<float>(n / 2, n, ts::pattern::with_nan, o)));
  CHECK(nans > int(n / 61 / 2));
  CHECK(nans < int(2 * n / 61));
  CHECK(ts::host_item<int>(0, n, ts::pattern::sorted, o) == -31);
  CHECK(ts::host_item<int>(n - 1, n, ts::pattern::sorted, o) == 31);
  CHECK(ts::host_item<std::int8_t>(7, n, ts::pattern::constant, o) == 3);
  CHECK(ts::host_item<int>(7, n, ts::pattern::pos_inf, o) == std::numeric_limits<int>::max());
  CHECK(std::isinf(ts::host_item<float>(7, n, ts::pattern::neg_inf, o)));
  // A ramp over a range wider than 64 bits of i * m stays in range and ascending.
  ts::fill_options wide;
  wide.int_modulus = (1ull << 40) + 1;
  const std::uint64_t big = 1ull << 30;
  CHECK(ts::host_item<std::uint64_t>(big - 1, big, ts::pattern::sorted, wide) <= (1ull << 40));
  CHECK(ts::host_item<std::uint64_t>(big / 2, big, ts::pattern::sorted, wide) == 1ull << 39);
  // Poison: the extremes, alternating.
  CHECK(ts::data_traits<int>::poison(0) == std::numeric_limits<int>::lowest());
  CHECK(ts::data_traits<int>::poison(1) == std::numeric_limits<int>::max());
  CHECK(std::isnan(ts::data_traits<float>::poison(1)));
}

TEST_CASE("support data: fill rejects patterns the type does not have") {
  CHECK_THROWS_AS(ts::fill(static_cast<int*>(nullptr), 1, ts::pattern::with_nan), std::invalid_argument);
  CHECK_THROWS_AS(ts::fill(static_cast<int*>(nullptr), 1, ts::pattern::neg_and_zeros), std::invalid_argument);
  CHECK_THROWS_AS(ts::fill(static_cast<float*>(nullptr), 1, ts::pattern::wide), std::invalid_argument);
  ts::fill_options o;
  o.int_modulus = 0;
  CHECK_THROWS_AS(ts::fill(static_cast<int*>(nullptr), 1, ts::pattern::random, o), std::invalid_argument);
}

TEST_CASE("support compare: same_value, same_item, close_enough, within") {
  const float nan = std::numeric_limits<float>::quiet_NaN(), inf = std::numeric_limits<float>::infinity();
  CHECK(ts::same_value(0.0f, -0.0f));
  CHECK(ts::same_value(nan, -nan));
  CHECK(!ts::same_value(nan, 1.0f));
  CHECK(!ts::same_value(1.0f, std::nextafter(1.0f, 2.0f)));
  CHECK(!ts::same_item(0.0f, -0.0f));
  CHECK(ts::same_item(nan, -nan));
  CHECK(ts::close_enough(100.0f, 100.009f, 1e-4));
  CHECK(!ts::close_enough(100.0f, 100.02f, 1e-4));
  CHECK(!ts::close_enough(inf, 1e30f, 1.0));
  CHECK(!ts::close_enough(nan, 1.0f, 1.0));
  CHECK(ts::close_enough(3, 3, 0.5));
  CHECK(!ts::close_enough(3, 4, 0.5));
  CHECK(ts::within(1.0, 1.5, 0.5));
  CHECK(!ts::within(1.0, 1.6, 0.5));
  CHECK(!ts::within(inf, -inf, 1e300));
  CHECK(ts::same_value(__half(0.0f), __half(-0.0f)));
  CHECK(ts::describe(-3) == "-3");
  CHECK(ts::value_text(__half(1.5f)) == "1.5");
  CHECK(ts::value_text(nan) == "nan");
}

TEST_CASE("support compare: host references in the library's order") {
  const float nan = std::numeric_limits<float>::quiet_NaN(), inf = std::numeric_limits<float>::infinity();
  const std::vector<float> v{1.0f, -0.0f, nan, 3.0f, 0.0f, nan, -inf, 3.0f};
  CHECK(std::isnan(ts::host_max(v, -inf)));
  CHECK(ts::host_min(v, inf) == -inf);
  CHECK(ts::host_arg<true>(v, ts::library_order_less{}) == 2);   // the first NaN
  CHECK(ts::host_arg<false>(v, ts::library_order_less{}) == 6);  // -inf
  CHECK(ts::host_top_indices(v, ts::library_order_less{}, 5) == std::vector<long long>{2, 5, 3, 7, 0});
  CHECK(ts::host_top_indices(v, ts::library_order_greater{}, 4) == std::vector<long long>{6, 1, 4, 0});
  CHECK(ts::host_top_indices(v, ts::library_order_less{}, 0).empty());
}

TEST_CASE("support reference: the top-k sort's keys order values as the library does") {
  const float nan = std::numeric_limits<float>::quiet_NaN(), inf = std::numeric_limits<float>::infinity();
  const std::vector<float> values{-inf, -3.5f, -1e-30f, -0.0f, 0.0f, 1e-30f, 2.0f, inf, nan, -nan};
  const ts::detail::library_order_key<float> key;
  for (float a : values)
    for (float b : values) {
      INFO("a=", a, " b=", b);
      CHECK((key(a) < key(b)) == ts::library_less(a, b));
    }
  const ts::detail::library_order_key<double> dkey;
  CHECK(dkey(-0.0) == dkey(0.0));
  CHECK(dkey(-1.0) < dkey(-0.5));
  CHECK(dkey(inf) < dkey(std::numeric_limits<double>::quiet_NaN()));
  const ts::detail::library_order_key<__half> hkey;
  CHECK(hkey(__half(-2.0f)) < hkey(__half(-1.0f)));
  CHECK(hkey(__half(-0.0f)) == hkey(__half(0.0f)));
  CHECK(hkey(__half(inf)) < hkey(__half(nan)));
}
