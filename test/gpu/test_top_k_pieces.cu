// tally::top_k_into over pieces (tally::rows, tally::segments) with k known at run time,
// against tally::host on the same items: every entry's index within its piece, in order,
// its value bit for bit (NaN payloads, the sign of zero), index -1 past a piece's length
// and the value there untouched. Shapes that reach each way of the kernel
// (detail/top_k/pieces_kernel.cuh): rows of at most 32 items (four a warp), of 33..256 (a
// warp each); pieces of 0, 1, k - 1, k, k + 1 items, loaded whole
// (up to 4096 with the running list) or through the sampled threshold (2^17 items: one
// window), several windows (2^20 + 3 items: the running list and its threshold), 4096
// rows, rows enough to fill the GPU (2 x SMs + 3: whole rows streaming a block each),
// rows split across blocks on one stream with more and more rows, pitched rows, CSR with runs of empty segments (int32 and int64 offsets), the
// begin/end form; k = 1, 2, 31, 32, 33, 100, 1024, 2048; data random, constant,
// ascending, descending, NaN, +-inf, zeros of both signs, three distinct values, periodic
// data that defeats the strata (the exact select), a split row whose chunk bars keep fewer
// than k (the cut's own threshold then); float, int32, double (16-byte words),
// int8, half; tally::less<> and tally::greater<>. One row of 2^31 + 5 items (a
// transform iterator) with a closed-form answer. Bad arguments. Built against CCCL >= 3.5
// (scripts/gpu-check.sh --cccl-dir): rows against cub::DeviceBatchedTopK, as multisets.
#include "common.cuh"

#include <tally/top_k.cuh>
#include <tally_support/cub_top_k.cuh>

#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/transform_iterator.h>

namespace top_k_pieces {

using tally_support::device_buffer;

template <class T>
bool same_bits(const T& a, const T& b) {
  return std::memcmp(&a, &b, sizeof(T)) == 0;
}

/// top_k_into over `pieces` of d (host copy `host`) against tally::host, on a stream.
template <class T, class Pieces, class HostPieces, class Compare>
void check_pieces(const T* d, const std::vector<T>& host, const Pieces& pieces, const HostPieces& host_pieces,
                  long long k, Compare comp, const std::string& label) {
  const long long count = pieces.count();
  const std::string what = label + " pieces=" + std::to_string(count) + " k=" + std::to_string(k);
  INFO(what);
  const std::size_t out = static_cast<std::size_t>(count * k);
  std::vector<T> want_v(out, T(7));
  std::vector<std::int64_t> want_i(out, -7);
  tally::top_k_into(tally::host, host.data(), host_pieces, k, want_v.data(), want_i.data(), comp);

  // Guards: the values past a piece's length keep theirs.
  device_buffer<T> values(out + 1);
  device_buffer<std::int64_t> indices(out + 1);
  values.copy_from_host(std::vector<T>(out + 1, T(7)));
  indices.copy_from_host(std::vector<std::int64_t>(out + 1, -7));
  tally::top_k_into(tally::par.on(tt::test_stream()), d, pieces, k, values.data(), indices.data(), comp);
  REQUIRE(cudaStreamSynchronize(tt::test_stream()) == cudaSuccess);
  const std::vector<T> got_v = values.to_host();
  const std::vector<std::int64_t> got_i = indices.to_host();
  int wrong = 0;
  for (std::size_t j = 0; j < out && wrong < 5; ++j) {
    if (got_i[j] != want_i[j] || !same_bits(got_v[j], want_v[j])) {
      ++wrong;
      FAIL_CHECK("piece ", j / static_cast<std::size_t>(k), " entry ", j % static_cast<std::size_t>(k), ": index ",
                 got_i[j], " want ", want_i[j]);
    }
  }
  CHECK(got_i[out] == -7);
  CHECK(same_bits(got_v[out], T(7)));
}

template <class T>
std::vector<T> three_values(long long n) {
  std::vector<T> v(static_cast<std::size_t>(n));
  for (long long i = 0; i < n; ++i) {
    const int c = static_cast<int>(tt::hash(static_cast<std::uint64_t>(i), 5) % 3);
    if constexpr (std::is_floating_point_v<T>) v[static_cast<std::size_t>(i)] = c == 0 ? T(-0.0) : c == 1 ? T(0.0) : T(2.5);
    else v[static_cast<std::size_t>(i)] = static_cast<T>(c - 1);
  }
  return v;
}

/// Rows of `length` (stride `stride`) over every pattern, the ks given.
template <class T>
void check_rows(long long rows, long long length, long long stride, const std::vector<long long>& ks,
                bool all_patterns = true) {
  const long long n = rows == 0 ? 0 : (rows - 1) * stride + length;
  const auto run = [&](const T* d, const std::vector<T>& host, const std::string& label) {
    const tally::rows_t r = tally::rows(rows, length, stride);
    for (long long k : ks) {
      check_pieces(d, host, r, r, k, tally::less<>{}, label);
      if (k == 1 || k == 33 || k == 1024) check_pieces(d, host, r, r, k, tally::greater<>{}, label + " greater");
    }
  };
  const std::string shape = std::string(tt::type_name<T>()) + " " + std::to_string(rows) + "x" + std::to_string(length) +
                            (stride != length ? " stride " + std::to_string(stride) : "");
  const std::vector<tt::pattern> patterns =
      all_patterns ? tt::patterns_for<T>(n) : std::vector<tt::pattern>{tt::pattern::random};
  for (tt::pattern p : patterns) {
    const tt::dataset<T> d = tt::make_data<T>(std::max(n, 1LL), p);
    run(d.ptr, d.host(), shape + " " + tt::pattern_name(p));
  }
  if (all_patterns) {
    const std::vector<T> three = three_values<T>(std::max(n, 1LL));
    device_buffer<T> dev(three);
    run(dev.data(), three, shape + " three values");
  }
}

}  // namespace top_k_pieces

TEST_CASE_TEMPLATE("top_k over rows matches the host reference: lengths around k and the buffer, every pattern", T,
                   float, int, double, std::int8_t) {
  using top_k_pieces::check_rows;
  check_rows<T>(3, 0, 0, {1, 5});
  check_rows<T>(5, 1, 1, {1, 2});
  check_rows<T>(4, 33, 33, {1, 32, 33, 34});
  check_rows<T>(3, 2049, 2049, {1, 100, 2048});
  check_rows<T>(2, 4097, 4100, {1, 31, 1024, 2048});  // pitched; the threshold (k + 4097 > 4096)
  check_rows<T>(2, 1 << 17, 1 << 17, {1, 2, 50, 1024, 2048});
  if (!tt::sanitizing()) check_rows<T>(2, (1 << 20) + 3, (1 << 20) + 3, {1, 50, 1024}, false);
}

TEST_CASE("top_k over rows: 4096 rows of 16, 1001 of 31, 1 row of 131072, half, k past the length") {
  using top_k_pieces::check_rows;
  check_rows<float>(4096, 16, 16, {1, 8, 16, 20}, false);
  check_rows<float>(1001, 31, 31, {1, 31, 40}, false);  // rows of at most 32: four a warp at once
  check_rows<float>(1, 1 << 17, 1 << 17, {50, 256}, false);
  check_rows<__half>(3, 5000, 5000, {1, 64, 2048});
}

TEST_CASE("top_k over rows a warp each, streamed (257 to 4096 items, k at most 256, rows enough): every pattern") {
  using top_k_pieces::check_rows;
  int device = 0, sms = 0;
  REQUIRE(cudaGetDevice(&device) == cudaSuccess);
  REQUIRE(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device) == cudaSuccess);
  // Eight rows an SM and more stream a warp a row (pieces_top_k_warp_stream_rows_per_sm).
  const long long rows = 8LL * sms + 3;
  // k around the warp's 64 and 256 best (32 E words), a round of 128 items and the
  // candidates' 256; k = 257 and 8-byte values take a block a row.
  check_rows<float>(rows, 257, 257, {1, 2, 33, 63, 64, 65, 256});
  check_rows<float>(rows, 512, 515, {1, 50, 128, 129, 200, 256});  // pitched
  check_rows<int>(rows, 1000, 1000, {7, 33, 64, 129, 256});
  check_rows<__half>(rows, 700, 700, {33, 256}, false);
  check_rows<double>(rows, 300, 300, {33, 256}, false);
  if (tt::sanitizing()) return;
  check_rows<float>(rows, 4096, 4096, {1, 65, 256, 257});
  check_rows<std::int8_t>(rows, 3000, 3000, {1, 33, 256});
}

TEST_CASE("top_k over rows split across blocks: calls of more and more rows on one stream, both ways") {
  // Rows too few to fill the GPU are split across blocks, which meet at a counter a row in
  // scratch that the kernel leaves at zero. A later call with more rows reads counters
  // that an earlier call's lists or words filled: they must read as zero there too. k = 50
  // and k = 1024, each over more and more rows, then the two in turn (they may take
  // different ways of a split row: detail/top_k/pieces_dispatch.cuh).
  const long long length = 32768;
  const long long most = 130;
  const tt::dataset<float> d = tt::make_data<float>(most * length, tt::pattern::random);
  const std::vector<float> host = d.host();
  for (long long k : {1024LL, 50LL}) {
    for (long long rows : {1LL, 64LL, 100LL, 130LL}) {
      const tally::rows_t r = tally::rows(rows, length);
      top_k_pieces::check_pieces(d.ptr, host, r, r, k, tally::less<>{}, "growing");
    }
  }
  for (long long rows : {3LL, 129LL, 65LL}) {
    const tally::rows_t r = tally::rows(rows, length);
    for (long long k : {50LL, 1024LL, 50LL}) top_k_pieces::check_pieces(d.ptr, host, r, r, k, tally::less<>{}, "mixed");
  }
}

TEST_CASE("top_k over rows that fill the GPU, a block a row (the chunks stream whole): every pattern") {
  // At least two rows a block slot (two blocks an SM), so that no row is split: rows of at
  // least 8192 items and k <= 64 (k <= 256 up to 16384) take top_k_stream_kernel with one
  // chunk a row, the block choosing from its own buffer; k = 65 and 300 the other way.
  int device = 0, sms = 0;
  REQUIRE(cudaGetDevice(&device) == cudaSuccess);
  REQUIRE(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device) == cudaSuccess);
  const long long rows = 2LL * sms + 3;
  top_k_pieces::check_rows<float>(rows, 9001, 9001, {1, 5, 50, 64, 65, 256, 300});
  top_k_pieces::check_rows<int>(rows, 16384, 16387, {2, 33, 256});  // pitched
  top_k_pieces::check_rows<std::int8_t>(rows, 8192, 8192, {1, 64}, false);
  if (!tt::sanitizing()) top_k_pieces::check_rows<float>(rows, (1 << 17) + 1, (1 << 17) + 1, {50, 64}, false);
  // Rows at least twice the threshold's reads (8192 items) take a scaled threshold
  // (stream_threshold_ask), k = 65..256 too; data in order must be seen and get the exact
  // one (ascending, descending, constant: every pattern).
  if (!tt::sanitizing()) {
    top_k_pieces::check_rows<float>(rows, 32768 + 5, 32768 + 5, {1, 50, 100, 256});
    top_k_pieces::check_rows<float>(rows, 1 << 17, 1 << 17, {32, 256}, false);
  } else {
    top_k_pieces::check_rows<float>(rows, 16384 + 1, 16384 + 1, {50, 256}, false);
  }
}

TEST_CASE("top_k over rows a block a row: the best items all where the threshold reads (its scaled need misjudges)") {
  // chunk_threshold reads 16 runs of 512 items, evenly spread; here they hold every
  // item above 2 and the rest of the row is below 1, so a scaled threshold (k / 16 of its
  // reads, rows of 131072) lets fewer than k items in and the block must pass again.
  int device = 0, sms = 0;
  REQUIRE(cudaGetDevice(&device) == cudaSuccess);
  REQUIRE(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device) == cudaSuccess);
  const long long rows = 2LL * sms + 1, length = 1 << 17, spacing = (length - 512) / 15;
  std::vector<float> v(static_cast<std::size_t>(rows * length));
  for (long long i = 0; i < rows * length; ++i) {
    const long long at = i % length;
    const bool read = at % spacing < 512 && at / spacing < 16;
    const float u = static_cast<float>(tt::hash(static_cast<std::uint64_t>(i), 11) >> 40) / 16777216.f;
    v[static_cast<std::size_t>(i)] = read ? 2.f + u : u;
  }
  top_k_pieces::device_buffer<float> d(v);
  const tally::rows_t r = tally::rows(rows, length);
  for (long long k : {50LL, 256LL}) top_k_pieces::check_pieces(d.data(), v, r, r, k, tally::less<>{}, "reads hold the best");
}

TEST_CASE("top_k over rows split across blocks: a chunk's bar above all but a few items (the row's bar leaves fewer than k)") {
  // A row split in 2..16 chunks cuts its candidates at the best of the chunks' bars (the
  // m-th best of a chunk's 16 warps' best threshold reads; stream_bar_warps) where at least
  // k reach it. Here every warp of each row's first chunk reads one planted item, 1000 +
  // warp, at the chunk's start (thread 32 w's first read), so the bar is one of them and
  // only a few items of the row reach it: the cut must fall back to its own threshold.
  for (long long rows : {1LL, 64LL}) {
    const long long length = 1 << 17;
    std::vector<float> v(static_cast<std::size_t>(rows * length));
    for (long long i = 0; i < rows * length; ++i)
      v[static_cast<std::size_t>(i)] = static_cast<float>(tt::hash(static_cast<std::uint64_t>(i), 13) >> 40) / 16777216.f;
    for (long long row = 0; row < rows; ++row)
      for (int w = 0; w < 16; ++w) v[static_cast<std::size_t>(row * length + 32 * w)] = 1000.f + static_cast<float>(w);
    top_k_pieces::device_buffer<float> d(v);
    const tally::rows_t r = tally::rows(rows, length);
    for (long long k : {16LL, 32LL, 50LL, 64LL})
      top_k_pieces::check_pieces(d.data(), v, r, r, k, tally::less<>{}, "planted bar");
  }
}

TEST_CASE("top_k over rows: data periodic with the strata (128 items) and rare spikes") {
  // Each value repeats every 128 items (a tie between thousands of items at every k),
  // and the spikes, one in 4099, are what the samples mostly miss: the threshold then
  // lets too many in for large k (the exact select), and the second and third windows
  // run on the running list's threshold.
  const long long length = (1 << 18) + 7;
  std::vector<float> v(static_cast<std::size_t>(length));
  for (long long i = 0; i < length; ++i) v[static_cast<std::size_t>(i)] = float(i % 128) + (i % 4099 == 0 ? 1000.f : 0.f);
  top_k_pieces::device_buffer<float> d(v);
  const tally::rows_t r = tally::rows(1, length);
  for (long long k : {1LL, 64LL, 100LL, 2048LL})
    top_k_pieces::check_pieces(d.data(), v, r, r, k, tally::less<>{}, "periodic");
}

TEST_CASE_TEMPLATE("top_k over segments: CSR with runs of empty segments, int32 and int64 offsets; begin/end form",
                   Offset, std::int32_t, std::int64_t) {
  std::mt19937_64 rng(17);
  std::vector<Offset> offsets = {0};
  for (int s = 0; s < 600; ++s) {
    const int kind = static_cast<int>(rng() % 10);
    const long long len = kind < 3   ? 0
                          : kind < 6 ? static_cast<long long>(rng() % 40)
                          : kind < 9 ? static_cast<long long>(rng() % 5000)
                                     : static_cast<long long>(rng() % 200000);
    offsets.push_back(static_cast<Offset>(offsets.back() + len));
  }
  const long long n = offsets.back();
  const tt::dataset<float> d = tt::make_data<float>(n, tt::pattern::with_nan);
  const std::vector<float> host = d.host();
  top_k_pieces::device_buffer<Offset> dev_offsets(offsets);
  const long long segments = static_cast<long long>(offsets.size()) - 1;
  for (long long k : {1LL, 33LL, 1024LL}) {
    top_k_pieces::check_pieces(d.ptr, host, tally::segments(dev_offsets.data(), segments),
                               tally::segments(offsets.data(), segments), k, tally::less<>{}, "csr");
  }
  // Begin/end form, out of order, overlapping, one end before its begin (empty).
  std::vector<Offset> begins, ends;
  for (long long s = 0; s < segments; ++s) {
    const long long b = offsets[static_cast<std::size_t>(segments - 1 - s)];
    begins.push_back(static_cast<Offset>(b));
    ends.push_back(static_cast<Offset>(std::min<long long>(n, b + static_cast<long long>(rng() % 3000))));
  }
  ends[5] = begins[5] > 0 ? static_cast<Offset>(begins[5] - 1) : ends[5];
  top_k_pieces::device_buffer<Offset> dev_begins(begins), dev_ends(ends);
  top_k_pieces::check_pieces(d.ptr, host, tally::segments(dev_begins.data(), dev_ends.data(), segments),
                             tally::segments(begins.data(), ends.data(), segments), 40, tally::greater<>{},
                             "begin/end greater");
}

namespace top_k_pieces {
/// Item i of the 2^31 + 5 row: planted items (every 999983rd, from 7) above 2^30, the
/// others random below it.
struct planted {
  __host__ __device__ int operator()(long long i) const {
    const std::uint64_t h = tally_support::hash(static_cast<std::uint64_t>(i));
    if (i % 999983 == 7) return (1 << 30) + static_cast<int>(h % 100000);
    return static_cast<int>(h % (1u << 30));
  }
};
}  // namespace top_k_pieces

TEST_CASE("top_k over one row of 2^31 + 5 items (a transform iterator): the planted items, closed form") {
  if (tt::sanitizing()) return;
  const long long n = (1LL << 31) + 5;
  const auto first = thrust::make_transform_iterator(thrust::counting_iterator<long long>(0), top_k_pieces::planted{});
  // The answer: the planted items by (value, lower index first).
  std::vector<std::pair<int, long long>> planted;
  for (long long i = 7; i < n; i += 999983) planted.push_back({top_k_pieces::planted{}(i), i});
  std::sort(planted.begin(), planted.end(),
            [](const auto& a, const auto& b) { return a.first > b.first || (a.first == b.first && a.second < b.second); });
  for (long long k : {5LL, 2048LL}) {
    INFO("k=", k);
    top_k_pieces::device_buffer<int> values(static_cast<std::size_t>(k));
    top_k_pieces::device_buffer<std::int64_t> indices(static_cast<std::size_t>(k));
    tally::top_k_into(tally::par, first, tally::rows(1, n), k, values.data(), indices.data());
    REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
    const std::vector<int> v = values.to_host();
    const std::vector<std::int64_t> ix = indices.to_host();
    for (long long j = 0; j < k; ++j) {
      const auto& want = planted[static_cast<std::size_t>(j)];
      if (ix[static_cast<std::size_t>(j)] != want.second || v[static_cast<std::size_t>(j)] != want.first) {
        FAIL_CHECK("entry ", j, ": index ", ix[static_cast<std::size_t>(j)], " want ", want.second);
        break;
      }
    }
  }
}

TEST_CASE("top_k over pieces: bad arguments are tally::error and write nothing") {
  const tt::dataset<float> d = tt::make_data<float>(1000, tt::pattern::random);
  top_k_pieces::device_buffer<float> values(40);
  top_k_pieces::device_buffer<std::int64_t> indices(40);
  const std::vector<std::int64_t> guard(40, -7);
  indices.copy_from_host(guard);
  const tally::rows_t r = tally::rows(4, 250);
  CHECK_THROWS_AS(tally::top_k_into(tally::par, d.ptr, r, 0, values.data(), indices.data()), tally::error);
  CHECK_THROWS_AS(tally::top_k_into(tally::par, d.ptr, r, 2049, values.data(), indices.data()), tally::error);
  CHECK_THROWS_AS(tally::top_k_into(tally::par, d.ptr, r, 10, static_cast<float*>(nullptr), indices.data()),
                  tally::error);
  CHECK_THROWS_AS(tally::top_k_into(tally::par, d.ptr, tally::rows(-1, 10), 10, values.data(), indices.data()),
                  tally::error);
  CHECK_THROWS_AS(tally::top_k_into(tally::par, d.ptr, tally::rows(4, 250, 100), 10, values.data(), indices.data()),
                  tally::error);
  CHECK_THROWS_AS(tally::top_k_into(tally::par, d.ptr, tally::segments(static_cast<const int*>(nullptr), 4), 10,
                                    values.data(), indices.data()),
                  tally::error);
  CHECK_THROWS_AS(tally::top_k_into(tally::par, static_cast<const float*>(nullptr), r, 10, values.data(), indices.data()),
                  tally::error);
  REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
  CHECK(indices.to_host() == guard);
  // No pieces: nothing written, no error.
  CHECK_NOTHROW(tally::top_k_into(tally::par, d.ptr, tally::rows(0, 10), 3, values.data(), indices.data()));
  REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
  CHECK(indices.to_host() == guard);
}

#if CCCL_VERSION >= 3005000
namespace top_k_pieces {

/// tally::top_k_into over `rows` rows of Length floats against CUB 3.5's
/// DeviceBatchedTopK::MaxPairs (unsorted: each row's values compared as multisets, after
/// a sort in the library's order), and each index of both pointing at its value.
template <int Length>
void check_against_cub_batched(int rows, int k, tt::pattern p) {
  INFO("rows=", rows, " length=", Length, " k=", k, " pattern=", tt::pattern_name(p));
  const tt::dataset<float> d = tt::make_data<float>(static_cast<long long>(rows) * Length, p);
  const std::vector<float> host = d.host();
  const std::size_t out = static_cast<std::size_t>(rows) * static_cast<std::size_t>(k);
  device_buffer<float> cub_v(out), tally_v(out);
  device_buffer<std::int64_t> cub_i(out), tally_i(out);
  std::size_t bytes = 0;
  REQUIRE(tally_support::cub_batched_top_k<Length>(nullptr, bytes, d.ptr, rows, k, cub_v.data(), cub_i.data()) ==
          cudaSuccess);
  device_buffer<unsigned char> temp(bytes > 0 ? bytes : 1);
  REQUIRE(tally_support::cub_batched_top_k<Length>(temp.data(), bytes, d.ptr, rows, k, cub_v.data(), cub_i.data()) ==
          cudaSuccess);
  REQUIRE(cudaDeviceSynchronize() == cudaSuccess);  // CUB's call ran on stream 0
  tally::top_k_into(tally::par.on(tt::test_stream()), d.ptr, tally::rows(rows, Length), k, tally_v.data(),
                    tally_i.data());
  REQUIRE(cudaStreamSynchronize(tt::test_stream()) == cudaSuccess);
  const std::vector<float> cv = cub_v.to_host(), tv = tally_v.to_host();
  const std::vector<std::int64_t> ci = cub_i.to_host(), ti = tally_i.to_host();
  int budget = 5;
  for (int r = 0; r < rows && budget > 0; ++r) {
    const std::size_t at = static_cast<std::size_t>(r) * static_cast<std::size_t>(k);
    tt::check_top_k_as_multiset(host.data() + static_cast<std::size_t>(r) * Length, Length, cv.data() + at,
                                ci.data() + at, tv.data() + at, ti.data() + at, k, budget, "row " + std::to_string(r));
  }
}

}  // namespace top_k_pieces

TEST_CASE("top_k over rows: the same values as CUB 3.5's DeviceBatchedTopK, row by row") {
  for (tt::pattern p : {tt::pattern::random, tt::pattern::constant, tt::pattern::sorted, tt::pattern::reversed,
                        tt::pattern::neg_and_zeros}) {
    for (int k : {1, 2, 31, 32, 33, 100, 256}) top_k_pieces::check_against_cub_batched<256>(4096, k, p);
    for (int k : {1, 50, 1023, 1024}) top_k_pieces::check_against_cub_batched<1024>(300, k, p);
  }
}
#endif
