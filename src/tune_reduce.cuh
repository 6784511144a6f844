#pragma once
// The reduce cases of `tally tune` (tune_reduce_*.cu): one case per (kernel class,
// value size), measured on the benchmarks' reduce inputs (support/tally_support/
// reduce_cases.cuh) and checked against CUB on the same input.

#include "tune_case.cuh"

#include <tally/reduce.cuh>

#include <tally_support/compare.hpp>
#include <tally_support/cuda_check.cuh>
#include <tally_support/reduce_cases.cuh>
#include <tally_support/reduce_input.cuh>

#include <string>

namespace tally_tool {

template <class Case>
tune_case reduce_tune_case(const std::string& algorithm, const std::string& type, const std::string& kind,
                           const std::string& label) {
  using T = typename Case::T;
  namespace b = tally::backend;
  tune_case c;
  c.algorithm = algorithm;
  c.type = type;
  c.kind = kind;
  c.max_value_bytes = int(sizeof(T));
  c.label = label;
  c.item_bytes = int(sizeof(T));
  c.configs = candidate_configs<reduce_threads, TALLY_TUNE_REDUCE_ITEMS>(b::atomic, b::shared_memory, b::warp_shuffle);
  c.run = [](std::uint64_t n, tune_env& env) {
    tally_support::reduce_input<Case> s(n, env.stream);
    measure_candidates<reduce_threads, TALLY_TUNE_REDUCE_ITEMS>(
        env, s.in.count(), [&] { s.out.memset(0xff); },
        [&](const auto& policy, int k) {
          tally::reduce_into(policy, s.in.copy(k), s.in.copy(k) + n, s.out.data(), Case::init(), Case::tally_op());
        },
        [&] {
          TALLY_SUPPORT_CHECK(cudaStreamSynchronize(env.stream));
          return tally_support::close_enough(s.out.get(), s.reference, Case::rel_tol) ? std::string()
                                                                                     : std::string("wrong result");
        },
        b::atomic, b::shared_memory, b::warp_shuffle);
  };
  return c;
}

}  // namespace tally_tool
