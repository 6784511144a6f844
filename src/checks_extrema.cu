// `tally verify` entries for the extrema: max_element_into and min_element_into of int32,
// float, double and half, on random and constant data and on all +inf / all -inf (for
// int32: all INT_MAX / all INT_MIN), and for the floating types on data with NaNs. Each
// compares the index tally writes on every backend with the one of
// cub::DeviceReduce::ArgMax / ArgMin on the same input (the first extremum, as tally's),
// except on data with NaN, where CUB's plain `<` is not tally's order (NaN greatest):
// there the reference is a plain host loop in the library's order (host_arg) on a copy of
// the input. Both references are tally_support's (reference.cuh, compare.hpp), shared
// with the GPU tests. Then it times tally against CUB.

#include "check.hpp"
#include "device_checks.cuh"

#include <tally/tally.cuh>

#include <tally_support/compare.hpp>
#include <tally_support/data.cuh>
#include <tally_support/reference.cuh>

#include <cuda_fp16.h>

#include <cstdint>
#include <string>
#include <type_traits>
#include <vector>

namespace tally_tool {
namespace {

namespace ts = tally_support;

/// tally::max_element_into (Max) or min_element_into of [first, first + n) into *out.
template <bool Max, class Policy, class T>
void tally_arg(const Policy& policy, const T* first, std::uint64_t n, std::int64_t* out) {
  if constexpr (Max) tally::max_element_into(policy, first, first + n, out);
  else tally::min_element_into(policy, first, first + n, out);
}

/// max_element_into (Max) or min_element_into of n items of T (pattern `data`): the
/// index on every requested backend against CUB's (or, with NaN in the data, the host
/// reference's), then times of both. n = 0 (CUB writes nothing then) is checked against the
/// index n = 0 and not timed.
template <bool Max, class T>
std::vector<check_row> check_extremum(const check_row& label, ts::pattern data, std::uint64_t n,
                                      const verify_options& o) {
  device_input<T> input(n, data, o);
  const T* in0 = input.copies.copy(0);
  ts::device_buffer<T> value(1);
  ts::device_buffer<std::int64_t> index(1);

  ts::cub_temp_storage temp;
  auto cub_call = [&](int k) {
    temp.run([&](void* t, std::size_t& bytes) {
      return ts::cub_arg_extremum_call<Max>(t, bytes, input.copies.copy(k), value.data(), index.data(), n,
                                            input.stream);
    });
  };

  // The reference: CUB's index, or the host backend's on data with NaN; n for an empty range.
  std::int64_t reference = 0;
  std::string reference_name = "CUB";
  if (n > 0) {
    if (data == ts::pattern::with_nan) {
      std::vector<T> host(n);
      TALLY_SUPPORT_CHECK(cudaMemcpy(host.data(), in0, n * sizeof(T), cudaMemcpyDeviceToHost));
      reference = ts::host_arg<Max>(host, ts::library_order_less{});
      reference_name = "the host reference";
    } else {
      index.memset(0xff);
      cub_call(0);
      TALLY_SUPPORT_CHECK(cudaStreamSynchronize(input.stream));
      reference = index.get();
      reference_name = "CUB (value " + value_text(value.get()) + ")";
    }
  }
  const bool timing = o.timing && n > 0;
  const double cub_us = timing ? time_us(cub_call, input, o.loops) : 0.0;

  return rows_per_backend(label, n, double(n) * sizeof(T), o, input.stream, [&](auto policy, check_row& row) {
    auto tally_call = [&](int k) { tally_arg<Max>(policy, input.copies.copy(k), n, index.data()); };
    index.memset(0xff);  // a backend that writes nothing cannot pass by accident
    tally_call(0);
    TALLY_SUPPORT_CHECK(cudaStreamSynchronize(input.stream));
    const std::int64_t got = index.get();
    row.ok = got == reference;
    if (!row.ok)
      row.detail =
          "got index " + std::to_string(got) + ", " + reference_name + " gives " + std::to_string(reference);
    time_passed_row(row, timing, tally_call, input, cub_us, o.loops);
  });
}

template <bool Max, class T>
check_entry extremum_entry(const char* type_key, ts::pattern data) {
  return labelled_entry(Max ? "max_element_into" : "min_element_into", type_key, type_key, data,
                        [=](const check_row& label, std::uint64_t n, const verify_options& o) {
                          return check_extremum<Max, T>(label, data, n, o);
                        });
}

/// Both algorithms on one type and pattern.
template <class T>
void add_both(std::vector<check_entry>& v, const char* type_key, ts::pattern data) {
  v.push_back(extremum_entry<true, T>(type_key, data));
  v.push_back(extremum_entry<false, T>(type_key, data));
}

}  // namespace

std::vector<check_entry> extrema_checks() {
  using ts::pattern;
  std::vector<check_entry> v;
  for (pattern p : {pattern::random, pattern::constant, pattern::pos_inf, pattern::neg_inf}) {
    add_both<int>(v, "int32", p);
    add_both<float>(v, "float", p);
    add_both<double>(v, "double", p);
    add_both<__half>(v, "half", p);
  }
  add_both<float>(v, "float", pattern::with_nan);
  add_both<double>(v, "double", pattern::with_nan);
  add_both<__half>(v, "half", pattern::with_nan);
  return v;
}

}  // namespace tally_tool
