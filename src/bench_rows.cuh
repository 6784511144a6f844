#pragma once
// What the bench entries (bench_*.cu) share: the rows of tally's backends, timing a call
// on rotating copies with the run's options, and the floor row.

#include "bench.hpp"

#include <tally/policy.cuh>

#include <tally_support/timing.cuh>

#include <sstream>
#include <string>
#include <vector>

namespace tally_tool {

/// The rows of tally on automatic and on each backend, in report order.
inline std::vector<std::string> backend_rows() {
  return {"tally automatic", "tally atomic", "tally shared_memory", "tally warp_shuffle"};
}

/// Calls f(row name, policy on `stream`) for each row of backend_rows().
template <class F>
void for_each_backend_row(cudaStream_t stream, F&& f) {
  const auto on = tally::par.on(stream);
  f(std::string("tally automatic"), on);
  f(std::string("tally atomic"), on.with(tally::backend::atomic));
  f(std::string("tally shared_memory"), on.with(tally::backend::shared_memory));
  f(std::string("tally warp_shuffle"), on.with(tally::backend::warp_shuffle));
}

/// Times call(copy) over `copies` rotating copies by the run's method.
template <class Call>
tally_support::timing_result time_rotating(const bench_env& env, int copies, Call&& call) {
  return tally_support::time_calls(call, copies, env.stream, env.timing);
}

/// The floor row: one read of the input with 16-byte loads (the anchors' stream_read).
template <class Copies>
void measure_floor(bench_env& env, const Copies& in) {
  const std::size_t bytes = in.bytes();
  env.measure(row_floor, double(bytes), [] { return std::string(); },
              [&] { return time_rotating(env, in.count(), [&](int k) { (*env.ruler)(in.copy(k), bytes, env.stream); }); });
}

/// "got X, CUB gives Y" for a wrong row.
template <class A, class B>
std::string got_vs(const A& got, const B& reference, const char* who = "CUB") {
  std::ostringstream s;
  s.precision(9);
  s << "got " << got << ", " << who << " gives " << reference;
  return s.str();
}

}  // namespace tally_tool
