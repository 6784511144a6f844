#pragma once
/// @file
/// The four reduce cases the benchmarks compare tally with CUB on (bench_reduce,
/// tally tune): int32 sum, float sum, double sum, float max. A case fixes the
/// item type, the data, the operator (as tally and as CUB/Thrust spell it), the init,
/// CUB's call, and how closely a result must match CUB's (`rel_tol`, for close_enough).
///
///   using C = tally_support::reduce_cases::float_sum;
///   C::fill(p, n);
///   tally::reduce_into(policy, p, p + n, out, C::init(), C::tally_op());
///   if (!close_enough(got, cub_result, C::rel_tol)) ...

#include <tally/tally.cuh>

#include <tally_support/data.cuh>

#include <cub/device/device_reduce.cuh>
#include <cuda/functional>
#include <cuda/std/functional>

#include <cstddef>
#include <limits>
#include <string>
#include <vector>

namespace tally_support::reduce_cases {

/// What the sum cases share: init 0, `plus`, cub::DeviceReduce::Sum.
template <class Item>
struct sum_case {
  using T = Item;
  static T init() { return T(0); }
  static tally::plus<T> tally_op() { return {}; }
  static ::cuda::std::plus<T> thrust_op() { return {}; }
  static cudaError_t cub(void* tmp, std::size_t& bytes, const T* in, T* out, std::size_t n, cudaStream_t s) {
    return cub::DeviceReduce::Sum(tmp, bytes, in, out, n, s);
  }
  static constexpr const char* cub_name = "cub DeviceReduce::Sum";
};

struct int32_sum : sum_case<int> {
  static constexpr const char* name = "int32_sum";
  static constexpr const char* description = "int32 sum, data hash(i) % 4";
  static constexpr double rel_tol = 0;  // exact
  static void fill(T* p, std::size_t n) { fill_hash_mod(p, n); }
};

struct float_sum : sum_case<float> {
  static constexpr const char* name = "float_sum";
  static constexpr const char* description = "float sum, data uniform in [0, 1)";
  static constexpr double rel_tol = 1e-4;
  static void fill(T* p, std::size_t n) { fill_uniform(p, n); }
};

struct double_sum : sum_case<double> {
  static constexpr const char* name = "double_sum";
  static constexpr const char* description = "double sum, data uniform in [0, 1)";
  static constexpr double rel_tol = 1e-10;
  static void fill(T* p, std::size_t n) { fill_uniform(p, n); }
};

struct float_max {
  using T = float;
  static constexpr const char* name = "float_max";
  static constexpr const char* description = "float max, init -inf, data uniform in [0, 1)";
  static constexpr double rel_tol = 0;  // exact
  static T init() { return -std::numeric_limits<float>::infinity(); }
  static tally::maximum<T> tally_op() { return {}; }
  static ::cuda::maximum<T> thrust_op() { return {}; }
  static void fill(T* p, std::size_t n) { fill_uniform(p, n); }
  static cudaError_t cub(void* tmp, std::size_t& bytes, const T* in, T* out, std::size_t n, cudaStream_t s) {
    return cub::DeviceReduce::Max(tmp, bytes, in, out, n, s);
  }
  static constexpr const char* cub_name = "cub DeviceReduce::Max";
};

/// The case names, in table order (the values --cases accepts).
inline std::vector<std::string> names() { return {int32_sum::name, float_sum::name, double_sum::name, float_max::name}; }

/// Calls f(Case{}) for each case whose name is in `wanted`, in table order.
template <class Names, class F>
void for_each_wanted(const Names& wanted, F&& f) {
  auto is_wanted = [&](const char* name) {
    for (const auto& w : wanted)
      if (w == name) return true;
    return false;
  };
  if (is_wanted(int32_sum::name)) f(int32_sum{});
  if (is_wanted(float_sum::name)) f(float_sum{});
  if (is_wanted(double_sum::name)) f(double_sum{});
  if (is_wanted(float_max::name)) f(float_max{});
}

}  // namespace tally_support::reduce_cases
