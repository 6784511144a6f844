// CCCL interop on the device, on every backend: reduce, reduce_into, max_element,
// min_element, top_k<4> and copy_if (stable on every backend) called with CCCL's function objects (cuda::std::plus, thrust::plus,
// cuda::maximum, thrust::minimum, cuda::std::less, thrust::greater, cuda::std::logical_not)
// on a thrust::device_vector's begin()/end(), compared with the same call with tally's own
// function object on the raw pointer, and with CUB (int sums, selections) or the host
// reference in the library's order (floats with NaN: CCCL's max/min/less are computed as
// tally's, NaN greatest).
//
// Kept small to compile: two value types (int, float), one size list, few calls per
// backend (each backend x call x iterator x operator is its own kernel until the entry
// points unwrap iterators and map CCCL's function objects to tally's).
#include "common.cuh"

#include <cuda/functional>
#include <cuda/std/functional>
#include <thrust/device_vector.h>
#include <thrust/functional.h>

// Named namespace, not an anonymous one: tally's kernels have hidden visibility, which
// nvcc warns about (#1407-D) when a template argument has internal linkage.
namespace cccl_interop_gpu {

struct is_positive {
  __host__ __device__ bool operator()(float x) const { return x > 0.0f; }
};

inline std::vector<long long> sizes() { return tt::listed_sizes({1, 2, 33, 4097, 65537, (1LL << 20) + 3}); }

template <class T>
thrust::device_vector<T> to_device_vector(const tt::dataset<T>& d) {
  thrust::device_vector<T> v(std::size_t(d.n));
  TT_CUDA(
      cudaMemcpy(thrust::raw_pointer_cast(v.data()), d.ptr, std::size_t(d.n) * sizeof(T), cudaMemcpyDeviceToDevice));
  return v;
}

/// The index of the first best item of v in the library's order (largest when Max).
template <bool Max>
long long host_arg(const std::vector<float>& v) {
  long long best = 0;
  for (long long i = 1; i < (long long)v.size(); ++i)
    if (Max ? tt::lib_less(v[best], v[i]) : tt::lib_less(v[i], v[best])) best = i;
  return best;
}

/// One call, with the exception turned into a failed check.
template <class F>
auto attempt(const std::string& what, F&& f) -> std::optional<decltype(f())> {
  try {
    return f();
  } catch (const std::exception& e) {
    tt::report(false, what + ": threw " + e.what());
    return std::nullopt;
  }
}

}  // namespace cccl_interop_gpu

using namespace cccl_interop_gpu;

TEST_CASE_TEMPLATE("cccl interop: reduce with CCCL's function objects on a device_vector", B, TT_BACKENDS) {
  tt::failure_budget budget;
  const auto policy = tally::par.with(B{});
  const std::string b = std::string(" backend=") + tt::backend_label(B{});
  constexpr float inf = std::numeric_limits<float>::infinity();
  for (long long n : sizes()) {
    INFO("n=", n);
    const auto ints = tt::make_data<int>(n, tt::pattern::random);
    const auto floats = tt::make_data<float>(n, tt::pattern::with_nan);  // NaN at n/2 and ~1 in 61
    const thrust::device_vector<int> vi = to_device_vector(ints);
    const thrust::device_vector<float> vf = to_device_vector(floats);
    const std::vector<float> host = floats.host();

    // int sum: CUB, tally::plus on the raw pointer, cuda::std::plus / thrust::plus on the vector.
    const int sum = tt::cub_reduce(ints.ptr, n, 7, tt::ref_plus<int>{});
    std::string what = "plus<int> tally::plus raw pointer" + b;
    if (auto r = attempt(what, [&] { return tally::reduce(policy, ints.ptr, ints.ptr + n, 7, tally::plus<int>{}); }))
      tt::check_exact(*r, sum, what);
    what = "plus<int> cuda::std::plus<int> device_vector" + b;
    if (auto r = attempt(what, [&] { return tally::reduce(policy, vi.begin(), vi.end(), 7, cuda::std::plus<int>{}); }))
      tt::check_exact(*r, sum, what);
    what = "plus<int> thrust::plus<> device_vector reduce_into" + b;
    {
      thrust::device_vector<int> out(1, -1);
      if (attempt(what, [&] {
            tally::reduce_into(policy.on(tt::test_stream()), vi.cbegin(), vi.cend(), out.begin(), 7, thrust::plus<>{});
            TT_CUDA(cudaStreamSynchronize(tt::test_stream()));
            return true;
          }))
        tt::check_exact(int(out[0]), sum, what);
    }

    // float max and min over data with NaN: the library's order (NaN greatest).
    const float max = tt::host_max(host, -inf), min = tt::host_min(host, inf);
    what = "max<float> tally::maximum raw pointer" + b;
    if (auto r = attempt(
            what, [&] { return tally::reduce(policy, floats.ptr, floats.ptr + n, -inf, tally::maximum<float>{}); }))
      tt::check_exact(*r, max, what);
    what = "max<float> cuda::maximum<float> device_vector" + b;
    if (auto r =
            attempt(what, [&] { return tally::reduce(policy, vf.begin(), vf.end(), -inf, cuda::maximum<float>{}); }))
      tt::check_exact(*r, max, what);
    what = "min<float> thrust::minimum<> device_vector" + b;
    if (auto r = attempt(what, [&] { return tally::reduce(policy, vf.begin(), vf.end(), inf, thrust::minimum<>{}); }))
      tt::check_exact(*r, min, what);
  }
}

TEST_CASE_TEMPLATE("cccl interop: max_element, min_element and top_k<4> with CCCL's comparators", B, TT_BACKENDS) {
  tt::failure_budget budget;
  const auto policy = tally::par.with(B{});
  const std::string b = std::string(" backend=") + tt::backend_label(B{});
  for (long long n : sizes()) {
    INFO("n=", n);
    const auto floats = tt::make_data<float>(n, tt::pattern::with_nan);
    const thrust::device_vector<float> vf = to_device_vector(floats);
    const std::vector<float> host = floats.host();
    const float* first = floats.ptr;
    const long long expect_max = host_arg<true>(host), expect_min = host_arg<false>(host);

    std::string what = "max_element tally::less<> raw pointer" + b;
    if (auto r = attempt(what, [&] { return tally::max_element(policy, first, first + n) - first; }))
      tt::report(*r == expect_max, what + ": index " + std::to_string(*r) + ", expected " + std::to_string(expect_max));
    what = "max_element cuda::std::less<> device_vector" + b;
    if (auto r = attempt(
            what, [&] { return tally::max_element(policy, vf.begin(), vf.end(), cuda::std::less<>{}) - vf.begin(); }))
      tt::report(*r == expect_max, what + ": index " + std::to_string(*r) + ", expected " + std::to_string(expect_max));
    // min_element under greater: the largest again (NaN first).
    what = "min_element thrust::greater<float> device_vector" + b;
    if (auto r = attempt(what, [&] {
          return tally::min_element(policy, vf.begin(), vf.end(), thrust::greater<float>{}) - vf.begin();
        }))
      tt::report(*r == expect_max, what + ": index " + std::to_string(*r) + ", expected " + std::to_string(expect_max));
    what = "max_element cuda::std::greater<> device_vector (the smallest)" + b;
    if (auto r = attempt(what, [&] {
          return tally::max_element(policy, vf.begin(), vf.end(), cuda::std::greater<>{}) - vf.begin();
        }))
      tt::report(*r == expect_min, what + ": index " + std::to_string(*r) + ", expected " + std::to_string(expect_min));

    // top_k<4>: the host reference, tally's default comparator on the raw pointer, and
    // cuda::std::less<> on the vector give the same values and indices.
    const auto ref = tally::top_k<4>(tally::host, host.begin(), host.end());
    auto check_top = [&](const auto& r, const std::string& which) {
      if (!tt::report(r.count == ref.count, which + ": count " + std::to_string(r.count))) return;
      for (int i = 0; i < ref.count; ++i) {
        tt::report(r.indices[i] == ref.indices[i], which + ": indices[" + std::to_string(i) + "] " +
                                                       std::to_string(r.indices[i]) + ", expected " +
                                                       std::to_string(ref.indices[i]));
        tt::check_exact(r.values[i], ref.values[i], which + ": values[" + std::to_string(i) + "]");
      }
    };
    what = "top_k<4> tally::less<> raw pointer" + b;
    if (auto r = attempt(what, [&] { return tally::top_k<4>(policy, first, first + n); })) check_top(*r, what);
    what = "top_k<4> cuda::std::less<> device_vector" + b;
    if (auto r = attempt(what, [&] { return tally::top_k<4>(policy, vf.begin(), vf.end(), cuda::std::less<>{}); }))
      check_top(*r, what);
  }
}

TEST_CASE_TEMPLATE("cccl interop: copy_if from and into device_vectors", B, TT_BACKENDS) {
  tt::failure_budget budget;
  const auto policy = tally::par.with(B{});
  const std::string b = std::string(" backend=") + tt::backend_label(B{});
  for (long long n : sizes()) {
    INFO("n=", n);
    const auto floats = tt::make_data<float>(n, tt::pattern::with_nan);
    const auto ints = tt::make_data<int>(n, tt::pattern::random);  // [-31, 31]: ~1 in 63 is zero
    const thrust::device_vector<float> vf = to_device_vector(floats);
    const thrust::device_vector<int> vi = to_device_vector(ints);
    const std::vector<float> host = floats.host();
    const std::vector<int> host_ints = ints.host();

    std::vector<float> positive, at_zero;
    for (long long i = 0; i < n; ++i) {
      if (host[i] > 0.0f) positive.push_back(host[i]);
      if (host_ints[i] == 0) at_zero.push_back(host[i]);
    }
    // The items in input order, on every backend.
    auto same = [](const std::vector<float>& a, const std::vector<float>& e) {
      if (a.size() != e.size()) return false;
      for (std::size_t i = 0; i < a.size(); ++i)
        if (!tt::same_value(a[i], e[i])) return false;
      return true;
    };

    // tally on raw pointers, and the same through device_vector iterators (input and output).
    {
      tt::device_buffer<float> raw_out(static_cast<std::size_t>(n));
      const std::string what = "copy_if x > 0 raw pointers" + b;
      if (auto end = attempt(what, [&] {
            return tally::copy_if(policy, floats.ptr, floats.ptr + n, raw_out.data(), is_positive{}) - raw_out.data();
          }))
        tt::report(same(tt::device_buffer<float>::download(raw_out.data(), std::size_t(*end)), positive),
                   what + ": " + std::to_string(*end) + " items, expected " + std::to_string(positive.size()));
    }
    {
      thrust::device_vector<float> out(static_cast<std::size_t>(n));
      const std::string what = "copy_if x > 0 device_vector" + b;
      if (auto end = attempt(what, [&] {
            return tally::copy_if(policy, vf.begin(), vf.end(), out.begin(), is_positive{}) - out.begin();
          })) {
        std::vector<float> got(static_cast<std::size_t>(*end));
        thrust::copy(out.begin(), out.begin() + *end, got.begin());
        tt::report(same(got, positive),
                   what + ": " + std::to_string(*end) + " items, expected " + std::to_string(positive.size()));
      }
    }
    // The stencil form with a CCCL function object as the predicate.
    {
      thrust::device_vector<float> out(static_cast<std::size_t>(n));
      const std::string what = "copy_if stencil cuda::std::logical_not<> device_vector" + b;
      if (auto end = attempt(what, [&] {
            return tally::copy_if(policy, vf.begin(), vf.end(), vi.begin(), out.begin(), cuda::std::logical_not<>{}) -
                   out.begin();
          })) {
        std::vector<float> got(static_cast<std::size_t>(*end));
        thrust::copy(out.begin(), out.begin() + *end, got.begin());
        tt::report(same(got, at_zero),
                   what + ": " + std::to_string(*end) + " items, expected " + std::to_string(at_zero.size()));
      }
    }
  }
}

TEST_CASE("cccl interop: CUB agrees with the references used above") {
  // The int sum above is CUB's; here CUB's selection is checked against the host's.
  tt::failure_budget budget;
  const long long n = (1LL << 20) + 3;
  const auto floats = tt::make_data<float>(n, tt::pattern::with_nan);
  const std::vector<float> host = floats.host();
  long long expected = 0;
  for (float x : host) expected += x > 0.0f;
  const tally_support::selection<float> selected =
      tally_support::cub_select(floats.ptr, std::uint64_t(n), is_positive{});
  CHECK(selected.count == expected);
}
