// `tally tune`: top_k<2> on packed keys (kernel_class::top2: float; top_k<1> takes the
// same rules), checked against CUB's stable sort.

#include "tune_case.cuh"

#include <tally/top_k.cuh>

#include <tally_support/cuda_check.cuh>
#include <tally_support/top_k_cases.cuh>

#include <cstring>
#include <string>
#include <vector>

namespace tally_tool {
namespace {

namespace ts = tally_support;
namespace b = tally::backend;

tune_case top2_case() {
  using Case = ts::top_k_cases::float_top_k;
  tune_case c;
  c.algorithm = "top_k2";
  c.type = "float";
  c.kind = "top2";
  c.max_value_bytes = 4;
  c.label = "float top_k<2>";
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
          // to_host() copies on the legacy stream, which does not wait for ours.
          TALLY_SUPPORT_CHECK(cudaStreamSynchronize(env.stream));
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

std::vector<tune_case> tune_top2_cases() { return {top2_case()}; }

}  // namespace tally_tool
