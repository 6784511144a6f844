// The index output of tally::max_element_into / min_element_into, part 2: an int64 output
// between guard items, thrust::device_ptr<long long>, pinned (mapped) host memory and
// managed memory. Every backend, against CUB's ArgMax / ArgMin on float data with many
// ties. (Part 1, test_extrema_outputs.cu: 32-bit outputs.)
#include "extrema_common.cuh"

#include <thrust/device_ptr.h>

namespace {

/// max_element_into / min_element_into of [first, first + n) on test_stream(), then waits.
template <class Policy, class It, class Out>
void into_both(const Policy& policy, It first, long long n, Out max_out, Out min_out) {
  tally::max_element_into(policy.on(tt::test_stream()), first, first + n, max_out);
  tally::min_element_into(policy.on(tt::test_stream()), first, first + n, min_out);
  TT_CUDA(cudaStreamSynchronize(tt::test_stream()));
}

const std::vector<long long> output_sizes = tt::listed_sizes({1, 33, 4097, 65537, (1LL << 20) + 1, (1LL << 22) + 3});

}  // namespace

TEST_CASE("extrema: int64 index outputs in device, pinned and managed memory, and through thrust::device_ptr") {
  tt::failure_budget budget;
  std::int64_t* pinned = nullptr;
  std::int64_t* managed = nullptr;
  TT_CUDA(cudaHostAlloc(reinterpret_cast<void**>(&pinned), 2 * sizeof(std::int64_t), cudaHostAllocMapped));
  TT_CUDA(cudaMallocManaged(reinterpret_cast<void**>(&managed), 2 * sizeof(std::int64_t)));
  tt::device_buffer<std::int64_t> guarded(5);  // guard, max, guard, min, guard
  tt::device_buffer<long long> device_out(2);
  for (long long n : output_sizes) {
    const auto d = tt::make_ties<float>(n, 0, 77);
    const long long expect_max = tt::cub_arg<true>(d.ptr, n), expect_min = tt::cub_arg<false>(d.ptr, n);
    tt::for_each_backend([&](auto backend) {
      INFO("backend=", tt::backend_label(backend), " n=", n);
      const auto policy = tally::par.with(backend);

      TT_CUDA(cudaMemset(guarded.data(), 0xA5, 5 * sizeof(std::int64_t)));
      TT_CUDA(cudaDeviceSynchronize());
      into_both(policy, d.ptr, n, guarded.data() + 1, guarded.data() + 3);
      const auto g = guarded.download();
      std::int64_t guard;
      std::memset(&guard, 0xA5, sizeof guard);
      CHECK(g[0] == guard);
      CHECK(g[2] == guard);
      CHECK(g[4] == guard);
      CHECK(g[1] == expect_max);
      CHECK(g[3] == expect_min);

      TT_CUDA(cudaMemset(device_out.data(), 0xA5, 2 * sizeof(long long)));
      TT_CUDA(cudaDeviceSynchronize());
      const thrust::device_ptr<long long> dp(device_out.data());
      into_both(policy, d.ptr, n, dp, dp + 1);
      const auto h = device_out.download();
      CHECK(h[0] == expect_max);
      CHECK(h[1] == expect_min);

      pinned[0] = pinned[1] = -1;
      into_both(policy, d.ptr, n, pinned, pinned + 1);
      CHECK(pinned[0] == expect_max);
      CHECK(pinned[1] == expect_min);

      TT_CUDA(cudaDeviceSynchronize());
      managed[0] = managed[1] = -1;
      into_both(policy, d.ptr, n, managed, managed + 1);
      TT_CUDA(cudaDeviceSynchronize());
      CHECK(managed[0] == expect_max);
      CHECK(managed[1] == expect_min);
    });
  }
  TT_CUDA(cudaFreeHost(pinned));
  TT_CUDA(cudaFree(managed));
}
