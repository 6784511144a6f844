// tally::copy_if over more than 2^31 items (64-bit counts, offsets and tile numbers):
//  - thrust::counting_iterator<long long> inputs with closed-form answers, under
//    tally::par, par.with(shared_memory), par.unordered() and par.with(atomic):
//      n = 2^31 + 17, i % 7 == 3: the count only, into a thrust::discard_iterator
//        (copy_if_into's count, and the end copy_if returns);
//      n = 2^33 + 5, i % 7 != 3: a count above 2^32 (a 32-bit counter wraps);
//      n = 2^31 + 17, i % 1000003 == 5: ~2148 items into device memory, checked item for
//        item against 5 + 1000003 j (stable) or as a set (unordered), guards around;
//  - uint8 data of n = 2^31 + 17 items in device memory, ~50% selected: tally::par item
//    for item against cub::DeviceSelect::If, par.unordered() by the histogram of the
//    output (the multiset of a uint8 sequence), both with the rest of the output untouched.
#include "copy_if_common.cuh"

#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/discard_iterator.h>

namespace {

/// (i % m == r) != negate.
struct mod_pred {
  long long m, r;
  bool negate;
  __host__ __device__ bool operator()(long long i) const { return (i % m == r) != negate; }
};

/// How many i in [0, n) have i % m == r (0 <= r < m).
long long closed_count(long long n, long long m, long long r) { return n > r ? (n - r - 1) / m + 1 : 0; }

__global__ void histogram_kernel(const std::uint8_t* p, long long n, unsigned long long* bins) {
  __shared__ unsigned int local[256];
  for (int b = static_cast<int>(threadIdx.x); b < 256; b += static_cast<int>(blockDim.x)) local[b] = 0;
  __syncthreads();
  const long long stride = static_cast<long long>(gridDim.x) * blockDim.x;
  for (long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride)
    atomicAdd(&local[p[i]], 1u);
  __syncthreads();
  for (int b = static_cast<int>(threadIdx.x); b < 256; b += static_cast<int>(blockDim.x))
    if (local[b]) atomicAdd(&bins[b], static_cast<unsigned long long>(local[b]));
}

std::vector<unsigned long long> histogram(const std::uint8_t* p, long long n) {
  tt::device_buffer<unsigned long long> bins(256);
  TT_CUDA(cudaMemset(bins.data(), 0, 256 * sizeof(unsigned long long)));
  // At most 8192 blocks x 256 threads: each block's shared counters stay below 2^32.
  histogram_kernel<<<tt::grid_for(n), 256>>>(p, n, bins.data());
  TT_CUDA(cudaGetLastError());
  TT_CUDA(cudaDeviceSynchronize());
  return bins.download();
}

}  // namespace

TEST_CASE("copy_if: the closed forms of the huge tests hold on the host") {
  const std::pair<long long, long long> cases[] = {{7, 3}, {1000003, 5}, {5, 0}, {5, 4}};
  for (long long n : {0LL, 1LL, 3LL, 4LL, 5LL, 10LL, 11LL, 12LL, 100003LL}) {
    for (const auto& mr : cases) {
      const long long m = mr.first, r = mr.second;
      long long c = 0;
      for (long long i = 0; i < n; ++i) c += i % m == r;
      CHECK_MESSAGE(closed_count(n, m, r) == c, "n=", n, " m=", m, " r=", r);
    }
  }
}

TEST_CASE("copy_if over more than 2^31 items through counting iterators") {
  tt::failure_budget budget;
  const thrust::counting_iterator<long long> first(0);
  auto run = [&](const auto& policy, const std::string& label) {
    constexpr bool stable = !tt::unordered_policy_v<std::decay_t<decltype(policy)>>;
    const cudaStream_t stream = tt::test_stream();
    tt::device_buffer<std::int64_t> count(3);
    std::int64_t guard;
    std::memset(&guard, tt::guard_byte, sizeof guard);
    auto counted = [&](long long n, mod_pred pred, const std::string& what) -> std::optional<long long> {
      try {
        TT_CUDA(cudaMemset(count.data(), tt::guard_byte, 3 * sizeof(std::int64_t)));
        TT_CUDA(cudaDeviceSynchronize());
        tally::copy_if_into(policy.on(stream), first, first + n, thrust::make_discard_iterator(), count.data() + 1,
                            pred);
        TT_CUDA(cudaStreamSynchronize(stream));
        const std::vector<std::int64_t> c = count.download();
        if (!tt::report(c[0] == guard && c[2] == guard, what + ": wrote next to *count")) return std::nullopt;
        return static_cast<long long>(c[1]);
      } catch (const std::exception& e) {
        tt::report(false, what + ": threw " + e.what());
        return std::nullopt;
      }
    };
    auto returned = [&](long long n, mod_pred pred, const std::string& what) -> std::optional<long long> {
      try {
        const auto out = thrust::make_discard_iterator();
        return static_cast<long long>(tally::copy_if(policy, first, first + n, out, pred) - out);
      } catch (const std::exception& e) {
        tt::report(false, what + ": threw " + e.what());
        return std::nullopt;
      }
    };
    {
      const long long n = (1LL << 31) + 17;
      const mod_pred pred{7, 3, false};
      const long long expected = closed_count(n, 7, 3);
      std::string what = label + " n=2^31+17 i % 7 == 3 copy_if_into(discard_iterator)";
      if (auto c = counted(n, pred, what)) tt::check_exact(*c, expected, what);
      what = label + " n=2^31+17 i % 7 == 3 copy_if(discard_iterator) end - result";
      if (auto c = returned(n, pred, what)) tt::check_exact(*c, expected, what);
    }
    {
      // 6/7 of 2^33 + 5 items: a count beyond 32 bits.
      const long long n = (1LL << 33) + 5;
      const mod_pred pred{7, 3, true};
      const long long expected = n - closed_count(n, 7, 3);
      REQUIRE(expected > (1LL << 32));
      std::string what = label + " n=2^33+5 i % 7 != 3 copy_if_into(discard_iterator)";
      if (auto c = counted(n, pred, what)) tt::check_exact(*c, expected, what);
      what = label + " n=2^33+5 i % 7 != 3 copy_if(discard_iterator) end - result";
      if (auto c = returned(n, pred, what)) tt::check_exact(*c, expected, what);
    }
    {
      const long long n = (1LL << 31) + 17, m = 1000003, r = 5;
      const mod_pred pred{m, r, false};
      const long long expected = closed_count(n, m, r);
      REQUIRE(expected == 2148);
      std::vector<long long> want(static_cast<std::size_t>(expected));
      for (long long j = 0; j < expected; ++j) want[std::size_t(j)] = r + m * j;
      tt::guarded_output<long long> out(expected, 2);
      for (tt::copy_form form : tt::copy_forms) {
        const std::string what =
            label + " n=2^31+17 i % 1000003 == 5 " + tt::copy_form_name(form) + " into device memory";
        // run_copy_if checks the count against n; the output has room for `expected`
        // items only, which a correct call fills exactly (guards after it).
        const auto c = tt::run_copy_if(policy, first, n, tt::no_stencil{}, out, pred, form, what);
        if (!c || !tt::report(*c == expected, what + ": count " + std::to_string(*c) + ", expected " +
                                                  std::to_string(expected)))
          continue;
        std::vector<long long> got = tt::device_buffer<long long>::download(out.data(), std::size_t(expected));
        if (!stable) std::sort(got.begin(), got.end());
        std::size_t bad = 0;
        while (bad < got.size() && got[bad] == want[bad]) ++bad;
        tt::report(bad == got.size(), what + ": item " + std::to_string(bad) + " is " +
                                          (bad < got.size() ? std::to_string(got[bad]) : std::string()) +
                                          ", expected " +
                                          (bad < want.size() ? std::to_string(want[bad]) : std::string()) +
                                          (stable ? "" : " (sorted)"));
      }
    }
  };
  run(tally::par, "tally::par");
  run(tally::par.with(tally::backend::shared_memory), "par.with(shared_memory)");
  run(tally::par.unordered(), "par.unordered()");
  run(tally::par.with(tally::backend::atomic), "par.with(atomic)");
}

TEST_CASE("copy_if on 2^31 + 17 uint8 items in device memory") {
  tt::failure_budget budget;
  const long long n = (1LL << 31) + 17;
  const auto d = tt::make_items<std::uint8_t>(n);
  const tt::select_pred<std::uint8_t> pred{(std::uint64_t(50) << 32) / 100};  // x < 128
  tt::reference<std::uint8_t> expected = tt::cub_select(d.ptr, n, pred);
  INFO("n=2^31+17 uint8 ~50% selected; CUB count ", expected.count);
  CHECK(expected.count > (1LL << 29));  // about 2^30
  const std::vector<unsigned long long> want_hist = histogram(expected.items.data(), expected.count);
  {  // CUB's histogram against the input's, bin by bin: x < 128 keeps the low bins whole
    const std::vector<unsigned long long> in_hist = histogram(d.ptr, n);
    for (int b = 0; b < 256; ++b)
      tt::check_exact(want_hist[std::size_t(b)], b < 128 ? in_hist[std::size_t(b)] : 0ull,
                      "CUB's output histogram, bin " + std::to_string(b));
  }
  tt::guarded_output<std::uint8_t> out(n, 16);
  for (tt::copy_form form : tt::copy_forms) {
    std::string what = std::string(tt::copy_form_name(form)) + " tally::par";
    if (auto c = tt::run_copy_if(tally::par, d.ptr, n, tt::no_stencil{}, out, pred, form, what))
      tt::check_selected(out.data(), *c, expected, true, what);
    what = std::string(tt::copy_form_name(form)) + " par.unordered()";
    if (auto c = tt::run_copy_if(tally::par.unordered(), d.ptr, n, tt::no_stencil{}, out, pred, form, what)) {
      if (tt::report(*c == expected.count,
                     what + ": count " + std::to_string(*c) + ", expected " + std::to_string(expected.count))) {
        const std::vector<unsigned long long> got = histogram(out.data(), *c);
        for (int b = 0; b < 256; ++b)
          tt::check_exact(got[std::size_t(b)], want_hist[std::size_t(b)],
                          what + ": output histogram, bin " + std::to_string(b));
      }
    }
  }
}
