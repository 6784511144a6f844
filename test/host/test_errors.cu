// Argument validation and error reporting with the device policy, on a machine without a
// GPU: invalid arguments are rejected before the GPU is touched (tally::error), and a
// missing device is reported as tally::cuda_error naming the algorithm.
#include "host_test_support.cuh"

#include <tally/tally.cuh>

#include <doctest/doctest.h>

#include <thrust/iterator/counting_iterator.h>

#include <cstdint>
#include <stdexcept>
#include <string>
#include <type_traits>

namespace {

using host_test::contains;
using host_test::fake_device_pointer;
using host_test::no_cuda_device;

// A null pointer and a "last" n items past it, without arithmetic on a null pointer.
template <class T>
T* null_plus(std::size_t n) {
  return reinterpret_cast<T*>(std::uintptr_t(0) + n * sizeof(T));
}

// Runs `call`, which must throw tally::error (and not its derived cuda_error: the
// argument check must come before any CUDA call). Checks the message names `algorithm`.
template <class F>
void expect_invalid_argument(F&& call, const char* algorithm) {
  CAPTURE(algorithm);
  try {
    call();
    FAIL("no exception thrown");
  } catch (const tally::cuda_error& e) {
    FAIL("tally::cuda_error thrown instead of an argument error (the GPU was touched first): ", e.what());
  } catch (const tally::error& e) {
    const std::string what = e.what();
    CAPTURE(what);
    CHECK(contains(what, algorithm));
  } catch (const std::exception& e) {
    FAIL("an exception that is not a tally::error: ", e.what());
  }
}

// Runs `call`, which must throw tally::cuda_error for a missing device.
template <class F>
void expect_no_device(F&& call, const char* algorithm) {
  CAPTURE(algorithm);
  try {
    call();
    FAIL("no exception thrown");
  } catch (const tally::cuda_error& e) {
    const std::string what = e.what();
    CAPTURE(what);
    CHECK(contains(what, algorithm));
    CHECK(contains(what, "no CUDA device"));
    CHECK(e.code() != cudaSuccess);
  } catch (const tally::error& e) {
    FAIL("tally::error thrown instead of tally::cuda_error: ", e.what());
  } catch (const std::exception& e) {
    FAIL("an exception that is not a tally::cuda_error: ", e.what());
  }
}

}  // namespace

TEST_CASE("errors: a cuda_error's message is the one error.cuh shows") {
  // The example in the header's documentation, word for word.
  const std::string documented =
      "tally::reduce: no CUDA device available (cudaErrorNoDevice: no CUDA-capable device is detected)";
  try {
    tally::detail::throw_cuda_error("tally::reduce", "no CUDA device available", cudaErrorNoDevice);
    FAIL("no exception thrown");
  } catch (const tally::cuda_error& e) {
    CHECK(std::string(e.what()) == documented);
    CHECK(e.code() == cudaErrorNoDevice);
  }
}

TEST_CASE("errors: the exception hierarchy") {
  static_assert(std::is_base_of_v<std::runtime_error, tally::error>);
  static_assert(std::is_base_of_v<tally::error, tally::cuda_error>);
  static_assert(std::is_base_of_v<std::runtime_error, tally::cuda_error>);
  static_assert(std::is_same_v<decltype(std::declval<const tally::cuda_error&>().code()), cudaError_t>);
  // Caught as its bases.
  int a[4] = {1, 2, 3, 4};
  CHECK_THROWS_AS(tally::reduce(tally::par, a + 3, a, 0), tally::error);
  CHECK_THROWS_AS(tally::reduce(tally::par, a + 3, a, 0), std::runtime_error);
}

TEST_CASE("errors: a reversed range (last before first) is rejected before the GPU is touched") {
  int* p = fake_device_pointer();
  expect_invalid_argument([&] { (void)tally::reduce(tally::par, p + 10, p, 0, tally::plus<int>{}); }, "tally::reduce");
  expect_invalid_argument([&] { (void)tally::reduce(tally::par, p + 10, p, 0); }, "tally::reduce");
  expect_invalid_argument([&] { (void)tally::reduce(tally::par, p + 1, p); }, "tally::reduce");
  expect_invalid_argument([&] { (void)tally::reduce(p + 10, p, 0); }, "tally::reduce");  // no policy: tally::par
  expect_invalid_argument([&] { (void)tally::reduce(tally::par, p + 10, p, 0, tally::maximum<int>{}); }, "tally::reduce");

  // Every backend, tuning and flag checks it.
  expect_invalid_argument([&] { (void)tally::reduce(tally::par.with(tally::backend::atomic), p + 10, p, 0); },
                          "tally::reduce");
  expect_invalid_argument([&] { (void)tally::reduce(tally::par.with(tally::backend::shared_memory), p + 10, p, 0); },
                          "tally::reduce");
  expect_invalid_argument([&] { (void)tally::reduce(tally::par.with(tally::backend::warp_shuffle), p + 10, p, 0); },
                          "tally::reduce");
  expect_invalid_argument(
      [&] { (void)tally::reduce(tally::par.tune<128, 4>().deterministic().on(cudaStream_t{}), p + 10, p, 0); },
      "tally::reduce");

  // Fancy iterators too (no pointer to check, only the distance).
  thrust::counting_iterator<int> first(100), last(0);
  expect_invalid_argument([&] { (void)tally::reduce(tally::par, first, last, 0); }, "tally::reduce");

  // reduce_into: the output is not written.
  int out = 12345;
  expect_invalid_argument([&] { tally::reduce_into(tally::par, p + 10, p, &out, 0, tally::plus<int>{}); },
                          "tally::reduce");
  expect_invalid_argument([&] { tally::reduce_into(tally::par, p + 10, p, &out, 0); }, "tally::reduce");
  CHECK(out == 12345);
}

TEST_CASE("errors: a null device pointer with a non-empty range throws tally::error") {
  int* null = nullptr;
  int* last = null_plus<int>(5);
  expect_invalid_argument([&] { (void)tally::reduce(tally::par, null, last, 0, tally::plus<int>{}); }, "tally::reduce");
  expect_invalid_argument([&] { (void)tally::reduce(tally::par, null, last, 0); }, "tally::reduce");
  expect_invalid_argument([&] { (void)tally::reduce(null, last, 0); }, "tally::reduce");
  expect_invalid_argument([&] { (void)tally::reduce(tally::par.with(tally::backend::atomic), null, last, 0); },
                          "tally::reduce");
  expect_invalid_argument([&] { (void)tally::reduce(tally::par.with(tally::backend::shared_memory), null, last, 0); },
                          "tally::reduce");
  expect_invalid_argument([&] { (void)tally::reduce(tally::par.with(tally::backend::warp_shuffle), null, last, 0); },
                          "tally::reduce");
  const float* null_f = nullptr;
  expect_invalid_argument([&] { (void)tally::reduce(tally::par, null_f, null_plus<const float>(1), 0.0f); },
                          "tally::reduce");
  int out = 777;
  expect_invalid_argument([&] { tally::reduce_into(tally::par, null, last, &out, 0, tally::plus<int>{}); },
                          "tally::reduce");
  CHECK(out == 777);
}

TEST_CASE("errors: without a CUDA device, reduce throws tally::cuda_error naming the algorithm") {
  std::string reason;
  if (!no_cuda_device(&reason)) {
    MESSAGE("a CUDA device is present (" << reason << "): the no-device case is not tested here");
    return;
  }
  MESSAGE("no CUDA device: " << reason);
  int* p = fake_device_pointer();
  const long long n = 1000;
  expect_no_device([&] { (void)tally::reduce(tally::par, p, p + n, 0); }, "tally::reduce");
  expect_no_device([&] { (void)tally::reduce(tally::par, p, p + n, 0, tally::maximum<int>{}); }, "tally::reduce");
  expect_no_device([&] { (void)tally::reduce(tally::par, p, p + n); }, "tally::reduce");
  expect_no_device([&] { (void)tally::reduce(p, p + n, 0); }, "tally::reduce");
  expect_no_device([&] { (void)tally::reduce(tally::par.with(tally::backend::atomic), p, p + n, 0); }, "tally::reduce");
  expect_no_device([&] { (void)tally::reduce(tally::par.with(tally::backend::shared_memory), p, p + n, 0); },
                   "tally::reduce");
  expect_no_device([&] { (void)tally::reduce(tally::par.with(tally::backend::warp_shuffle), p, p + n, 0); },
                   "tally::reduce");
  expect_no_device([&] { (void)tally::reduce(tally::par.deterministic().tune<256, 8>(), p, p + n, 0.0f); },
                   "tally::reduce");
  thrust::counting_iterator<long long> first(0);
  expect_no_device([&] { (void)tally::reduce(tally::par, first, first + n, 0LL); }, "tally::reduce");

  int out = 4242;
  expect_no_device([&] { tally::reduce_into(tally::par, p, p + n, &out, 0, tally::plus<int>{}); }, "tally::reduce");
  expect_no_device([&] { tally::reduce_into(tally::par, first, first + n, &out, 0); }, "tally::reduce");
  CHECK(out == 4242);  // the caller's data is never modified by a failed call
}
