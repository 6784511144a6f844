// Argument validation for the selection algorithms (max_element and friends, top_k) with
// the device policy, on a machine without a GPU: invalid arguments are tally::error
// before the GPU is touched, an empty range needs no GPU at all, and a missing device is
// a tally::cuda_error naming the algorithm. (reduce's cases: test_errors.cu.)
#include "host_test_support.cuh"

#include <tally/tally.cuh>

#include <doctest/doctest.h>

#include <cstdint>
#include <string>

namespace {

using host_test::contains;
using host_test::fake_device_pointer;
using host_test::no_cuda_device;

/// `call` must throw an exception of type E (tally::error: not its derived cuda_error)
/// whose message names `algorithm`.
template <class E, class F>
void expect_thrown(F&& call, const char* algorithm) {
  CAPTURE(algorithm);
  try {
    call();
    FAIL("no exception thrown");
  } catch (const tally::cuda_error& e) {
    if constexpr (std::is_same_v<E, tally::error>) FAIL("tally::cuda_error instead of an argument error: ", e.what());
    CHECK(contains(e.what(), algorithm));
  } catch (const tally::error& e) {
    if constexpr (!std::is_same_v<E, tally::error>) FAIL("tally::error instead of tally::cuda_error: ", e.what());
    CHECK(contains(e.what(), algorithm));
  }
}

}  // namespace

TEST_CASE("selection errors: a reversed range is rejected before the GPU is touched") {
  int* p = fake_device_pointer();
  std::int64_t index = -7;
  int values[3] = {1, 2, 3};
  std::int64_t indices[3] = {4, 5, 6};
  expect_thrown<tally::error>([&] { (void)tally::max_element(tally::par, p + 4, p); }, "tally::max_element");
  expect_thrown<tally::error>([&] { (void)tally::min_element(p + 4, p); }, "tally::min_element");
  expect_thrown<tally::error>([&] { (void)tally::minmax_element(tally::par, p + 4, p); }, "tally::minmax_element");
  expect_thrown<tally::error>([&] { tally::max_element_into(tally::par, p + 4, p, &index); },
                              "tally::max_element_into");
  expect_thrown<tally::error>([&] { (void)tally::top_k<3>(tally::par, p + 4, p); }, "tally::top_k");
  expect_thrown<tally::error>([&] { tally::top_k_into<3>(tally::par, p + 4, p, values, indices); }, "tally::top_k_into");
  // Nothing was written.
  CHECK(index == -7);
  CHECK(values[0] == 1);
  CHECK(indices[2] == 6);
}

TEST_CASE("selection errors: a null input with a non-empty range throws tally::error") {
  int* null = nullptr;
  int* last = reinterpret_cast<int*>(std::uintptr_t(0) + 5 * sizeof(int));
  expect_thrown<tally::error>([&] { (void)tally::max_element(tally::par, null, last); }, "tally::max_element");
  expect_thrown<tally::error>([&] { (void)tally::top_k<3>(tally::par, null, last); }, "tally::top_k");
  int* p = fake_device_pointer();
  std::int64_t* no_indices = nullptr;
  int* no_values = nullptr;
  int values[3] = {};
  std::int64_t indices[3] = {};
  expect_thrown<tally::error>([&] { tally::top_k_into<3>(tally::par, p, p + 5, no_values, indices); },
                              "tally::top_k_into");
  expect_thrown<tally::error>([&] { tally::top_k_into<3>(tally::par, p, p + 5, values, no_indices); },
                              "tally::top_k_into");
}

TEST_CASE("selection: an empty range needs no GPU and writes nothing") {
  int* p = fake_device_pointer();
  CHECK(tally::max_element(tally::par, p, p) == p);
  CHECK(tally::minmax_element(tally::par, p, p) == std::pair<int*, int*>{p, p});
  const tally::top_k_result<int, 3> r = tally::top_k<3>(tally::par, p, p);
  CHECK(r.count == 0);
  int values[3] = {9, 9, 9};
  std::int64_t indices[3] = {9, 9, 9};
  tally::top_k_into<3>(tally::par, p, p, values, indices);
  CHECK(values[0] == 9);
  CHECK(indices[0] == 9);
}

TEST_CASE("selection errors: without a CUDA device, tally::cuda_error names the algorithm") {
  if (!no_cuda_device()) {
    MESSAGE("a CUDA device is present: the no-device case is not tested here");
    return;
  }
  int* p = fake_device_pointer();
  expect_thrown<tally::cuda_error>([&] { (void)tally::max_element(tally::par, p, p + 100); }, "tally::max_element");
  expect_thrown<tally::cuda_error>([&] { (void)tally::top_k<3>(tally::par, p, p + 100); }, "tally::top_k");
  int values[3] = {5, 5, 5};
  std::int64_t indices[3] = {5, 5, 5};
  expect_thrown<tally::cuda_error>([&] { tally::top_k_into<3>(tally::par, p, p + 100, values, indices); },
                                   "tally::top_k_into");
  CHECK(values[1] == 5);  // the caller's data is never modified by a failed call
}
