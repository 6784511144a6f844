#pragma once
// What the `tally tune` searches share: a case (one class of a tuning table, e.g.
// {kernel_class::integer_sum, 4, any_size}: sums of 4-byte integers), its candidate
// configurations, and the compile-time lists of shapes and backends they are built from.
// A candidate is a policy forcing a backend and a shape (`par.with(B).tune<T, I>()`), so
// every candidate is its own kernel, compiled into tally-tune (never into `tally`); each
// search's file (tune_*.cu) compiles its own.

#include "tune_table.hpp"

#include <tally/policy.cuh>

#include <tally_support/timing.cuh>

#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <vector>

namespace tally_tool {

/// What a case's run reports to (set up by tune.cu for each (case, n)).
struct tune_env {
  cudaStream_t stream = nullptr;
  /// GPU time per call with the calls queued behind a spin kernel (timing.cuh): the
  /// host's launch cost, the same for every candidate, would hide the differences
  /// between shapes at small sizes.
  tally_support::spin_calibration spin;
  tally_support::queued_timing_options timing;
  std::uint64_t n = 0;
  double last_us = 0;  ///< the last candidate's time at this n: sets the calls per loop
  /// Every candidate's result: its config, median µs, whether it was right.
  std::function<void(const tune_config&, double us, bool ok, const std::string& why)> record;
  /// `automatic` with the tables compiled into this tool, for comparison.
  std::function<void(double us)> record_automatic;

  template <class Call>
  double time(int copies, Call&& call) {
    const long calls = tally_support::queued_calls_for(last_us, timing);
    last_us = tally_support::time_queued_calls(call, copies, stream, calls, spin, timing).median_us;
    return last_us;
  }
};

struct tune_case {
  std::string algorithm;  ///< what --algo matches
  std::string type;       ///< what --type matches
  std::string kind;       ///< the rule's kernel_class: "integer_sum"
  int max_value_bytes = tune_any_size;  ///< the rule's value size (any_size for top_k lists)
  int max_list_size = tune_any_size;    ///< the rule's list size (top_k: K rounded up to a power of two)
  std::string label;      ///< for people: "int32 sum"
  std::vector<tune_config> configs;  ///< the candidates run() measures
  int item_bytes = 4;     ///< bytes per input item (the memory check)
  /// The rule's leading fields as C++: "kernel_class::integer_sum, 4, any_size".
  std::string key() const { return rule_key(kind, max_value_bytes, max_list_size); }
  std::function<void(std::uint64_t n, tune_env& env)> run;
};

std::vector<tune_case> tune_reduce_sum32_cases();  ///< int32 and float sums
std::vector<tune_case> tune_reduce_sum64_cases();  ///< int64 and double sums
std::vector<tune_case> tune_reduce_max_cases();    ///< float and double max
std::vector<tune_case> tune_extrema_cases();       ///< max_element: float, double
std::vector<tune_case> tune_top2_cases();          ///< top_k<2>: float
std::vector<tune_case> tune_top_k8_cases();        ///< top_k<8>: float
std::vector<tune_case> tune_top_k32_cases();       ///< top_k<32>: float
std::vector<tune_case> tune_copy_if_stable_cases();     ///< stable copy_if: int32, double
std::vector<tune_case> tune_copy_if_unordered_cases();  ///< unordered copy_if: int32, double

// --- the candidates -------------------------------------------------------------------

template <int Threads, int Items>
struct shape {
  static constexpr int threads = Threads;
  static constexpr int items = Items;
};

/// Calls f(shape<T, I>{}) for T in Threads... and I in Items... (every pair).
template <int... Items, class F, int... Threads>
void for_each_shape(std::integer_sequence<int, Threads...>, F&& f) {
  auto row = [&](auto threads) { (f(shape<decltype(threads)::value, Items>{}), ...); };
  (row(std::integral_constant<int, Threads>{}), ...);
}

/// Calls f(config, policy) for each backend tag in Backends... and each shape: the policy
/// forces both, on `stream`.
template <class Threads, int... Items, class F, class... Backends>
void for_each_candidate(cudaStream_t stream, F&& f, Backends... backends) {
  auto one_backend = [&](auto backend) {
    for_each_shape<Items...>(Threads{}, [&](auto s) {
      using S = decltype(s);
      const auto policy = tally::par.on(stream).with(backend).template tune<S::threads, S::items>();
      f(tune_config{tally::backend_name(decltype(backend)::id), S::threads, S::items}, policy);
    });
  };
  (one_backend(backends), ...);
}

/// The configs for_each_candidate visits (for the case's list), without running anything.
template <class Threads, int... Items, class... Backends>
std::vector<tune_config> candidate_configs(Backends... backends) {
  std::vector<tune_config> out;
  for_each_candidate<Threads, Items...>(nullptr, [&](const tune_config& c, const auto&) { out.push_back(c); },
                                        backends...);
  return out;
}

/// The reduction candidates: three backends x threads {256, 512, 1024} x items {4, 8, 16}.
using reduce_threads = std::integer_sequence<int, 256, 512, 1024>;
#define TALLY_TUNE_REDUCE_ITEMS 4, 8, 16

}  // namespace tally_tool

namespace tally_tool {

/// Measures every candidate on one input: for each, `prepare()` (fill the outputs),
/// `call(policy, 0)` once and `check()` ("" when right), then `call(policy, k)` timed
/// over the input's rotating copies. A candidate that throws (a shape the kernel cannot
/// launch with) or is wrong is recorded as failed and never chosen. Then `automatic`
/// (the compiled tables) for comparison.
template <class Threads, int... Items, class Prepare, class Call, class Check, class... Backends>
void measure_candidates(tune_env& env, int copies, Prepare&& prepare, Call&& call, Check&& check,
                        Backends... backends) {
  for_each_candidate<Threads, Items...>(
      env.stream,
      [&](const tune_config& config, const auto& policy) {
        try {
          prepare();
          call(policy, 0);
          const std::string why = check();
          if (!why.empty()) {
            env.record(config, 0, false, why);
            return;
          }
          env.record(config, env.time(copies, [&](int k) { call(policy, k); }), true, "");
        } catch (const std::exception& e) {
          (void)cudaGetLastError();  // a launch refused for its shape is not sticky
          env.record(config, 0, false, e.what());
        }
      },
      backends...);
  const auto automatic = tally::par.on(env.stream);
  env.record_automatic(env.time(copies, [&](int k) { call(automatic, k); }));
}

}  // namespace tally_tool
