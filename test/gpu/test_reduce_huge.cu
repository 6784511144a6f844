// Ranges of more than 2^31 items (64-bit counts), through fancy iterators with closed-form
// answers, on every backend and both forms:
//   sum of counting_iterator<long long>(0) over n = 2^31 + 17 = n (n - 1) / 2
//   max / min of the same = n - 1 / 0
//   sum of constant_iterator<int>(1) as long long over n = 2^32 + 5 = n
//   max of counting_iterator<long long> over 2^32 + 5 = n - 1
//   sum of (i % 7) over 2^32 + 5 (a wrong 32-bit index shows in the pattern)
// thrust::constant_iterator is what users of CCCL up to 3.4 have, and CCCL 3.5 deprecates
// it (for cuda::constant_iterator); the test keeps it and silences that warning.
#define CCCL_IGNORE_DEPRECATED_API
#include "common.cuh"

#include <thrust/iterator/constant_iterator.h>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/transform_iterator.h>

namespace huge_test {
struct mod7 {
  __host__ __device__ long long operator()(long long i) const { return i % 7; }
};
}  // namespace huge_test

TEST_CASE_TEMPLATE("reduce over more than 2^31 items", B, TT_BACKENDS) {
  tt::failure_budget budget;
  const auto policy = tally::par.with(B{});
  const thrust::counting_iterator<long long> count(0);
  const thrust::constant_iterator<int> ones(1);
  const auto residues = thrust::make_transform_iterator(count, huge_test::mod7{});

  const long long n31 = (1LL << 31) + 17;
  const long long n32 = (1LL << 32) + 5;
  const long long residue_sum = (n32 / 7) * 21 + (n32 % 7) * (n32 % 7 - 1) / 2;

  for (tt::run_mode mode : tt::run_modes) {
    INFO("backend=", tt::backend_label(B{}), " ", tt::mode_name(mode));
    {
      INFO("n=2^31+17 counting_iterator<long long> plus");
      if (auto r = tt::run_tally(policy, count, n31, 0LL, tally::plus<long long>{}, mode, "sum"))
        tt::check_exact(*r, n31 * (n31 - 1) / 2, "sum");
    }
    {
      INFO("n=2^31+17 counting_iterator<long long> maximum / minimum");
      if (auto r = tt::run_tally(policy, count, n31, 0LL, tally::maximum<long long>{}, mode, "max"))
        tt::check_exact(*r, n31 - 1, "max");
      if (auto r = tt::run_tally(policy, count, n31, LLONG_MAX, tally::minimum<long long>{}, mode, "min"))
        tt::check_exact(*r, 0LL, "min");
    }
    {
      INFO("n=2^32+5 constant_iterator<int>(1) plus<long long>");
      if (auto r = tt::run_tally(policy, ones, n32, 0LL, tally::plus<long long>{}, mode, "count"))
        tt::check_exact(*r, n32, "count");
    }
    {
      INFO("n=2^32+5 counting_iterator<long long> maximum");
      if (auto r = tt::run_tally(policy, count, n32, -1LL, tally::maximum<long long>{}, mode, "max"))
        tt::check_exact(*r, n32 - 1, "max");
    }
    {
      INFO("n=2^32+5 transform_iterator(i % 7) plus");
      if (auto r = tt::run_tally(policy, residues, n32, 0LL, tally::plus<long long>{}, mode, "sum"))
        tt::check_exact(*r, residue_sum, "sum");
    }
  }
}
