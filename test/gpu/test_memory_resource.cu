// Scratch from the caller's memory resource (policy.memory(r)): a counting resource on a
// stream of its own serves every allocation of every algorithm (nothing is cached for the
// stream in tally's own registry), gives every byte back, and the results are right.
// Both spellings of CCCL's stream-ordered interface serve: 3.1+'s allocate(stream, ...)
// (counting_resource) and 3.0's allocate_async(..., stream) (legacy_spelling, RMM's);
// the stream comes in as a cuda::stream_ref.
#include "common.cuh"

#include <tally/tally.cuh>

#include <doctest/doctest.h>

#include <cuda/stream_ref>

#include <algorithm>
#include <cstdint>
#include <vector>

#define CUDA_OK(call) REQUIRE((call) == cudaSuccess)

namespace {

struct counting_resource {
  int allocations = 0, deallocations = 0;
  long long outstanding_bytes = 0;
  void* allocate(cuda::stream_ref stream, std::size_t bytes, std::size_t alignment) {
    CHECK(alignment <= 256);
    void* p = nullptr;
    if (cudaMallocAsync(&p, bytes, stream.get()) != cudaSuccess) throw std::bad_alloc();
    ++allocations;
    outstanding_bytes += static_cast<long long>(bytes);
    return p;
  }
  void deallocate(cuda::stream_ref stream, void* p, std::size_t bytes, std::size_t) {
    CHECK(cudaFreeAsync(p, stream.get()) == cudaSuccess);
    ++deallocations;
    outstanding_bytes -= static_cast<long long>(bytes);
  }
};

// The same counts through CCCL 3.0's spelling.
struct legacy_spelling {
  counting_resource* counts;
  void* allocate_async(std::size_t bytes, std::size_t alignment, cuda::stream_ref stream) {
    return counts->allocate(stream, bytes, alignment);
  }
  void deallocate_async(void* p, std::size_t bytes, std::size_t alignment, cuda::stream_ref stream) {
    counts->deallocate(stream, p, bytes, alignment);
  }
};

bool registry_has(cudaStream_t stream) {
  int device = 0;
  unsigned long long id = 0;
  REQUIRE(cudaGetDevice(&device) == cudaSuccess);
  REQUIRE(cudaStreamGetId(stream, &id) == cudaSuccess);
  auto& registry = tally::detail::the_scratch_registry();
  std::lock_guard<std::mutex> lock(registry.mutex);
  return registry.entries[device].count(id) != 0;
}

struct at_least_two {
  __host__ __device__ bool operator()(int x) const { return x >= 2; }
};

}  // namespace

TEST_CASE("memory(resource): every algorithm's scratch comes from the resource, all of it is given back") {
  // Many blocks (partials, counters, tile states), data hash(i) % 4 as the benchmarks'.
  const std::int64_t n = tt::sanitizing() ? 9 * 4096 + 7 : (std::int64_t(1) << 22) + 7;
  tt::device_buffer<int> in{std::size_t(n)};
  tally_support::fill_hash_mod(in.data(), std::size_t(n));
  std::vector<int> host(static_cast<std::size_t>(n));
  CUDA_OK(cudaMemcpy(host.data(), in.data(), sizeof(int) * std::size_t(n), cudaMemcpyDeviceToHost));

  cudaStream_t stream;
  CUDA_OK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  counting_resource resource;
  const auto policy = tally::par.on(cuda::stream_ref(stream)).memory(resource);

  tt::device_buffer<long long> sum{1};
  tt::device_buffer<std::int64_t> index{8}, count{1};
  tt::device_buffer<int> values{8}, selected{std::size_t(n)}, unordered{std::size_t(n)};
  tally::reduce_into(policy, in.data(), in.data() + n, sum.data(), 0LL);
  tally::reduce_into(policy.with(tally::backend::atomic), in.data(), in.data() + n, sum.data(), 0LL);
  tally::max_element_into(policy, in.data(), in.data() + n, index.data());
  legacy_spelling legacy{&resource};
  tally::top_k_into<8>(policy.memory(legacy), in.data(), in.data() + n, values.data(), index.data());
  tally::copy_if_into(policy, in.data(), in.data() + n, selected.data(), count.data(), at_least_two{});
  tally::copy_if_into(policy.unordered(), in.data(), in.data() + n, unordered.data(), count.data(), at_least_two{});
  tally::copy_if_into(policy, in.data(), in.data() + n, selected.data(), count.data(), at_least_two{});
  CUDA_OK(cudaStreamSynchronize(stream));

  CHECK(resource.allocations >= 6);  // one per launch of more than one block
  CHECK(resource.deallocations == resource.allocations);
  CHECK(resource.outstanding_bytes == 0);
  CHECK_FALSE(registry_has(stream));  // tally's per-stream cache was never used

  // The results, against the host.
  long long want_sum = 0;
  std::int64_t want_count = 0;
  for (int x : host) {
    want_sum += x;
    want_count += x >= 2;
  }
  long long got_sum = 0;
  std::int64_t got_count = 0;
  CUDA_OK(cudaMemcpy(&got_sum, sum.data(), sizeof got_sum, cudaMemcpyDeviceToHost));
  CUDA_OK(cudaMemcpy(&got_count, count.data(), sizeof got_count, cudaMemcpyDeviceToHost));
  CHECK(got_sum == want_sum);
  CHECK(got_count == want_count);
  std::vector<int> got_selected(static_cast<std::size_t>(want_count));
  CUDA_OK(cudaMemcpy(got_selected.data(), selected.data(), sizeof(int) * got_selected.size(), cudaMemcpyDeviceToHost));
  std::vector<int> want_selected;
  for (int x : host)
    if (x >= 2) want_selected.push_back(x);
  CHECK(got_selected == want_selected);
  // top_k<8> of hash % 4: eight 3s, the first eight in index order.
  std::vector<std::int64_t> got_index(8);
  CUDA_OK(cudaMemcpy(got_index.data(), index.data(), sizeof(std::int64_t) * 8, cudaMemcpyDeviceToHost));
  std::vector<std::int64_t> want_index;
  for (std::int64_t i = 0; i < n && want_index.size() < 8; ++i)
    if (host[std::size_t(i)] == 3) want_index.push_back(i);
  CHECK(got_index == want_index);

  // Without memory(), the same stream uses tally's cache again.
  tally::reduce_into(tally::par.on(stream), in.data(), in.data() + n, sum.data(), 0LL);
  CUDA_OK(cudaStreamSynchronize(stream));
  CHECK(registry_has(stream));
  tally::release_scratch(stream);
  CUDA_OK(cudaStreamSynchronize(stream));
  CUDA_OK(cudaStreamDestroy(stream));
}

TEST_CASE("memory(resource): a resource that cannot allocate is a tally::cuda_error, nothing written") {
  struct refusing_resource {
    void* allocate(cuda::stream_ref, std::size_t, std::size_t) { throw std::bad_alloc(); }
    void deallocate(cuda::stream_ref, void*, std::size_t, std::size_t) {}
  } refusing;
  const std::int64_t n = 1 << 20;
  tt::device_buffer<int> in{std::size_t(n)};
  tally_support::fill_hash_mod(in.data(), std::size_t(n));
  tt::device_buffer<long long> out{1};
  CUDA_OK(cudaMemset(out.data(), 0x5a, sizeof(long long)));
  CHECK_THROWS_AS(tally::reduce_into(tally::par.memory(refusing), in.data(), in.data() + n, out.data(), 0LL),
                  tally::cuda_error);
  CUDA_OK(cudaDeviceSynchronize());
  long long got = 0;
  CUDA_OK(cudaMemcpy(&got, out.data(), sizeof got, cudaMemcpyDeviceToHost));
  long long poison;
  std::memset(&poison, 0x5a, sizeof poison);
  CHECK(got == poison);
}
