// Reductions, arg-extrema and top_k over pieces with tally::host (the reference the device
// backends must match: test/gpu/test_pieces.cu, test_top_k_pieces.cu) and the checks of the pieces' arguments
// (tally::error before any CUDA call, so also on a machine without a GPU). No GPU needed.
#include "host_test_support.cuh"

#include <tally/tally.cuh>

#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

namespace {

const float nan_f = std::numeric_limits<float>::quiet_NaN();

// Runs `call`, which must throw tally::error (not its cuda_error: the check comes before
// any CUDA call) whose message names `algorithm` and contains `what`.
template <class F>
void expect_error(F&& call, const char* algorithm, const char* what) {
  CAPTURE(what);
  try {
    call();
    FAIL("no exception thrown");
  } catch (const tally::cuda_error& e) {
    FAIL("tally::cuda_error instead of an argument error: ", e.what());
  } catch (const tally::error& e) {
    const std::string message = e.what();
    CAPTURE(message);
    CHECK(message.find(algorithm) != std::string::npos);
    CHECK(message.find(what) != std::string::npos);
  }
}

}  // namespace

TEST_CASE("pieces: rows, pitched rows and segments describe the items they should") {
  const tally::rows_t r = tally::rows(3, 4);
  CHECK(r.count() == 3);
  CHECK(r.begin(2) == 8);
  CHECK(r.length(1) == 4);
  const tally::rows_t pitched = tally::rows(3, 4, 10);
  CHECK(pitched.begin(2) == 20);
  CHECK(pitched.length(2) == 4);
  const std::vector<int> offsets = {0, 3, 3, 7};
  const auto csr = tally::segments(offsets.data(), 3);
  CHECK(csr.count() == 3);
  CHECK(csr.begin(1) == 3);
  CHECK(csr.length(1) == 0);
  CHECK(csr.length(2) == 4);
  const std::vector<long long> begins = {5, 0, 4}, ends = {7, 2, 1};  // any order; the last ends before it begins
  const auto any = tally::segments(begins.data(), ends.data(), 3);
  CHECK(any.begin(0) == 5);
  CHECK(any.length(0) == 2);
  CHECK(any.length(2) == 0);  // a decreasing range is empty, not negative
  static_assert(tally::is_pieces_v<tally::rows_t>);
  static_assert(tally::is_pieces_v<decltype(csr)>);
  static_assert(!tally::is_pieces_v<int*>);
}

TEST_CASE("pieces: tally::host reduce_into per row and per segment, empty pieces give init") {
  std::vector<int> data(30);
  for (int i = 0; i < 30; ++i) data[i] = i;
  std::vector<long long> out(4, -1);
  // Rows of 5, pitched by 7: row r holds 7r .. 7r + 4.
  tally::reduce_into(tally::host, data.data(), tally::rows(4, 5, 7), out.data(), 100LL);
  for (int r = 0; r < 4; ++r) CHECK(out[r] == 100 + 5 * 7 * r + 10);
  const std::vector<int> offsets = {2, 2, 5, 5, 30};  // empty, [2, 5), empty, [5, 30)
  tally::reduce_into(tally::host, data.data(), tally::segments(offsets.data(), 4), out.data(), 0LL,
                     tally::plus<long long>{});
  CHECK(out[0] == 0);
  CHECK(out[1] == 2 + 3 + 4);
  CHECK(out[2] == 0);
  CHECK(out[3] == (5 + 29) * 25 / 2);
  // Zero rows writes nothing.
  out.assign(4, -7);
  tally::reduce_into(tally::host, data.data(), tally::rows(0, 5), out.data(), 0LL);
  CHECK(out[0] == -7);
}

TEST_CASE("pieces: tally::host max/min_element_into per piece: local index, first wins, NaN greatest, empty 0") {
  const std::vector<float> data = {1, 3, 3, 2,  // row 0: max 3 at 1 (first of two), min 1 at 0
                                   5, nan_f, 7, nan_f,  // row 1: max the first NaN (1), min 5 at 0
                                   -0.0f, 0.0f, -1, -1};  // row 2: max the first zero (0), min -1 at 2
  std::vector<std::int64_t> out(3, -1);
  tally::max_element_into(tally::host, data.data(), tally::rows(3, 4), out.data());
  CHECK(out == std::vector<std::int64_t>{1, 1, 0});
  tally::min_element_into(tally::host, data.data(), tally::rows(3, 4), out.data());
  CHECK(out == std::vector<std::int64_t>{0, 0, 2});
  const std::vector<int> offsets = {4, 4, 8};  // empty, then row 1
  tally::max_element_into(tally::host, data.data(), tally::segments(offsets.data(), 2), out.data());
  CHECK(out[0] == 0);
  CHECK(out[1] == 1);
}

TEST_CASE("pieces: tally::host top_k_into per piece: best first, ties by index, NaN greatest, -1 past a length") {
  const std::vector<float> data = {1, 3, 3, 2,             // row 0: 3 (1), 3 (2), 2 (3)
                                   5, nan_f, 7, nan_f,     // row 1: NaN (5), NaN (7), 7 (6)
                                   -0.0f, 0.0f, -1, -1};   // row 2: -0 (8), +0 (9), -1 (10)
  std::vector<float> values(9, 42.0f);
  std::vector<std::int64_t> indices(9, 42);
  tally::top_k_into(tally::host, data.data(), tally::rows(3, 4), 3, values.data(), indices.data());
  CHECK(indices == std::vector<std::int64_t>{1, 2, 3, 1, 3, 2, 0, 1, 2});
  CHECK(values[0] == 3.0f);
  CHECK(std::isnan(values[3]));
  CHECK(values[5] == 7.0f);
  CHECK(std::signbit(values[6]));  // each item's own sign
  CHECK(!std::signbit(values[7]));
  // The smallest first; k past the lengths: index -1 and the value untouched there.
  const std::vector<int> offsets = {4, 4, 6};  // an empty segment, then {5, NaN}
  std::vector<float> small(6, 42.0f);
  std::vector<std::int64_t> small_index(6, 42);
  tally::top_k_into(tally::host, data.data(), tally::segments(offsets.data(), 2), 3, small.data(), small_index.data(),
                    tally::greater<>{});
  CHECK(small_index == std::vector<std::int64_t>{-1, -1, -1, 0, 1, -1});
  CHECK(small[0] == 42.0f);
  CHECK(small[3] == 5.0f);
  CHECK(std::isnan(small[4]));
  CHECK(small[5] == 42.0f);
}

TEST_CASE("pieces: top_k_into's bad arguments are a tally::error before any CUDA call, nothing written") {
  std::vector<float> data(100, 1.0f);
  std::vector<float> values(40, 0.0f);
  std::vector<std::int64_t> indices(40, 0);
  const char* top_k = "tally::top_k_into";
  expect_error([&] { tally::top_k_into(tally::par, data.data(), tally::rows(4, 25), 0, values.data(), indices.data()); },
               top_k, "k must be at least 1");
  expect_error([&] { tally::top_k_into(tally::host, data.data(), tally::rows(4, 25), -2, values.data(), indices.data()); },
               top_k, "k must be at least 1");
  expect_error([&] { tally::top_k_into(tally::par, data.data(), tally::rows(4, 25), 2049, values.data(), indices.data()); },
               top_k, "at most tally::max_top_k_pieces");
  expect_error([&] { tally::top_k_into(tally::par, data.data(), tally::rows(4, 25, 10), 5, values.data(), indices.data()); },
               top_k, "stride is smaller");
  float* no_values = nullptr;
  expect_error([&] { tally::top_k_into(tally::par, data.data(), tally::rows(4, 25), 5, no_values, indices.data()); },
               top_k, "null pointer given for the values output");
  volatile std::int64_t big_bits = 40;  // not a constant (see above)
  const std::int64_t big = std::int64_t(1) << big_bits;
  expect_error([&] { tally::top_k_into(tally::par, data.data(), tally::rows(big, 1), big, values.data(), indices.data()); },
               top_k, "does not fit in 64 bits");
  for (float x : values) CHECK(x == 0.0f);
  for (std::int64_t i : indices) CHECK(i == 0);
}

TEST_CASE("pieces: bad pieces are a tally::error naming the algorithm, before any CUDA call") {
  std::vector<float> data(100, 1.0f);
  std::vector<float> out(10);
  std::vector<std::int64_t> index(10);
  const char* reduce = "tally::reduce_into";
  expect_error([&] { tally::reduce_into(tally::par, data.data(), tally::rows(-1, 4), out.data(), 0.0f); }, reduce,
               "number of rows is negative");
  expect_error([&] { tally::reduce_into(tally::par, data.data(), tally::rows(2, -4), out.data(), 0.0f); }, reduce,
               "row length is negative");
  expect_error([&] { tally::reduce_into(tally::par, data.data(), tally::rows(3, 8, 4), out.data(), 0.0f); }, reduce,
               "stride is smaller");
  // Not a constant: the compiler would otherwise see the host loop it guards overflow.
  volatile std::int64_t big_bits = 40;
  const std::int64_t big = std::int64_t(1) << big_bits;
  expect_error([&] { tally::reduce_into(tally::par, data.data(), tally::rows(big, big), out.data(), 0.0f); }, reduce,
               "does not fit in 64 bits");
  expect_error([&] { tally::reduce_into(tally::host, data.data(), tally::rows(big, big), out.data(), 0.0f); },
               reduce, "does not fit in 64 bits");
  const int* no_offsets = nullptr;
  expect_error(
      [&] { tally::reduce_into(tally::par, data.data(), tally::segments(no_offsets, 3), out.data(), 0.0f); }, reduce,
      "null pointer given for the segments' begin offsets");
  const std::vector<int> offsets = {0, 1, 2};
  expect_error([&] { tally::reduce_into(tally::par, data.data(), tally::segments(offsets.data(), -2), out.data(), 0.0f); },
               reduce, "number of segments is negative");
  float* no_input = nullptr;
  expect_error([&] { tally::reduce_into(tally::par, no_input, tally::rows(2, 3), out.data(), 0.0f); }, reduce,
               "null pointer given for the input");
  float* no_output = nullptr;
  expect_error([&] { tally::reduce_into(tally::par, data.data(), tally::rows(2, 3), no_output, 0.0f); }, reduce,
               "null pointer given for the output");
  expect_error([&] { tally::max_element_into(tally::par, data.data(), tally::rows(3, 8, 4), index.data()); },
               "tally::max_element_into", "stride is smaller");
  expect_error([&] { tally::min_element_into(tally::host, data.data(), tally::rows(-3, 8), index.data()); },
               "tally::min_element_into", "number of rows is negative");
  // Nothing was written by any of them.
  for (float x : out) CHECK(x == 0.0f);
  for (std::int64_t i : index) CHECK(i == 0);
}

TEST_CASE("pieces: the blocks way's chunks per piece (detail::chunks_per_piece)") {
  using tally::detail::chunks_per_piece;
  // Pieces that fill half the slots or more: a block per piece.
  CHECK(chunks_per_piece(512, 16, 396) == 1);
  CHECK(chunks_per_piece(198, 64, 396) == 1);
  CHECK(chunks_per_piece(1, 1, 396) == 1);
  // One piece no longer than the slots: a tile a chunk.
  CHECK(chunks_per_piece(1, 64, 528) == 64);
  // Otherwise between one and four rounds of the slots, never more chunks than tiles, and
  // no busier block than one round's chunks give.
  for (std::int64_t count : {1, 3, 16, 64, 150, 197}) {
    for (std::int64_t tiles : {2, 5, 16, 64, 2048, 32768}) {
      for (std::int64_t resident : {264, 396, 528}) {
        if (2 * count >= resident) continue;
        CAPTURE(count);
        CAPTURE(tiles);
        CAPTURE(resident);
        const std::int64_t chunks = chunks_per_piece(count, tiles, resident);
        CHECK(chunks >= 1);
        CHECK(chunks <= tiles);
        const std::int64_t rounds = (count * chunks + resident - 1) / resident;
        CHECK(rounds <= 4);
        const std::int64_t one_round = std::min(resident / count, tiles);
        const std::int64_t busiest = rounds * ((tiles + chunks - 1) / chunks);
        CHECK(busiest <= (tiles + one_round - 1) / one_round);
      }
    }
  }
  // 16 x 2^24 floats on 396 slots: two rounds of 49 chunks (42 tiles) beat one of 24 (86).
  CHECK(chunks_per_piece(16, 2048, 396) == 49);
}
