// reduce_basics: the synchronous tally::reduce. A sum, a maximum, and the rule that the
// accumulator has the type of init (so that 16-bit halfs can be summed in float).
//
// Without a CUDA device it prints "skipped: ..." and returns 77; otherwise it checks its
// results and returns 0 (all correct) or 1.
#include <tally/tally.cuh>

#include <thrust/device_vector.h>
#include <thrust/sequence.h>

#include <cuda_fp16.h>

#include <climits>
#include <cstdint>
#include <cstdio>

#include "example_check.hpp"

int main() {
  if (!have_cuda_device()) return 77;

  // example-begin sum
  thrust::device_vector<int> values(1 << 20);
  thrust::sequence(values.begin(), values.end());  // 0, 1, ..., 2^20 - 1
  const int* first = thrust::raw_pointer_cast(values.data());
  const int* last = first + values.size();

  // The accumulator has the type of init: the ints are added as 64-bit integers, so
  // the sum (549'755'289'600) does not overflow. Waits for the result and returns it.
  std::int64_t sum = tally::reduce(first, last, std::int64_t{0});  // op: tally::plus<std::int64_t>
  // example-end sum
  expect(sum == std::int64_t(1 << 20) * ((1 << 20) - 1) / 2, "sum of 0 .. 2^20-1 in int64");

  // example-begin max
  // Any associative operator; init takes part like one more item.
  int largest = tally::reduce(first, last, INT_MIN, tally::maximum<int>{});

  // Without init: value_type{} (here 0) and tally::plus<value_type>.
  int first_1000 = tally::reduce(first, first + 1000);  // 0 + 1 + ... + 999 = 499500
  // example-end max
  expect(largest == (1 << 20) - 1, "max is 2^20 - 1");
  expect(first_1000 == 499500, "sum of the first 1000 items, without init");

  // example-begin halfs
  thrust::device_vector<__half> halfs(1 << 20, __float2half(0.5f));
  const __half* h = thrust::raw_pointer_cast(halfs.data());

  // float init: every __half is converted to float and the sum is exact.
  float total = tally::reduce(h, h + halfs.size(), 0.0f);  // 524288

  // No init: the accumulator is __half, whose largest finite value is 65504, so the
  // sum can't come out right (it overflows to inf, or loses the small terms).
  __half in_half = tally::reduce(h, h + halfs.size());
  // example-end halfs
  expect(total == 524288.0f, "2^20 halfs of 0.5 summed in float");
  expect(__half2float(in_half) != 524288.0f, "the same summed in __half cannot hold 524288");

  // example-begin empty
  // An empty range gives init (and touches neither the data nor the GPU).
  float nothing = tally::reduce(h, h, -1.0f);  // -1
  // example-end empty
  expect(nothing == -1.0f, "empty range returns init");

  std::printf("reduce_basics: sum %lld, max %d, half sum in float %g, in __half %g\n", static_cast<long long>(sum),
              largest, total, __half2float(in_half));
  return failures == 0 ? 0 : 1;
}
