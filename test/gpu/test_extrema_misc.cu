// tally's extrema beyond the per-type suites: empty ranges (a null pointer and a
// misaligned one included: the sync forms return last, the _into forms write n, on every
// backend, and on the host backend), the overloads without a policy and their result
// types, typed comparators (tally::less<int>, tally::greater<int>), and invalid
// arguments with a GPU present (reversed ranges, null inputs and outputs, pageable host
// memory).
#include "extrema_common.cuh"

#include <numeric>

TEST_CASE("extrema: an empty range returns last; the _into forms write n") {
  tt::failure_budget budget;
  tt::device_buffer<int> data(16);
  int* null = nullptr;
  tt::for_each_backend([&](auto backend) {
    const auto policy = tally::par.with(backend);
    for (int* p : {data.data(), data.data() + 3, null}) {
      const std::string label =
          std::string("backend=") + tt::backend_label(backend) + (p ? " (device pointer)" : " (null pointer)");
      INFO(label);
      tt::check_all_forms(policy, p, 0, tally::less<>{}, 0LL, 0LL, label);
      tt::check_all_forms(policy, p, 0, tally::greater<>{}, 0LL, 0LL, label + " comp=greater<>");
      // The iterators themselves: last, {last, last}.
      CHECK(tally::max_element(policy, p, p) == p);
      CHECK(tally::min_element(policy, p, p) == p);
      CHECK(tally::minmax_element(policy, p, p) == std::make_pair(p, p));
    }
  });
  // The host backend.
  std::vector<int> none;
  CHECK(tally::max_element(tally::host, none.begin(), none.end()) == none.end());
  CHECK(tally::min_element(tally::host, none.begin(), none.end()) == none.end());
  CHECK(tally::minmax_element(tally::host, none.begin(), none.end()) == std::make_pair(none.end(), none.end()));
  std::int64_t index = -1;
  tally::max_element_into(tally::host, none.begin(), none.end(), &index);
  CHECK(index == 0);
  index = -1;
  tally::min_element_into(tally::host, none.begin(), none.end(), &index);
  CHECK(index == 0);
}

TEST_CASE("extrema: the overloads without a policy, their result types, typed comparators") {
  tt::failure_budget budget;
  const long long n = 100003;
  const auto d = tt::make_ties<int>(n);
  const int* first = d.ptr;
  const int* last = d.ptr + n;
  const long long expect_max = tt::cub_arg<true>(d.ptr, n), expect_min = tt::cub_arg<false>(d.ptr, n);

  static_assert(std::is_same_v<decltype(tally::max_element(tally::par, first, last)), const int*>);
  static_assert(std::is_same_v<decltype(tally::min_element(first, last, tally::greater<>{})), const int*>);
  static_assert(std::is_same_v<decltype(tally::minmax_element(first, last)), std::pair<const int*, const int*>>);
  static_assert(std::is_same_v<decltype(tally::max_element_into(first, last, (std::int64_t*)nullptr)), void>);

  CHECK(tally::max_element(first, last) - first == expect_max);  // no policy: tally::par
  CHECK(tally::min_element(first, last) - first == expect_min);
  CHECK(tally::max_element(first, last, tally::greater<>{}) - first == expect_min);
  CHECK(tally::min_element(first, last, tally::greater<>{}) - first == expect_max);
  CHECK(tally::minmax_element(first, last) == std::make_pair(first + expect_min, first + expect_max));
  CHECK(tally::minmax_element(first, last, tally::greater<>{}) ==
        std::make_pair(first + expect_max, first + expect_min));
  CHECK(tally::max_element(first, last, tally::greater<int>{}) - first == expect_min);  // typed: packed keys too
  CHECK(tally::min_element(first, last, tally::less<int>{}) - first == expect_min);
  CHECK(tally::max_element(tally::par, first, last) - first == expect_max);
  CHECK(tally::max_element(tally::par.on(tt::test_stream()), first, last) - first == expect_max);  // sync on a stream
  CHECK(tally::minmax_element(tally::par.on(tt::test_stream()), first, last) ==
        std::make_pair(first + expect_min, first + expect_max));

  tt::device_buffer<std::int64_t> out(4);
  TT_CUDA(cudaMemset(out.data(), 0xA5, 4 * sizeof(std::int64_t)));
  TT_CUDA(cudaDeviceSynchronize());
  tally::max_element_into(first, last, out.data());  // tally::par: the default stream
  tally::min_element_into(first, last, out.data() + 1);
  tally::max_element_into(first, last, out.data() + 2, tally::greater<>{});
  tally::min_element_into(tally::par, first, last, out.data() + 3, tally::greater<>{});
  TT_CUDA(cudaDeviceSynchronize());
  const auto h = out.download();
  CHECK(h[0] == expect_max);
  CHECK(h[1] == expect_min);
  CHECK(h[2] == expect_min);
  CHECK(h[3] == expect_max);
}

TEST_CASE("extrema: invalid arguments with a GPU present") {
  const auto d = tt::make_data<int>(1000, tt::pattern::random);
  const long long expect_max = tt::cub_arg<true>(d.ptr, 1000);
  tt::device_buffer<std::int64_t> out(1);
  TT_CUDA(cudaMemset(out.data(), 0, sizeof(std::int64_t)));
  TT_CUDA(cudaDeviceSynchronize());
  auto names = [](const tally::error& e, const char* algorithm) {
    return std::string(e.what()).find(algorithm) != std::string::npos;
  };
  tt::for_each_backend([&](auto backend) {
    INFO("backend=", tt::backend_label(backend));
    const auto p = tally::par.with(backend);
    // last before first
    try {
      (void)tally::max_element(p, d.ptr + 10, d.ptr);
      FAIL_CHECK("reversed range: no exception");
    } catch (const tally::cuda_error& e) {
      FAIL_CHECK("reversed range: a cuda_error instead of an argument error: ", e.what());
    } catch (const tally::error& e) {
      CHECK(names(e, "tally::max_element"));
    }
    try {
      tally::min_element_into(p, d.ptr + 10, d.ptr, out.data());
      FAIL_CHECK("reversed range: no exception");
    } catch (const tally::cuda_error& e) {
      FAIL_CHECK("reversed range: a cuda_error instead of an argument error: ", e.what());
    } catch (const tally::error& e) {
      CHECK(names(e, "tally::min_element_into"));
    }
    try {
      (void)tally::minmax_element(p, d.ptr + 10, d.ptr);
      FAIL_CHECK("reversed range: no exception");
    } catch (const tally::error& e) {
      CHECK(names(e, "tally::minmax_element"));
    }
    // a null pointer with a non-empty range
    int* null = nullptr;
    CHECK_THROWS_AS((void)tally::min_element(p, null, null + 5), tally::error);
    CHECK_THROWS_AS((void)tally::minmax_element(p, null, null + 5), tally::error);
    CHECK_THROWS_AS(tally::max_element_into(p, null, null + 5, out.data()), tally::error);
    // a null output
    std::int64_t* null_out = nullptr;
    try {
      tally::max_element_into(p, d.ptr, d.ptr + 1000, null_out);
      FAIL_CHECK("null output: no exception");
    } catch (const tally::cuda_error& e) {
      FAIL_CHECK("null output: a cuda_error instead of an argument error: ", e.what());
    } catch (const tally::error& e) {
      CHECK(names(e, "tally::max_element_into"));
    }
  });
  TT_CUDA(cudaDeviceSynchronize());
  CHECK(out.download()[0] == 0);  // failed calls wrote nothing
  // The library still works after the errors.
  CHECK(tally::max_element(tally::par, d.ptr, d.ptr + 1000) - d.ptr == expect_max);
}

TEST_CASE("extrema: pageable host memory is rejected (or used, where the device can)") {
  int device = 0, pageable = 0;
  TT_CUDA(cudaGetDevice(&device));
  TT_CUDA(cudaDeviceGetAttribute(&pageable, cudaDevAttrPageableMemoryAccess, device));
  std::vector<int> host(5000);
  std::iota(host.begin(), host.end(), 1);
  const std::vector<int> before = host;
  const auto d = tt::make_data<int>(5000, tt::pattern::random);
  const long long expect_max = tt::cub_arg<true>(d.ptr, 5000);
  tt::for_each_backend([&](auto backend) {
    INFO("backend=", tt::backend_label(backend), " pageableMemoryAccess=", pageable);
    const auto p = tally::par.with(backend);
    std::int64_t host_index = -1;  // a pageable output
    if (pageable) {
      CHECK(tally::max_element(p, host.data(), host.data() + host.size()) - host.data() == 4999);
      tally::max_element_into(p.on(tt::test_stream()), d.ptr, d.ptr + 5000, &host_index);
      TT_CUDA(cudaStreamSynchronize(tt::test_stream()));
      CHECK(host_index == expect_max);
    } else {
      try {
        (void)tally::max_element(p, host.data(), host.data() + host.size());
        FAIL_CHECK("no exception for a pageable host input");
      } catch (const tally::cuda_error& e) {
        FAIL_CHECK("a cuda_error instead of an argument error: ", e.what());
      } catch (const tally::error& e) {
        CHECK(std::string(e.what()).find("tally::max_element") != std::string::npos);
      }
      try {
        tally::max_element_into(p, d.ptr, d.ptr + 5000, &host_index);
        FAIL_CHECK("no exception for a pageable host output");
      } catch (const tally::cuda_error& e) {
        FAIL_CHECK("a cuda_error instead of an argument error: ", e.what());
      } catch (const tally::error& e) {
        CHECK(std::string(e.what()).find("tally::max_element_into") != std::string::npos);
      }
      CHECK(host_index == -1);
    }
  });
  CHECK(host == before);
}
