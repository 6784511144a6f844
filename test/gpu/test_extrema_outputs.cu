// The index output of tally::max_element_into / min_element_into, part 1: the 64-bit
// index converted to a 32-bit output's value type (int32, uint32), and nothing written
// next to it (guard items). Every backend, against CUB's ArgMax / ArgMin on float data
// with many ties. (Part 2, test_extrema_outputs_64.cu: int64, thrust::device_ptr, pinned
// and managed memory.)
#include "extrema_common.cuh"

namespace {

/// max_element_into / min_element_into of [first, first + n) on test_stream(), then waits.
template <class Policy, class It, class Out>
void into_both(const Policy& policy, It first, long long n, Out max_out, Out min_out) {
  tally::max_element_into(policy.on(tt::test_stream()), first, first + n, max_out);
  tally::min_element_into(policy.on(tt::test_stream()), first, first + n, min_out);
  TT_CUDA(cudaStreamSynchronize(tt::test_stream()));
}

const std::vector<long long> output_sizes = tt::listed_sizes({1, 33, 4097, 65537, (1LL << 20) + 1, (1LL << 22) + 3});

/// An index output of type Index between guard items, in device memory.
template <class Index>
void check_index_type(const char* index_name) {
  for (long long n : output_sizes) {
    const auto d = tt::make_ties<float>(n);
    const long long expect_max = tt::cub_arg<true>(d.ptr, n), expect_min = tt::cub_arg<false>(d.ptr, n);
    tt::for_each_backend([&](auto backend) {
      INFO("index type=", index_name, " backend=", tt::backend_label(backend), " n=", n);
      tt::device_buffer<Index> out(5);  // guard, max, guard, min, guard
      TT_CUDA(cudaMemset(out.data(), 0xA5, 5 * sizeof(Index)));
      TT_CUDA(cudaDeviceSynchronize());
      into_both(tally::par.with(backend), d.ptr, n, out.data() + 1, out.data() + 3);
      const std::vector<Index> h = out.download();
      Index guard;
      std::memset(&guard, 0xA5, sizeof guard);
      CHECK(h[0] == guard);
      CHECK(h[2] == guard);
      CHECK(h[4] == guard);
      CHECK(static_cast<long long>(h[1]) == expect_max);
      CHECK(static_cast<long long>(h[3]) == expect_min);
    });
  }
}

}  // namespace

TEST_CASE("extrema: the _into forms write int32 and uint32 indices, and nothing else") {
  tt::failure_budget budget;
  check_index_type<std::int32_t>("int32");
  check_index_type<std::uint32_t>("uint32");
}
