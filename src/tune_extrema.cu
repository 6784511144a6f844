// `tally tune`: max_element (reduce_op_class extremum: float on packed keys, double on
// (value, index) pairs, which have no atomic form) and top_k<2> on packed keys
// (reduce_op_class top2: float). Checked against CUB ArgMax and CUB's sort.

#include "tune_case.cuh"

#include <tally/max_element.cuh>
#include <tally/top_k.cuh>

#include <tally_support/cuda_check.cuh>
#include <tally_support/extrema_cases.cuh>
#include <tally_support/top_k_cases.cuh>

#include <cstring>
#include <string>
#include <vector>

namespace tally_tool {
namespace {

namespace ts = tally_support;
namespace b = tally::backend;

struct double_argmax : ts::extrema_cases::extremum_case<double, true> {
  static constexpr const char* name = "double_argmax";
  static constexpr const char* description = "double max_element, data uniform in [0, 1)";
  static void fill(T* p, std::size_t n) { ts::fill_uniform(p, n); }
};

template <class Case, class... Backends>
tune_case extremum_case(const char* type, int sort_key, Backends... backends) {
  using T = typename Case::T;
  tune_case c;
  c.table = "reduce";
  c.algorithm = "max_element";
  c.type = type;
  c.key = "reduce_op_class::extremum, " + std::to_string(sizeof(T));
  c.label = std::string(type) + " max_element";
  c.sort_key = sort_key;
  c.item_bytes = int(sizeof(T));
  c.configs = candidate_configs<reduce_threads, TALLY_TUNE_REDUCE_ITEMS>(backends...);
  c.run = [](std::uint64_t n, tune_env& env) {
    ts::extrema_input<Case> s(n, env.stream);
    measure_candidates<reduce_threads, TALLY_TUNE_REDUCE_ITEMS>(
        env, s.in.count(), [&] { s.index_out.memset(0xff); },
        [&](const auto& policy, int k) { Case::tally_into(policy, s.in.copy(k), s.in.copy(k) + n, s.index_out.data()); },
        [&] {
          TALLY_SUPPORT_CHECK(cudaStreamSynchronize(env.stream));
          return s.index_out.get() == s.reference_index ? std::string() : std::string("wrong index");
        },
        Backends{}...);
  };
  return c;
}

tune_case top2_case() {
  using Case = ts::top_k_cases::float_top_k;
  tune_case c;
  c.table = "reduce";
  c.algorithm = "top_k2";
  c.type = "float";
  c.key = "reduce_op_class::top2, 4";
  c.label = "float top_k<2>";
  c.sort_key = 7;
  c.configs = candidate_configs<reduce_threads, TALLY_TUNE_REDUCE_ITEMS>(b::atomic, b::shared_memory, b::warp_shuffle);
  c.run = [](std::uint64_t n, tune_env& env) {
    ts::top_k_input<Case> s(n, env.stream);
    const int count = n < 2 ? int(n) : 2;
    measure_candidates<reduce_threads, TALLY_TUNE_REDUCE_ITEMS>(
        env, s.in.count(),
        [&] {
          s.values_out.memset(0xff);
          s.indices_out.memset(0xff);
        },
        [&](const auto& policy, int k) {
          tally::top_k_into<2>(policy, s.in.copy(k), s.in.copy(k) + n, s.values_out.data(), s.indices_out.data());
        },
        [&] {
          const auto values = s.values_out.to_host();
          const auto indices = s.indices_out.to_host();
          for (int i = 0; i < count; ++i)
            if (indices[i] != s.reference_indices[i] ||
                std::memcmp(&values[i], &s.reference_values[i], sizeof(float)) != 0)
              return "entry " + std::to_string(i) + " differs from CUB's sort";
          return std::string();
        },
        b::atomic, b::shared_memory, b::warp_shuffle);
  };
  return c;
}

}  // namespace

std::vector<tune_case> tune_extrema_cases() {
  return {extremum_case<ts::extrema_cases::float_argmax>("float", 6, b::atomic, b::shared_memory, b::warp_shuffle),
          // (value, index) pairs have no atomic form: the atomic backend would run as warp_shuffle.
          extremum_case<double_argmax>("double", 6, b::shared_memory, b::warp_shuffle), top2_case()};
}

}  // namespace tally_tool
