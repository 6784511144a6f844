// reduce on streams: CUDA graph capture and replay, several streams at once, the
// per-thread default stream, and scratch reuse across calls of different types on one
// stream (the counter and slot must be left zeroed by every call). Smaller inputs under
// TALLY_SANITIZE=1 (common.cuh).
#include "common.cuh"

#include <tally/tally.cuh>

#include <doctest/doctest.h>

#include <thread>
#include <vector>

#define CUDA_OK(call) REQUIRE((call) == cudaSuccess)

namespace {

// Fills a device array with 1, 2, 3, 1, 2, 3, ... so that sums have a closed form.
__global__ void fill_cycle(int* data, long long n) {
  for (long long i = blockIdx.x * 256ll + threadIdx.x; i < n; i += 256ll * gridDim.x) data[i] = int(i % 3) + 1;
}

long long cycle_sum(long long n) { return (n / 3) * 6 + (n % 3 >= 1 ? 1 : 0) + (n % 3 >= 2 ? 2 : 0); }

struct device_ints {
  int* data = nullptr;
  explicit device_ints(long long n) {
    CUDA_OK(cudaMalloc(&data, sizeof(int) * (n > 0 ? n : 1)));
    fill_cycle<<<256, 256>>>(data, n);
    CUDA_OK(cudaDeviceSynchronize());
  }
  ~device_ints() { cudaFree(data); }
};

}  // namespace

TEST_CASE_TEMPLATE("reduce_into inside a captured CUDA graph gives the right sum on every replay", B,
                   tally::backend::atomic_t, tally::backend::shared_memory_t, tally::backend::warp_shuffle_t,
                   tally::backend::automatic_t) {
  const long long n = tt::sanitizing() ? 9 * 4096 + 7 : (1 << 20) + 7;  // many blocks: the scratch path is used
  device_ints in(n);
  long long* out = nullptr;
  CUDA_OK(cudaMalloc(&out, 2 * sizeof(long long)));
  cudaStream_t stream;
  CUDA_OK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  cudaGraph_t graph;
  CUDA_OK(cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal));
  const auto policy = tally::par.on(stream).with(B{});
  tally::reduce_into(policy, in.data, in.data + n, out, 0LL);
  tally::reduce_into(policy, in.data, in.data + n / 2, out + 1, 5LL);
  CUDA_OK(cudaStreamEndCapture(stream, &graph));
  cudaGraphExec_t exec;
  CUDA_OK(cudaGraphInstantiate(&exec, graph, 0));
  for (int replay = 0; replay < 5; ++replay) {
    CUDA_OK(cudaMemset(out, 0xff, 2 * sizeof(long long)));
    CUDA_OK(cudaGraphLaunch(exec, stream));
    CUDA_OK(cudaStreamSynchronize(stream));
    long long got[2];
    CUDA_OK(cudaMemcpy(got, out, sizeof(got), cudaMemcpyDeviceToHost));
    CAPTURE(replay);
    CHECK(got[0] == cycle_sum(n));
    CHECK(got[1] == 5 + cycle_sum(n / 2));
  }
  // Direct calls on the same stream still work after the graph.
  CHECK(tally::reduce(policy, in.data, in.data + n, 0LL) == cycle_sum(n));
  cudaGraphExecDestroy(exec);
  cudaGraphDestroy(graph);
  cudaStreamDestroy(stream);
  cudaFree(out);
}

TEST_CASE("reduce on several streams at once, each with its own scratch") {
  constexpr int streams = 8;
  const long long n = tt::sanitizing() ? 33 * 4096 + 3 : (1 << 22) + 3;  // > 7000 + 15: every len is positive
  device_ints in(n);
  long long* out = nullptr;
  CUDA_OK(cudaMalloc(&out, streams * 16 * sizeof(long long)));
  std::vector<cudaStream_t> s(streams);
  for (auto& stream : s) CUDA_OK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  for (int round = 0; round < 16; ++round)
    for (int i = 0; i < streams; ++i) {
      const long long len = n - 1000 * i - round;
      if (i % 2) tally::reduce_into(tally::par.on(s[i]).with(tally::backend::atomic), in.data, in.data + len, out + i * 16 + round, 0LL);
      else tally::reduce_into(tally::par.on(s[i]).deterministic(), in.data, in.data + len, out + i * 16 + round, 0LL);
    }
  CUDA_OK(cudaDeviceSynchronize());
  std::vector<long long> got(streams * 16);
  CUDA_OK(cudaMemcpy(got.data(), out, got.size() * sizeof(long long), cudaMemcpyDeviceToHost));
  for (int i = 0; i < streams; ++i)
    for (int round = 0; round < 16; ++round) {
      CAPTURE(i);
      CAPTURE(round);
      CHECK(got[i * 16 + round] == cycle_sum(n - 1000 * i - round));
    }
  for (auto& stream : s) cudaStreamDestroy(stream);
  cudaFree(out);
}

TEST_CASE("reduce from several host threads on their per-thread default streams") {
  const long long n = tt::sanitizing() ? 17 * 4096 + 11 : (1 << 21) + 11;
  device_ints in(n);
  std::vector<std::thread> threads;
  std::vector<int> wrong(6, 0);
  for (int t = 0; t < 6; ++t)
    threads.emplace_back([&, t] {
      for (int i = 0; i < 50; ++i) {
        const long long len = n - 17 * t - i;
        const long long got = tally::reduce(tally::par.on(cudaStreamPerThread), in.data, in.data + len, 0LL);
        if (got != cycle_sum(len)) ++wrong[t];
      }
    });
  for (auto& thread : threads) thread.join();
  for (int t = 0; t < 6; ++t) CHECK(wrong[t] == 0);
}

TEST_CASE("one stream, many calls of different types and operators: the scratch is left clean") {
  const long long n = tt::sanitizing() ? 9 * 4096 + 1 : (1 << 20) + 1;
  device_ints in(n);
  cudaStream_t stream;
  CUDA_OK(cudaStreamCreate(&stream));
  const auto policy = tally::par.on(stream).with(tally::backend::atomic);
  for (int i = 0; i < 20; ++i) {
    CHECK(tally::reduce(policy, in.data, in.data + n, 0LL) == cycle_sum(n));
    CHECK(tally::reduce(policy, in.data, in.data + n, 0, tally::maximum<int>{}) == 3);
    CHECK(tally::reduce(policy, in.data, in.data + n, 100, tally::minimum<int>{}) == 1);
    CHECK(tally::reduce(policy, in.data, in.data + n, 0.0, tally::plus<double>{}) == double(cycle_sum(n)));
    CHECK(tally::reduce(tally::par.on(stream).with(tally::backend::warp_shuffle), in.data, in.data + n, 0LL) ==
          cycle_sum(n));
  }
  cudaStreamDestroy(stream);
}
