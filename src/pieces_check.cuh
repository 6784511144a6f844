#pragma once
// The machinery of `tally verify`'s entries over pieces (checks_pieces*.cu): the pieces of
// a check, and the check of one entry, compiled per operation (sum, arg-max, top_k) so that
// the entries can be split over translation units (the README's first command waits for
// the tool's longest file).
//
// `tally verify` entries for reductions over pieces (issue 19): reduce_into (sum),
// max_element_into and top_k_into with a run-time k (issue 21) over tally::rows and over
// tally::segments (CSR offsets of random lengths, runs of empty segments among them),
// float and int32, random data and, for the arg-max and top_k, data with NaNs (float) and
// many ties (int32, hash % 4). The n items of a check
// are cut into pieces: rows of n / r items (r = n / 4096 rows, 1 to 4096), or n / 512
// segments (1 to 65536). Both are checked against tally::host on the same items and timed
// against CUB's DeviceSegmentedReduce (Reduce with the same operator and init; ArgMax),
// top_k against CUB's DeviceSegmentedSort::SortPairsDescending of (value, index) pairs
// (what a CUB user calls for a top-k per segment; CCCL 3.0 has no segmented top-k).
// Not against CUB's results: its ArgMax compares with `<`, which is not the library's NaN
// order, and gives {1, lowest} for an empty segment; and on the H100 (CCCL 3.5.0) its
// segmented Reduce over 2^15 CSR segments of 2^24 items gave init for a non-empty
// segment after the timing loops of earlier checks, where tally::host and tally agreed.

#include "check.hpp"
#include "device_checks.cuh"

#include <tally/tally.cuh>

#include <tally_support/compare.hpp>
#include <tally_support/data.cuh>

#include <cub/device/device_segmented_reduce.cuh>
#include <cub/device/device_segmented_sort.cuh>

#include <algorithm>
#include <cstring>
#include <cstdint>
#include <random>
#include <string>
#include <type_traits>
#include <vector>

namespace tally_tool {
namespace pieces_check {

namespace ts = tally_support;

enum class piece_kind { rows, segments };
enum class piece_op { sum, argmax, top_k };

/// k of the top_k checks.
inline constexpr std::int64_t piece_top_k = 50;

/// The pieces of a check on n items, as int64 CSR offsets (rows too: CUB's reference takes
/// offsets, and tally is called with tally::rows for rows).
struct piece_layout {
  std::int64_t count = 0, row_length = 0;
  std::vector<long long> offsets;  // count + 1
};

inline piece_layout layout_for(piece_kind kind, std::uint64_t n, std::uint64_t seed) {
  piece_layout l;
  const std::int64_t items = std::int64_t(n);
  if (kind == piece_kind::rows) {
    l.count = std::clamp<std::int64_t>(items / 4096, 1, 4096);
    l.row_length = items / l.count;
    for (std::int64_t r = 0; r <= l.count; ++r) l.offsets.push_back(r * l.row_length);
    return l;
  }
  // No items, no segments: with segments the input must be a valid pointer whatever their
  // lengths (the host cannot read them), and an empty input has none.
  if (items == 0) {
    l.offsets.push_back(0);
    return l;
  }
  l.count = std::clamp<std::int64_t>(items / 512, 1, 65536);
  const std::int64_t mean = std::max<std::int64_t>(items / l.count, 1);
  std::mt19937_64 rng(seed * 7919 + std::uint64_t(items));
  l.offsets.push_back(0);
  for (std::int64_t s = 0; s < l.count; ++s) {
    std::int64_t length = std::int64_t(rng() % std::uint64_t(2 * mean + 1));
    if (s % 16 < 3) length = 0;  // runs of empty segments
    l.offsets.push_back(std::min<long long>(l.offsets.back() + length, items));
  }
  return l;
}

template <piece_op What, class T>
std::vector<check_row> check_pieces(const check_row& label, ts::pattern data, piece_kind kind, std::uint64_t n,
                                    const verify_options& o) {
  device_input<T> input(n, data, o);
  const piece_layout layout = layout_for(kind, n, o.data_seed);
  const std::int64_t count = layout.count;
  ts::device_buffer<long long> offsets(layout.offsets.size());
  TALLY_SUPPORT_CHECK(cudaMemcpy(offsets.data(), layout.offsets.data(), sizeof(long long) * layout.offsets.size(),
                                 cudaMemcpyHostToDevice));
  using Sum = std::conditional_t<std::is_integral_v<T>, long long, T>;
  ts::device_buffer<Sum> sums{std::size_t(count)};
  ts::device_buffer<std::int64_t> index{std::size_t(count)};
  ts::device_buffer<cub::KeyValuePair<int, T>> pairs{std::size_t(count)};
  constexpr bool top = What == piece_op::top_k;
  const std::size_t top_entries = top ? std::size_t(count * piece_top_k) : 0;
  ts::device_buffer<T> top_values{top_entries}, sorted_keys{top ? std::size_t(n) : 0};
  ts::device_buffer<std::int64_t> top_indices{top_entries};
  ts::device_buffer<int> sort_items{top ? std::size_t(n) : 0}, sorted_items{top ? std::size_t(n) : 0};
  const auto op = tally::plus<Sum>{};
  const Sum init = Sum(1);

  // The reference: CUB for sums, tally::host for the arg-max (see the file comment).
  ts::cub_temp_storage temp;
  auto cub_call = [&](int k) {
    temp.run([&](void* t, std::size_t& bytes) {
      const T* first = input.copies.copy(k);
      if constexpr (top)
        return cub::DeviceSegmentedSort::SortPairsDescending(t, bytes, first, sorted_keys.data(), sort_items.data(),
                                                            sorted_items.data(), std::int64_t(n), count,
                                                            offsets.data(), offsets.data() + 1, input.stream);
      else if constexpr (What == piece_op::sum)
        return cub::DeviceSegmentedReduce::Reduce(t, bytes, first, sums.data(), count, offsets.data(),
                                                  offsets.data() + 1, op, init, input.stream);
      else
        return cub::DeviceSegmentedReduce::ArgMax(t, bytes, first, pairs.data(), count, offsets.data(),
                                                  offsets.data() + 1, input.stream);
    });
  };
  std::vector<Sum> want_sums(static_cast<std::size_t>(count));
  std::vector<std::int64_t> want_index(static_cast<std::size_t>(count));
  std::vector<T> want_top_values(top_entries);
  std::vector<std::int64_t> want_top_indices(top_entries);
  {
    std::vector<T> items(n);
    if (n) TALLY_SUPPORT_CHECK(cudaMemcpy(items.data(), input.copies.copy(0), sizeof(T) * n, cudaMemcpyDeviceToHost));
    const auto host_call = [&](const auto& pieces) {
      if constexpr (What == piece_op::sum)
        tally::reduce_into(tally::host, items.data(), pieces, want_sums.data(), init, op);
      else if constexpr (What == piece_op::argmax)
        tally::max_element_into(tally::host, items.data(), pieces, want_index.data());
      else
        tally::top_k_into(tally::host, items.data(), pieces, piece_top_k, want_top_values.data(),
                          want_top_indices.data());
    };
    if (kind == piece_kind::rows) host_call(tally::rows(count, layout.row_length));
    else host_call(tally::segments(layout.offsets.data(), count));
  }
  const double cub_us = o.timing ? time_us(cub_call, input, o.loops) : 0.0;

  return rows_per_backend(label, n, double(layout.offsets.back()) * sizeof(T), o, input.stream, [&](auto policy, check_row& row) {
    auto tally_call = [&](int k) {
      const T* first = input.copies.copy(k);
      const auto run = [&](const auto& pieces) {
        if constexpr (What == piece_op::sum) tally::reduce_into(policy, first, pieces, sums.data(), init, op);
        else if constexpr (What == piece_op::argmax) tally::max_element_into(policy, first, pieces, index.data());
        else tally::top_k_into(policy, first, pieces, piece_top_k, top_values.data(), top_indices.data());
      };
      if (kind == piece_kind::rows) run(tally::rows(count, layout.row_length));
      else run(tally::segments(offsets.data(), count));
    };
    sums.memset(0xff);  // a backend that writes nothing cannot pass by accident
    index.memset(0xff);
    top_indices.memset(0x7f);
    tally_call(0);
    TALLY_SUPPORT_CHECK(cudaStreamSynchronize(input.stream));
    row.ok = true;
    if constexpr (What == piece_op::sum) {
      std::vector<Sum> got(static_cast<std::size_t>(count));
      TALLY_SUPPORT_CHECK(cudaMemcpy(got.data(), sums.data(), sizeof(Sum) * got.size(), cudaMemcpyDeviceToHost));
      const double tol = std::is_integral_v<T> ? 0.0 : 1e-4;
      for (std::int64_t s = 0; s < count && row.ok; ++s)
        if (!ts::close_enough(got[s], want_sums[s], tol)) {
          row.ok = false;
          row.detail = "piece " + std::to_string(s) + ": got " + value_text(got[s]) + ", tally::host gives " +
                       value_text(want_sums[s]);
        }
    } else if constexpr (top) {
      std::vector<T> got_values(top_entries);
      std::vector<std::int64_t> got_indices(top_entries);
      top_values.copy_to_host(got_values);
      top_indices.copy_to_host(got_indices);
      for (std::size_t j = 0; j < top_entries && row.ok; ++j)
        if (got_indices[j] != want_top_indices[j] ||
            (want_top_indices[j] >= 0 && std::memcmp(&got_values[j], &want_top_values[j], sizeof(T)) != 0)) {
          row.ok = false;
          row.detail = "piece " + std::to_string(j / piece_top_k) + " entry " + std::to_string(j % piece_top_k) +
                       ": index " + std::to_string(got_indices[j]) + ", tally::host gives " +
                       std::to_string(want_top_indices[j]);
        }
    } else {
      std::vector<std::int64_t> got(static_cast<std::size_t>(count));
      TALLY_SUPPORT_CHECK(cudaMemcpy(got.data(), index.data(), sizeof(std::int64_t) * got.size(),
                                     cudaMemcpyDeviceToHost));
      for (std::int64_t s = 0; s < count && row.ok; ++s)
        if (got[s] != want_index[s]) {
          row.ok = false;
          row.detail = "piece " + std::to_string(s) + ": index " + std::to_string(got[s]) +
                       ", tally::host gives " + std::to_string(want_index[s]);
        }
    }
    time_passed_row(row, o.timing, tally_call, input, cub_us, o.loops);
  });
}

template <piece_op What, class T>
check_entry pieces_entry(const char* algorithm, const char* type_key, ts::pattern data, piece_kind kind) {
  return labelled_entry(algorithm, type_key, type_key, data,
                        [=](const check_row& label, std::uint64_t n, const verify_options& o) {
                          return check_pieces<What, T>(label, data, kind, n, o);
                        });
}

}  // namespace pieces_check
}  // namespace tally_tool
