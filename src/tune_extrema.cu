// `tally tune`: max_element (kernel_class::extremum: float on packed keys, double on
// (value, index) pairs, which have no atomic form), checked against CUB ArgMax.

#include "tune_case.cuh"

#include <tally/max_element.cuh>

#include <tally_support/cuda_check.cuh>
#include <tally_support/extrema_cases.cuh>

#include <string>
#include <vector>

namespace tally_tool {
namespace {

namespace ts = tally_support;
namespace b = tally::backend;

struct double_argmax : ts::extrema_cases::extremum_case<double, true> {
  static constexpr const char* name = "double_argmax";
  static void fill(T* p, std::size_t n) { ts::fill_uniform(p, n); }
};

template <class Case, class... Backends>
tune_case extremum_case(const char* type, Backends... backends) {
  using T = typename Case::T;
  tune_case c;
  c.algorithm = "max_element";
  c.type = type;
  c.kind = "extremum";
  c.max_value_bytes = int(sizeof(T));
  c.label = std::string(type) + " max_element";
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

}  // namespace

std::vector<tune_case> tune_extrema_cases() {
  return {extremum_case<ts::extrema_cases::float_argmax>("float", b::atomic, b::shared_memory, b::warp_shuffle),
          // (value, index) pairs have no atomic form: the atomic backend would run as warp_shuffle.
          extremum_case<double_argmax>("double", b::shared_memory, b::warp_shuffle)};
}

}  // namespace tally_tool
