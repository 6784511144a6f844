#pragma once
// The copy_if cases of `tally tune` (tune_copy_if_stable.cu, tune_copy_if_unordered.cu):
// int32 (50% selected) and double (copy_if rules for 4- and 8-byte values), threads
// {128, 256, 512} x items {8, 16} (4-byte) or {4, 8} (8-byte) x the block scan (shuffles
// or shared memory), checked against CUB DeviceSelect::If (in order, or as multisets for
// unordered).

#include "tune_case.cuh"

#include <tally/copy_if.cuh>

#include <tally_support/copy_if_cases.cuh>
#include <tally_support/cuda_check.cuh>

#include <string>
#include <vector>

namespace tally_tool {
namespace tune_copy_if_detail {

namespace ts = tally_support;
namespace b = tally::backend;
using copy_if_threads = std::integer_sequence<int, 128, 256, 512>;

/// double data uniform in [0, 1), half of it selected (x < 0.5).
struct double_50 {
  using T = double;
  struct pred_type {
    __host__ __device__ bool operator()(double x) const { return x < 0.5; }
  };
  static constexpr double fraction = 0.5;
  static pred_type pred() { return {}; }
  static void fill(double* p, std::size_t n, cudaStream_t s) { ts::fill_uniform(p, n, 0, s); }
  static constexpr const char* name = "double_50pct";
  static constexpr const char* description = "double data uniform in [0, 1), x < 0.5 selected";
};

template <class Case, bool Unordered, int... Items>
tune_case copy_if_case(const char* type) {
  using T = typename Case::T;
  tune_case c;
  c.algorithm = "copy_if";
  c.type = type;
  c.kind = Unordered ? "copy_if_unordered" : "copy_if";
  c.max_value_bytes = int(sizeof(T));
  c.label = std::string(type) + (Unordered ? " copy_if unordered()" : " copy_if (stable)");
  c.item_bytes = int(sizeof(T));
  c.configs = candidate_configs<copy_if_threads, Items...>(b::warp_shuffle, b::shared_memory);
  c.run = [](std::uint64_t n, tune_env& env) {
    ts::copy_if_input<Case> s(n, env.stream);
    auto policy_of = [](const auto& p) {
      if constexpr (Unordered) return p.unordered();
      else return p;
    };
    measure_candidates<copy_if_threads, Items...>(
        env, s.in.count(),
        [&] {
          s.fill_out();
          s.fill_count();
        },
        [&](const auto& policy, int k) {
          tally::copy_if_into(policy_of(policy), s.in.copy(k), s.in.copy(k) + n, s.out.data(), s.count_out.data(),
                              s.pred);
        },
        [&] { return s.compare_output(s.read_count(), !Unordered); }, b::warp_shuffle, b::shared_memory);
  };
  return c;
}

/// The stable or the unordered cases.
template <bool Unordered>
std::vector<tune_case> cases() {
  namespace cc = ts::copy_if_cases;
  return {copy_if_case<cc::int32_50, Unordered, 8, 16>("int32"),
          copy_if_case<double_50, Unordered, 4, 8>("double")};
}

}  // namespace tune_copy_if_detail
}  // namespace tally_tool
