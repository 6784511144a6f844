// tally::reduce / reduce_into through iterators other than raw pointers, on every
// backend, both forms: thrust::device_ptr (contiguous: may take the vector path),
// thrust::counting_iterator and thrust::constant_iterator (closed forms, and CUB on the
// same iterator), thrust::transform_iterator over a counting iterator and over a device
// pointer (against CUB on the same iterator).
// thrust::constant_iterator is what users of CCCL up to 3.4 have, and CCCL 3.5 deprecates
// it (for cuda::constant_iterator); the test keeps it and silences that warning.
#define CCCL_IGNORE_DEPRECATED_API
#include "common.cuh"

#include <thrust/device_ptr.h>
#include <thrust/iterator/constant_iterator.h>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/transform_iterator.h>

// Named namespace, not an anonymous one: tally's kernels have hidden visibility, which
// nvcc warns about (#1407-D) when a template argument has internal linkage.
namespace iterator_test {

const std::vector<long long> iterator_sizes =
    tt::listed_sizes({0, 1, 2, 31, 33, 1025, 4095, 4097, 65537, (1 << 20) + 1, (1 << 22) + 3});

/// (i * i) % 1000 - 500: a deterministic, non-monotonic function of the index.
struct square_mod {
  __host__ __device__ int operator()(int i) const { return int((static_cast<long long>(i) * i) % 1000) - 500; }
};
/// -x: the maximum of the transformed range is minus the minimum of the data.
struct negate {
  __host__ __device__ float operator()(float x) const { return -x; }
};

}  // namespace iterator_test

using iterator_test::iterator_sizes;
using iterator_test::negate;
using iterator_test::square_mod;

TEST_CASE_TEMPLATE("reduce through thrust::device_ptr", B, TT_BACKENDS) {
  tt::failure_budget budget;
  const auto policy = tally::par.with(B{});
  for (long long n : iterator_sizes) {
    for (int offset : {0, 1}) {
      INFO("backend=", tt::backend_label(B{}), " n=", n, " offset=", offset);
      const auto d = tt::make_data<int>(n, tt::pattern::random, offset);
      const auto f = tt::make_data<float>(n, tt::pattern::random, offset);
      const thrust::device_ptr<int> di(d.ptr);
      const thrust::device_ptr<float> df(f.ptr);
      const int sum = tt::cub_reduce(d.ptr, n, 7, tt::ref_plus<int>{});
      const int mx = tt::cub_reduce(d.ptr, n, INT_MIN, tt::ref_max<int>{});
      const float fsum = tt::cub_reduce(f.ptr, n, 0.0f, tt::ref_plus<float>{});
      const double tol = 1e-5 * tt::abs_sum(f.host(), 0.0f) + 1e-30;
      for (tt::run_mode mode : tt::run_modes) {
        std::string what = std::string("device_ptr<int> plus ") + tt::mode_name(mode);
        if (auto r = tt::run_tally(policy, di, n, 7, tally::plus<int>{}, mode, what)) tt::check_exact(*r, sum, what);
        what = std::string("device_ptr<int> max ") + tt::mode_name(mode);
        if (auto r = tt::run_tally(policy, di, n, INT_MIN, tally::maximum<int>{}, mode, what))
          tt::check_exact(*r, mx, what);
        what = std::string("device_ptr<float> plus ") + tt::mode_name(mode);
        if (auto r = tt::run_tally(policy, df, n, 0.0f, tally::plus<float>{}, mode, what))
          tt::check_close(*r, fsum, tol, what);
      }
    }
  }
}

TEST_CASE_TEMPLATE("reduce through thrust::counting_iterator and thrust::constant_iterator", B, TT_BACKENDS) {
  tt::failure_budget budget;
  const auto policy = tally::par.with(B{});
  for (long long n : iterator_sizes) {
    INFO("backend=", tt::backend_label(B{}), " n=", n);
    const int start = -1000;
    const thrust::counting_iterator<int> count(start);
    // sum of start, start + 1, ..., start + n - 1 (as long long: no overflow)
    const long long count_sum = n * start + n * (n - 1) / 2 + 11;
    tt::check_exact(tt::cub_reduce(count, n, 11LL, tt::ref_plus<long long>{}), count_sum, "CUB vs closed form");
    const thrust::constant_iterator<float> halves(0.5f);
    const thrust::constant_iterator<int> threes(3);
    for (tt::run_mode mode : tt::run_modes) {
      std::string what = std::string("counting_iterator<int> plus<long long> ") + tt::mode_name(mode);
      if (auto r = tt::run_tally(policy, count, n, 11LL, tally::plus<long long>{}, mode, what))
        tt::check_exact(*r, count_sum, what);
      what = std::string("counting_iterator<int> max ") + tt::mode_name(mode);
      if (auto r = tt::run_tally(policy, count, n, INT_MIN, tally::maximum<int>{}, mode, what))
        tt::check_exact(*r, n > 0 ? int(start + n - 1) : INT_MIN, what);
      what = std::string("counting_iterator<int> min ") + tt::mode_name(mode);
      if (auto r = tt::run_tally(policy, count, n, INT_MAX, tally::minimum<int>{}, mode, what))
        tt::check_exact(*r, n > 0 ? start : INT_MAX, what);
      // 0.5 * n is exact in float for these n, and so is every partial sum.
      what = std::string("constant_iterator<float>(0.5) plus ") + tt::mode_name(mode);
      if (auto r = tt::run_tally(policy, halves, n, 0.0f, tally::plus<float>{}, mode, what))
        tt::check_exact(*r, float(0.5 * double(n)), what);
      what = std::string("constant_iterator<int>(3) max ") + tt::mode_name(mode);
      if (auto r = tt::run_tally(policy, threes, n, -1, tally::maximum<int>{}, mode, what))
        tt::check_exact(*r, n > 0 ? 3 : -1, what);
      what = std::string("constant_iterator<int>(3) plus ") + tt::mode_name(mode);
      if (auto r = tt::run_tally(policy, threes, n, 0, tally::plus<int>{}, mode, what))
        tt::check_exact(*r, int(3 * n), what);
    }
  }
}

TEST_CASE_TEMPLATE("reduce through thrust::transform_iterator", B, TT_BACKENDS) {
  tt::failure_budget budget;
  const auto policy = tally::par.with(B{});
  for (long long n : iterator_sizes) {
    INFO("backend=", tt::backend_label(B{}), " n=", n);
    const auto squares = thrust::make_transform_iterator(thrust::counting_iterator<int>(0), square_mod{});
    const int sq_sum = tt::cub_reduce(squares, n, 0, tt::ref_plus<int>{});
    const int sq_max = tt::cub_reduce(squares, n, INT_MIN, tt::ref_max<int>{});

    const auto f = tt::make_data<float>(n, tt::pattern::with_nan);
    const auto negated = thrust::make_transform_iterator(static_cast<const float*>(f.ptr), negate{});
    // max(-x) over data with NaN: -NaN is a NaN too, so the maximum is NaN when there is one;
    // the minimum of -x is -(maximum of the numbers), computed on the host.
    std::vector<float> neg = f.host();
    for (float& x : neg) x = -x;
    const float neg_max = tt::host_max(neg, -std::numeric_limits<float>::infinity());
    const float neg_min = tt::host_min(neg, std::numeric_limits<float>::infinity());
    for (tt::run_mode mode : tt::run_modes) {
      std::string what = std::string("transform(counting) plus ") + tt::mode_name(mode);
      if (auto r = tt::run_tally(policy, squares, n, 0, tally::plus<int>{}, mode, what)) tt::check_exact(*r, sq_sum, what);
      what = std::string("transform(counting) max ") + tt::mode_name(mode);
      if (auto r = tt::run_tally(policy, squares, n, INT_MIN, tally::maximum<int>{}, mode, what))
        tt::check_exact(*r, sq_max, what);
      what = std::string("transform(float*) max ") + tt::mode_name(mode);
      if (auto r = tt::run_tally(policy, negated, n, -std::numeric_limits<float>::infinity(), tally::maximum<float>{},
                                 mode, what))
        tt::check_exact(*r, neg_max, what);
      what = std::string("transform(float*) min ") + tt::mode_name(mode);
      if (auto r = tt::run_tally(policy, negated, n, std::numeric_limits<float>::infinity(), tally::minimum<float>{},
                                 mode, what))
        tt::check_exact(*r, neg_min, what);
    }
  }
}
