// `tally bench` entries for copy_if (support/tally_support/copy_if_cases.cuh): int32 with
// 5% and 50% of the items selected and float with 50%, by a hash of the bits (selected
// items anywhere). Stable copy_if_into on each backend (the atomic backend's is
// unordered) against CUB DeviceSelect::If, unordered() beside it, the synchronous
// copy_if against thrust::copy_if. GB/s count the items read and the items written.

#include "bench.hpp"
#include "bench_rows.cuh"

#include <tally/copy_if.cuh>

#include <tally_support/copy_if_cases.cuh>
#include <tally_support/cuda_check.cuh>

#include <thrust/copy.h>
#include <thrust/execution_policy.h>

#include <cstdint>
#include <string>

namespace tally_tool {
namespace {

namespace ts = tally_support;

template <class Case>
bench_entry copy_if_entry(const char* type, const char* variant) {
  using T = typename Case::T;
  bench_entry e;
  e.algorithm = "copy_if";
  e.type = type;
  e.variant = variant;
  e.description = Case::description;
  e.item_bytes = int(sizeof(T));
  e.rows = {row_floor, row_cub};
  for (const auto& r : backend_rows()) e.rows.push_back(r);
  e.rows.push_back("tally unordered");
  e.rows.push_back("tally copy_if (sync)");
  e.rows.push_back("thrust::copy_if (sync)");
  // The reference and the output (n items each), their sorted bit patterns for the
  // unordered rows, CUB's temporary storage.
  e.extra_bytes = [](std::uint64_t n) { return double(n) * 5 * sizeof(T); };
  e.run = [](std::uint64_t n, bench_env& env) {
    ts::copy_if_input<Case> s(n, env.stream);
    const double bytes = double(n + std::uint64_t(s.reference_count)) * sizeof(T);
    const int copies = s.in.count();
    auto first = [&](int k) { return s.in.copy(k); };
    T* out = s.out.data();

    measure_floor(env, s.in);
    env.measure(row_cub, bytes, [] { return std::string(); },
                [&] { return time_rotating(env, copies, [&](int k) { s.cub_call(k, out); }); });
    auto into_row = [&](const std::string& row, auto policy, bool stable) {
      env.measure(
          row, bytes,
          [&] {
            s.fill_out();
            s.fill_count();
            tally::copy_if_into(policy, first(0), first(0) + n, out, s.count_out.data(), s.pred);
            return s.compare_output(s.read_count(), stable);
          },
          [&] {
            return time_rotating(env, copies, [&](int k) {
              tally::copy_if_into(policy, first(k), first(k) + n, out, s.count_out.data(), s.pred);
            });
          });
    };
    for_each_backend_row(env.stream, [&](const std::string& row, auto policy) {
      // The atomic backend reserves room with atomics: its output is unordered.
      into_row(row, policy, row != "tally atomic");
    });
    into_row("tally unordered", tally::par.on(env.stream).unordered(), false);
    auto sync_row = [&](const std::string& row, auto call) {
      env.measure(
          row, bytes,
          [&] {
            s.fill_out();
            return s.compare_output(call(0) - out, true);
          },
          [&] { return time_rotating(env, copies, [&](int k) { (void)call(k); }); });
    };
    const auto on = tally::par.on(env.stream);
    sync_row("tally copy_if (sync)", [&](int k) { return tally::copy_if(on, first(k), first(k) + n, out, s.pred); });
    const auto thrust_on = thrust::cuda::par.on(env.stream);
    sync_row("thrust::copy_if (sync)",
             [&](int k) { return thrust::copy_if(thrust_on, first(k), first(k) + n, out, s.pred); });
  };
  return e;
}

}  // namespace

std::vector<bench_entry> copy_if_bench_entries() {
  namespace c = ts::copy_if_cases;
  return {copy_if_entry<c::int32_5>("int32", "5% selected"), copy_if_entry<c::int32_50>("int32", "50% selected"),
          copy_if_entry<c::float_50>("float", "50% selected")};
}

}  // namespace tally_tool
