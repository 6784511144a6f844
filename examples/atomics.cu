// atomics: tally's device atomics in kernels of your own. A histogram of 16-bit
// counters (atomic_add on a 2-byte type), the max and min of data that holds a NaN
// (atomic_max / atomic_min in the library's order), an argmax of a struct with a custom
// operator (atomic_update), and the old value that every atomic returns.
//
// Without a CUDA device it prints "skipped: ..." and returns 77; otherwise it checks its
// results and returns 0 (all correct) or 1.
#include <tally/atomic.cuh>

#include <thrust/device_vector.h>
#include <thrust/host_vector.h>
#include <thrust/tabulate.h>

#include <cuda/std/limits>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <limits>

#include "example_check.hpp"

namespace {

bool launched_ok(const char* what) {
  cudaError_t status = cudaGetLastError();
  if (status == cudaSuccess) status = cudaDeviceSynchronize();
  if (status != cudaSuccess) std::printf("FAIL: %s: %s\n", what, cudaGetErrorString(status));
  return status == cudaSuccess;
}

}  // namespace

// example-begin histogram
// 16 bins of 16-bit counters. A 2-byte atomic_add is a compare-and-swap on the aligned
// 4-byte word that holds it; the neighbouring counter in that word is never clobbered.
__global__ void histogram16(const std::uint8_t* bytes, int n, std::uint16_t* bins) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
    tally::atomic_add(&bins[bytes[i] % 16], std::uint16_t{1});
}
// example-end histogram

// example-begin extremes
// atomic_max / atomic_min order floats as tally::less does: NaN is greater than every
// number and -0.0 == +0.0. One NaN in the data makes the max NaN and never the min.
__global__ void extremes(const float* x, int n, float* largest, float* smallest) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
    tally::atomic_max(largest, x[i]);
    tally::atomic_min(smallest, x[i]);
  }
}
// example-end extremes

// example-begin argmax
// Any trivially copyable type of 1, 2, 4, 8 (or, on sm_90+, 16) bytes works with
// atomic_update: here 8 bytes, updated with one 64-bit compare-and-swap per attempt.
struct best {
  float value;
  int index;
};
// The larger value (in tally's order, so NaN wins); the lower index on a tie.
struct keep_best {
  __device__ best operator()(const best& a, const best& b) const {
    if (tally::less<float>{}(a.value, b.value)) return b;
    if (tally::less<float>{}(b.value, a.value)) return a;
    return a.index <= b.index ? a : b;
  }
};
__global__ void argmax(const float* x, int n, best* result) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
    tally::atomic_update(result, best{x[i], i}, keep_best{});
}
// example-end argmax

// example-begin old-value
// Every atomic returns the value it replaced: here a ticket, the position to write at.
__global__ void collect_nans(const float* x, int n, int* positions, int* count) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
    if (x[i] != x[i]) positions[tally::atomic_add(count, 1)] = i;
}
// example-end old-value

namespace {

struct byte_pattern {
  __host__ __device__ std::uint8_t operator()(int i) const { return std::uint8_t(i % 256); }
};
// Whole numbers in [-500, 500], with one NaN (at nan_index) and the largest number,
// 1000, at max_index.
constexpr int nan_index = 12345, max_index = 777;
struct float_pattern {
  __host__ __device__ float operator()(int i) const {
    if (i == nan_index) return cuda::std::numeric_limits<float>::quiet_NaN();
    if (i == max_index) return 1000.0f;
    return float((i * 37) % 1001 - 500);
  }
};

}  // namespace

int main() {
  if (!have_cuda_device()) return 77;

  const int n = 1 << 20;
  const int blocks = 256, threads = 256;

  const int num_bytes = 1 << 16;  // 4096 per bin: well within a 16-bit counter
  thrust::device_vector<std::uint8_t> bytes(num_bytes);
  thrust::tabulate(bytes.begin(), bytes.end(), byte_pattern{});
  thrust::device_vector<std::uint16_t> bins(16, 0);
  histogram16<<<blocks, threads>>>(thrust::raw_pointer_cast(bytes.data()), num_bytes,
                                   thrust::raw_pointer_cast(bins.data()));
  bool ok = launched_ok("histogram16");
  thrust::host_vector<std::uint16_t> counts = bins;
  for (int b = 0; b < 16; ++b) ok = ok && counts[b] == num_bytes / 16;
  expect(ok, "histogram of 16-bit counters");

  thrust::device_vector<float> x(n);
  thrust::tabulate(x.begin(), x.end(), float_pattern{});
  const float* data = thrust::raw_pointer_cast(x.data());

  // example-begin extremes-launch
  const float inf = std::numeric_limits<float>::infinity();
  thrust::device_vector<float> range(2);
  range[0] = -inf;  // the max starts at the lowest value
  range[1] = inf;   // the min at the highest number (NaN would do too: it loses every min)
  extremes<<<blocks, threads>>>(data, n, thrust::raw_pointer_cast(range.data()),
                                thrust::raw_pointer_cast(range.data()) + 1);
  float largest = range[0];   // NaN: the data holds a NaN
  float smallest = range[1];  // -500
  // example-end extremes-launch
  expect(launched_ok("extremes") && std::isnan(largest) && smallest == -500.0f, "max is NaN, min is -500");

  thrust::device_vector<best> winner(1, best{-inf, -1});
  argmax<<<blocks, threads>>>(data, n, thrust::raw_pointer_cast(winner.data()));
  const best w = winner[0];
  expect(launched_ok("argmax") && w.index == nan_index && std::isnan(w.value), "argmax picks the NaN");

  thrust::device_vector<int> positions(16, -1), count(1, 0);
  collect_nans<<<blocks, threads>>>(data, n, thrust::raw_pointer_cast(positions.data()),
                                    thrust::raw_pointer_cast(count.data()));
  expect(launched_ok("collect_nans") && count[0] == 1 && positions[0] == nan_index, "one NaN, found at its index");

  std::printf("atomics: max %g, min %g, argmax index %d, %d NaN\n", largest, smallest, w.index, int(count[0]));
  return failures == 0 ? 0 : 1;
}
