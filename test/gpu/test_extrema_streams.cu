// tally's extrema and streams: many max_element_into / min_element_into calls queued back
// to back on one stream and on two streams at once (each stream's scratch reused call
// after call), interleaved with synchronous calls on the default stream; and
// deterministic(): the same indices run after run, on every backend. Against CUB's
// ArgMax / ArgMin (ties) and the host reference (NaN).
#include "extrema_common.cuh"

TEST_CASE_TEMPLATE("extrema _into: many calls back to back on one stream, and on two streams at once", B,
                   TT_BACKENDS) {
  tt::failure_budget budget;
  const auto p = tally::par.with(B{});
  cudaStream_t second = nullptr;
  TT_CUDA(cudaStreamCreateWithFlags(&second, cudaStreamNonBlocking));
  const std::vector<long long> sizes = tt::capped_sizes({1, 33, 4097, 65537, 1000003, 4096 * 300, 17, (1 << 22) + 1});
  std::vector<tt::dataset<float>> inputs;
  std::vector<long long> expect_max, expect_min;
  for (std::size_t k = 0; k < sizes.size(); ++k) {
    inputs.push_back(tt::make_ties<float>(sizes[k], 0, 1000 + k));
    expect_max.push_back(tt::cub_arg<true>(inputs.back().ptr, sizes[k]));
    expect_min.push_back(tt::cub_arg<false>(inputs.back().ptr, sizes[k]));
  }
  const int rounds = 4;
  tt::device_buffer<std::int64_t> out(sizes.size() * rounds * 2);
  TT_CUDA(cudaMemset(out.data(), 0xA5, out.size() * sizeof(std::int64_t)));
  TT_CUDA(cudaDeviceSynchronize());
  // Queue everything without waiting: the scratch of each stream is reused call after call.
  for (int round = 0; round < rounds; ++round) {
    for (std::size_t k = 0; k < sizes.size(); ++k) {
      const auto& in = inputs[k];
      std::int64_t* slot = out.data() + (round * sizes.size() + k) * 2;
      tally::max_element_into(p.on(tt::test_stream()), in.ptr, in.ptr + in.n, slot);
      tally::min_element_into(p.on(second), in.ptr, in.ptr + in.n, slot + 1);
    }
  }
  TT_CUDA(cudaStreamSynchronize(tt::test_stream()));
  TT_CUDA(cudaStreamSynchronize(second));
  const auto h = out.download();
  for (int round = 0; round < rounds; ++round) {
    for (std::size_t k = 0; k < sizes.size(); ++k) {
      const long long n = sizes[k];
      INFO("backend=", tt::backend_label(B{}), " round=", round, " n=", n);
      const std::size_t at = (round * sizes.size() + k) * 2;
      tt::check_exact(static_cast<long long>(h[at]), expect_max[k], "max_element_into on stream 1");
      tt::check_exact(static_cast<long long>(h[at + 1]), expect_min[k], "min_element_into on stream 2");
    }
  }
  // Interleaved with synchronous calls on the default stream.
  for (std::size_t k = 0; k < sizes.size(); ++k) {
    const auto& in = inputs[k];
    INFO("backend=", tt::backend_label(B{}), " n=", in.n);
    tally::max_element_into(p.on(second), in.ptr, in.ptr + in.n, out.data() + k);
    tt::check_exact(static_cast<long long>(tally::min_element(p, in.ptr, in.ptr + in.n) - in.ptr), expect_min[k],
                    "min_element on the default stream");
  }
  TT_CUDA(cudaStreamSynchronize(second));
  const auto h2 = out.download();
  for (std::size_t k = 0; k < sizes.size(); ++k)
    tt::check_exact(static_cast<long long>(h2[k]), expect_max[k], "max_element_into on stream 2");
  TT_CUDA(cudaStreamDestroy(second));
}

TEST_CASE("extrema: deterministic() gives the same indices, run after run") {
  tt::failure_budget budget;
  for (long long n : tt::listed_sizes({4097, (1LL << 20) + 1, (1LL << 22) + 3})) {
    const auto d = tt::make_data<float>(n, tt::pattern::with_nan);
    const auto host = d.host();
    const long long expect_max = tt::host_arg<true>(host, tt::lib_order_less{});
    const long long expect_min = tt::host_arg<false>(host, tt::lib_order_less{});
    tt::for_each_backend([&](auto backend) {
      const auto policy = tally::par.deterministic().with(backend);
      for (int run = 0; run < 3; ++run) {
        INFO("backend=", tt::backend_label(backend), " n=", n, " run=", run);
        tt::check_all_forms(policy, d.ptr, n, tally::less<>{}, expect_max, expect_min, "deterministic()");
      }
    });
  }
}
