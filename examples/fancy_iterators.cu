// fancy_iterators: tally reads any random-access iterator that the device can
// dereference, not only pointers. Counting and transform iterators generate their items
// on the fly, so a range of more than 2^31 items (64-bit counts) needs no memory at all
// and has a closed-form answer to check. A transform iterator over a pointer fuses a
// map into the reduction (a sum of squares without a temporary array).
//
// Build with --extended-lambda (for the __host__ __device__ lambda below).
// Without a CUDA device it prints "skipped: ..." and returns 77; otherwise it checks its
// results and returns 0 (all correct) or 1.
#include <tally/tally.cuh>

#include <thrust/device_vector.h>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/transform_iterator.h>
#include <thrust/sequence.h>

#include <cstdint>
#include <cstdio>

#include "example_check.hpp"

// example-begin square
// A function object for transform_iterator: callable on the host and the device.
struct square {
  __host__ __device__ double operator()(float x) const { return double(x) * double(x); }
};
// example-end square

int run() {
  // example-begin counting
  // 0, 1, 2, ..., n - 1 for n = 3 * 2^30 (more than 2^31 items, none of them stored).
  const std::int64_t n = std::int64_t(3) << 30;
  thrust::counting_iterator<std::int64_t> first(0);

  // The sum is n (n - 1) / 2 = 5'188'146'769'120'198'656: accumulate in 64 bits.
  std::int64_t sum = tally::reduce(first, first + n, std::int64_t{0});
  std::int64_t largest = tally::reduce(first, first + n, std::int64_t{-1}, tally::maximum<std::int64_t>{});
  // example-end counting
  expect(sum == (n / 2) * (n - 1), "sum of 0 .. 3*2^30 - 1");
  expect(largest == n - 1, "max of 0 .. 3*2^30 - 1");

  // example-begin transform
  // How many of 0 .. n - 1 are multiples of 3: map each index to 1 or 0, then add.
  // A __host__ __device__ lambda needs nvcc's --extended-lambda.
  auto is_multiple_of_3 = [] __host__ __device__(std::int64_t i) -> std::int64_t { return i % 3 == 0 ? 1 : 0; };
  auto flags = thrust::make_transform_iterator(first, is_multiple_of_3);
  std::int64_t multiples = tally::reduce(flags, flags + n, std::int64_t{0});  // n / 3 = 2^30
  // example-end transform
  expect(multiples == n / 3, "multiples of 3 below 3*2^30");

  thrust::device_vector<float> values(1 << 16);
  thrust::sequence(values.begin(), values.end());  // 0, 1, ..., 2^16 - 1

  // example-begin sum-of-squares
  // A transform over device data: the squares are made as the items are read, so no
  // temporary array is written. (Such iterators are read item by item; only raw
  // pointers and thrust::device_ptr get tally's vectorised loads.)
  const float* x = thrust::raw_pointer_cast(values.data());
  auto squares = thrust::make_transform_iterator(x, square{});
  double sum_of_squares = tally::reduce(squares, squares + values.size(), 0.0);
  // example-end sum-of-squares
  const double m = double(values.size());
  const double expected_squares = (m - 1) * m * (2 * m - 1) / 6;  // every partial sum is an integer below 2^53: exact
  expect(sum_of_squares == expected_squares, "sum of squares of 0 .. 2^16 - 1");

  std::printf("fancy_iterators: sum %lld, max %lld, multiples of 3 %lld, sum of squares %.17g\n",
              static_cast<long long>(sum), static_cast<long long>(largest), static_cast<long long>(multiples),
              sum_of_squares);
  return failures == 0 ? 0 : 1;
}

int main() {
  if (!have_cuda_device()) return 77;
  return run();
}
