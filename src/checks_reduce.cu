// `tally verify` entries for reduce: sums of int32, int64, float, double and half (half
// accumulated in float, the usual way to sum halfs), and float max/min, on random and
// constant data, and for max/min also on data with NaNs and all +-inf. Each compares
// tally::reduce_into on every backend with cub::DeviceReduce::Reduce using the same
// operator and init on the same input (tally_support/reference.cuh), then times both.

#include "check.hpp"
#include "device_checks.cuh"

#include <tally/tally.cuh>

#include <tally_support/compare.hpp>
#include <tally_support/data.cuh>
#include <tally_support/reference.cuh>

#include <limits>
#include <string>

namespace tally_tool {
namespace {

namespace ts = tally_support;

/// reduce of n items of T (pattern `data`) into an Acc with `op` from `init`.
template <class T, class Acc, class Op>
std::vector<check_row> check_reduce(const check_row& label, ts::pattern data, Op op, Acc init, double rel_tol,
                                    std::uint64_t n, const verify_options& o) {
  device_input<T> input(n, data, o);
  ts::device_buffer<Acc> out(1);

  // CUB with the same operator and init: the reference (and the same NaN semantics).
  ts::cub_temp_storage temp;
  auto cub_call = [&](int k) {
    temp.run([&](void* t, std::size_t& bytes) {
      return ts::cub_reduce_call(t, bytes, input.copies.copy(k), out.data(), n, op, init, input.stream);
    });
  };
  out.memset(0xff);
  cub_call(0);
  TALLY_SUPPORT_CHECK(cudaStreamSynchronize(input.stream));
  const Acc reference = out.get();
  const double cub_us = o.timing ? time_us(cub_call, input, o.loops) : 0.0;

  return rows_per_backend(label, n, double(n) * sizeof(T), o, input.stream, [&](auto policy, check_row& row) {
    auto tally_call = [&](int k) {
      const T* first = input.copies.copy(k);
      tally::reduce_into(policy, first, first + n, out.data(), init, op);
    };
    out.memset(0xff);  // a backend that writes nothing cannot pass by accident
    tally_call(0);
    TALLY_SUPPORT_CHECK(cudaStreamSynchronize(input.stream));
    const Acc got = out.get();
    row.ok = ts::close_enough(got, reference, rel_tol);
    if (!row.ok) row.detail = "got " + value_text(got) + ", CUB gives " + value_text(reference);
    time_passed_row(row, o.timing, tally_call, input, cub_us, o.loops);
  });
}

template <class T, class Acc, class Op>
check_entry reduce_entry(const char* algorithm, const char* type_key, const char* type_shown, ts::pattern data,
                         Op op, Acc init, double rel_tol) {
  return labelled_entry(algorithm, type_key, type_shown, data,
                        [=](const check_row& label, std::uint64_t n, const verify_options& o) {
                          return check_reduce<T, Acc>(label, data, op, init, rel_tol, n, o);
                        });
}

}  // namespace

std::vector<check_entry> reduce_checks() {
  constexpr float inf = std::numeric_limits<float>::infinity();
  using ts::pattern;
  std::vector<check_entry> v;
  for (pattern p : {pattern::random, pattern::constant}) {
    v.push_back(reduce_entry<int>("reduce sum", "int32", "int32", p, tally::plus<int>{}, 0, 0.0));
    v.push_back(reduce_entry<long long>("reduce sum", "int64", "int64", p, tally::plus<long long>{}, 0LL, 0.0));
    v.push_back(reduce_entry<float>("reduce sum", "float", "float", p, tally::plus<float>{}, 0.0f, 1e-4));
    v.push_back(reduce_entry<double>("reduce sum", "double", "double", p, tally::plus<double>{}, 0.0, 1e-10));
    v.push_back(reduce_entry<__half>("reduce sum", "half", "half (float acc)", p, tally::plus<float>{}, 0.0f, 1e-3));
  }
  for (pattern p : {pattern::random, pattern::constant, pattern::with_nan, pattern::pos_inf, pattern::neg_inf}) {
    v.push_back(reduce_entry<float>("reduce max", "float", "float", p, tally::maximum<float>{}, -inf, 0.0));
    v.push_back(reduce_entry<float>("reduce min", "float", "float", p, tally::minimum<float>{}, inf, 0.0));
  }
  return v;
}

}  // namespace tally_tool
