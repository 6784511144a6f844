#pragma once
// What every device check of `tally verify` needs: the input (rotating copies, filled
// with a pattern by tally_support/data.cuh, the generator the tests and benchmarks use),
// the stream, timing by the support method, running a generic call with the policy of a
// runtime-chosen backend, and printing a value. The references are CUB's answers from
// tally_support/reference.cuh and the comparisons of tally_support/compare.hpp, shared
// with the GPU tests.

#include "check.hpp"

#include <tally/policy.cuh>

#include <tally_support/compare.hpp>
#include <tally_support/cuda_check.cuh>
#include <tally_support/data.cuh>
#include <tally_support/device_buffer.cuh>
#include <tally_support/reference.cuh>
#include <tally_support/timing.cuh>

#include <cmath>
#include <cstdio>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

namespace tally_tool {

/// The stream all checks run on (created on first use, never destroyed: it lives as
/// long as the process).
inline cudaStream_t check_stream() {
  static cudaStream_t s = [] {
    cudaStream_t created = nullptr;
    TALLY_SUPPORT_CHECK(cudaStreamCreateWithFlags(&created, cudaStreamNonBlocking));
    return created;
  }();
  return s;
}

/// n items of pattern `data` in as many copies as the timing method rotates over
/// (one copy when timing is off). Every copy holds the same items.
template <class T>
struct device_input {
  cudaStream_t stream;
  tally_support::device_copies<T> copies;

  device_input(std::uint64_t n, tally_support::pattern data, const verify_options& o)
      : stream(check_stream()), copies(n, o.timing ? tally_support::rotating_copies(n * sizeof(T)) : 1) {
    tally_support::fill_options fo;
    fo.nan_every = 1000;  // item 999, 1999, ...: NaN sits inside a block, not at the ends
    fo.seed = o.data_seed;
    fo.int_modulus = o.int_modulus;
    tally_support::fill(copies.copy(0), n, data, fo, stream);
    copies.replicate_first(stream);
  }
};

/// Median µs per call of `call(copy)` over o.loops short loops (the anchors' method with
/// fewer and shorter loops: the tool checks, the benchmarks measure).
template <class Call, class T>
double time_us(Call&& call, const device_input<T>& input, int loops = 3) {
  tally_support::timing_options t;
  t.loops = loops;
  t.min_calls_per_loop = 10;
  t.min_loop_ms = 0.5;
  return tally_support::time_calls(call, input.copies.count(), input.stream, t).median_us;
}

/// Calls f(policy) with `tally::par.on(stream)` forced onto `backend`.
template <class F>
void with_policy(tally::backend_id backend, cudaStream_t stream, F&& f) {
  switch (backend) {
    case tally::backend_id::automatic: f(tally::par.on(stream).with(tally::backend::automatic)); return;
    case tally::backend_id::atomic: f(tally::par.on(stream).with(tally::backend::atomic)); return;
    case tally::backend_id::shared_memory: f(tally::par.on(stream).with(tally::backend::shared_memory)); return;
    case tally::backend_id::warp_shuffle: f(tally::par.on(stream).with(tally::backend::warp_shuffle)); return;
    case tally::backend_id::host: break;
  }
  throw std::invalid_argument("with_policy: not a device backend");
}

/// One row per backend of o.backends: a copy of `label` with n, the backend and the bytes
/// a call reads, filled in by check(policy, row) under that backend's policy on `stream`.
/// An exception fails that backend's row with its message; the other backends still run.
template <class Check>
std::vector<check_row> rows_per_backend(const check_row& label, std::uint64_t n, double bytes,
                                        const verify_options& o, cudaStream_t stream, Check&& check) {
  std::vector<check_row> rows;
  for (tally::backend_id backend : o.backends) {
    check_row row = label;
    row.n = n;
    row.backend = backend;
    row.bytes = bytes;
    try {
      with_policy(backend, stream, [&](auto policy) { check(policy, row); });
    } catch (const std::exception& e) {
      row.ok = false;
      row.detail = e.what();
    }
    rows.push_back(row);
  }
  return rows;
}

/// A passed row's timing, when `timing` is on: tally's µs for call(copy) beside CUB's.
template <class Call, class T>
void time_passed_row(check_row& row, bool timing, Call&& call, const device_input<T>& input, double cub_us,
                     int loops) {
  if (!row.ok || !timing) return;
  row.tally_us = time_us(call, input, loops);
  row.cub_us = cub_us;
  row.timed = true;
}

/// An entry of `tally verify`: rows labelled `algorithm`, `type_shown` and the data's name,
/// made by check(label, n, options) (--type matches `type_key`).
template <class Check>
check_entry labelled_entry(const std::string& algorithm, const char* type_key, const char* type_shown,
                           tally_support::pattern data, Check check) {
  check_row label;
  label.algorithm = algorithm;
  label.type = type_shown;
  label.data = tally_support::pattern_name(data);
  return {algorithm, type_key, label.data,
          [label, check](std::uint64_t n, const verify_options& o) { return check(label, n, o); }};
}

/// A value as text: integers in full, floats with 9 significant digits ("nan", "-0",
/// "inf"; tally_support/compare.hpp).
using tally_support::value_text;

}  // namespace tally_tool
