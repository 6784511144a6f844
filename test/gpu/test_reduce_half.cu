// tally::reduce / reduce_into on __half and __nv_bfloat16: every backend, both forms,
// every standard size and data pattern, misaligned starts. Sums with a float init add in
// float (against CUB summing the same items into a float); maximum and minimum exact.
// Also small sums with a 16-bit init whose every partial sum is exact in the type.
#include "common.cuh"

TEST_CASE_TEMPLATE("reduce matches CUB: every backend, size and pattern", T, __half, __nv_bfloat16) {
  tt::reduce_suite<T>();
}

TEST_CASE_TEMPLATE("reduce: exact sums with a 16-bit init", T, __half, __nv_bfloat16) {
  tt::failure_budget budget;
  // Items 0 or 1 and init 1: every partial sum is an integer no larger than the total,
  // exact in the type (half: up to 2048, bfloat16: up to 256), whatever the order.
  const long long max_total = tt::is_half_v<T> ? 2048 : 256;
  for (long long n : {0LL, 1LL, 2LL, 31LL, 32LL, 33LL, 255LL, 1000LL, 2047LL}) {
    if (n + 1 > max_total) continue;
    std::vector<T> host(n);
    long long ones = 0;
    for (long long i = 0; i < n; ++i) {
      const bool one = (tt::hash(std::uint64_t(i), 99) & 3) != 0 || i == 0;
      ones += one;
      host[i] = tt::from_double<T>(one ? 1.0 : 0.0);
    }
    tt::device_buffer<T> data(host);
    const T init = tt::from_double<T>(1.0);
    const T expected = tt::from_double<T>(double(ones + 1));
    INFO("type=", tt::type_name<T>(), " n=", n, " ones=", ones);
    tt::check_exact(tt::cub_reduce(data.data(), n, init, tt::ref_plus<T>{}), expected, "CUB vs closed form");
    tt::for_each_backend([&](auto backend) {
      for (tt::run_mode mode : tt::run_modes) {
        const std::string what = tt::run_label("plus", backend, mode);
        if (auto r = tt::run_tally(tally::par.with(backend), data.data(), n, init, tally::plus<T>{}, mode, what))
          tt::check_exact(*r, expected, what);
      }
    });
  }
}
