// The host backend's semantics (tally::host: the sequential reference that every device
// backend must match): empty ranges, the accumulator type, plus/minimum/maximum on every
// arithmetic type, the library's float order (NaN greatest, -0.0 == +0.0), infinities,
// 16-bit floats accumulated in float, custom types and operators. No GPU needed.
#include <tally/tally.cuh>

#include <doctest/doctest.h>

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <type_traits>
#include <vector>

namespace {

template <class T>
std::vector<T> sample_values(int count) {
  // Small values, negative ones for signed types: sums stay far from overflow even in int8.
  std::vector<T> v;
  for (int i = 0; i < count; ++i) {
    const int x = (i * 7) % 11;  // 0..10, scrambled
    v.push_back(static_cast<T>(std::is_signed_v<T> ? x - 5 : x));
  }
  return v;
}

float to_float(__half h) { return __half2float(h); }
float to_float(__nv_bfloat16 h) { return __bfloat162float(h); }

constexpr float inf_f = std::numeric_limits<float>::infinity();
const float nan_f = std::numeric_limits<float>::quiet_NaN();

}  // namespace

TEST_CASE_TEMPLATE("host reduce: plus, minimum, maximum on arithmetic types", T, std::int8_t, std::int16_t,
                   std::int32_t, std::int64_t, std::uint8_t, std::uint16_t, std::uint32_t, std::uint64_t,
                   long long, unsigned long long, float, double) {
  for (int count : {1, 2, 3, 20, 1000}) {
    CAPTURE(count);
    std::vector<T> v = sample_values<T>(count);
    if (count > 20) {  // keep int8 sums in range: mostly zeros beyond the first 20
      for (int i = 20; i < count; ++i) v[i] = T(0);
    }
    long long sum = 0;
    for (T x : v) sum += static_cast<long long>(x);
    const T lo = *std::min_element(v.begin(), v.end());
    const T hi = *std::max_element(v.begin(), v.end());

    const T init = T(3);
    const T s = tally::reduce(tally::host, v.begin(), v.end(), init, tally::plus<T>{});
    static_assert(std::is_same_v<decltype(tally::reduce(tally::host, v.begin(), v.end(), init, tally::plus<T>{})), T>);
    CHECK(static_cast<long long>(s) == sum + 3);

    // The default operator is plus<T>.
    CHECK(tally::reduce(tally::host, v.begin(), v.end(), init) == s);
    // The transparent operator gives the same.
    CHECK(tally::reduce(tally::host, v.begin(), v.end(), init, tally::plus<>{}) == s);

    const T mx = tally::reduce(tally::host, v.begin(), v.end(), std::numeric_limits<T>::lowest(), tally::maximum<T>{});
    const T mn = tally::reduce(tally::host, v.begin(), v.end(), std::numeric_limits<T>::max(), tally::minimum<T>{});
    CHECK(mx == hi);
    CHECK(mn == lo);
    CHECK(tally::reduce(tally::host, v.begin(), v.end(), std::numeric_limits<T>::lowest(), tally::maximum<>{}) == hi);
    CHECK(tally::reduce(tally::host, v.begin(), v.end(), std::numeric_limits<T>::max(), tally::minimum<>{}) == lo);

    // init takes part: an init beyond every item wins.
    CHECK(tally::reduce(tally::host, v.begin(), v.end(), T(100), tally::maximum<T>{}) == T(100));
    CHECK(tally::reduce(tally::host, v.begin(), v.end(), std::is_signed_v<T> ? T(-100) : T(0), tally::minimum<T>{}) ==
          (std::is_signed_v<T> ? T(-100) : T(0)));

    // Raw host pointers and const iterators are iterators too.
    CHECK(tally::reduce(tally::host, v.data(), v.data() + v.size(), init, tally::plus<T>{}) == s);
    CHECK(tally::reduce(tally::host, v.cbegin(), v.cend(), init, tally::plus<T>{}) == s);
  }
}

TEST_CASE_TEMPLATE("host reduce: an empty range returns init", T, std::int8_t, std::int32_t, std::uint64_t, float, double) {
  std::vector<T> v;
  CHECK(tally::reduce(tally::host, v.begin(), v.end(), T(42), tally::plus<T>{}) == T(42));
  CHECK(tally::reduce(tally::host, v.begin(), v.end(), T(42), tally::maximum<T>{}) == T(42));
  CHECK(tally::reduce(tally::host, v.begin(), v.end(), T(42), tally::minimum<T>{}) == T(42));
  CHECK(tally::reduce(tally::host, v.begin(), v.end(), T(42)) == T(42));
  CHECK(tally::reduce(tally::host, v.begin(), v.end()) == T{});
  const T* null = nullptr;
  CHECK(tally::reduce(tally::host, null, null, T(7), tally::plus<T>{}) == T(7));
  // An empty range in the middle of data.
  std::vector<T> w{T(1), T(2), T(3)};
  CHECK(tally::reduce(tally::host, w.begin() + 1, w.begin() + 1, T(9), tally::plus<T>{}) == T(9));
}

TEST_CASE("host reduce: reduce(host, first, last) uses value_type{} as init and plus") {
  std::vector<int> v{1, 2, 3, 4};
  auto r = tally::reduce(tally::host, v.begin(), v.end());
  static_assert(std::is_same_v<decltype(r), int>);
  CHECK(r == 10);

  std::vector<double> d{0.5, 0.25, -1.0};
  auto rd = tally::reduce(tally::host, d.begin(), d.end());
  static_assert(std::is_same_v<decltype(rd), double>);
  CHECK(rd == -0.25);

  std::vector<std::uint8_t> u{200, 100};  // wraps in uint8: the accumulator is the value type
  auto ru = tally::reduce(tally::host, u.begin(), u.end());
  static_assert(std::is_same_v<decltype(ru), std::uint8_t>);
  CHECK(ru == std::uint8_t(44));
}

TEST_CASE("host reduce: the accumulator and result type is the type of init") {
  // int8 items summed in int: no wrap-around.
  std::vector<std::int8_t> v(1000, std::int8_t(100));
  auto r = tally::reduce(tally::host, v.begin(), v.end(), 0);
  static_assert(std::is_same_v<decltype(r), int>);
  CHECK(r == 100000);

  // ...and in int8 they wrap (the items are converted to T = int8_t).
  std::vector<std::uint8_t> u(3, std::uint8_t(100));
  CHECK(tally::reduce(tally::host, u.begin(), u.end(), std::uint8_t(0)) == std::uint8_t(44));

  // int items summed as long long.
  std::vector<int> big(4, 2000000000);
  auto rl = tally::reduce(tally::host, big.begin(), big.end(), 0LL);
  static_assert(std::is_same_v<decltype(rl), long long>);
  CHECK(rl == 8000000000LL);

  // int items with a double init: converted to double.
  std::vector<int> small{1, 2};
  auto rd = tally::reduce(tally::host, small.begin(), small.end(), 0.5);
  static_assert(std::is_same_v<decltype(rd), double>);
  CHECK(rd == 3.5);

  // float items summed in double keep the bits a float sum loses.
  std::vector<float> f{16777216.0f, 1.0f, 1.0f};  // 2^24 + 1 + 1
  CHECK(tally::reduce(tally::host, f.begin(), f.end(), 0.0) == 16777218.0);
  CHECK(tally::reduce(tally::host, f.begin(), f.end(), 0.0f) == 16777216.0f);
}

TEST_CASE("host reduce: __half and __nv_bfloat16 with a float init add in float") {
  // In half, 2048 + 1 rounds back to 2048 (ties to even); in float it does not.
  std::vector<__half> h{__float2half(2048.0f), __float2half(1.0f), __float2half(1.0f)};
  auto r = tally::reduce(tally::host, h.begin(), h.end(), 0.0f);
  static_assert(std::is_same_v<decltype(r), float>);
  CHECK(r == 2050.0f);
  // With a __half init the sum is a half sum.
  auto rh = tally::reduce(tally::host, h.begin(), h.end(), __float2half(0.0f));
  static_assert(std::is_same_v<decltype(rh), __half>);
  CHECK(to_float(rh) == 2048.0f);

  // bfloat16 has 8 significant bits: 256 + 1 rounds to 256.
  std::vector<__nv_bfloat16> b{__float2bfloat16(256.0f), __float2bfloat16(1.0f), __float2bfloat16(1.0f)};
  CHECK(tally::reduce(tally::host, b.begin(), b.end(), 0.0f) == 258.0f);
  CHECK(tally::reduce(tally::host, b.begin(), b.end(), 0.0f, tally::plus<float>{}) == 258.0f);

  // A longer exact sum: 1000 halves of 1.5 -> 1500 in float.
  std::vector<__half> many(1000, __float2half(1.5f));
  CHECK(tally::reduce(tally::host, many.begin(), many.end(), 0.0f) == 1500.0f);
}

TEST_CASE("host reduce: __half and __nv_bfloat16 maximum and minimum") {
  std::vector<__half> h{__float2half(-2.0f), __float2half(3.5f), __float2half(0.25f), __float2half(-7.0f)};
  CHECK(to_float(tally::reduce(tally::host, h.begin(), h.end(), __float2half(-inf_f), tally::maximum<__half>{})) == 3.5f);
  CHECK(to_float(tally::reduce(tally::host, h.begin(), h.end(), __float2half(inf_f), tally::minimum<__half>{})) == -7.0f);
  h.push_back(__float2half(nan_f));
  CHECK(std::isnan(to_float(tally::reduce(tally::host, h.begin(), h.end(), __float2half(-inf_f), tally::maximum<__half>{}))));
  CHECK(to_float(tally::reduce(tally::host, h.begin(), h.end(), __float2half(inf_f), tally::minimum<__half>{})) == -7.0f);

  std::vector<__nv_bfloat16> b{__float2bfloat16(1.0f), __float2bfloat16(nan_f), __float2bfloat16(-3.0f)};
  CHECK(std::isnan(
      to_float(tally::reduce(tally::host, b.begin(), b.end(), __float2bfloat16(-inf_f), tally::maximum<__nv_bfloat16>{}))));
  CHECK(to_float(tally::reduce(tally::host, b.begin(), b.end(), __float2bfloat16(inf_f), tally::minimum<__nv_bfloat16>{})) ==
        -3.0f);
}

TEST_CASE_TEMPLATE("host reduce: NaN is the greatest value; minimum ignores NaN", T, float, double) {
  const T nan = std::numeric_limits<T>::quiet_NaN();
  const T inf = std::numeric_limits<T>::infinity();
  const std::vector<std::vector<T>> inputs{
      {T(1), nan, T(3)}, {nan, T(1), T(3)}, {T(1), T(3), nan}, {nan, inf, -inf, T(2)}};
  for (const auto& v : inputs) {
    CAPTURE(v.size());
    CHECK(std::isnan(tally::reduce(tally::host, v.begin(), v.end(), -inf, tally::maximum<T>{})));
    CHECK(std::isnan(tally::reduce(tally::host, v.begin(), v.end(), -inf, tally::maximum<>{})));
    const T expected_min = *std::min_element(v.begin(), v.end(), [](T a, T b) {
      return !std::isnan(a) && (std::isnan(b) || a < b);
    });
    CHECK(tally::reduce(tally::host, v.begin(), v.end(), inf, tally::minimum<T>{}) == expected_min);
    CHECK(tally::reduce(tally::host, v.begin(), v.end(), inf, tally::minimum<>{}) == expected_min);
  }
  // Only NaN: the minimum is init, the maximum is NaN.
  std::vector<T> only_nan(5, nan);
  CHECK(tally::reduce(tally::host, only_nan.begin(), only_nan.end(), T(5), tally::minimum<T>{}) == T(5));
  CHECK(std::isnan(tally::reduce(tally::host, only_nan.begin(), only_nan.end(), T(5), tally::maximum<T>{})));
  // A NaN init: maximum stays NaN, minimum takes the smallest item.
  std::vector<T> v{T(2), T(-1), T(4)};
  CHECK(std::isnan(tally::reduce(tally::host, v.begin(), v.end(), nan, tally::maximum<T>{})));
  CHECK(tally::reduce(tally::host, v.begin(), v.end(), nan, tally::minimum<T>{}) == T(-1));
  // NaN propagates through a sum.
  std::vector<T> s{T(1), nan, T(2)};
  CHECK(std::isnan(tally::reduce(tally::host, s.begin(), s.end(), T(0))));

  // The function objects themselves.
  CHECK(std::isnan(tally::maximum<T>{}(T(1), nan)));
  CHECK(std::isnan(tally::maximum<T>{}(nan, T(1))));
  CHECK(tally::minimum<T>{}(T(1), nan) == T(1));
  CHECK(tally::minimum<T>{}(nan, T(1)) == T(1));
  CHECK(tally::less<T>{}(inf, nan));
  CHECK_FALSE(tally::less<T>{}(nan, inf));
  CHECK_FALSE(tally::less<T>{}(nan, nan));
  CHECK(tally::greater<T>{}(nan, inf));
  CHECK(tally::less<>{}(T(1), T(2)));
  CHECK(tally::greater<>{}(nan, T(2)));
}

TEST_CASE_TEMPLATE("host reduce: -0.0 == +0.0", T, float, double) {
  const T inf = std::numeric_limits<T>::infinity();
  const T neg_zero = -T(0);
  const T pos_zero = T(0);
  // The greatest value is a zero (either one), the least a zero too.
  std::vector<T> v{neg_zero, T(-1), pos_zero, T(-3), neg_zero};
  const T mx = tally::reduce(tally::host, v.begin(), v.end(), -inf, tally::maximum<T>{});
  CHECK(mx == T(0));
  std::vector<T> w{pos_zero, T(2), neg_zero, T(5)};
  const T mn = tally::reduce(tally::host, w.begin(), w.end(), inf, tally::minimum<T>{});
  CHECK(mn == T(0));
  // Zeros compare equal: neither is less than the other.
  CHECK_FALSE(tally::less<T>{}(neg_zero, pos_zero));
  CHECK_FALSE(tally::less<T>{}(pos_zero, neg_zero));
  CHECK_FALSE(tally::greater<T>{}(neg_zero, pos_zero));
  CHECK_FALSE(tally::greater<T>{}(pos_zero, neg_zero));
  // -0.0 is greater than any negative number, +0.0 less than any positive one.
  CHECK(tally::reduce(tally::host, v.begin() + 1, v.begin() + 3, -inf, tally::maximum<T>{}) == T(0));
  // A sum of zeros is a zero.
  std::vector<T> z{neg_zero, pos_zero, neg_zero};
  CHECK(tally::reduce(tally::host, z.begin(), z.end(), T(0)) == T(0));
  // maximum/minimum of two zeros is a zero.
  CHECK(tally::maximum<T>{}(neg_zero, pos_zero) == T(0));
  CHECK(tally::minimum<T>{}(pos_zero, neg_zero) == T(0));
}

TEST_CASE_TEMPLATE("host reduce: all +inf and all -inf", T, float, double) {
  const T inf = std::numeric_limits<T>::infinity();
  for (int count : {1, 2, 17}) {
    CAPTURE(count);
    std::vector<T> pos(count, inf), neg(count, -inf);
    CHECK(tally::reduce(tally::host, pos.begin(), pos.end(), T(0)) == inf);
    CHECK(tally::reduce(tally::host, neg.begin(), neg.end(), T(0)) == -inf);
    CHECK(tally::reduce(tally::host, pos.begin(), pos.end(), -inf, tally::maximum<T>{}) == inf);
    CHECK(tally::reduce(tally::host, pos.begin(), pos.end(), inf, tally::minimum<T>{}) == inf);
    CHECK(tally::reduce(tally::host, pos.begin(), pos.end(), T(0), tally::minimum<T>{}) == T(0));
    CHECK(tally::reduce(tally::host, neg.begin(), neg.end(), -inf, tally::maximum<T>{}) == -inf);
    CHECK(tally::reduce(tally::host, neg.begin(), neg.end(), inf, tally::minimum<T>{}) == -inf);
    CHECK(tally::reduce(tally::host, neg.begin(), neg.end(), T(0), tally::maximum<T>{}) == T(0));
  }
}

namespace {
struct stats {
  float x;
  int count;
};
struct stats_op {
  __host__ __device__ stats operator()(const stats& a, const stats& b) const { return {a.x + b.x, a.count + b.count}; }
};
}  // namespace

TEST_CASE("host reduce: a custom struct with a custom operator") {
  std::vector<stats> v;
  for (int i = 0; i < 100; ++i) v.push_back({float(i % 4), 1});
  const stats r = tally::reduce(tally::host, v.begin(), v.end(), stats{0.5f, 10}, stats_op{});
  CHECK(r.x == 150.5f);  // 25 * (0 + 1 + 2 + 3) + 0.5, exact in float
  CHECK(r.count == 110);

  // A host lambda works as the operator too.
  const stats m = tally::reduce(tally::host, v.begin(), v.end(), stats{-1.0f, 0},
                                [](const stats& a, const stats& b) { return stats{std::max(a.x, b.x), a.count + b.count}; });
  CHECK(m.x == 3.0f);
  CHECK(m.count == 100);

  // Empty: init.
  const stats e = tally::reduce(tally::host, v.begin(), v.begin(), stats{2.0f, 3}, stats_op{});
  CHECK(e.x == 2.0f);
  CHECK(e.count == 3);
}
