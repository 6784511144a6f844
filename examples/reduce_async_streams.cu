// reduce_async_streams: tally::reduce_into, which returns at once and writes its result
// in stream order. Two reductions on two streams, joined with an event and combined on
// the GPU without a host wait; then deterministic() sums, whose bits are the same on
// every run, written straight into pinned host memory.
//
// Without a CUDA device it prints "skipped: ..." and returns 77; otherwise it checks its
// results and returns 0 (all correct) or 1.
#include <tally/tally.cuh>

#include <thrust/device_vector.h>
#include <thrust/tabulate.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "example_check.hpp"

namespace {

// Stops with a message on a CUDA error (tally's own calls throw instead).
void cuda_check(cudaError_t status, const char* what) {
  if (status != cudaSuccess) {
    std::printf("FAIL: %s: %s\n", what, cudaGetErrorString(status));
    std::exit(1);
  }
}

// Item i of the first data set: (i % 8) / 4, so every partial sum is exact in float.
struct quarter_steps {
  __host__ __device__ float operator()(long long i) const { return float(i % 8) * 0.25f; }
};
// Item i of the second: 1 / (1 + i % 1000), whose float sum depends on the order.
struct reciprocals {
  __host__ __device__ float operator()(long long i) const { return 1.0f / float(1 + i % 1000); }
};

}  // namespace

int main() {
  if (!have_cuda_device()) return 77;

  const long long n = 1 << 22;
  thrust::device_vector<float> data(n);
  thrust::tabulate(data.begin(), data.end(), quarter_steps{});  // synchronous: ready before we go on
  const float* x = thrust::raw_pointer_cast(data.data());

  // example-begin two-streams
  cudaStream_t a, b;
  cudaStreamCreateWithFlags(&a, cudaStreamNonBlocking);
  cudaStreamCreateWithFlags(&b, cudaStreamNonBlocking);
  thrust::device_vector<float> halves(2), total(1);
  float* half_sums = thrust::raw_pointer_cast(halves.data());
  float* sum = thrust::raw_pointer_cast(total.data());

  // Each call returns at once; its result is written in its stream's order.
  tally::reduce_into(tally::par.on(a), x, x + n / 2, half_sums + 0, 0.0f);
  tally::reduce_into(tally::par.on(b), x + n / 2, x + n, half_sums + 1, 0.0f);

  // Stream a waits for b's work (on the GPU, not on the host), then adds the halves.
  cudaEvent_t b_done;
  cudaEventCreateWithFlags(&b_done, cudaEventDisableTiming);
  cudaEventRecord(b_done, b);
  cudaStreamWaitEvent(a, b_done);
  tally::reduce_into(tally::par.on(a), half_sums, half_sums + 2, sum, 0.0f);

  cudaStreamSynchronize(a);  // the only host wait
  float result = total[0];
  // example-end two-streams
  cuda_check(cudaGetLastError(), "two streams");
  expect(result == float(n / 8) * 7.0f, "sum of two halves on two streams, joined on the GPU");

  thrust::tabulate(data.begin(), data.end(), reciprocals{});
  // example-begin deterministic
  // Results straight into pinned host memory: no copy, one wait per stream.
  float* pinned = nullptr;
  cudaMallocHost(&pinned, 2 * sizeof(float));

  // The same sum twice, on two streams. Under deterministic() the bits are identical
  // (for the same input, policy and GPU model); without it, a float sum on the atomic
  // backend may differ in its last bits from run to run.
  const auto policy = tally::par.deterministic();
  tally::reduce_into(policy.on(a), x, x + n, pinned + 0, 0.0f);
  tally::reduce_into(policy.on(b), x, x + n, pinned + 1, 0.0f);
  cudaStreamSynchronize(a);
  cudaStreamSynchronize(b);
  bool same_bits = std::memcmp(&pinned[0], &pinned[1], sizeof(float)) == 0;  // true
  // example-end deterministic
  cuda_check(cudaGetLastError(), "deterministic");
  expect(same_bits, "deterministic(): bitwise identical sums on two streams");
  double reference = 0.0;
  for (long long i = 0; i < n; ++i) reference += double(reciprocals{}(i));
  expect(std::fabs(pinned[0] - reference) <= 1e-4 * reference, "deterministic sum close to the double-precision sum");
  std::printf("reduce_async_streams: two-stream sum %g, deterministic sum %.9g (double reference %.9g)\n", result,
              pinned[0], reference);

  cudaFreeHost(pinned);
  cudaEventDestroy(b_done);
  cudaStreamDestroy(a);
  cudaStreamDestroy(b);
  return failures == 0 ? 0 : 1;
}
