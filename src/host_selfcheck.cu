// The host backend's self-check (`tally verify` without a GPU): tally::reduce with the
// tally::host policy on host vectors, against std::accumulate and closed forms, for
// several types, sizes and operators, including the library's float order: maximum
// with a NaN gives NaN, minimum ignores NaN, -0.0 == +0.0.

#include "host_selfcheck.hpp"

#include <tally/tally.cuh>

#include <tally_support/data.cuh>
#include <tally_support/sizes.hpp>
#include <tally_support/table.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <iostream>
#include <limits>
#include <numeric>
#include <string>
#include <vector>

namespace tally_tool {
namespace {

namespace ts = tally_support;

constexpr double nan_d = std::numeric_limits<double>::quiet_NaN();
constexpr float inf_f = std::numeric_limits<float>::infinity();
constexpr float nan_f = std::numeric_limits<float>::quiet_NaN();

template <class T>
std::string text(T x) {
  if constexpr (std::is_integral_v<T>) {
    return std::to_string(x);
  } else {
    if (std::isnan(double(x))) return "nan";
    char buf[48];
    std::snprintf(buf, sizeof buf, "%.9g", double(x));
    return buf;
  }
}

/// Equal as the library means it: NaN matches NaN, -0.0 matches +0.0; with rel_tol > 0,
/// relatively close.
template <class T>
bool same(T got, T want, double rel_tol = 0) {
  if constexpr (std::is_integral_v<T>) {
    return got == want;
  } else {
    if (std::isnan(got) || std::isnan(want)) return std::isnan(got) && std::isnan(want);
    if (rel_tol == 0 || std::isinf(want)) return got == want;
    return std::fabs(double(got) - double(want)) <= rel_tol * std::fabs(double(want));
  }
}

struct report {
  ts::table rows{{"check", "type", "n", "expected", "got", "result"}, 3};
  int failed = 0, total = 0;

  template <class T>
  void add(const std::string& check, const char* type, std::size_t n, T got, T want, double rel_tol = 0) {
    const bool ok = same(got, want, rel_tol);
    ++total;
    failed += ok ? 0 : 1;
    rows.add_row({check, type, ts::size_label(n), text(want), text(got), ok ? "ok" : "FAIL"});
  }
};

template <class T>
std::vector<T> items(std::size_t n, ts::pattern p) {
  std::vector<T> v(n);
  for (std::size_t i = 0; i < n; ++i) v[i] = ts::host_item<T>(i, n, p);
  return v;
}

void sums(report& r, std::size_t n) {
  // int32 hash(i) % 4: the anchors' data; std::accumulate is the reference.
  const auto i32 = items<int>(n, ts::pattern::random);
  r.add("sum hash(i)%4", "int32", n, tally::reduce(tally::host, i32.begin(), i32.end(), 0),
        std::accumulate(i32.begin(), i32.end(), 0));

  // int64 0 + 1 + ... + (n-1) = n(n-1)/2, through the default operator and init.
  std::vector<long long> iota(n);
  std::iota(iota.begin(), iota.end(), 0LL);
  const long long nn = static_cast<long long>(n);
  r.add("sum 0..n-1", "int64", n, tally::reduce(tally::host, iota.begin(), iota.end()), nn * (nn - 1) / 2);

  // float: n ones add up exactly (n <= 2^24); uniform [0,1) against std::accumulate.
  const std::vector<float> ones(n, 1.0f);
  r.add("sum of ones", "float", n, tally::reduce(tally::host, ones.begin(), ones.end(), 0.0f), float(n));
  const auto f = items<float>(n, ts::pattern::random);
  r.add("sum uniform[0,1)", "float", n, tally::reduce(tally::host, f.begin(), f.end(), 0.0f, tally::plus<float>{}),
        std::accumulate(f.begin(), f.end(), 0.0f), 1e-5);

  // double i / 2: the sum n(n-1)/4 is exact in double at these sizes.
  std::vector<double> halves(n);
  for (std::size_t i = 0; i < n; ++i) halves[i] = 0.5 * double(i);
  r.add("sum i/2", "double", n, tally::reduce(tally::host, halves.begin(), halves.end(), 0.0),
        n ? double(nn) * double(nn - 1) / 4 : 0.0);

  // half items into a float accumulator (init 0.0f makes T float, as in Thrust).
  const std::vector<__half> half_ones(n, __float2half(1.0f));
  r.add("sum of half ones", "half->float", n, tally::reduce(tally::host, half_ones.begin(), half_ones.end(), 0.0f),
        float(n));
}

void extrema(report& r, std::size_t n) {
  const auto v = items<int>(n, ts::pattern::random);
  const int lo = std::numeric_limits<int>::lowest(), hi = std::numeric_limits<int>::max();
  r.add("max hash(i)%4", "int32", n, tally::reduce(tally::host, v.begin(), v.end(), lo, tally::maximum<int>{}),
        n ? *std::max_element(v.begin(), v.end()) : lo);
  r.add("min hash(i)%4", "int32", n, tally::reduce(tally::host, v.begin(), v.end(), hi, tally::minimum<int>{}),
        n ? *std::min_element(v.begin(), v.end()) : hi);

  const auto f = items<float>(n, ts::pattern::reversed);  // (n-1-i)/n: max first, min last
  r.add("max reversed ramp", "float", n, tally::reduce(tally::host, f.begin(), f.end(), -inf_f, tally::maximum<float>{}),
        n ? f.front() : -inf_f);
  r.add("min reversed ramp", "float", n, tally::reduce(tally::host, f.begin(), f.end(), inf_f, tally::minimum<float>{}),
        n ? f.back() : inf_f);

  // NaN every 1000th item (none when n < 1000): maximum is NaN, minimum ignores NaN.
  std::vector<double> d(n);
  bool has_nan = false;
  double smallest = std::numeric_limits<double>::infinity();
  for (std::size_t i = 0; i < n; ++i) {
    d[i] = (i % 1000 == 999) ? nan_d : ts::unit_double(ts::hash(i));
    if (std::isnan(d[i])) has_nan = true;
    else smallest = std::min(smallest, d[i]);
  }
  const double lowest_d = -std::numeric_limits<double>::infinity();
  r.add("max with NaN every 1000th", "double", n,
        tally::reduce(tally::host, d.begin(), d.end(), lowest_d, tally::maximum<double>{}),
        has_nan ? nan_d : (n ? *std::max_element(d.begin(), d.end()) : lowest_d));
  r.add("min with NaN every 1000th", "double", n,
        tally::reduce(tally::host, d.begin(), d.end(), std::numeric_limits<double>::infinity(), tally::minimum<double>{}),
        smallest);
}

/// Small fixed inputs for the float order's corner cases.
void corners(report& r) {
  const std::vector<float> nan_mid{1.0f, nan_f, 3.0f};
  r.add("max {1,NaN,3} = NaN", "float", 3,
        tally::reduce(tally::host, nan_mid.begin(), nan_mid.end(), -inf_f, tally::maximum<float>{}), nan_f);
  r.add("min {1,NaN,3} = 1", "float", 3,
        tally::reduce(tally::host, nan_mid.begin(), nan_mid.end(), inf_f, tally::minimum<float>{}), 1.0f);
  const std::vector<float> nan_last{2.0f, 5.0f, nan_f};
  r.add("max {2,5,NaN} = NaN", "float", 3,
        tally::reduce(tally::host, nan_last.begin(), nan_last.end(), -inf_f, tally::maximum<float>{}), nan_f);
  const std::vector<float> all_nan{nan_f, nan_f};
  r.add("min {NaN,NaN}, init +inf = +inf", "float", 2,
        tally::reduce(tally::host, all_nan.begin(), all_nan.end(), inf_f, tally::minimum<float>{}), inf_f);
  r.add("max {NaN,NaN}, init -inf = NaN", "float", 2,
        tally::reduce(tally::host, all_nan.begin(), all_nan.end(), -inf_f, tally::maximum<float>{}), nan_f);

  const std::vector<float> zeros{-0.0f, 0.0f, -1.0f};
  const float zmax = tally::reduce(tally::host, zeros.begin(), zeros.end(), -inf_f, tally::maximum<float>{});
  r.add("max {-0,+0,-1} == 0", "float", 3, zmax, 0.0f);  // either zero: -0.0 == +0.0
  const std::vector<float> zeros2{0.0f, -0.0f, 1.0f};
  r.add("min {+0,-0,1} == 0", "float", 3,
        tally::reduce(tally::host, zeros2.begin(), zeros2.end(), inf_f, tally::minimum<float>{}), 0.0f);
  const std::vector<float> neg_inf(4, -inf_f);
  r.add("max all -inf = -inf", "float", 4,
        tally::reduce(tally::host, neg_inf.begin(), neg_inf.end(), -inf_f, tally::maximum<float>{}), -inf_f);
  const std::vector<float> pos_inf(4, inf_f);
  r.add("sum all +inf = +inf", "float", 4, tally::reduce(tally::host, pos_inf.begin(), pos_inf.end(), 0.0f), inf_f);

  const std::vector<int> empty;
  r.add("empty range = init (42)", "int32", 0, tally::reduce(tally::host, empty.begin(), empty.end(), 42), 42);
}

}  // namespace

int run_host_selfcheck(std::ostream& out, bool markdown, int* checks, int* failed) {
  report r;
  for (std::size_t n : {std::size_t(0), std::size_t(1), std::size_t(1000), std::size_t(1) << 20}) {
    sums(r, n);
    extrema(r, n);
  }
  corners(r);
  out << "tally host backend self-check\n" << (markdown ? r.rows.markdown() : r.rows.text());
  out << r.total << " checks, " << r.failed << " failed\n";
  if (checks) *checks = r.total;
  if (failed) *failed = r.failed;
  return r.failed == 0 ? 0 : 1;
}

}  // namespace tally_tool
