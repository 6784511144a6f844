// Reductions and arg-extrema over pieces (tally::rows, tally::segments) on every backend,
// against tally::host on the same items (and CUB's DeviceSegmentedReduce::Sum for int32
// sums over CSR offsets). Shapes that reach each way of the kernel (detail/pieces/): rows
// of 0, 1, 16, 31, 32, 33, 2047, 2048 and 2049 items (groups of lanes), 2^16 + 1, 2^20 and
// 2^20 + 3 items (blocks, several per row), 2^20 rows of 3 items, pitched rows; CSR segments of random
// lengths with runs of empty ones, the begin/end form out of order with overlaps, and an
// end before its begin (taken as empty); skewed CSR (long segments split across blocks),
// and more long segments than the list holds (the rest folded by their warps, the same bits);
// rows whose first item is 1, 2 or 4 items past a 16-byte boundary (the word reads).
// Data: random (float sums to 1e-4 relative), ints hash % 4 (ties everywhere), NaN and
// ±inf in the floats.
#include "common.cuh"

#include <tally/tally.cuh>

#include <cub/device/device_segmented_reduce.cuh>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/transform_iterator.h>

#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <cstdint>
#include <random>
#include <vector>

namespace {

template <class T>
std::vector<T> to_host(const tt::device_buffer<T>& d, std::size_t n) {
  std::vector<T> h(n);
  if (n) TT_CUDA(cudaMemcpy(h.data(), d.data(), sizeof(T) * n, cudaMemcpyDeviceToHost));
  return h;
}

template <class T>
tt::device_buffer<T> to_device(const std::vector<T>& h) {
  tt::device_buffer<T> d{h.size()};
  if (!h.empty()) TT_CUDA(cudaMemcpy(d.data(), h.data(), sizeof(T) * h.size(), cudaMemcpyHostToDevice));
  return d;
}

// Items: ints hash(i) % 4; floats uniform in [-1, 1) with a NaN, +inf and -inf placed
// where `special` says (every special-th item, when special > 0).
template <class T>
std::vector<T> make_items(std::size_t n, int special) {
  std::vector<T> v(n);
  std::mt19937_64 rng(n * 7919 + special);
  for (std::size_t i = 0; i < n; ++i) {
    if constexpr (std::is_integral_v<T>) {
      v[i] = static_cast<T>(tally_support::hash(i) % 4);
    } else {
      v[i] = static_cast<T>(std::uniform_real_distribution<double>(-1, 1)(rng));
      if (special > 0 && i % special == 3) v[i] = std::numeric_limits<T>::quiet_NaN();
      if (special > 0 && i % special == 5) v[i] = std::numeric_limits<T>::infinity();
      if (special > 0 && i % special == 7) v[i] = -std::numeric_limits<T>::infinity();
    }
  }
  return v;
}

// Compares device outputs with the host's, piece by piece.
template <class T>
void check_values(const std::vector<T>& got, const std::vector<T>& want) {
  REQUIRE(got.size() == want.size());
  int reported = 0;
  for (std::size_t s = 0; s < want.size() && reported < 5; ++s) {
    bool ok;
    if constexpr (std::is_floating_point_v<T>) {
      ok = (std::isnan(got[s]) && std::isnan(want[s])) || got[s] == want[s] ||
           std::fabs(double(got[s]) - double(want[s])) <= 1e-4 * std::max(1.0, std::fabs(double(want[s])));
    } else {
      ok = got[s] == want[s];
    }
    if (!ok) {
      ++reported;
      FAIL_CHECK("piece ", s, ": got ", got[s], ", want ", want[s]);
    }
  }
}

// Runs every operation of the suite over `pieces` of `items` on backend B, against tally::host.
template <class B, class T, class Pieces, class HostPieces>
void check_all(B backend, const std::vector<T>& items, const Pieces& pieces, const HostPieces& host_pieces) {
  CAPTURE(tt::backend_label(backend));
  const std::int64_t count = pieces.count();
  const auto in = to_device(items);
  const auto policy = tally::par.with(backend);
  // Sum (for floats a sum that skips the specials would be nicer; NaN and inf propagate
  // alike on both sides, so the comparison holds).
  using Acc = std::conditional_t<std::is_integral_v<T>, long long, T>;
  tt::device_buffer<Acc> sums{std::size_t(count)};
  tally::reduce_into(policy, in.data(), pieces, sums.data(), Acc(1));
  std::vector<Acc> want_sums(static_cast<std::size_t>(count));
  tally::reduce_into(tally::host, items.data(), host_pieces, want_sums.data(), Acc(1));
  TT_CUDA(cudaDeviceSynchronize());
  check_values(to_host(sums, std::size_t(count)), want_sums);
  // Arg-extrema: local index, first occurrence, NaN greatest; 0 for an empty piece.
  tt::device_buffer<std::int64_t> index{std::size_t(count)};
  std::vector<std::int64_t> want_index(static_cast<std::size_t>(count));
  tally::max_element_into(policy, in.data(), pieces, index.data());
  tally::max_element_into(tally::host, items.data(), host_pieces, want_index.data());
  TT_CUDA(cudaDeviceSynchronize());
  CHECK(to_host(index, std::size_t(count)) == want_index);
  if constexpr (std::is_same_v<B, tally::backend::automatic_t>) {
    tally::min_element_into(policy, in.data(), pieces, index.data());
    tally::min_element_into(tally::host, items.data(), host_pieces, want_index.data());
    TT_CUDA(cudaDeviceSynchronize());
    CHECK(to_host(index, std::size_t(count)) == want_index);
    tt::device_buffer<T> maxima{std::size_t(count)};
    std::vector<T> want_maxima(static_cast<std::size_t>(count));
    const T lowest = std::numeric_limits<T>::lowest();
    tally::reduce_into(policy, in.data(), pieces, maxima.data(), lowest, tally::maximum<T>{});
    tally::reduce_into(tally::host, items.data(), host_pieces, want_maxima.data(), lowest, tally::maximum<T>{});
    TT_CUDA(cudaDeviceSynchronize());
    check_values(to_host(maxima, std::size_t(count)), want_maxima);
  }
}

template <class B, class T>
void rows_suite(B backend) {
  const bool small = tt::sanitizing();
  struct shape {
    std::int64_t rows, length, stride;
  };
  const std::vector<shape> shapes = {
      {5, 0, 0},     {7, 1, 1},         {9, 16, 16},       {3, 31, 31},       {3, 32, 40},  {3, 33, 33},
      {3, 2047, 2047}, {3, 2048, 2048}, {4, 2049, 2049}, {2, 65537, 65537},
      {1, small ? 70001 : (1 << 20) + 3, 0}, {1, small ? 65536 : 1 << 20, 0}, {small ? 1000 : 65536, 16, 16},
      {small ? 1000 : 1 << 20, 3, 3}, {small ? 64 : 600, 257, 300},
      // Rows of at most four 16-byte words, 16-byte aligned: the 4-byte sums run them a
      // thread a row (detail/pieces/kernel.cuh: pieces_short_rows); strides past the length.
      {33, 4, 4},    {65, 8, 8},        {17, 12, 16},      {257, 16, 20},     {2, 12, 12},  {small ? 3000 : 100003, 8, 8},
  };
  for (const shape& sh : shapes) {
    const tally::rows_t rows = tally::rows(sh.rows, sh.length, sh.stride > 0 ? sh.stride : sh.length);
    CAPTURE(sh.rows);
    CAPTURE(sh.length);
    CAPTURE(rows.row_stride);
    const std::int64_t extent = sh.rows == 0 ? 0 : (sh.rows - 1) * rows.row_stride + sh.length;
    check_all(backend, make_items<T>(std::size_t(extent > 0 ? extent : 1), 97), rows, rows);
  }
}

template <class B, class T>
void segments_suite(B backend) {
  const bool small = tt::sanitizing();
  // CSR: random lengths (mean ~ 300), with runs of empty segments, and one long segment.
  std::mt19937_64 rng(42);
  std::vector<int> offsets = {0};
  const int count = small ? 300 : 5000;
  for (int s = 0; s < count; ++s) {
    int length = int(rng() % 600);
    if (s % 50 < 10) length = 0;                   // runs of empty segments
    if (s == count / 2) length = small ? 9000 : 200000;  // one long segment
    offsets.push_back(offsets.back() + length);
  }
  const auto items = make_items<T>(std::size_t(offsets.back()), 131);
  const auto d_offsets = to_device(offsets);
  CAPTURE(count);
  check_all(backend, items, tally::segments(d_offsets.data(), count), tally::segments(offsets.data(), count));
  // The begin/end form: out of order, overlapping, one end before its begin (empty).
  std::vector<long long> begins, ends;
  for (int s = 0; s < 40; ++s) {
    const long long b = (s * 7919) % (offsets.back() - 700);
    begins.push_back(b);
    ends.push_back(s == 13 ? b - 5 : b + (s * 37) % 700);
  }
  const auto d_begins = to_device(begins), d_ends = to_device(ends);
  check_all(backend, items, tally::segments(d_begins.data(), d_ends.data(), 40),
            tally::segments(begins.data(), ends.data(), 40));
  // Skewed CSR: many short segments and a few long ones of every size past one chunk
  // (detail/pieces/long_segments.cuh: 2^15 items for 512-thread blocks), one of 2^23 + 7.
  std::vector<long long> skewed = {0};
  const int skewed_count = small ? 400 : 1 << 14;
  for (int s = 0; s < skewed_count; ++s) {
    long long length = (long long)(rng() % 64);
    if (s % 797 == 11) length = 32768 + (long long)(rng() % (small ? 40000 : 1 << 21));
    if (s == skewed_count / 3) length = small ? 200003 : (1 << 23) + 7;
    skewed.push_back(skewed.back() + length);
  }
  const auto skewed_items = make_items<T>(std::size_t(skewed.back()), 1009);
  const auto d_skewed = to_device(skewed);
  check_all(backend, skewed_items, tally::segments(d_skewed.data(), skewed_count),
            tally::segments(skewed.data(), skewed_count));
}

// Item i of the long pieces' input: i % 1000003, so each piece's maximum and sum have a
// closed form.
struct residue {
  __host__ __device__ long long operator()(long long i) const { return i % 1000003; }
};

// Item i of the rows past one packed partition (detail/packed_key.cuh): int i % 1000003,
// except the peak value at `at` and again 2 items later (the first must win).
struct late_peak {
  long long at;
  __host__ __device__ int operator()(long long i) const {
    return i == at || i == at + 2 ? 2000000000 : int(i % 1000003);
  }
};

}  // namespace

TEST_CASE_TEMPLATE("pieces: 2^31 + 5 items per piece (counting iterators) give the closed forms", B, TT_BACKENDS) {
  if (tt::sanitizing()) return;  // minutes under the sanitizer; the suites above cover the code paths
  CAPTURE(tt::backend_label(B{}));
  const long long length = (1LL << 31) + 5;
  const thrust::counting_iterator<long long> count(0);
  const auto items = thrust::make_transform_iterator(count, residue{});
  // Sums of i over rows of a counting iterator: row r is [r L, (r + 1) L).
  tt::device_buffer<long long> sums{2};
  tally::reduce_into(tally::par.with(B{}), count, tally::rows(2, length), sums.data(), 0LL);
  TT_CUDA(cudaDeviceSynchronize());
  const auto got = to_host(sums, 2);
  CHECK(got[0] == length * (length - 1) / 2);
  CHECK(got[1] == length * (length - 1) / 2 + length * length);
  // Arg-max of i % P over segments given by int64 offsets (one of 7 items): item j of a
  // segment that begins at b is (b + j) % P; P - 1 first appears at j0 = P - 1 - b % P;
  // a segment shorter than that rises to its last item.
  const long long P = 1000003;
  const std::vector<long long> offsets = {0, length, length + 7, 2 * length + 7};
  const auto d_offsets = to_device(offsets);
  tt::device_buffer<std::int64_t> index{3};
  tally::max_element_into(tally::par.with(B{}), items, tally::segments(d_offsets.data(), 3), index.data());
  TT_CUDA(cudaDeviceSynchronize());
  const auto idx = to_host(index, 3);
  for (int s = 0; s < 3; ++s) {
    const long long len = offsets[s + 1] - offsets[s], j0 = P - 1 - offsets[s] % P;
    CAPTURE(s);
    CHECK(idx[s] == (j0 < len ? j0 : len - 1));
  }
}

TEST_CASE_TEMPLATE("pieces: rows longer than a packed partition (2^32 + 7 int items) give the first peak", B,
                   TT_BACKENDS) {
  if (tt::sanitizing()) return;  // minutes under the sanitizer
  CAPTURE(tt::backend_label(B{}));
  // Longer than max_packed_partition: the arg-max folds (value, index) pairs, not keys,
  // and a row that long runs the blocks way (detail/pieces/dispatch.cuh).
  const long long length = (1LL << 32) + 7, at = (1LL << 32) + 3;
  const auto items = thrust::make_transform_iterator(thrust::counting_iterator<long long>(0), late_peak{at});
  tt::device_buffer<std::int64_t> index{1};
  tally::max_element_into(tally::par.with(B{}), items, tally::rows(1, length), index.data());
  TT_CUDA(cudaDeviceSynchronize());
  CHECK(to_host(index, 1)[0] == at);
}

TEST_CASE_TEMPLATE("pieces: rows, every backend, against tally::host", B, TT_BACKENDS) {
  rows_suite<B, float>(B{});
  rows_suite<B, int>(B{});
}

// Rows whose stride keeps them 16-byte aligned are read as 16-byte words when the first
// row is (detail/pieces/kernel.cuh): the first row 0 to 4 items past an aligned address.
template <class B, class T>
void offset_rows_suite(B backend) {
  struct shape {
    std::int64_t rows, length, stride;
  };
  for (const shape sh : {shape{1000, 16, 16}, shape{300, 20, 24}, shape{50, 257, 260}, shape{64, 2048, 2048}}) {
    for (int offset : {0, 1, 2, 4}) {
      CAPTURE(sh.length);
      CAPTURE(sh.stride);
      CAPTURE(offset);
      const std::int64_t extent = (sh.rows - 1) * sh.stride + sh.length;
      const auto items = make_items<T>(std::size_t(offset + extent), 0);
      const auto in = to_device(items);
      tt::device_buffer<T> sums{std::size_t(sh.rows)};
      std::vector<T> want(static_cast<std::size_t>(sh.rows));
      const tally::rows_t rows = tally::rows(sh.rows, sh.length, sh.stride);
      tally::reduce_into(tally::par.with(backend), in.data() + offset, rows, sums.data(), T(1));
      tally::reduce_into(tally::host, items.data() + offset, rows, want.data(), T(1));
      TT_CUDA(cudaDeviceSynchronize());
      check_values(to_host(sums, std::size_t(sh.rows)), want);
    }
  }
}

TEST_CASE_TEMPLATE("pieces: rows off a 16-byte boundary, every backend, against tally::host", B, TT_BACKENDS) {
  offset_rows_suite<B, float>(B{});
  offset_rows_suite<B, double>(B{});
  offset_rows_suite<B, int>(B{});
}

TEST_CASE_TEMPLATE("pieces: segments, every backend, against tally::host", B, TT_BACKENDS) {
  segments_suite<B, float>(B{});
  segments_suite<B, int>(B{});
}

TEST_CASE("pieces: int32 sums over CSR offsets equal CUB's DeviceSegmentedReduce::Sum") {
  std::vector<int> offsets = {0};
  for (int s = 0; s < 2000; ++s) offsets.push_back(offsets.back() + (s % 7 == 0 ? 0 : (s * 131) % 1000));
  const auto items = make_items<int>(std::size_t(offsets.back()), 0);
  const auto in = to_device(items);
  const auto d_offsets = to_device(offsets);
  tt::device_buffer<int> ours{2000}, cubs{2000};
  tally::reduce_into(tally::par, in.data(), tally::segments(d_offsets.data(), 2000), ours.data(), 0);
  void* temp = nullptr;
  std::size_t temp_bytes = 0;
  TT_CUDA(cub::DeviceSegmentedReduce::Sum(temp, temp_bytes, in.data(), cubs.data(), 2000, d_offsets.data(),
                                           d_offsets.data() + 1));
  TT_CUDA(cudaMalloc(&temp, temp_bytes));
  TT_CUDA(cub::DeviceSegmentedReduce::Sum(temp, temp_bytes, in.data(), cubs.data(), 2000, d_offsets.data(),
                                           d_offsets.data() + 1));
  TT_CUDA(cudaDeviceSynchronize());
  TT_CUDA(cudaFree(temp));
  CHECK(to_host(ours, 2000) == to_host(cubs, 2000));
}

// Long rows split across blocks: without deterministic() the atomic backend folds a
// row's chunks with atomics (as the flat sum does); with it, on any backend, the partials
// are folded in chunk order. The runs interleave with a non-deterministic call over the
// same rows, which leaves its atomic words in the same scratch.
template <class Policy>
void check_same_bits_every_run(const Policy& policy) {
  const std::int64_t length = tt::sanitizing() ? 70001 : (1 << 21) + 5;
  const auto items = make_items<float>(std::size_t(4 * length), 0);
  const auto in = to_device(items);
  tt::device_buffer<float> out{4}, other{4};
  std::vector<float> first;
  // The sums in double, and a bound for a float sum's rounding: 1e-6 of the sum of |x| (a
  // stale atomic word from another call would be off by a whole row's sum).
  std::vector<double> want(4, 0.0), bound(4, 0.0);
  for (std::int64_t i = 0; i < 4 * length; ++i) {
    want[std::size_t(i / length)] += items[std::size_t(i)];
    bound[std::size_t(i / length)] += 1e-6 * std::fabs(items[std::size_t(i)]);
  }
  const auto close = [&](const std::vector<float>& got) {
    for (std::size_t r = 0; r < 4; ++r) {
      CAPTURE(r);
      CHECK(std::fabs(double(got[r]) - want[r]) <= bound[r]);
    }
  };
  for (int run = 0; run < 5; ++run) {
    tally::reduce_into(policy, in.data(), tally::rows(4, length), out.data(), 0.0f);
    tally::reduce_into(tally::par, in.data(), tally::rows(4, length), other.data(), 0.0f);
    TT_CUDA(cudaDeviceSynchronize());
    const auto got = to_host(out, 4);
    if (run == 0) first = got;
    CHECK(std::memcmp(got.data(), first.data(), sizeof(float) * 4) == 0);
    close(got);
    close(to_host(other, 4));
  }
}

TEST_CASE("pieces: deterministic() gives the same bits on every run, for long float rows") {
  check_same_bits_every_run(tally::par.deterministic());
  // The atomic backend forced: deterministic() still keeps atomics off the float sums.
  check_same_bits_every_run(tally::par.with(tally::backend::atomic).deterministic());
}

// Item i of the overflow test: a float in [-1, 1) from a hash of i, made on the fly.
struct hashed_float {
  __host__ __device__ float operator()(long long i) const {
    return float(tally_support::hash(static_cast<std::uint64_t>(i)) % 2000001) / 1000000.0f - 1.0f;
  }
};

TEST_CASE("pieces: more long segments than the list or its chunk slots hold give the same bits as one segment a call") {
  if (tt::sanitizing()) return;  // 2^27 items: too long under the sanitizer
  // 4200 segments of 32769..32868 items: every one long (more than a chunk of 2^15), twice
  // the list's capacity (2048), so about half are folded by their own warps.
  const int count = 4200;
  std::vector<long long> offsets = {0};
  for (int s = 0; s < count; ++s) offsets.push_back(offsets.back() + 32769 + s % 100);
  const auto d_offsets = to_device(offsets);
  const auto in = thrust::make_transform_iterator(thrust::counting_iterator<long long>(0), hashed_float{});
  tt::device_buffer<float> all{std::size_t(count)}, one{1};
  tt::device_buffer<std::int64_t> all_index{std::size_t(count)}, one_index{1};
  const auto policy = tally::par.deterministic();
  tally::reduce_into(policy, in, tally::segments(d_offsets.data(), count), all.data(), 0.0f);
  tally::max_element_into(policy, in, tally::segments(d_offsets.data(), count), all_index.data());
  TT_CUDA(cudaDeviceSynchronize());
  const auto sums = to_host(all, std::size_t(count));
  const auto indices = to_host(all_index, std::size_t(count));
  // The host's arg-max of every segment, and 64 segments' sums one call each (a lone long
  // segment always goes to the list).
  std::vector<std::int64_t> want_index(count);
  for (int s = 0; s < count; ++s) {
    std::int64_t best = 0;
    float best_value = hashed_float{}(offsets[s]);
    for (long long i = offsets[s] + 1; i < offsets[s + 1]; ++i)
      if (hashed_float{}(i) > best_value) best_value = hashed_float{}(i), best = i - offsets[s];
    want_index[s] = best;
  }
  CHECK(indices == want_index);
  for (int s = 0; s < count; s += count / 64) {
    CAPTURE(s);
    tally::reduce_into(policy, in, tally::segments(d_offsets.data() + s, 1), one.data(), 0.0f);
    TT_CUDA(cudaDeviceSynchronize());
    const float lone = to_host(one, 1)[0];
    CHECK(std::memcmp(&lone, &sums[s], sizeof(float)) == 0);
    double reference = 0;
    for (long long i = offsets[s]; i < offsets[s + 1]; ++i) reference += hashed_float{}(i);
    CHECK(std::fabs(double(lone) - reference) <= 1e-3 * std::max(1.0, std::fabs(reference)));
  }
  // 20 segments of 2^27 items, 4096 chunks each: the chunk slots (65536) run out after 16.
  std::vector<long long> big = {0};
  for (int s = 0; s < 20; ++s) big.push_back(big.back() + (1ll << 27));
  const auto d_big = to_device(big);
  tt::device_buffer<float> big_sums{20};
  tally::reduce_into(policy, in, tally::segments(d_big.data(), 20), big_sums.data(), 0.0f);
  TT_CUDA(cudaDeviceSynchronize());
  const auto got_big = to_host(big_sums, 20);
  for (int s : {0, 7, 16, 19}) {
    CAPTURE(s);
    tally::reduce_into(policy, in, tally::segments(d_big.data() + s, 1), one.data(), 0.0f);
    TT_CUDA(cudaDeviceSynchronize());
    const float lone = to_host(one, 1)[0];
    CHECK(std::memcmp(&lone, &got_big[s], sizeof(float)) == 0);
  }
}
