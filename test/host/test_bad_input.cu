// Bad input, for every public algorithm, on a machine without a GPU (docs/reliability.md,
// "Bad input"): a reversed range, a null pointer with a non-empty range (and with an empty
// one, which is valid), no CUDA device, a pointer to pageable host memory given to a device
// policy, a scratch request larger than any device's memory, and comparators that are not
// a strict weak order (tally::host). Each failure must be the documented exception, with a
// message that starts with the algorithm's name, and must leave the caller's data as it was.
// (test_errors.cu and test_errors_selection.cu hold the first cases written for reduce and
// the selection algorithms; this file covers every algorithm and the tally::host policy.)
#include "host_test_support.cuh"

#include <tally/tally.cuh>

#include <doctest/doctest.h>

#include <thrust/iterator/counting_iterator.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <limits>
#include <random>
#include <set>
#include <string>
#include <utility>
#include <vector>

namespace {

using host_test::contains;
using host_test::fake_device_pointer;
using host_test::no_cuda_device;

struct is_odd {
  __host__ __device__ bool operator()(int x) const { return (x & 1) != 0; }
};

// A null pointer and a "last" n items past it, without arithmetic on a null pointer.
template <class T>
T* null_plus(std::size_t n) {
  return reinterpret_cast<T*>(std::uintptr_t(0) + n * sizeof(T));
}

bool starts_with(const std::string& s, const std::string& prefix) { return s.rfind(prefix, 0) == 0; }

// `call` must throw tally::error itself (not the derived tally::cuda_error: argument checks
// come before any CUDA call), with a message "<algorithm>: ..." that contains `detail`.
template <class F>
void expect_argument_error(const char* algorithm, const char* detail, F&& call) {
  const std::string name = algorithm, expected = detail;  // captured as text, not as pointers
  CAPTURE(name);
  CAPTURE(expected);
  try {
    call();
    FAIL("no exception thrown");
  } catch (const tally::cuda_error& e) {
    FAIL("tally::cuda_error instead of an argument error (CUDA was called first): ", std::string(e.what()));
  } catch (const tally::error& e) {
    const std::string what = e.what();
    CAPTURE(what);
    CHECK(starts_with(what, std::string(algorithm) + ": "));
    CHECK(contains(what, detail));
  } catch (const std::exception& e) {
    FAIL("an exception that is not a tally::error: ", std::string(e.what()));
  }
}

// `call` must throw tally::cuda_error with a message "<algorithm>: ..." that contains
// `detail`; returns its code (cudaSuccess when the check failed).
template <class F>
cudaError_t expect_cuda_error(const char* algorithm, const char* detail, F&& call) {
  const std::string name = algorithm, expected = detail;  // captured as text, not as pointers
  CAPTURE(name);
  CAPTURE(expected);
  try {
    call();
    FAIL("no exception thrown");
  } catch (const tally::cuda_error& e) {
    const std::string what = e.what();
    CAPTURE(what);
    CHECK(starts_with(what, std::string(algorithm) + ": "));
    CHECK(contains(what, detail));
    CHECK(e.code() != cudaSuccess);
    CHECK(contains(what, cudaGetErrorName(e.code())));  // CUDA's own name for it, at the end
    return e.code();
  } catch (const tally::error& e) {
    FAIL("tally::error instead of tally::cuda_error: ", std::string(e.what()));
  } catch (const std::exception& e) {
    FAIL("an exception that is not a tally::cuda_error: ", std::string(e.what()));
  }
  return cudaSuccess;
}

// Outputs of every algorithm, filled with a sentinel; unchanged() says whether a call
// (that threw) left them as they were.
struct outputs {
  static constexpr int sentinel = -12345;
  int value = sentinel;                  // reduce_into
  std::int64_t index = sentinel;         // max_element_into / min_element_into
  int values[4] = {sentinel, sentinel, sentinel, sentinel};           // top_k_into
  std::int64_t indices[4] = {sentinel, sentinel, sentinel, sentinel};  // top_k_into
  int copied[8] = {sentinel, sentinel, sentinel, sentinel, sentinel, sentinel, sentinel, sentinel};  // copy_if
  std::int64_t count = sentinel;         // copy_if_into

  bool unchanged() const {
    if (value != sentinel || index != sentinel || count != sentinel) return false;
    for (int v : values)
      if (v != sentinel) return false;
    for (std::int64_t i : indices)
      if (i != sentinel) return false;
    for (int c : copied)
      if (c != sentinel) return false;
    return true;
  }
};

// Every public algorithm (and overload) on [first, last) under `policy`, each expected to
// throw the argument error `detail`.
template <class Policy, class It>
void every_algorithm_rejects(const Policy& policy, It first, It last, const int* stencil, outputs& out,
                             const char* detail) {
  expect_argument_error("tally::reduce", detail, [&] { (void)tally::reduce(policy, first, last, 0, tally::plus<int>{}); });
  expect_argument_error("tally::reduce", detail, [&] { (void)tally::reduce(policy, first, last, 0); });
  expect_argument_error("tally::reduce", detail, [&] { (void)tally::reduce(policy, first, last); });
  expect_argument_error("tally::reduce_into", detail,
                        [&] { tally::reduce_into(policy, first, last, &out.value, 0, tally::maximum<int>{}); });
  expect_argument_error("tally::reduce_into", detail, [&] { tally::reduce_into(policy, first, last, &out.value, 0); });
  expect_argument_error("tally::max_element", detail, [&] { (void)tally::max_element(policy, first, last); });
  expect_argument_error("tally::min_element", detail,
                        [&] { (void)tally::min_element(policy, first, last, tally::greater<>{}); });
  expect_argument_error("tally::minmax_element", detail, [&] { (void)tally::minmax_element(policy, first, last); });
  expect_argument_error("tally::max_element_into", detail,
                        [&] { tally::max_element_into(policy, first, last, &out.index); });
  expect_argument_error("tally::min_element_into", detail,
                        [&] { tally::min_element_into(policy, first, last, &out.index); });
  expect_argument_error("tally::top_k", detail, [&] { (void)tally::top_k<4>(policy, first, last); });
  expect_argument_error("tally::top_k_into", detail,
                        [&] { tally::top_k_into<4>(policy, first, last, out.values, out.indices); });
  expect_argument_error("tally::copy_if", detail, [&] { (void)tally::copy_if(policy, first, last, out.copied, is_odd{}); });
  expect_argument_error("tally::copy_if", detail,
                        [&] { (void)tally::copy_if(policy, first, last, stencil, out.copied, is_odd{}); });
  expect_argument_error("tally::copy_if_into", detail,
                        [&] { tally::copy_if_into(policy, first, last, out.copied, &out.count, is_odd{}); });
  expect_argument_error("tally::copy_if_into", detail,
                        [&] { tally::copy_if_into(policy, first, last, stencil, out.copied, &out.count, is_odd{}); });
}

}  // namespace

TEST_CASE("bad input: a reversed range is tally::error for every algorithm and policy; nothing is written") {
  int data[8] = {3, 1, 4, 1, 5, 9, 2, 6};
  const int stencil[8] = {1, 0, 1, 0, 1, 0, 1, 0};
  const int before[8] = {3, 1, 4, 1, 5, 9, 2, 6};
  outputs out;
  const char* detail = "invalid range: last is before first";

  SUBCASE("tally::par") { every_algorithm_rejects(tally::par, data + 6, data + 2, stencil, out, detail); }
  SUBCASE("tally::par with a backend, a tuning and flags") {
    every_algorithm_rejects(tally::par.with(tally::backend::warp_shuffle).tune<128, 4>(), data + 6, data + 2, stencil,
                            out, detail);
  }
  SUBCASE("tally::host") { every_algorithm_rejects(tally::host, data + 6, data + 2, stencil, out, detail); }
  SUBCASE("a fancy iterator (no pointer, only the distance)") {
    thrust::counting_iterator<int> first(0);
    every_algorithm_rejects(tally::par, first + 5, first, stencil, out, detail);
    every_algorithm_rejects(tally::host, first + 5, first, stencil, out, detail);
  }
  SUBCASE("the overloads without a policy (tally::par)") {
    int* first = data + 1;
    int* last = data;
    expect_argument_error("tally::reduce", detail, [&] { (void)tally::reduce(first, last, 0); });
    expect_argument_error("tally::reduce_into", detail, [&] { tally::reduce_into(first, last, &out.value, 0); });
    expect_argument_error("tally::max_element", detail, [&] { (void)tally::max_element(first, last); });
    expect_argument_error("tally::min_element", detail, [&] { (void)tally::min_element(first, last); });
    expect_argument_error("tally::minmax_element", detail, [&] { (void)tally::minmax_element(first, last); });
    expect_argument_error("tally::max_element_into", detail, [&] { tally::max_element_into(first, last, &out.index); });
    expect_argument_error("tally::min_element_into", detail, [&] { tally::min_element_into(first, last, &out.index); });
    expect_argument_error("tally::top_k", detail, [&] { (void)tally::top_k<2>(first, last); });
    expect_argument_error("tally::top_k_into", detail,
                          [&] { tally::top_k_into<2>(first, last, out.values, out.indices); });
    expect_argument_error("tally::copy_if", detail, [&] { (void)tally::copy_if(first, last, out.copied, is_odd{}); });
    expect_argument_error("tally::copy_if_into", detail,
                          [&] { tally::copy_if_into(first, last, stencil, out.copied, &out.count, is_odd{}); });
  }
  CHECK(out.unchanged());
  CHECK(std::equal(data, data + 8, before));
}

TEST_CASE("bad input: a null pointer with a non-empty range is tally::error naming the pointer; nothing is written") {
  int* null = nullptr;
  int* null_last = null_plus<int>(6);
  int* p = fake_device_pointer();  // never dereferenced: the checks come first
  const int* no_stencil = nullptr;
  outputs out;

  SUBCASE("a null input, device policy and tally::host") {
    const int stencil[6] = {1, 1, 1, 1, 1, 1};
    every_algorithm_rejects(tally::par, null, null_last, stencil, out, "null pointer given for the input");
    every_algorithm_rejects(tally::par.with(tally::backend::atomic), null, null_last, stencil, out,
                            "null pointer given for the input");
    // tally::host reads the input on the CPU: a null input is refused there too, not dereferenced.
    every_algorithm_rejects(tally::host, null, null_last, stencil, out, "null pointer given for the input");
    const int* const_null = nullptr;
    expect_argument_error("tally::reduce", "null pointer given for the input",
                          [&] { (void)tally::reduce(tally::host, const_null, null_plus<const int>(1), 0); });
  }
  SUBCASE("a null stencil") {
    expect_argument_error("tally::copy_if", "null pointer given for the stencil",
                          [&] { (void)tally::copy_if(tally::par, p, p + 6, no_stencil, out.copied, is_odd{}); });
    expect_argument_error("tally::copy_if_into", "null pointer given for the stencil", [&] {
      tally::copy_if_into(tally::par, p, p + 6, no_stencil, out.copied, &out.count, is_odd{});
    });
  }
  SUBCASE("a null output") {
    int* no_ints = nullptr;
    std::int64_t* no_index = nullptr;
    expect_argument_error("tally::reduce_into", "null pointer given for the output",
                          [&] { tally::reduce_into(tally::par, p, p + 6, no_ints, 0); });
    expect_argument_error("tally::max_element_into", "null pointer given for the output",
                          [&] { tally::max_element_into(tally::par, p, p + 6, no_index); });
    expect_argument_error("tally::min_element_into", "null pointer given for the output",
                          [&] { tally::min_element_into(tally::par, p, p + 6, no_index); });
    expect_argument_error("tally::top_k_into", "null pointer given for the values output",
                          [&] { tally::top_k_into<4>(tally::par, p, p + 6, no_ints, out.indices); });
    expect_argument_error("tally::top_k_into", "null pointer given for the indices output",
                          [&] { tally::top_k_into<4>(tally::par, p, p + 6, out.values, no_index); });
    expect_argument_error("tally::copy_if", "null pointer given for the output",
                          [&] { (void)tally::copy_if(tally::par, p, p + 6, no_ints, is_odd{}); });
    expect_argument_error("tally::copy_if", "null pointer given for the output",
                          [&] { (void)tally::copy_if(tally::par, p, p + 6, p, no_ints, is_odd{}); });
    expect_argument_error("tally::copy_if_into", "null pointer given for the output",
                          [&] { tally::copy_if_into(tally::par, p, p + 6, no_ints, &out.count, is_odd{}); });
    // The outputs that are written even for an empty range must not be null either.
    expect_argument_error("tally::reduce_into", "null pointer given for the output",
                          [&] { tally::reduce_into(tally::par, p, p, no_ints, 0); });
    expect_argument_error("tally::max_element_into", "null pointer given for the output",
                          [&] { tally::max_element_into(tally::par, p, p, no_index); });
    expect_argument_error("tally::min_element_into", "null pointer given for the output",
                          [&] { tally::min_element_into(tally::par, p, p, no_index); });
  }
  CHECK(out.unchanged());
}

// The count is checked with the other pointers, before the device is looked up
// (docs/api/copy_if.md and errors.md promise the argument error first).
TEST_CASE("bad input: copy_if_into with a null count is tally::error before any CUDA call") {
  int* p = fake_device_pointer();
  std::int64_t* no_count = nullptr;
  outputs out;
  expect_argument_error("tally::copy_if_into", "null pointer given for the count output",
                        [&] { tally::copy_if_into(tally::par, p, p + 6, out.copied, no_count, is_odd{}); });
  expect_argument_error("tally::copy_if_into", "null pointer given for the count output",
                        [&] { tally::copy_if_into(tally::par, p, p + 6, p, out.copied, no_count, is_odd{}); });
  expect_argument_error("tally::copy_if_into", "null pointer given for the count output",
                        [&] { tally::copy_if_into(tally::par, p, p, out.copied, no_count, is_odd{}); });
  CHECK(out.unchanged());
}

TEST_CASE("bad input: a null pointer with an empty range is valid; the device policy needs no GPU where nothing is written") {
  int* null = nullptr;
  const int* no_stencil = nullptr;
  int* no_out = nullptr;
  std::int64_t* no_index = nullptr;

  SUBCASE("device policy") {
    CHECK(tally::reduce(tally::par, null, null, 7) == 7);
    CHECK(tally::reduce(tally::par, null, null) == 0);
    CHECK(tally::max_element(tally::par, null, null) == null);
    CHECK(tally::min_element(tally::par, null, null) == null);
    CHECK(tally::minmax_element(tally::par, null, null) == std::pair<int*, int*>{null, null});
    const tally::top_k_result<int, 4> r = tally::top_k<4>(tally::par, null, null);
    CHECK(r.count == 0);
    tally::top_k_into<4>(tally::par, null, null, no_out, no_index);  // min(K, 0) = 0 items: null outputs are fine
    CHECK(tally::copy_if(tally::par, null, null, no_out, is_odd{}) == no_out);
    CHECK(tally::copy_if(tally::par, null, null, no_stencil, no_out, is_odd{}) == no_out);
  }
  SUBCASE("tally::host") {
    CHECK(tally::reduce(tally::host, null, null, 7) == 7);
    int value = -1;
    tally::reduce_into(tally::host, null, null, &value, 7);
    CHECK(value == 7);
    CHECK(tally::max_element(tally::host, null, null) == null);
    CHECK(tally::min_element(tally::host, null, null) == null);
    CHECK(tally::minmax_element(tally::host, null, null) == std::pair<int*, int*>{null, null});
    std::int64_t index = -1;
    tally::max_element_into(tally::host, null, null, &index);
    CHECK(index == 0);  // n
    index = -1;
    tally::min_element_into(tally::host, null, null, &index);
    CHECK(index == 0);
    CHECK(tally::top_k<4>(tally::host, null, null).count == 0);
    tally::top_k_into<4>(tally::host, null, null, no_out, no_index);
    CHECK(tally::copy_if(tally::host, null, null, no_out, is_odd{}) == no_out);
    CHECK(tally::copy_if(tally::host, null, null, no_stencil, no_out, is_odd{}) == no_out);
    std::int64_t count = -1;
    tally::copy_if_into(tally::host, null, null, no_out, &count, is_odd{});
    CHECK(count == 0);
  }
}

TEST_CASE("bad input: without a CUDA device every algorithm throws tally::cuda_error naming it; the process stays usable") {
  std::string reason;
  if (!no_cuda_device(&reason)) {
    MESSAGE("a CUDA device is present (" << reason << "): the no-device case is not tested here");
    return;
  }
  int* p = fake_device_pointer();
  const int* stencil = p;
  const long long n = 1000;
  thrust::counting_iterator<int> first(0);
  outputs out;
  std::set<int> codes;  // the same cause every time: nothing stale from an earlier call
  auto no_device = [&](const char* algorithm, auto&& call) {
    const cudaError_t code = expect_cuda_error(algorithm, "no CUDA device available", call);
    codes.insert(int(code));
    // tally clears CUDA's last error before throwing. Without a driver CUDA reports its
    // failed initialisation to every call again, so that one may remain, but no other.
    const cudaError_t last = cudaGetLastError();
    CHECK((last == cudaSuccess || last == code));
  };

  no_device("tally::reduce", [&] { (void)tally::reduce(tally::par, p, p + n, 0, tally::maximum<int>{}); });
  no_device("tally::reduce", [&] { (void)tally::reduce(tally::par, first, first + n); });
  no_device("tally::reduce_into", [&] { tally::reduce_into(tally::par, p, p + n, &out.value, 0); });
  no_device("tally::max_element", [&] { (void)tally::max_element(tally::par, p, p + n); });
  no_device("tally::min_element", [&] { (void)tally::min_element(tally::par, p, p + n); });
  no_device("tally::min_element", [&] { (void)tally::min_element(first, first + n); });
  no_device("tally::minmax_element", [&] { (void)tally::minmax_element(tally::par, p, p + n); });
  no_device("tally::max_element_into", [&] { tally::max_element_into(tally::par, p, p + n, &out.index); });
  no_device("tally::min_element_into", [&] { tally::min_element_into(tally::par, p, p + n, &out.index); });
  no_device("tally::top_k", [&] { (void)tally::top_k<4>(tally::par, p, p + n); });
  no_device("tally::top_k_into", [&] { tally::top_k_into<4>(tally::par, first, first + n, out.values, out.indices); });
  no_device("tally::copy_if", [&] { (void)tally::copy_if(tally::par, p, p + n, out.copied, is_odd{}); });
  no_device("tally::copy_if", [&] { (void)tally::copy_if(tally::par.unordered(), p, p + n, out.copied, is_odd{}); });
  no_device("tally::copy_if", [&] { (void)tally::copy_if(tally::par, p, p + n, stencil, out.copied, is_odd{}); });
  no_device("tally::copy_if_into", [&] { tally::copy_if_into(tally::par, p, p + n, out.copied, &out.count, is_odd{}); });
  no_device("tally::copy_if_into",
            [&] { tally::copy_if_into(tally::par, p, p + n, stencil, out.copied, &out.count, is_odd{}); });
  // The _into forms write their output even for an empty range (init, n, a count of 0),
  // so they need the device then too; the others return at once (previous test case).
  no_device("tally::reduce_into", [&] { tally::reduce_into(tally::par, p, p, &out.value, 0); });
  no_device("tally::max_element_into", [&] { tally::max_element_into(tally::par, p, p, &out.index); });
  no_device("tally::min_element_into", [&] { tally::min_element_into(tally::par, p, p, &out.index); });
  no_device("tally::copy_if_into", [&] { tally::copy_if_into(tally::par, p, p, out.copied, &out.count, is_odd{}); });

  CHECK(out.unchanged());  // the caller's data is never modified by a failed call
  CHECK(codes.size() == 1);

  // Still usable afterwards: argument errors are still argument errors, and the host
  // policy (which needs no device) gives the closed forms.
  expect_argument_error("tally::reduce", "invalid range", [&] { (void)tally::reduce(tally::par, p + 1, p, 0); });
  CHECK(tally::reduce(tally::host, first, first + n, 0LL) == n * (n - 1) / 2);
  CHECK(*tally::max_element(tally::host, first, first + n) == n - 1);
  const auto top = tally::top_k<4>(tally::host, first, first + n);
  CHECK(top.count == 4);
  CHECK(top.indices[3] == n - 4);
}

TEST_CASE("bad input: a pointer to pageable host memory given to a device policy") {
  // Pageable memory: a std::vector's heap block and a stack array, never registered with CUDA.
  std::vector<int> data(64);
  for (int i = 0; i < 64; ++i) data[i] = (i * 37) % 64 - 20;
  const std::vector<int> before = data;
  const int* first = data.data();
  const int* last = first + data.size();
  int stencil[64];
  for (int i = 0; i < 64; ++i) stencil[i] = i % 3;
  outputs out;
  int copied[64];
  std::fill(copied, copied + 64, outputs::sentinel);

  if (no_cuda_device()) {
    // Where the memory lies is asked of CUDA after the device is found: without a device,
    // the call fails as no-device, before the pointer is looked at, and writes nothing.
    const char* detail = "no CUDA device available";
    expect_cuda_error("tally::reduce", detail, [&] { (void)tally::reduce(tally::par, first, last, 0); });
    expect_cuda_error("tally::reduce_into", detail, [&] { tally::reduce_into(tally::par, first, last, &out.value, 0); });
    expect_cuda_error("tally::max_element", detail, [&] { (void)tally::max_element(tally::par, first, last); });
    expect_cuda_error("tally::min_element", detail, [&] { (void)tally::min_element(tally::par, first, last); });
    expect_cuda_error("tally::minmax_element", detail, [&] { (void)tally::minmax_element(tally::par, first, last); });
    expect_cuda_error("tally::max_element_into", detail,
                      [&] { tally::max_element_into(tally::par, first, last, &out.index); });
    expect_cuda_error("tally::min_element_into", detail,
                      [&] { tally::min_element_into(tally::par, first, last, &out.index); });
    expect_cuda_error("tally::top_k", detail, [&] { (void)tally::top_k<4>(tally::par, first, last); });
    expect_cuda_error("tally::top_k_into", detail,
                      [&] { tally::top_k_into<4>(tally::par, first, last, out.values, out.indices); });
    expect_cuda_error("tally::copy_if", detail, [&] { (void)tally::copy_if(tally::par, first, last, copied, is_odd{}); });
    expect_cuda_error("tally::copy_if", detail,
                      [&] { (void)tally::copy_if(tally::par, first, last, stencil, copied, is_odd{}); });
    expect_cuda_error("tally::copy_if_into", detail,
                      [&] { tally::copy_if_into(tally::par, first, last, copied, &out.count, is_odd{}); });
    CHECK(out.unchanged());
    CHECK(std::all_of(copied, copied + 64, [](int c) { return c == outputs::sentinel; }));
    CHECK(data == before);
    return;
  }

  // With a device: refused as tally::error naming the algorithm and the memory, unless the
  // GPU reads pageable memory (HMM / ATS), where the call is valid and must give the host
  // reference's answer.
  auto refused_or_ran = [&](const char* algorithm, auto&& call) {
    const std::string name = algorithm;
    CAPTURE(name);
    try {
      call();
      CHECK(cudaStreamSynchronize(nullptr) == cudaSuccess);  // the _into forms
      return true;
    } catch (const tally::cuda_error& e) {
      FAIL("tally::cuda_error for a pageable pointer: ", std::string(e.what()));
    } catch (const tally::error& e) {
      const std::string what = e.what();
      CAPTURE(what);
      CHECK(starts_with(what, std::string(algorithm) + ": "));
      CHECK(contains(what, "pageable host memory"));
    }
    return false;
  };
  int sum = 0;
  if (refused_or_ran("tally::reduce", [&] { sum = tally::reduce(tally::par, first, last, 5); }))
    CHECK(sum == tally::reduce(tally::host, first, last, 5));
  if (refused_or_ran("tally::reduce_into", [&] { tally::reduce_into(tally::par, first, last, &out.value, 5); }))
    CHECK(out.value == tally::reduce(tally::host, first, last, 5));
  const int* it = nullptr;
  if (refused_or_ran("tally::max_element", [&] { it = tally::max_element(tally::par, first, last); }))
    CHECK(it == tally::max_element(tally::host, first, last));
  if (refused_or_ran("tally::min_element", [&] { it = tally::min_element(tally::par, first, last); }))
    CHECK(it == tally::min_element(tally::host, first, last));
  std::pair<const int*, const int*> both;
  if (refused_or_ran("tally::minmax_element", [&] { both = tally::minmax_element(tally::par, first, last); }))
    CHECK(both == tally::minmax_element(tally::host, first, last));
  std::int64_t index = -1;
  if (refused_or_ran("tally::max_element_into", [&] { tally::max_element_into(tally::par, first, last, &index); }))
    CHECK(first + index == tally::max_element(tally::host, first, last));
  if (refused_or_ran("tally::min_element_into", [&] { tally::min_element_into(tally::par, first, last, &index); }))
    CHECK(first + index == tally::min_element(tally::host, first, last));
  const auto top_host = tally::top_k<4>(tally::host, first, last);
  tally::top_k_result<int, 4> top;
  if (refused_or_ran("tally::top_k", [&] { top = tally::top_k<4>(tally::par, first, last); })) {
    CHECK(top.count == top_host.count);
    CHECK(top.indices == top_host.indices);
  }
  if (refused_or_ran("tally::top_k_into",
                     [&] { tally::top_k_into<4>(tally::par, first, last, out.values, out.indices); })) {
    CHECK(std::equal(out.indices, out.indices + 4, top_host.indices.begin()));
  }
  std::vector<int> expected(64);
  const auto expected_end = tally::copy_if(tally::host, first, last, stencil, expected.data(), is_odd{});
  int* end = nullptr;
  if (refused_or_ran("tally::copy_if", [&] { end = tally::copy_if(tally::par, first, last, stencil, copied, is_odd{}); })) {
    REQUIRE(end - copied == expected_end - expected.data());
    CHECK(std::equal(copied, end, expected.data()));
  }
  CHECK(data == before);
}

TEST_CASE("bad input: a scratch request larger than any device's memory is tally::cuda_error before any CUDA call") {
  // The only allocation that grows with n is copy_if's tile states (n / tile words). A size
  // beyond half the address space (an absurd n, or one whose byte count overflowed) is out
  // of memory on every device: it is refused before CUDA is called, instead of doubling
  // the cache's capacity until it wraps to zero (which never ends).
  using tally::detail::max_scratch_bytes;
  using tally::detail::scratch_header_bytes;
  tally::detail::device_context ctx;
  ctx.device = 0;
  ctx.sm_count = 132;
  ctx.arch = 90;
  const std::size_t huge[] = {std::numeric_limits<std::size_t>::max(),
                              std::numeric_limits<std::size_t>::max() - scratch_header_bytes + 1,
                              max_scratch_bytes, max_scratch_bytes - scratch_header_bytes + 1};
  for (std::size_t bytes : huge) {
    CAPTURE(bytes);
    for (auto use : {tally::detail::scratch_use::partials, tally::detail::scratch_use::tile_status}) {
      const cudaError_t code = expect_cuda_error("tally::copy_if", "larger than any device's memory", [&] {
        tally::detail::scratch_lease lease("tally::copy_if", ctx, tally::detail::call_stream{}, bytes, use);
      });
      CHECK(code == cudaErrorMemoryAllocation);
    }
  }
  if (no_cuda_device()) {
    // The largest request that passes goes on to CUDA, which (here, without a device)
    // refuses the stream query: the limit is exact, not a blanket refusal.
    const cudaError_t code = expect_cuda_error("tally::copy_if", "invalid stream", [&] {
      tally::detail::scratch_lease lease("tally::copy_if", ctx, tally::detail::call_stream{}, max_scratch_bytes - scratch_header_bytes,
                                         tally::detail::scratch_use::tile_status);
    });
    CHECK(code != cudaErrorMemoryAllocation);
  }
}

namespace {

// Comparators that are not strict weak orders, and one that is (all items equivalent).
struct always_true {
  bool operator()(int, int) const { return true; }
};
struct always_false {
  bool operator()(int, int) const { return false; }
};
struct less_equal {
  bool operator()(int a, int b) const { return a <= b; }
};
struct greater_equal {
  bool operator()(int a, int b) const { return a >= b; }
};
struct parity_differs {  // irreflexive, but neither transitive nor asymmetric
  bool operator()(int a, int b) const { return ((a ^ b) & 1) != 0; }
};

// What every comparator must give with tally::host: an item of the range (last only for
// an empty range), min(K, n) distinct indices whose values are the items there, and the
// same answer from the _into forms.
template <int K, class Compare>
void check_selection_terminates_with_a_result(const std::vector<int>& data, Compare comp) {
  const int* first = data.data();
  const int* last = first + data.size();
  const std::int64_t n = static_cast<std::int64_t>(data.size());
  const int* mx = tally::max_element(tally::host, first, last, comp);
  const int* mn = tally::min_element(tally::host, first, last, comp);
  const auto both = tally::minmax_element(tally::host, first, last, comp);
  if (n == 0) {
    CHECK(mx == last);
    CHECK(mn == last);
    CHECK(both == std::pair<const int*, const int*>{last, last});
  } else {
    CHECK((mx >= first && mx < last));
    CHECK((mn >= first && mn < last));
    CHECK((both.first >= first && both.first < last));
    CHECK((both.second >= first && both.second < last));
  }
  std::int64_t index = -1;
  tally::max_element_into(tally::host, first, last, &index, comp);
  CHECK(index == (n == 0 ? 0 : mx - first));
  tally::min_element_into(tally::host, first, last, &index, comp);
  CHECK(index == (n == 0 ? 0 : mn - first));

  const tally::top_k_result<int, K> top = tally::top_k<K>(tally::host, first, last, comp);
  REQUIRE(top.count == static_cast<int>(std::min<std::int64_t>(K, n)));
  std::set<std::int64_t> seen;
  for (int i = 0; i < top.count; ++i) {
    REQUIRE((top.indices[i] >= 0 && top.indices[i] < n));
    CHECK(top.values[i] == data[top.indices[i]]);
    seen.insert(top.indices[i]);
  }
  CHECK(seen.size() == static_cast<std::size_t>(top.count));
  int values[K + 1];
  std::int64_t indices[K + 1];
  std::fill(values, values + K + 1, outputs::sentinel);
  std::fill(indices, indices + K + 1, std::int64_t(outputs::sentinel));
  tally::top_k_into<K>(tally::host, first, last, values, indices, comp);
  for (int i = 0; i < top.count; ++i) {
    CHECK(values[i] == top.values[i]);
    CHECK(indices[i] == top.indices[i]);
  }
  for (int i = top.count; i < K + 1; ++i) {  // min(K, n) written, nothing past them
    CHECK(values[i] == outputs::sentinel);
    CHECK(indices[i] == outputs::sentinel);
  }
}

// The K largest values under `greater_first` order (a strict order), best first: the closed form.
std::vector<int> best_values(std::vector<int> data, std::size_t k, std::function<bool(int, int)> greater_first) {
  std::sort(data.begin(), data.end(), greater_first);
  data.resize(std::min(k, data.size()));
  return data;
}

}  // namespace

TEST_CASE("bad input: tally::host with a comparator that is not a strict weak order gives a result, never hangs") {
  std::mt19937 rng(20240611u);
  for (std::size_t n : {0, 1, 2, 3, 7, 31, 32, 33, 100, 1000}) {
    CAPTURE(n);
    std::vector<int> data(n);
    std::uniform_int_distribution<int> small(-10, 10);  // many ties
    for (int& x : data) x = small(rng);
    const int* first = data.data();
    const int* last = first + n;

    check_selection_terminates_with_a_result<5>(data, always_true{});
    check_selection_terminates_with_a_result<5>(data, less_equal{});
    check_selection_terminates_with_a_result<5>(data, greater_equal{});
    check_selection_terminates_with_a_result<5>(data, parity_differs{});
    check_selection_terminates_with_a_result<1>(data, parity_differs{});
    check_selection_terminates_with_a_result<32>(data, always_true{});
    check_selection_terminates_with_a_result<5>(data, always_false{});
    if (n == 0) continue;

    // A total preorder that is not strict (<=): the items picked still have the best
    // values; only which of equal items is unspecified.
    const int hi = *std::max_element(data.begin(), data.end());
    const int lo = *std::min_element(data.begin(), data.end());
    CHECK(*tally::max_element(tally::host, first, last, less_equal{}) == hi);
    CHECK(*tally::min_element(tally::host, first, last, less_equal{}) == lo);
    CHECK(*tally::max_element(tally::host, first, last, greater_equal{}) == lo);
    const auto top = tally::top_k<5>(tally::host, first, last, less_equal{});
    const std::vector<int> expected = best_values(data, 5, std::greater<int>{});
    CHECK(std::vector<int>(top.values.begin(), top.values.begin() + top.count) == expected);

    // always_false *is* a strict weak order (every item equivalent): the first item wins,
    // and top_k keeps index order.
    CHECK(tally::max_element(tally::host, first, last, always_false{}) == first);
    CHECK(tally::min_element(tally::host, first, last, always_false{}) == first);
    const auto tied = tally::top_k<5>(tally::host, first, last, always_false{});
    for (int i = 0; i < tied.count; ++i) CHECK(tied.indices[i] == i);
  }

  // A plain `a < b` on floats with NaN: NaN is incomparable with everything, which breaks
  // the transitivity of equivalence. A result, no hang, and the non-NaN order is kept
  // between non-NaN items that the comparator does order.
  std::vector<float> f = {1.0f, std::numeric_limits<float>::quiet_NaN(), 3.0f, -2.0f,
                          std::numeric_limits<float>::quiet_NaN(), 0.5f};
  auto raw_less = [](float a, float b) { return a < b; };
  const float* ff = f.data();
  const float* fl = ff + f.size();
  const float* m = tally::max_element(tally::host, ff, fl, raw_less);
  CHECK((m >= ff && m < fl));
  const auto fk = tally::top_k<3>(tally::host, ff, fl, raw_less);
  CHECK(fk.count == 3);
  for (int i = 0; i < fk.count; ++i) CHECK((fk.indices[i] >= 0 && fk.indices[i] < 6));
}
