// tally::reduce / reduce_into behaviour beyond the per-type suites: empty ranges (null
// pointer included), init taking part exactly once, the convenience overloads and their
// result types, the accumulator being the type of init, tuned launch shapes at their tile
// boundaries, streams (sync on a stream, back-to-back async calls, two streams at once),
// extended lambdas as operators, and errors on a machine with a GPU.
#include "common.cuh"

#include <thrust/iterator/counting_iterator.h>

#include <numeric>

namespace {

template <class T>
void check_empty_ranges() {
  INFO("type=", tt::type_name<T>());
  tt::device_buffer<T> data(16);
  T* null = nullptr;
  const T init = tt::from_double<T>(5.0);
  tt::for_each_backend([&](auto backend) {
    for (tt::run_mode mode : tt::run_modes) {
      for (T* p : {data.data(), data.data() + 3, null}) {
        const std::string what = tt::run_label("plus", backend, mode) + (p ? " (device pointer)" : " (null pointer)");
        if (auto r = tt::run_tally(tally::par.with(backend), p, 0, init, tally::plus<T>{}, mode, what))
          tt::check_exact(*r, init, what);
        const std::string what_max = tt::run_label("max", backend, mode) + (p ? " (device pointer)" : " (null pointer)");
        if (auto r = tt::run_tally(tally::par.with(backend), p, 0, init, tally::maximum<T>{}, mode, what_max))
          tt::check_exact(*r, init, what_max);
      }
      thrust::counting_iterator<int> c(10);
      const std::string what = tt::run_label("plus", backend, mode) + " (counting_iterator)";
      if (auto r = tt::run_tally(tally::par.with(backend), c, 0, 77LL, tally::plus<long long>{}, mode, what))
        tt::check_exact(*r, 77LL, what);
    }
  });
}

}  // namespace

TEST_CASE("reduce: an empty range returns init; reduce_into writes init") {
  tt::failure_budget budget;
  check_empty_ranges<int>();
  check_empty_ranges<float>();
  check_empty_ranges<double>();
  check_empty_ranges<std::uint8_t>();
  check_empty_ranges<__half>();
}

TEST_CASE("reduce: init takes part exactly once") {
  tt::failure_budget budget;
  for (long long n : {1LL, 2LL, 33LL, 4097LL, 65537LL, (1LL << 20) + 1}) {
    INFO("n=", n);
    const auto d = tt::make_data<int>(n, tt::pattern::random);   // items in [-31, 31]
    const auto f = tt::make_data<float>(n, tt::pattern::random);  // items in [-1, 1)
    const int sum0 = tt::cub_reduce(d.ptr, n, 0, tt::ref_plus<int>{});
    tt::for_each_backend([&](auto backend) {
      for (tt::run_mode mode : tt::run_modes) {
        const auto p = tally::par.with(backend);
        std::string what = tt::run_label("plus init=1000", backend, mode);
        if (auto r = tt::run_tally(p, d.ptr, n, 1000, tally::plus<int>{}, mode, what)) tt::check_exact(*r, sum0 + 1000, what);
        what = tt::run_label("max init=1000", backend, mode);
        if (auto r = tt::run_tally(p, d.ptr, n, 1000, tally::maximum<int>{}, mode, what)) tt::check_exact(*r, 1000, what);
        what = tt::run_label("min init=-1000", backend, mode);
        if (auto r = tt::run_tally(p, d.ptr, n, -1000, tally::minimum<int>{}, mode, what)) tt::check_exact(*r, -1000, what);
        what = tt::run_label("max init=5.0f", backend, mode);
        if (auto r = tt::run_tally(p, f.ptr, n, 5.0f, tally::maximum<float>{}, mode, what)) tt::check_exact(*r, 5.0f, what);
        what = tt::run_label("min init=-5.0f", backend, mode);
        if (auto r = tt::run_tally(p, f.ptr, n, -5.0f, tally::minimum<float>{}, mode, what))
          tt::check_exact(*r, -5.0f, what);
        what = tt::run_label("max init=NaN", backend, mode);
        if (auto r = tt::run_tally(p, f.ptr, n, std::numeric_limits<float>::quiet_NaN(), tally::maximum<float>{}, mode,
                                   what))
          tt::check_exact(*r, std::numeric_limits<float>::quiet_NaN(), what);
        what = tt::run_label("min init=NaN", backend, mode);  // a NaN init loses a min
        const float fmin = tt::host_min(f.host(), std::numeric_limits<float>::infinity());
        if (auto r = tt::run_tally(p, f.ptr, n, std::numeric_limits<float>::quiet_NaN(), tally::minimum<float>{}, mode,
                                   what))
          tt::check_exact(*r, fmin, what);
      }
    });
  }
}

TEST_CASE("reduce: the convenience overloads and their result types") {
  tt::failure_budget budget;
  const long long n = 100003;
  const auto d = tt::make_data<int>(n, tt::pattern::random);
  const int* first = d.ptr;
  const int* last = d.ptr + n;
  const int sum = tt::cub_reduce(d.ptr, n, 0, tt::ref_plus<int>{});

  static_assert(std::is_same_v<decltype(tally::reduce(tally::par, first, last, 0)), int>);
  static_assert(std::is_same_v<decltype(tally::reduce(tally::par, first, last)), int>);
  static_assert(std::is_same_v<decltype(tally::reduce(tally::par, first, last, 0LL)), long long>);
  static_assert(std::is_same_v<decltype(tally::reduce(tally::par, first, last, 0.0)), double>);
  static_assert(std::is_same_v<decltype(tally::reduce(first, last, 0, tally::maximum<int>{})), int>);

  CHECK(tally::reduce(tally::par, first, last, 0) == sum);          // op = plus<int>
  CHECK(tally::reduce(tally::par, first, last, 10) == sum + 10);
  CHECK(tally::reduce(tally::par, first, last) == sum);             // init = int{}
  CHECK(tally::reduce(tally::par, first, last, 0LL) == sum);
  CHECK(tally::reduce(tally::par, first, last, 0.5) == double(sum) + 0.5);
  CHECK(tally::reduce(first, last, 0) == sum);                      // no policy: tally::par
  CHECK(tally::reduce(first, last) == sum);
  CHECK(tally::reduce(first, last, 1, tally::plus<int>{}) == sum + 1);
  CHECK(tally::reduce(tally::par.on(tt::test_stream()), first, last, 0) == sum);  // sync on a created stream
  CHECK(tally::reduce(tally::par.with(tally::backend::warp_shuffle).on(tt::test_stream()), first, last, 0) == sum);
  CHECK(tally::reduce(tally::par, first, last, 0, tally::plus<>{}) == sum);  // transparent operator

  tt::device_buffer<long long> out(4);
  tally::reduce_into(tally::par, first, last, out.data(), 0LL);  // op = plus<long long>
  tally::reduce_into(first, last, out.data() + 1, 3LL);
  tally::reduce_into(first, last, out.data() + 2, 0LL, tally::maximum<long long>{});
  tally::reduce_into(tally::par.on(tt::test_stream()), first, last, out.data() + 3, 0LL, tally::minimum<long long>{});
  TT_CUDA(cudaStreamSynchronize(tt::test_stream()));
  TT_CUDA(cudaDeviceSynchronize());
  const auto h = out.download();
  CHECK(h[0] == sum);
  CHECK(h[1] == sum + 3LL);
  CHECK(h[2] == tt::cub_reduce(d.ptr, n, 0, tt::ref_max<int>{}));
  CHECK(h[3] == std::min(0, tt::cub_reduce(d.ptr, n, 0, tt::ref_min<int>{})));
}

TEST_CASE("reduce: the accumulator is the type of init (int8 items summed as long long and as int8)") {
  tt::failure_budget budget;
  for (long long n : tt::listed_sizes({1, 1000, 65537, (1LL << 22) + 5})) {
    INFO("n=", n);
    const auto d = tt::make_data<std::int8_t>(n, tt::pattern::wide);  // -128..127: an int8 sum wraps
    const long long wide_sum = tt::cub_reduce(d.ptr, n, 0LL, tt::ref_plus<long long>{});
    const std::int8_t narrow_sum = tt::cub_reduce(d.ptr, n, std::int8_t(0), tt::ref_plus<std::int8_t>{});
    tt::for_each_backend([&](auto backend) {
      for (tt::run_mode mode : tt::run_modes) {
        std::string what = tt::run_label("plus<long long>", backend, mode);
        if (auto r = tt::run_tally(tally::par.with(backend), d.ptr, n, 0LL, tally::plus<long long>{}, mode, what))
          tt::check_exact(*r, wide_sum, what);
        what = tt::run_label("plus<int8>", backend, mode);
        if (auto r = tt::run_tally(tally::par.with(backend), d.ptr, n, std::int8_t(0), tally::plus<std::int8_t>{}, mode,
                                   what))
          tt::check_exact(*r, narrow_sum, what);
      }
    });
    // As the brief of reduce says: items converted to T = double.
    const double as_double = tally::reduce(tally::par, d.ptr, d.ptr + n, 0.0);
    tt::check_exact(as_double, double(wide_sum), "plus<double> automatic");
  }
}

namespace {

template <class Policy>
void check_tuned(const Policy& policy, const char* label) {
  constexpr long long tile = static_cast<long long>(Policy::threads) * Policy::items_per_thread;
  // Up to thousands of tiles: more tiles than the grid has blocks, so blocks loop.
  const long long many = std::min(5000 * tile - 1, (1LL << 24) + 1);
  for (long long n : {1LL, tile - 1, tile, tile + 1, 2 * tile - 1, 2 * tile + 1, 300 * tile + 17, many}) {
    INFO("policy=", label, " tile=", tile, " n=", n);
    for (int offset : {0, 1}) {
      INFO("offset=", offset);
      const tt::exact_case c = tt::make_exact_case(n, offset, /*int_init=*/7);
      for (tt::run_mode mode : tt::run_modes) tt::check_exact_ops(policy, c, mode);
    }
  }
}

}  // namespace

TEST_CASE_TEMPLATE("reduce: tuned launch shapes at their tile boundaries", B, TT_BACKENDS) {
  tt::failure_budget budget;
  const auto p = tally::par.with(B{});
  check_tuned(p.template tune<32, 1>(), "tune<32, 1>");
  check_tuned(p.template tune<64, 3>(), "tune<64, 3>");
  check_tuned(p.template tune<96, 5>(), "tune<96, 5>");  // not a power of two, odd items per thread
  check_tuned(p.template tune<128, 4>(), "tune<128, 4>");
  check_tuned(p.template tune<512, 8>(), "tune<512, 8>");
  check_tuned(p.template tune<1024, 16>(), "tune<1024, 16>");
}

TEST_CASE_TEMPLATE("reduce_into: many calls back to back on one stream, and on two streams at once", B, TT_BACKENDS) {
  tt::failure_budget budget;
  const auto p = tally::par.with(B{});
  cudaStream_t second = nullptr;
  TT_CUDA(cudaStreamCreateWithFlags(&second, cudaStreamNonBlocking));
  const std::vector<long long> sizes = tt::capped_sizes({1, 33, 4097, 65537, 1000003, 4096 * 300, 17, (1 << 22) + 1});
  std::vector<tt::dataset<int>> inputs;
  std::vector<long long> expected;
  for (std::size_t k = 0; k < sizes.size(); ++k) {
    inputs.push_back(tt::make_data<int>(sizes[k], tt::pattern::random, 0, 1000 + k));
    expected.push_back(tt::cub_reduce(inputs.back().ptr, sizes[k], 0LL, tt::ref_plus<long long>{}));
  }
  const int rounds = 4;
  tt::device_buffer<long long> out(sizes.size() * rounds * 2);
  TT_CUDA(cudaMemset(out.data(), 0xA5, out.size() * sizeof(long long)));
  TT_CUDA(cudaDeviceSynchronize());
  // Queue everything without waiting: the scratch of each stream is reused call after call.
  for (int round = 0; round < rounds; ++round) {
    for (std::size_t k = 0; k < sizes.size(); ++k) {
      const auto& in = inputs[k];
      long long* slot = out.data() + (round * sizes.size() + k) * 2;
      tally::reduce_into(p.on(tt::test_stream()), in.ptr, in.ptr + in.n, slot, 0LL, tally::plus<long long>{});
      tally::reduce_into(p.on(second), in.ptr, in.ptr + in.n, slot + 1, 0LL, tally::plus<long long>{});
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
      tt::check_exact(h[at], expected[k], "stream 1");
      tt::check_exact(h[at + 1], expected[k], "stream 2");
    }
  }
  // Interleaved with synchronous calls on the default stream.
  for (std::size_t k = 0; k < sizes.size(); ++k) {
    const auto& in = inputs[k];
    INFO("backend=", tt::backend_label(B{}), " n=", in.n);
    tally::reduce_into(p.on(second), in.ptr, in.ptr + in.n, out.data() + k, 0LL, tally::plus<long long>{});
    tt::check_exact(tally::reduce(p, in.ptr, in.ptr + in.n, 0LL), expected[k], "sync on the default stream");
  }
  TT_CUDA(cudaStreamSynchronize(second));
  const auto h2 = out.download();
  for (std::size_t k = 0; k < sizes.size(); ++k) tt::check_exact(h2[k], expected[k], "async on stream 2");
  TT_CUDA(cudaStreamDestroy(second));
}

TEST_CASE("reduce: extended __host__ __device__ lambdas as operators") {
  tt::failure_budget budget;
  auto bit_xor = [] __host__ __device__(std::uint32_t a, std::uint32_t b) { return a ^ b; };
  auto max_abs = [] __host__ __device__(int a, int b) {
    const int ua = a < 0 ? -a : a, ub = b < 0 ? -b : b;
    return ua < ub ? ub : ua;
  };
  for (long long n : tt::listed_sizes({1, 2, 33, 4097, 65537, (1LL << 20) + 1, (1LL << 22) + 3})) {
    INFO("n=", n);
    const auto u = tt::make_data<std::uint32_t>(n, tt::pattern::wide);
    const auto hu = u.host();
    std::uint32_t expected_xor = 0x5a5a5a5au;
    for (std::uint32_t x : hu) expected_xor ^= x;
    const auto d = tt::make_data<int>(n, tt::pattern::random);
    const auto hd = d.host();
    int expected_abs = 0;
    for (int x : hd) expected_abs = std::max(expected_abs, std::abs(x));
    tt::for_each_backend([&](auto backend) {  // a lambda has no identity_element: atomic folds it with a CAS loop
      for (tt::run_mode mode : tt::run_modes) {
        std::string what = tt::run_label("xor lambda", backend, mode);
        if (auto r = tt::run_tally(tally::par.with(backend), u.ptr, n, 0x5a5a5a5au, bit_xor, mode, what))
          tt::check_exact(*r, expected_xor, what);
        what = tt::run_label("max-abs lambda", backend, mode);
        if (auto r = tt::run_tally(tally::par.with(backend), d.ptr, n, 0, max_abs, mode, what))
          tt::check_exact(*r, expected_abs, what);
      }
    });
  }
}

TEST_CASE("reduce: invalid arguments with a GPU present") {
  const auto d = tt::make_data<int>(1000, tt::pattern::random);
  const int sum = tt::cub_reduce(d.ptr, 1000, 0, tt::ref_plus<int>{});
  tt::device_buffer<int> out(1);
  TT_CUDA(cudaMemset(out.data(), 0, sizeof(int)));
  TT_CUDA(cudaDeviceSynchronize());
  tt::for_each_backend([&](auto backend) {
    INFO("backend=", tt::backend_label(backend));
    const auto p = tally::par.with(backend);
    // last before first
    try {
      (void)tally::reduce(p, d.ptr + 10, d.ptr, 0);
      FAIL_CHECK("reversed range: no exception");
    } catch (const tally::cuda_error& e) {
      FAIL_CHECK("reversed range: a cuda_error instead of an argument error: ", e.what());
    } catch (const tally::error& e) {
      CHECK(std::string(e.what()).find("tally::reduce") != std::string::npos);
    }
    CHECK_THROWS_AS(tally::reduce_into(p, d.ptr + 10, d.ptr, out.data(), 0, tally::plus<int>{}), tally::error);
    // a null pointer with a non-empty range
    int* null = nullptr;
    CHECK_THROWS_AS((void)tally::reduce(p, null, null + 5, 0), tally::error);
    CHECK_THROWS_AS(tally::reduce_into(p, null, null + 5, out.data(), 0, tally::plus<int>{}), tally::error);
  });
  TT_CUDA(cudaDeviceSynchronize());
  CHECK(out.download()[0] == 0);  // failed calls wrote nothing
  // The data is untouched and the library still works after the errors.
  CHECK(tally::reduce(tally::par, d.ptr, d.ptr + 1000, 0) == sum);
}

TEST_CASE("reduce: a pointer to pageable host memory is rejected (or read, where the device can)") {
  int device = 0, pageable = 0;
  TT_CUDA(cudaGetDevice(&device));
  TT_CUDA(cudaDeviceGetAttribute(&pageable, cudaDevAttrPageableMemoryAccess, device));
  std::vector<int> host(5000);
  std::iota(host.begin(), host.end(), 1);
  const std::vector<int> before = host;
  tt::for_each_backend([&](auto backend) {
    INFO("backend=", tt::backend_label(backend), " pageableMemoryAccess=", pageable);
    const auto p = tally::par.with(backend);
    if (pageable) {
      CHECK(tally::reduce(p, host.data(), host.data() + host.size(), 0LL) == 5000LL * 5001 / 2);
    } else {
      try {
        (void)tally::reduce(p, host.data(), host.data() + host.size(), 0LL);
        FAIL_CHECK("no exception for a pageable host pointer");
      } catch (const tally::cuda_error& e) {
        FAIL_CHECK("a cuda_error instead of an argument error: ", e.what());
      } catch (const tally::error& e) {
        CHECK(std::string(e.what()).find("tally::reduce") != std::string::npos);
      }
    }
  });
  CHECK(host == before);
}
