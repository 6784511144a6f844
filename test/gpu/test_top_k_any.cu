// tally::top_k and tally::top_k_into with k known at run time (flat): every k from 1 to
// past n, against the host reference (a partial sort by (the library's order, index)):
// the same indices, in the same order, and the item found at each index as its value
// (bit for bit: NaN payloads and the sign of zero included). Sizes around the select
// kernel's sort chunk (2048) and buffer limits, and at the limits of the one-row
// streaming way (8192 items, 2 x SMs chunks, 2^20 .. 2^23 by k); data random, constant,
// ascending, descending, +-inf, NaN, zeros of both signs, three distinct values;
// tally::less<> and tally::greater<>; both forms; bad arguments. Built against CCCL >= 3.3 (CCCL 3.5 with
// scripts/gpu-check.sh --cccl-dir): against cub::DeviceTopK, as multisets.
#include "common.cuh"

#include <tally/top_k.cuh>
#include <tally_support/cub_top_k.cuh>

namespace top_k_any {

using tally_support::device_buffer;

template <class T>
bool same_bits(const T& a, const T& b) {
  return std::memcmp(&a, &b, sizeof(T)) == 0;
}

/// Both forms of the run-time-k top_k on d[0..n) against the host reference.
template <class T, class Compare>
void check_k(const T* d, const std::vector<T>& host, long long k, Compare comp, const std::string& label) {
  const long long n = static_cast<long long>(host.size());
  const std::string what = label + " n=" + std::to_string(n) + " k=" + std::to_string(k);
  INFO(what);
  const auto want = tally::top_k(tally::host, host.begin(), host.end(), k, comp);
  const long long count = std::min(k, n);
  REQUIRE(static_cast<long long>(want.indices.size()) == count);

  const auto got = tally::top_k(tally::par, d, d + n, k, comp);
  REQUIRE(static_cast<long long>(got.indices.size()) == count);
  long long wrong = 0;
  for (long long i = 0; i < count && wrong < 5; ++i) {
    const auto j = static_cast<std::size_t>(i);
    if (got.indices[j] != want.indices[j] || !same_bits(got.values[j], host[static_cast<std::size_t>(want.indices[j])])) {
      ++wrong;
      FAIL_CHECK("entry ", i, ": index ", got.indices[j], " want ", want.indices[j]);
    }
  }

  // top_k_into on a stream, with a guard entry after the count that must stay untouched.
  device_buffer<T> values(static_cast<std::size_t>(count + 1));
  device_buffer<std::int64_t> indices(static_cast<std::size_t>(count + 1));
  std::vector<T> guard_v(static_cast<std::size_t>(count + 1), T(7));
  std::vector<std::int64_t> guard_i(static_cast<std::size_t>(count + 1), -7);
  values.copy_from_host(guard_v);
  indices.copy_from_host(guard_i);
  tally::top_k_into(tally::par.on(tt::test_stream()), d, d + n, k, values.data(), indices.data(), comp);
  REQUIRE(cudaStreamSynchronize(tt::test_stream()) == cudaSuccess);
  const std::vector<T> into_v = values.to_host();
  const std::vector<std::int64_t> into_i = indices.to_host();
  for (long long i = 0; i < count; ++i) {
    const auto j = static_cast<std::size_t>(i);
    if (into_i[j] != want.indices[j]) {
      FAIL_CHECK("top_k_into entry ", i, ": index ", into_i[j], " want ", want.indices[j]);
      break;
    }
    CHECK(same_bits(into_v[j], host[static_cast<std::size_t>(want.indices[j])]));
  }
  CHECK(into_i[static_cast<std::size_t>(count)] == -7);
  CHECK(same_bits(into_v[static_cast<std::size_t>(count)], T(7)));
}

template <class T>
std::vector<long long> ks_for(long long n) {
  std::vector<long long> ks = {1, 2, 31, 32, 33, 100, 1024, 2047, 2048, 2049, 5000, n - 1, n, n + 1};
  std::vector<long long> out;
  for (long long k : ks)
    if (k >= 1 && k <= n + 1 && std::find(out.begin(), out.end(), k) == out.end()) out.push_back(k);
  return out;
}

template <class T>
void check_data(const T* d, const std::vector<T>& host, const std::string& label) {
  const long long n = static_cast<long long>(host.size());
  for (long long k : ks_for<T>(n)) {
    check_k(d, host, k, tally::less<>{}, label + " less");
    if (k == 1 || k == 33 || k == 2049 || k == n) check_k(d, host, k, tally::greater<>{}, label + " greater");
  }
}

template <class T>
void run_sizes() {
  std::vector<long long> sizes = {1, 2, 33, 1000, 4097, 70001, (1LL << 20) + 3};
  if (tt::sanitizing()) sizes = {1, 33, 4097, 70001};  // the buffers, the merge rounds: hours otherwise
  for (long long n : sizes) {
    for (tt::pattern p : tt::patterns_for<T>(n)) {
      const tt::dataset<T> d = tt::make_data<T>(n, p);
      check_data(d.ptr, d.host(), std::string(tt::type_name<T>()) + " " + tt::pattern_name(p));
    }
    // Three distinct values, and (floats) zeros of both signs among them.
    std::vector<T> three(static_cast<std::size_t>(n));
    for (long long i = 0; i < n; ++i) {
      const int v = static_cast<int>(tt::hash(static_cast<std::uint64_t>(i), 5) % 3);
      if constexpr (std::is_floating_point_v<T>) three[static_cast<std::size_t>(i)] = v == 0 ? T(-0.0) : v == 1 ? T(0.0) : T(2.5);
      else three[static_cast<std::size_t>(i)] = static_cast<T>(v - 1);
    }
    device_buffer<T> dev(three);
    check_data(dev.data(), three, std::string(tt::type_name<T>()) + " three values");
  }
}

}  // namespace top_k_any

TEST_CASE_TEMPLATE("run-time k top_k matches the host reference: every k, size and pattern", T, float, int, double,
                   std::int8_t) {
  top_k_any::run_sizes<T>();
}

TEST_CASE("run-time k top_k: 2^24 + 5 random floats, k = 1, 50, 1024, 2^16 + 1") {
  if (tt::sanitizing()) return;
  const long long n = (1LL << 24) + 5;
  const tt::dataset<float> d = tt::make_data<float>(n, tt::pattern::random);
  const std::vector<float> host = d.host();
  for (long long k : {1LL, 50LL, 1024LL, (1LL << 16) + 1})
    top_k_any::check_k(d.ptr, host, k, tally::less<>{}, "float random");
  // A start that is not 16-byte aligned (the select's vector loads take aligned inputs only).
  const std::vector<float> shifted(host.begin() + 1, host.end());
  for (long long k : {7LL, 1000LL}) top_k_any::check_k(d.ptr + 1, shifted, k, tally::less<>{}, "float random, +1");
  const tt::dataset<float> c = tt::make_data<float>(n, tt::pattern::constant);
  top_k_any::check_k(c.ptr, c.host(), 1000, tally::less<>{}, "float constant");
}

TEST_CASE("run-time k top_k: one block sorts up to 4096 items, and up to 4096 candidates") {
  // Values of at most 4 bytes pack with their index in 64 bits below 2^32 items, and one
  // block sorts up to 4096 such keys (select_sort_capacity, sort_keys.cuh: shares of 128
  // and 256 a warp): every input of at most 4096 items that the stream kernel does not take
  // (k > 64 and fewer than 16 k items), and a sampled threshold's candidates up to 4096
  // (2^18 items at k = 1024: about 2560). Sizes around the shares' and the block's edges.
  std::vector<long long> sizes = {129, 257, 2047, 2048, 2049, 3000, 4095, 4096};
  if (tt::sanitizing()) sizes = {257, 4096};
  for (long long n : sizes) {
    for (tt::pattern p : tt::patterns_for<float>(n)) {
      const tt::dataset<float> d = tt::make_data<float>(n, p);
      const std::vector<float> host = d.host();
      for (long long k : {65LL, 257LL, 1000LL, 1024LL, 2048LL, n - 1, n})
        if (k >= 1 && k <= n) top_k_any::check_k(d.ptr, host, k, tally::less<>{}, std::string("float ") + tt::pattern_name(p));
      top_k_any::check_k(d.ptr, host, n, tally::greater<>{}, std::string("float ") + tt::pattern_name(p));
    }
    const tt::dataset<std::int8_t> b = tt::make_data<std::int8_t>(n, tt::pattern::random);
    top_k_any::check_k(b.ptr, b.host(), n / 2, tally::less<>{}, "int8 random");
    const tt::dataset<double> w = tt::make_data<double>(n, tt::pattern::random);  // 8 bytes: no packing
    top_k_any::check_k(w.ptr, w.host(), n / 2, tally::less<>{}, "double random");
  }
  if (tt::sanitizing()) return;
  for (long long n : {1LL << 18, (1LL << 18) + 1}) {
    for (tt::pattern p : {tt::pattern::random, tt::pattern::sorted, tt::pattern::reversed, tt::pattern::constant}) {
      const tt::dataset<float> d = tt::make_data<float>(n, p);
      const std::vector<float> host = d.host();
      for (long long k : {1024LL, 2048LL, 4096LL})
        top_k_any::check_k(d.ptr, host, k, tally::less<>{}, std::string("float ") + tt::pattern_name(p));
    }
  }
}

TEST_CASE("run-time k top_k: one row split across the GPU, at the limits of that way") {
  // Flat inputs of at most 4 bytes stream as one row (fewer than 8192 items: one block) in up to
  // two chunks an SM for k <= 16, one above (stream_dispatch.cuh) up to a size that depends on k (2^23 for
  // k <= 32, 2^22 for k <= 64, 2^16 for k <= 128, 2^13 for k <= 256); past it, the select kernel. One chunk,
  // two, the slots' edge, each limit and one item past it; beyond the buffer, the last
  // block cuts the candidates where they are (L2).
  int sms = 0;
  REQUIRE(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0) == cudaSuccess);
  if (tt::sanitizing()) {
    // Under compute-sanitizer (racecheck takes minutes a size): one chunk, two, and an
    // input whose candidates outgrow the last block's buffer (cut from L2).
    for (long long n : {1000LL, 8193LL, 16385LL, 1LL << 20}) {
      const tt::dataset<float> d = tt::make_data<float>(n, tt::pattern::random);
      for (long long k : {8LL, 32LL, 256LL}) top_k_any::check_k(d.ptr, d.host(), k, tally::less<>{}, "float random");
    }
    return;
  }
  // Fewer than 8192 items: one block reads its chunk whole, for k <= 64 or at least 16 k
  // items (else the select kernel): around a block's 512 threads and the 16 k edge.
  for (long long n : {5LL, 511LL, 512LL, 513LL, 1023LL, 4095LL, 4096LL}) {
    for (tt::pattern p : tt::patterns_for<float>(n)) {
      const tt::dataset<float> d = tt::make_data<float>(n, p);
      const std::vector<float> host = d.host();
      for (long long k : {1LL, 8LL, 63LL, 64LL, 65LL, 255LL, 256LL})
        if (k <= n) top_k_any::check_k(d.ptr, host, k, tally::less<>{}, std::string("float ") + tt::pattern_name(p));
      top_k_any::check_k(d.ptr, host, n < 50 ? n : 50, tally::greater<>{}, std::string("float ") + tt::pattern_name(p));
    }
  }
  for (long long n : {8191LL, 8192LL, 8193LL, 16384LL, 16385LL, 32769LL}) {
    for (tt::pattern p : tt::patterns_for<float>(n)) {
      const tt::dataset<float> d = tt::make_data<float>(n, p);
      top_k_any::check_data(d.ptr, d.host(), std::string("float ") + tt::pattern_name(p));
    }
    const tt::dataset<std::int8_t> b = tt::make_data<std::int8_t>(n, tt::pattern::random);
    top_k_any::check_data(b.ptr, b.host(), "int8 random");
  }
  const long long slots_edge = 1LL * sms * 8192;  // one chunk an SM (k > 16); two for k <= 16
  for (long long n : {1LL << 16, (1LL << 16) + 1, 1LL << 20, (1LL << 20) + 1, slots_edge - 1, slots_edge + 1,
                      2 * slots_edge - 1, 2 * slots_edge + 1, 1LL << 22, (1LL << 22) + 1}) {
    for (tt::pattern p : {tt::pattern::random, tt::pattern::constant, tt::pattern::sorted, tt::pattern::reversed}) {
      const tt::dataset<float> d = tt::make_data<float>(n, p);
      const std::vector<float> host = d.host();
      for (long long k : {1LL, 8LL, 9LL, 32LL, 33LL, 64LL, 65LL, 256LL, 257LL})
        top_k_any::check_k(d.ptr, host, k, tally::less<>{}, std::string("float ") + tt::pattern_name(p));
      top_k_any::check_k(d.ptr, host, 50, tally::greater<>{}, std::string("float ") + tt::pattern_name(p));
    }
    const tt::dataset<int> i = tt::make_data<int>(n, tt::pattern::random);
    top_k_any::check_k(i.ptr, i.host(), 50, tally::less<>{}, "int random");
  }
  // 2^23 and one past it (k <= 32 streams up to 2^23, k > 16 in a chunk an SM: about 63500 items).
  for (long long n : {1LL << 23, (1LL << 23) + 1}) {
    for (tt::pattern p : {tt::pattern::random, tt::pattern::constant, tt::pattern::sorted}) {
      const tt::dataset<float> d = tt::make_data<float>(n, p);
      const std::vector<float> host = d.host();
      for (long long k : {1LL, 8LL, 32LL, 33LL})
        top_k_any::check_k(d.ptr, host, k, tally::less<>{}, std::string("float ") + tt::pattern_name(p));
    }
  }
}

TEST_CASE("run-time k top_k: the select kernel where every block finds the threshold (2^16..2^19)") {
  // 4096 samples, every block's own threshold, the staged first round the whole pass:
  // data in order puts every candidate in one block's share; NaN thresholds take the
  // pass's scalar loop; zeros and NaNs take their values from the input, every other value
  // from its key (write_result). 2^19 - 4 and 2^17 + 4 end in a part-filled share.
  for (long long n : {1LL << 16, (1LL << 17) + 4, 1LL << 18, (1LL << 19) - 4, 1LL << 19}) {
    for (tt::pattern p : {tt::pattern::random, tt::pattern::constant, tt::pattern::sorted, tt::pattern::reversed,
                          tt::pattern::with_nan, tt::pattern::neg_and_zeros, tt::pattern::pos_and_zeros}) {
      const tt::dataset<float> d = tt::make_data<float>(n, p);
      const std::vector<float> host = d.host();
      for (long long k : {256LL, 1024LL, 1025LL})
        top_k_any::check_k(d.ptr, host, k, tally::less<>{}, std::string("float ") + tt::pattern_name(p));
      top_k_any::check_k(d.ptr, host, 300, tally::greater<>{}, std::string("float ") + tt::pattern_name(p));
    }
    const tt::dataset<int> i = tt::make_data<int>(n, tt::pattern::random);
    top_k_any::check_k(i.ptr, i.host(), 1024, tally::less<>{}, "int random");
    top_k_any::check_k(i.ptr, i.host(), 256, tally::greater<>{}, "int random");
  }
}

TEST_CASE("run-time k top_k: bad arguments are tally::error and write nothing") {
  const tt::dataset<float> d = tt::make_data<float>(1000, tt::pattern::random);
  top_k_any::device_buffer<float> values(4);
  top_k_any::device_buffer<std::int64_t> indices(4);
  const std::vector<std::int64_t> guard(4, -7);
  indices.copy_from_host(guard);
  CHECK_THROWS_AS(tally::top_k(tally::par, d.ptr, d.ptr + 1000, 0), tally::error);
  CHECK_THROWS_AS(tally::top_k(tally::par, d.ptr, d.ptr + 1000, -3), tally::error);
  CHECK_THROWS_AS(tally::top_k_into(tally::par, d.ptr, d.ptr + 1000, 0, values.data(), indices.data()), tally::error);
  CHECK_THROWS_AS(tally::top_k_into(tally::par, d.ptr, d.ptr + 1000, 3, static_cast<float*>(nullptr), indices.data()),
                  tally::error);
  CHECK_THROWS_AS(tally::top_k_into(tally::par, d.ptr + 10, d.ptr, 3, values.data(), indices.data()), tally::error);
  REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
  CHECK(indices.to_host() == guard);
  // An empty range: nothing written, no error, and count 0 from top_k.
  CHECK_NOTHROW(tally::top_k_into(tally::par, d.ptr, d.ptr, 3, values.data(), indices.data()));
  CHECK(tally::top_k(tally::par, d.ptr, d.ptr, 3).indices.empty());
  REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
  CHECK(indices.to_host() == guard);
}

#if CCCL_VERSION >= 3003000
namespace top_k_any {

/// tally::top_k_into of n floats against cub::DeviceTopK::MaxPairs (unsorted: compared as
/// a multiset of values, after a sort in the library's order), and each index of both
/// pointing at its value.
void check_against_cub(long long n, int k, tt::pattern p) {
  INFO("n=", n, " k=", k, " pattern=", tt::pattern_name(p));
  const tt::dataset<float> d = tt::make_data<float>(n, p);
  const std::vector<float> host = d.host();
  const cudaStream_t stream = tt::test_stream();
  device_buffer<float> cub_v(static_cast<std::size_t>(k)), tally_v(static_cast<std::size_t>(k));
  device_buffer<std::int64_t> cub_i(static_cast<std::size_t>(k)), tally_i(static_cast<std::size_t>(k));
  std::size_t bytes = 0;
  REQUIRE(tally_support::cub_device_top_k(nullptr, bytes, d.ptr, static_cast<std::size_t>(n), k, cub_v.data(),
                                          cub_i.data(), stream) == cudaSuccess);
  device_buffer<unsigned char> temp(bytes > 0 ? bytes : 1);
  REQUIRE(tally_support::cub_device_top_k(temp.data(), bytes, d.ptr, static_cast<std::size_t>(n), k, cub_v.data(),
                                          cub_i.data(), stream) == cudaSuccess);
  tally::top_k_into(tally::par.on(stream), d.ptr, d.ptr + n, k, tally_v.data(), tally_i.data());
  REQUIRE(cudaStreamSynchronize(stream) == cudaSuccess);
  const std::vector<float> cv = cub_v.to_host(), tv = tally_v.to_host();
  const std::vector<std::int64_t> ci = cub_i.to_host(), ti = tally_i.to_host();
  int budget = 5;
  tt::check_top_k_as_multiset(host.data(), n, cv.data(), ci.data(), tv.data(), ti.data(), k, budget, "flat");
}

}  // namespace top_k_any

TEST_CASE("run-time k top_k: the same values as cub::DeviceTopK") {
  for (tt::pattern p : {tt::pattern::random, tt::pattern::constant, tt::pattern::sorted, tt::pattern::reversed,
                        tt::pattern::neg_and_zeros}) {
    for (long long n : {1000LL, (1LL << 16) + 3, 1LL << 20})
      for (int k : {1, 8, 32, 256, 1000}) top_k_any::check_against_cub(n, k, p);
  }
}
#endif
