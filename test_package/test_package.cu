// Conan test_package: one reduce and one device atomic through the packaged tally::tally.
// Exits 77 without a CUDA device (test_package/conanfile.py reports it as skipped),
// otherwise 0 when both results are right and 1 when not.
#include <tally/tally.cuh>

#include <cuda_runtime.h>

#include <cstdio>
#include <vector>

__global__ void count_positive(const int* data, int n, int* count) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n && data[i] > 0) tally::atomic_add(count, 1);
}

int main() {
  std::printf("tally %d.%d.%d\n", TALLY_VERSION_MAJOR, TALLY_VERSION_MINOR, TALLY_VERSION_PATCH);
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
    std::printf("skipped: no CUDA device\n");
    return 77;
  }

  const int n = 10000;
  std::vector<int> host(n);
  for (int i = 0; i < n; ++i) host[i] = i % 2 == 0 ? i : -i;  // n/2 - 1 positive items
  int* data = nullptr;
  int* count = nullptr;
  cudaMalloc(&data, n * sizeof(int));
  cudaMalloc(&count, sizeof(int));
  cudaMemcpy(data, host.data(), n * sizeof(int), cudaMemcpyHostToDevice);
  cudaMemset(count, 0, sizeof(int));

  const long long sum = tally::reduce(data, data + n, 0LL);
  count_positive<<<(n + 255) / 256, 256>>>(data, n, count);
  int positives = 0;
  cudaMemcpy(&positives, count, sizeof(int), cudaMemcpyDeviceToHost);
  cudaFree(count);
  cudaFree(data);

  const long long expected_sum = -(n / 2);  // pairs (2k, -(2k+1)) each add -1
  const bool ok = sum == expected_sum && positives == n / 2 - 1;
  std::printf("reduce: %lld (expected %lld), atomic_add: %d (expected %d): %s\n", sum, expected_sum, positives,
              n / 2 - 1, ok ? "ok" : "FAILED");
  return ok ? 0 : 1;
}
