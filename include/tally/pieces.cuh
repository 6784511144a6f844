#pragma once
/// @file
/// Pieces of one input: `tally::rows` and `tally::segments`, for the reductions and
/// arg-extrema that run over many pieces in one launch (`reduce_into`,
/// `max_element_into`, `min_element_into` with a pieces argument in place of `last`).
///
/// @code
/// tally::rows(num_rows, row_length)               // row r = [r * len, (r + 1) * len)
/// tally::rows(num_rows, row_length, row_stride)   // pitched rows: row r starts at r * stride
/// tally::segments(offsets, num_segments)          // CSR: segment s = [offsets[s], offsets[s + 1])
/// tally::segments(begin_offsets, end_offsets, num_segments)   // CUB's form
/// @endcode
/// Offsets are device iterators (raw pointers, thrust::device_ptr, counting or transform
/// iterators) of int32 or int64; counts are 64-bit; pieces may be empty, overlap, or come
/// in any order (begin/end form). Item i of piece s is `first[begin(s) + i]`.
///
/// Checked before anything is queued (tally::error, nothing written): negative counts,
/// a row stride smaller than the row length, num_rows * row_stride beyond 64 bits, null
/// offsets with segments. Offsets live on the device and are not read by the host: a
/// segment whose end is before its begin is taken as empty (no crash, no hang, nothing
/// read outside [begin, end) of any other segment).

#include <tally/detail/config.cuh>
#include <tally/detail/type_traits.cuh>

#include <cstdint>
#include <type_traits>

TALLY_NAMESPACE_BEGIN

/// Equal rows of a row-major matrix (pitched when row_stride > row_length).
struct rows_t {
  std::int64_t num_rows = 0;
  std::int64_t row_length = 0;
  std::int64_t row_stride = 0;

  TALLY_HOST_DEVICE std::int64_t count() const { return num_rows; }
  TALLY_HOST_DEVICE std::int64_t begin(std::int64_t r) const { return r * row_stride; }
  TALLY_HOST_DEVICE std::int64_t length(std::int64_t) const { return row_length; }
};

/// Segments given by offsets: segment s is [begin_offsets[s], end_offsets[s]).
template <class OffsetIt>
struct segments_t {
  OffsetIt begin_offsets;
  OffsetIt end_offsets;
  std::int64_t num_segments = 0;

  TALLY_HOST_DEVICE std::int64_t count() const { return num_segments; }
  TALLY_HOST_DEVICE std::int64_t begin(std::int64_t s) const { return static_cast<std::int64_t>(begin_offsets[s]); }
  /// The length; 0 for a segment whose end is before its begin (offsets are not checked
  /// on the host).
  TALLY_HOST_DEVICE std::int64_t length(std::int64_t s) const {
    const std::int64_t n = static_cast<std::int64_t>(end_offsets[s]) - begin(s);
    return n > 0 ? n : 0;
  }
};

/// num_rows rows of row_length items, one after the other.
inline rows_t rows(std::int64_t num_rows, std::int64_t row_length) { return {num_rows, row_length, row_length}; }

/// num_rows rows of row_length items, row r starting at item r * row_stride.
inline rows_t rows(std::int64_t num_rows, std::int64_t row_length, std::int64_t row_stride) {
  return {num_rows, row_length, row_stride};
}

/// CSR: segment s is [offsets[s], offsets[s + 1]), s < num_segments (offsets holds
/// num_segments + 1 values).
template <class OffsetIt>
segments_t<OffsetIt> segments(OffsetIt offsets, std::int64_t num_segments) {
  return {offsets, offsets + 1, num_segments};
}

/// Segment s is [begin_offsets[s], end_offsets[s]), s < num_segments.
template <class OffsetIt>
segments_t<OffsetIt> segments(OffsetIt begin_offsets, OffsetIt end_offsets, std::int64_t num_segments) {
  return {begin_offsets, end_offsets, num_segments};
}

template <class P>
struct is_pieces : std::false_type {};
template <>
struct is_pieces<rows_t> : std::true_type {};
template <class OffsetIt>
struct is_pieces<segments_t<OffsetIt>> : std::true_type {};

/// Whether P describes pieces (rows_t or segments_t).
template <class P>
inline constexpr bool is_pieces_v = is_pieces<std::remove_cv_t<std::remove_reference_t<P>>>::value;

TALLY_NAMESPACE_END
