// tally's extrema through iterators other than raw pointers, on every backend, every
// form: thrust::device_ptr (contiguous: may take the vector loads; aligned and
// misaligned), thrust::transform_iterator (-x: the largest is the first smallest x),
// thrust::reverse_iterator (against CUB on the same iterator: the last occurrence in the
// data is the first in the reversed range), thrust::counting_iterator<int> and
// thrust::constant_iterator (closed forms: n - 1 and 0; 0 and 0), empty ranges of them.
// thrust::constant_iterator is what users of CCCL up to 3.4 have, and CCCL 3.5 deprecates
// it (for cuda::constant_iterator); the test keeps it and silences that warning.
#define CCCL_IGNORE_DEPRECATED_API
#include "extrema_common.cuh"

#include <thrust/device_ptr.h>
#include <thrust/iterator/constant_iterator.h>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/reverse_iterator.h>
#include <thrust/iterator/transform_iterator.h>

// Named namespace, not an anonymous one: tally's kernels have hidden visibility, which
// nvcc warns about (#1407-D) when a template argument has internal linkage.
namespace extrema_iterator_test {
struct negate {
  __host__ __device__ float operator()(float x) const { return -x; }
};
}  // namespace extrema_iterator_test

using extrema_iterator_test::negate;

TEST_CASE_TEMPLATE("extrema through device_ptr, transform and reverse iterators", B, TT_BACKENDS) {
  tt::failure_budget budget;
  const auto policy = tally::par.with(B{});
  const std::string b = std::string("backend=") + tt::backend_label(B{});
  for (long long n : tt::listed_sizes({0, 1, 2, 31, 33, 1025, 4097, 65537, (1LL << 20) + 1, (1LL << 22) + 3})) {
    for (int offset : {0, 1}) {
      INFO("n=", n, " offset=", offset);
      const auto f = tt::make_ties<float>(n, offset);
      long long expect_max = 0, expect_min = 0;
      if (n > 0) {
        expect_max = tt::cub_arg<true>(f.ptr, n);
        expect_min = tt::cub_arg<false>(f.ptr, n);
      }
      const thrust::device_ptr<float> df(f.ptr);
      tt::check_all_forms(policy, df, n, tally::less<>{}, expect_max, expect_min, b + " device_ptr<float>");
      const auto negated = thrust::make_transform_iterator(df, negate{});
      tt::check_all_forms(policy, negated, n, tally::less<>{}, expect_min, expect_max, b + " transform(-x)");
      const auto reversed = thrust::make_reverse_iterator(df + n);
      long long reversed_max = 0, reversed_min = 0;
      if (n > 0) {
        reversed_max = tt::cub_arg<true>(reversed, n);
        reversed_min = tt::cub_arg<false>(reversed, n);
      }
      tt::check_all_forms(policy, reversed, n, tally::less<>{}, reversed_max, reversed_min, b + " reverse_iterator");
    }
  }
}

TEST_CASE_TEMPLATE("extrema through counting and constant iterators", B, TT_BACKENDS) {
  tt::failure_budget budget;
  const auto policy = tally::par.with(B{});
  const std::string b = std::string("backend=") + tt::backend_label(B{});
  for (long long n : tt::listed_sizes({0, 1, 2, 31, 33, 1025, 4097, 65537, (1LL << 20) + 1, (1LL << 26) + 3})) {
    INFO("n=", n);
    const thrust::counting_iterator<int> count(10);
    tt::check_all_forms(policy, count, n, tally::less<>{}, n > 0 ? n - 1 : 0LL, 0LL, b + " counting_iterator<int>");
    const thrust::constant_iterator<float> same(2.5f);
    tt::check_all_forms(policy, same, n, tally::less<>{}, 0LL, 0LL, b + " constant_iterator<float>");
  }
}
