#pragma once
// The top_k cases of `tally tune` (tune_top_k8.cu, tune_top_k32.cu: one file each, so that
// they compile in parallel): top_k<K> on float, threads {128, 256, 512} x items {4, 8, 16}
// x the merge (shuffles or the shared-memory tree), checked against CUB's stable sort.

#include "tune_case.cuh"

#include <tally/top_k.cuh>

#include <tally_support/cuda_check.cuh>
#include <tally_support/top_k_cases.cuh>

#include <cstring>
#include <string>
#include <vector>

namespace tally_tool {
namespace tune_top_k_detail {

namespace ts = tally_support;
namespace b = tally::backend;
using top_k_threads = std::integer_sequence<int, 128, 256, 512>;
#define TALLY_TUNE_TOP_K_ITEMS 4, 8, 16

template <int K>
tune_case top_k_case() {
  using Case = ts::top_k_cases::float_top_k;
  tune_case c;
  c.algorithm = "top_k" + std::to_string(K);
  c.type = "float";
  c.kind = "top_k";
  // The rule top_k<K> reads: lists of K rounded up to a power of two, any value size
  // ({kernel_class::top_k, any_size, 8} for K = 8).
  c.max_list_size = tally::detail::top_k_list_size(K);
  c.label = "float top_k<" + std::to_string(K) + ">";
  c.configs = candidate_configs<top_k_threads, TALLY_TUNE_TOP_K_ITEMS>(b::warp_shuffle, b::shared_memory);
  c.run = [](std::uint64_t n, tune_env& env) {
    ts::top_k_input<Case> s(n, env.stream);
    const int count = n < std::uint64_t(K) ? int(n) : K;
    measure_candidates<top_k_threads, TALLY_TUNE_TOP_K_ITEMS>(
        env, s.in.count(),
        [&] {
          s.values_out.memset(0xff);
          s.indices_out.memset(0xff);
        },
        [&](const auto& policy, int k) {
          tally::top_k_into<K>(policy, s.in.copy(k), s.in.copy(k) + n, s.values_out.data(), s.indices_out.data());
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
        b::warp_shuffle, b::shared_memory);
  };
  return c;
}

}  // namespace tune_top_k_detail
}  // namespace tally_tool
