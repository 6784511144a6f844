// tally::top_k<K> and tally::top_k_into<K> beyond the per-type suites, on every backend:
//  - comparators other than tally::less<> / tally::greater<> ((value, index) pairs on
//    every backend): |a| < |b| on int32 (x and -x tie) and on float (-0.0 and +0.0 tie),
//    cuda::std::less<> on float and cuda::std::greater<> on int32 (a plain `<` / `>` that
//    is not tally's), a struct {float energy; int id;} ordered by energy; against a
//    stable cub::DeviceRadixSort over the key each comparator orders by, the host
//    reference and the host backend with the same comparator;
//  - top_k<1> finds what max_element finds (and, under greater<>, min_element), also on
//    data with NaN;
//  - empty ranges (a null and a misaligned pointer included): count 0, the result
//    value-initialised, nothing written by top_k_into (null outputs accepted);
//  - the overloads without a policy and their result types, typed comparators
//    (tally::less<int>, tally::greater<float>), the sync form on a stream, top_k_into's
//    conversions (double values, long long indices, thrust::device_ptr outputs), the host
//    backend's top_k_into;
//  - invalid arguments with a GPU present (reversed ranges, null inputs and outputs,
//    pageable host memory).
#include "top_k_common.cuh"

#include <cuda/std/functional>
#include <thrust/device_ptr.h>

// Named namespace, not an anonymous one: tally's kernels have hidden visibility, which
// nvcc warns about (#1407-D) when a template argument has internal linkage.
namespace top_k_misc_test {

struct abs_value {
  __host__ __device__ int operator()(int x) const { return x < 0 ? -x : x; }
  __host__ __device__ float operator()(float x) const { return x < 0 ? -x : x; }
};
/// |a| < |b|: a strict weak order with many ties (x, -x; -0.0, +0.0).
struct abs_less {
  template <class T>
  __host__ __device__ bool operator()(const T& a, const T& b) const {
    return abs_value{}(a) < abs_value{}(b);
  }
};
struct negated {
  __host__ __device__ int operator()(int x) const { return -x; }
};
struct identity {
  template <class T>
  __host__ __device__ T operator()(const T& x) const {
    return x;
  }
};

struct particle {
  float energy;
  int id;
  static constexpr const char* type_name = "particle{float energy; int id;}";
};
inline std::string describe_value(const particle& p) {
  return "{energy=" + std::to_string(p.energy) + ", id=" + std::to_string(p.id) + "}";
}
struct by_energy {
  __host__ __device__ bool operator()(const particle& a, const particle& b) const { return a.energy < b.energy; }
};
struct energy_of {
  __host__ __device__ float operator()(const particle& p) const { return p.energy; }
};

template <class T, class Key, class Out>
__global__ void keys_kernel(const T* in, long long n, Key key, Out* out) {
  const long long stride = static_cast<long long>(gridDim.x) * blockDim.x;
  for (long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride)
    out[i] = key(in[i]);
}

}  // namespace top_k_misc_test

using top_k_misc_test::abs_less;
using top_k_misc_test::abs_value;
using top_k_misc_test::by_energy;
using top_k_misc_test::energy_of;
using top_k_misc_test::identity;
using top_k_misc_test::negated;
using top_k_misc_test::particle;

template <>
struct tally_support::data_traits<particle> {
  __host__ __device__ static particle make(tt::pattern p, long long i, long long n,
                                           const tally_support::fill_options& o) {
    const std::uint64_t h = tt::hash(std::uint64_t(i), o.seed);
    switch (p) {
      case tt::pattern::constant:
        return {3.0f, int(i)};
      case tt::pattern::sorted:
        return {float((8 * i) / n), int(i)};
      case tt::pattern::reversed:
        return {float((8 * (n - 1 - i)) / n), int(i)};
      default:
        return {float(h % 8) - 4.0f, int(i)};  // 8 energies: many ties
    }
  }
  /// The largest and the lowest energy, alternating: a read outside the range shows.
  __host__ __device__ static particle poison(long long j) { return {(j & 1) ? 1.0e30f : -1.0e30f, -1}; }
};

namespace {

/// Sizes of the comparator tests: small ones around the Ks, tile boundaries, a few large
/// (not under TALLY_SANITIZE: common.cuh's cap).
std::vector<long long> comparator_sizes() {
  return tt::listed_sizes(
      {0, 1, 2, 3, 4, 15, 16, 17, 31, 32, 33, 255, 2047, 2049, 4095, 4097, 65539, (1 << 20) + 1, 3000017});
}

/// The checks of check_custom, with its Ks unpacked.
template <class T, class Compare, int... As, int... Ss>
void run_custom(T* first, long long n, Compare comp, const std::vector<T>& host, const tt::top_list<T>& expected,
                const std::string& label, tt::k_list<As...>, tt::k_list<Ss...>) {
  (tt::check_host_top_k<As>(host, comp, expected, "comp=" + label), ...);
  (tt::check_host_top_k<Ss>(host, comp, expected, "comp=" + label), ...);
  tt::for_each_top_k_policy([&](const auto& policy, const std::string& policy_label) {
    (tt::check_top_k_forms<As>(policy, first, n, comp, expected, policy_label + " comp=" + label), ...);
  });
  tt::for_each_shuffle_policy([&](const auto& policy, const std::string& policy_label) {
    (tt::check_top_k_forms<Ss>(policy, first, n, comp, expected, policy_label + " comp=" + label), ...);
  });
}

/// Both forms of top_k<K> with `comp` on [first, first + n), where comp(a, b) is
/// key(a) < key(b), for the Ks of All on every backend and those of Shuffle on the
/// backends that share tally::par's kernels: expected indices from CUB's stable radix
/// sort over the keys (descending: the largest key first), checked against the host
/// reference with comp; the host backend with comp too.
template <class All, class Shuffle = tt::k_list<>, class T, class Compare, class Key>
void check_custom(T* first, long long n, Compare comp, Key key, const std::string& label) {
  INFO("comp=", label, " type=", tt::type_name<T>(), " n=", n);
  using K = std::decay_t<decltype(key(std::declval<T>()))>;
  tt::device_buffer<K> keys{std::size_t(n)};
  if (n > 0) {
    const long long blocks = std::min<long long>((n + 255) / 256, 8192);
    top_k_misc_test::keys_kernel<<<unsigned(blocks), 256>>>(first, n, key, keys.data());
    TT_CUDA(cudaGetLastError());
    TT_CUDA(cudaDeviceSynchronize());
  }
  const std::vector<long long> indices = tt::cub_top_indices(keys.data(), n, true);
  const std::vector<T> host = tt::device_buffer<T>::download(first, std::size_t(n));
  tt::check_indices(tt::host_top_indices(host, comp), indices, "CUB over the keys vs host reference");
  const tt::top_list<T> expected{indices, tt::gather(first, indices)};
  run_custom(first, n, comp, host, expected, label, All{}, Shuffle{});
}

}  // namespace

TEST_CASE("top_k: |a| < |b| on int32 and float ((value, index) pairs) matches CUB over |x|") {
  tt::failure_budget budget;
  for (long long n : comparator_sizes()) {
    for (tt::pattern p : {tt::pattern::random, tt::pattern::constant, tt::pattern::sorted, tt::pattern::reversed}) {
      const auto d = tt::make_data<int>(n, p);  // random: -31..31, so x and -x tie
      check_custom<tt::k_list<1, 3>, tt::k_list<32>>(d.ptr, n, abs_less{}, abs_value{},
                                                     std::string("abs_less ") + tt::pattern_name(p));
    }
    const auto t = tt::make_ties<int>(n);
    check_custom<tt::k_list<1, 3>, tt::k_list<32>>(t.ptr, n, abs_less{}, abs_value{}, "abs_less ties");
    const auto f = tt::make_data<float>(n, tt::pattern::neg_and_zeros);  // -0.0 and +0.0 are equal under |x|
    check_custom<tt::k_list<4>>(f.ptr, n, abs_less{}, abs_value{}, "abs_less negatives and +-0");
  }
  for (int offset : {1, 3}) {
    for (long long n : tt::misaligned_sizes()) {
      const auto d = tt::make_data<int>(n, tt::pattern::random, offset);
      check_custom<tt::k_list<1, 3>, tt::k_list<32>>(d.ptr, n, abs_less{}, abs_value{},
                                                     "abs_less misaligned " + std::to_string(offset));
    }
  }
}

TEST_CASE("top_k: cuda::std::less<> and cuda::std::greater<> (not tally's order: pairs) match CUB") {
  tt::failure_budget budget;
  for (long long n : comparator_sizes()) {
    for (tt::pattern p : {tt::pattern::random, tt::pattern::sorted, tt::pattern::pos_inf, tt::pattern::neg_inf}) {
      const auto f = tt::make_data<float>(n, p);
      check_custom<tt::k_list<3>>(f.ptr, n, cuda::std::less<>{}, identity{},
                                  std::string("cuda::std::less<> ") + tt::pattern_name(p));
    }
    // greater as the comparator: the K smallest; CUB over -x (no overflow: -1..2).
    const auto t = tt::make_ties<int>(n);
    check_custom<tt::k_list<2>>(t.ptr, n, cuda::std::greater<>{}, negated{}, "cuda::std::greater<> ties");
  }
}

TEST_CASE("top_k: a struct ordered by one field matches CUB over that field") {
  tt::failure_budget budget;
  for (long long n : comparator_sizes()) {
    for (tt::pattern p : {tt::pattern::random, tt::pattern::constant, tt::pattern::sorted, tt::pattern::reversed}) {
      const auto d = tt::make_data<particle>(n, p);
      check_custom<tt::k_list<1, 5>>(d.ptr, n, by_energy{}, energy_of{},
                                     std::string("by_energy ") + tt::pattern_name(p));
    }
  }
  for (long long n : tt::misaligned_sizes()) {
    const auto d = tt::make_data<particle>(n, tt::pattern::random, 1);
    check_custom<tt::k_list<1, 5>>(d.ptr, n, by_energy{}, energy_of{}, "by_energy misaligned 1");
  }
}

TEST_CASE("top_k<1> finds what max_element (and, under greater<>, min_element) finds") {
  tt::failure_budget budget;
  auto check = [](auto* first, long long n,
                  const char* data_name) {  // (int* and float*: the kernels of the other tests)
    INFO("data=", data_name, " n=", n);
    tt::for_each_top_k_policy([&](const auto& policy, const std::string& label) {
      const long long max_index = tally::max_element(policy, first, first + n) - first;
      const long long min_index = tally::min_element(policy, first, first + n) - first;
      const auto largest = tally::top_k<1>(policy, first, first + n);
      const auto smallest = tally::top_k<1>(policy, first, first + n, tally::greater<>{});
      CHECK(largest.count == (n > 0 ? 1 : 0));
      CHECK(smallest.count == (n > 0 ? 1 : 0));
      if (n == 0) return;
      tt::check_exact(static_cast<long long>(largest.indices[0]), max_index, "top_k<1> vs max_element " + label);
      tt::check_exact(static_cast<long long>(smallest.indices[0]), min_index,
                      "top_k<1, greater<>> vs min_element " + label);
      const auto values = tt::gather(first, {max_index, min_index});
      tt::check_exact(largest.values[0], values[0], "top_k<1> value " + label);
      tt::check_exact(smallest.values[0], values[1], "top_k<1, greater<>> value " + label);
    });
  };
  for (long long n : tt::standard_sizes()) {
    if (n > (1LL << 22)) continue;
    check(tt::make_ties<int>(n).ptr, n, "int32 ties");
    check(tt::make_data<int>(n, tt::pattern::reversed).ptr, n, "int32 reversed");
    check(tt::make_data<float>(n, tt::pattern::with_nan).ptr, n, "float with NaN");
    check(tt::make_data<float>(n, tt::pattern::neg_and_zeros).ptr, n, "float negatives and +-0");
    check(tt::make_data<float>(n, tt::pattern::neg_inf).ptr, n, "float all -inf");
  }
}

TEST_CASE("top_k: an empty range gives count 0; top_k_into writes nothing") {
  tt::failure_budget budget;
  tt::device_buffer<int> data(16);
  int* null = nullptr;
  const tt::top_list<int> none;
  tt::for_each_top_k_policy([&](const auto& policy, const std::string& label) {
    for (int* p : {data.data(), data.data() + 3, null}) {
      const std::string what = label + (p ? " (device pointer)" : " (null pointer)");
      INFO(what);
      tt::check_top_k_forms<1>(policy, p, 0, tally::less<>{}, none, what);
      tt::check_top_k_forms<3>(policy, p, 0, tally::less<>{}, none, what);
      tt::check_top_k_forms<3>(policy, p, 0, tally::greater<>{}, none, what + " comp=greater<>");
      tt::check_top_k_forms<3>(policy, p, 0, abs_less{}, none, what + " comp=abs_less");
      // Null outputs are fine when nothing is written.
      CHECK_NOTHROW(tally::top_k_into<3>(policy, p, p, null, static_cast<std::int64_t*>(nullptr)));
    }
  });
  // The host backend.
  std::vector<int> empty;
  const auto r = tally::top_k<3>(tally::host, empty.begin(), empty.end());
  CHECK(r.count == 0);
  CHECK(r.indices == std::array<std::int64_t, 3>{});
  int values[3] = {7, 7, 7};
  std::int64_t indices[3] = {7, 7, 7};
  tally::top_k_into<3>(tally::host, empty.begin(), empty.end(), values, indices);
  CHECK(values[0] == 7);
  CHECK(indices[0] == 7);
}

TEST_CASE("top_k: the overloads without a policy, result types, typed comparators, conversions") {
  tt::failure_budget budget;
  const long long n = 100003;
  const auto d = tt::make_ties<int>(n);
  const auto f = tt::make_data<float>(n, tt::pattern::random);
  int* first = d.ptr;  // (not const int*: the same kernels as the other tests)
  int* last = d.ptr + n;
  const std::vector<long long> largest = tt::cub_top_indices(d.ptr, n, true, 4);
  const std::vector<long long> smallest = tt::cub_top_indices(d.ptr, n, false, 4);
  const tt::top_list<int> expect_largest{largest, tt::gather(d.ptr, largest)};
  const tt::top_list<int> expect_smallest{smallest, tt::gather(d.ptr, smallest)};
  const std::vector<long long> float_smallest = tt::cub_top_indices(f.ptr, n, false, 4);
  const tt::top_list<float> expect_float_smallest{float_smallest, tt::gather(f.ptr, float_smallest)};

  static_assert(tally::max_top_k == 32);
  static_assert(std::is_same_v<decltype(tally::top_k<4>(first, last)), tally::top_k_result<int, 4>>);
  static_assert(std::is_same_v<decltype(tally::top_k<4>(tally::par, first, last, tally::greater<>{})),
                               tally::top_k_result<int, 4>>);
  static_assert(std::is_same_v<decltype(tally::top_k<4>(tally::host, (const double*)nullptr, (const double*)nullptr)),
                               tally::top_k_result<double, 4>>);
  static_assert(
      std::is_same_v<decltype(tally::top_k_into<4>(first, last, (int*)nullptr, (std::int64_t*)nullptr)), void>);
  static_assert(std::is_same_v<decltype(tally::top_k_result<int, 4>{}.indices), std::array<std::int64_t, 4>>);

  auto check_result = [&](const auto& r, const auto& expected, const std::string& what) {
    if (!tt::report(r.count == 4, what + ": count " + std::to_string(r.count))) return;
    using V = typename std::decay_t<decltype(r.values)>::value_type;
    tt::check_list(std::vector<long long>(r.indices.begin(), r.indices.end()),
                   std::vector<V>(r.values.begin(), r.values.end()), expected, 4, what);
  };
  check_result(tally::top_k<4>(first, last), expect_largest, "top_k<4>(first, last)");  // no policy: tally::par
  check_result(tally::top_k<4>(first, last, tally::greater<>{}), expect_smallest, "top_k<4>(first, last, greater<>)");
  check_result(tally::top_k<4>(first, last, tally::less<int>{}), expect_largest, "top_k<4>(..., less<int>)");
  check_result(tally::top_k<4>(tally::par, first, last, tally::greater<int>{}), expect_smallest,
               "top_k<4>(par, ..., greater<int>)");
  check_result(tally::top_k<4>(tally::par.on(tt::test_stream()), first, last), expect_largest,
               "top_k<4>(par.on(stream), ...)");  // sync on a stream
  check_result(tally::top_k<4>(tally::par, f.ptr, f.ptr + n, tally::greater<float>{}), expect_float_smallest,
               "top_k<4>(par, float, greater<float>)");

  // top_k_into without a policy (the default stream); values converted to double,
  // indices to long long; thrust::device_ptr outputs.
  tt::device_buffer<double> values{8};
  tt::device_buffer<long long> indices{8};
  tt::device_buffer<float> float_values{4};
  tt::device_buffer<std::int64_t> float_indices{4};
  TT_CUDA(cudaMemset(values.data(), 0, 8 * sizeof(double)));
  TT_CUDA(cudaMemset(indices.data(), 0xff, 8 * sizeof(long long)));
  TT_CUDA(cudaDeviceSynchronize());
  tally::top_k_into<4>(first, last, values.data(), indices.data());
  tally::top_k_into<4>(first, last, values.data() + 4, indices.data() + 4, tally::greater<>{});
  tally::top_k_into<4>(tally::par, f.ptr, f.ptr + n, thrust::device_ptr<float>(float_values.data()),
                       thrust::device_ptr<std::int64_t>(float_indices.data()), tally::greater<>{});
  TT_CUDA(cudaDeviceSynchronize());
  const auto hv = values.download();
  const auto hi = indices.download();
  const auto fv = float_values.download();
  const auto fi = float_indices.download();
  for (int i = 0; i < 4; ++i) {
    CHECK(hi[std::size_t(i)] == largest[std::size_t(i)]);
    CHECK(hv[std::size_t(i)] == double(expect_largest.values[std::size_t(i)]));
    CHECK(hi[std::size_t(4 + i)] == smallest[std::size_t(i)]);
    CHECK(hv[std::size_t(4 + i)] == double(expect_smallest.values[std::size_t(i)]));
    CHECK(fi[std::size_t(i)] == float_smallest[std::size_t(i)]);
    CHECK(fv[std::size_t(i)] == expect_float_smallest.values[std::size_t(i)]);
  }

  // The host backend's top_k_into, on host memory.
  const std::vector<int> host = d.host();
  int host_values[4] = {};
  std::int64_t host_indices[4] = {};
  tally::top_k_into<4>(tally::host, host.begin(), host.end(), host_values, host_indices);
  for (int i = 0; i < 4; ++i) {
    CHECK(host_indices[i] == largest[std::size_t(i)]);
    CHECK(host_values[i] == expect_largest.values[std::size_t(i)]);
  }
}

TEST_CASE("top_k: invalid arguments with a GPU present") {
  const auto d = tt::make_data<int>(1000, tt::pattern::random);
  const std::vector<long long> largest = tt::cub_top_indices(d.ptr, 1000, true, 3);
  tt::device_buffer<int> values{3};
  tt::device_buffer<std::int64_t> indices{3};
  TT_CUDA(cudaMemset(values.data(), 0, 3 * sizeof(int)));
  TT_CUDA(cudaMemset(indices.data(), 0, 3 * sizeof(std::int64_t)));
  TT_CUDA(cudaDeviceSynchronize());
  auto names = [](const tally::error& e, const char* algorithm) {
    return std::string(e.what()).find(algorithm) != std::string::npos;
  };
  tt::for_each_top_k_policy([&](const auto& p, const std::string& label) {
    INFO(label);
    // last before first: an argument error, not a CUDA error
    try {
      (void)tally::top_k<3>(p, d.ptr + 10, d.ptr);
      FAIL_CHECK("reversed range: no exception");
    } catch (const tally::cuda_error& e) {
      FAIL_CHECK("reversed range: a cuda_error instead of an argument error: ", e.what());
    } catch (const tally::error& e) {
      CHECK(names(e, "tally::top_k"));
    }
    try {
      tally::top_k_into<3>(p, d.ptr + 10, d.ptr, values.data(), indices.data());
      FAIL_CHECK("reversed range: no exception");
    } catch (const tally::cuda_error& e) {
      FAIL_CHECK("reversed range: a cuda_error instead of an argument error: ", e.what());
    } catch (const tally::error& e) {
      CHECK(names(e, "tally::top_k_into"));
    }
    // a null pointer with a non-empty range
    int* null = nullptr;
    CHECK_THROWS_AS((void)tally::top_k<3>(p, null, null + 5), tally::error);
    CHECK_THROWS_AS(tally::top_k_into<3>(p, null, null + 5, values.data(), indices.data()), tally::error);
    // null outputs
    std::int64_t* null_indices = nullptr;
    for (int* out : {null, values.data()}) {
      try {
        tally::top_k_into<3>(p, d.ptr, d.ptr + 1000, out, out ? null_indices : indices.data());
        FAIL_CHECK("null output: no exception");
      } catch (const tally::cuda_error& e) {
        FAIL_CHECK("null output: a cuda_error instead of an argument error: ", e.what());
      } catch (const tally::error& e) {
        CHECK(names(e, "tally::top_k_into"));
      }
    }
  });
  TT_CUDA(cudaDeviceSynchronize());
  CHECK(values.download() == std::vector<int>(3, 0));  // failed calls wrote nothing
  CHECK(indices.download() == std::vector<std::int64_t>(3, 0));
  // The library still works after the errors.
  const auto r = tally::top_k<3>(tally::par, d.ptr, d.ptr + 1000);
  CHECK(r.count == 3);
  CHECK(std::vector<long long>(r.indices.begin(), r.indices.end()) == largest);
}

TEST_CASE("top_k: pageable host memory is rejected (or used, where the device can)") {
  int device = 0, pageable = 0;
  TT_CUDA(cudaGetDevice(&device));
  TT_CUDA(cudaDeviceGetAttribute(&pageable, cudaDevAttrPageableMemoryAccess, device));
  std::vector<int> host(5000);
  std::iota(host.begin(), host.end(), 1);
  const std::vector<int> before = host;
  const auto d = tt::make_data<int>(5000, tt::pattern::random);
  const std::vector<long long> largest = tt::cub_top_indices(d.ptr, 5000, true, 3);
  tt::for_each_top_k_policy([&](const auto& p, const std::string& label) {
    INFO(label, " pageableMemoryAccess=", pageable);
    int host_values[3] = {-1, -1, -1};  // pageable outputs
    std::int64_t host_indices[3] = {-1, -1, -1};
    if (pageable) {
      const auto r = tally::top_k<3>(p, host.data(), host.data() + host.size());
      CHECK(r.indices == std::array<std::int64_t, 3>{4999, 4998, 4997});
      tally::top_k_into<3>(p.on(tt::test_stream()), d.ptr, d.ptr + 5000, host_values, host_indices);
      TT_CUDA(cudaStreamSynchronize(tt::test_stream()));
      CHECK(std::vector<long long>(host_indices, host_indices + 3) == largest);
    } else {
      try {
        (void)tally::top_k<3>(p, host.data(), host.data() + host.size());
        FAIL_CHECK("no exception for a pageable host input");
      } catch (const tally::cuda_error& e) {
        FAIL_CHECK("a cuda_error instead of an argument error: ", e.what());
      } catch (const tally::error& e) {
        CHECK(std::string(e.what()).find("tally::top_k") != std::string::npos);
      }
      try {
        tally::top_k_into<3>(p, d.ptr, d.ptr + 5000, host_values, host_indices);
        FAIL_CHECK("no exception for pageable host outputs");
      } catch (const tally::cuda_error& e) {
        FAIL_CHECK("a cuda_error instead of an argument error: ", e.what());
      } catch (const tally::error& e) {
        CHECK(std::string(e.what()).find("tally::top_k_into") != std::string::npos);
      }
      CHECK(host_indices[0] == -1);
      CHECK(host_values[0] == -1);
    }
  });
  CHECK(host == before);
}
