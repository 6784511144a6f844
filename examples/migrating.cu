// migrating: the same reductions written with Thrust, with CUB and with tally, side by
// side, and checked against each other. docs/migrating.md quotes it.
//
// Without a CUDA device it prints "skipped: ..." and returns 77; otherwise it checks its
// results and returns 0 (all correct) or 1.
#include <tally/tally.cuh>

#include <cub/device/device_reduce.cuh>
#include <thrust/device_vector.h>
#include <thrust/execution_policy.h>
#include <thrust/functional.h>
#include <thrust/reduce.h>
#include <thrust/tabulate.h>

#include <cstddef>
#include <cstdio>
#include <limits>

#include "example_check.hpp"

namespace {

// Item i: i % 16, whole numbers: every sum is exact whatever the order.
struct pattern {
  __host__ __device__ float operator()(long long i) const { return float(i % 16); }
};

}  // namespace

int main() {
  if (!have_cuda_device()) return 77;

  const int n = 1 << 20;  // the sum, 7'864'320, is below 2^24: exact in float
  thrust::device_vector<float> data(n);
  thrust::tabulate(data.begin(), data.end(), pattern{});
  const float lowest = -std::numeric_limits<float>::infinity();
  cudaStream_t stream;
  cudaStreamCreate(&stream);

  // example-begin thrust-sync
  // Thrust: synchronous, the result comes back to the host.
  float sum = thrust::reduce(thrust::cuda::par.on(stream), data.begin(), data.end(), 0.0f);
  float max = thrust::reduce(thrust::cuda::par.on(stream), data.begin(), data.end(), lowest,
                             thrust::maximum<float>{});
  // example-end thrust-sync

  // example-begin tally-sync
  // tally: the same calls. Pass data.data() (a thrust::device_ptr) or a raw pointer
  // rather than data.begin(), so that the items are read with vector loads.
  float tally_sum = tally::reduce(tally::par.on(stream), data.data(), data.data() + n, 0.0f);
  float tally_max = tally::reduce(tally::par.on(stream), data.data(), data.data() + n, lowest,
                                  tally::maximum<float>{});
  // example-end tally-sync
  expect(tally_sum == sum && tally_max == max, "tally::reduce gives thrust::reduce's results");

  const float* first = thrust::raw_pointer_cast(data.data());
  thrust::device_vector<float> results(4);
  float* out = thrust::raw_pointer_cast(results.data());

  // example-begin cub-async
  // CUB: ask for the size of the temporary storage, allocate it, call again. The result
  // is written to device memory in stream order.
  void* temp = nullptr;
  std::size_t temp_bytes = 0;
  cub::DeviceReduce::Sum(temp, temp_bytes, first, out + 0, n, stream);  // only sets temp_bytes
  cudaMallocAsync(&temp, temp_bytes, stream);
  cub::DeviceReduce::Sum(temp, temp_bytes, first, out + 0, n, stream);
  cudaFreeAsync(temp, stream);
  // example-end cub-async

  // example-begin tally-async
  // tally: one call. Its scratch memory (a few KiB) is kept per stream and reused.
  tally::reduce_into(tally::par.on(stream), first, first + n, out + 1, 0.0f);
  // example-end tally-async

  // example-begin cub-op
  // CUB with an operator and an initial value (the same two-phase calls).
  temp = nullptr;
  temp_bytes = 0;
  cub::DeviceReduce::Reduce(temp, temp_bytes, first, out + 2, n, thrust::maximum<float>{}, lowest, stream);
  cudaMallocAsync(&temp, temp_bytes, stream);
  cub::DeviceReduce::Reduce(temp, temp_bytes, first, out + 2, n, thrust::maximum<float>{}, lowest, stream);
  cudaFreeAsync(temp, stream);
  // example-end cub-op

  // example-begin tally-op
  tally::reduce_into(tally::par.on(stream), first, first + n, out + 3, lowest, tally::maximum<float>{});
  // example-end tally-op

  cudaStreamSynchronize(stream);
  const cudaError_t status = cudaGetLastError();
  expect(status == cudaSuccess, "no CUDA error");
  expect(results[0] == results[1], "tally::reduce_into gives cub::DeviceReduce::Sum's result");
  expect(results[2] == results[3], "tally::reduce_into gives cub::DeviceReduce::Reduce's result");
  expect(results[1] == sum, "and the same as thrust::reduce");

  std::printf("migrating: sum %g, max %g\n", tally_sum, tally_max);
  cudaStreamDestroy(stream);
  return failures == 0 ? 0 : 1;
}
