// `tally bench` entries for max_element and min_element (support/tally_support/
// extrema_cases.cuh): tally's max_element_into / min_element_into on each backend
// against CUB ArgMax / ArgMin, the synchronous forms against thrust::max_element /
// min_element, and tally's value-only reduce beside them.

#include "bench.hpp"
#include "bench_rows.cuh"

#include <tally/max_element.cuh>
#include <tally/reduce.cuh>

#include <tally_support/cuda_check.cuh>
#include <tally_support/extrema_cases.cuh>

#include <cstdint>

namespace tally_tool {
namespace {

namespace ts = tally_support;

template <class Case>
bench_entry extremum_entry(const char* algorithm, const char* type) {
  using T = typename Case::T;
  bench_entry e;
  e.algorithm = algorithm;
  e.type = type;
  e.description = Case::description;
  e.item_bytes = int(sizeof(T));
  e.rows = {row_floor, row_cub};
  for (const auto& r : backend_rows()) e.rows.push_back(r);
  e.rows.push_back(Case::is_max ? "tally max_element (sync)" : "tally min_element (sync)");
  e.rows.push_back(Case::thrust_name);
  e.rows.push_back(Case::reduce_name);
  e.extra_bytes = [](std::uint64_t n) { return double(n) * sizeof(T); };
  e.run = [rows = e.rows](std::uint64_t n, bench_env& env) {
    ts::extrema_input<Case> s(n, env.stream);
    const double bytes = double(n) * sizeof(T);
    const int copies = s.in.count();
    auto first = [&](int k) { return s.in.copy(k); };
    auto right_index = [&](std::int64_t got) { return got == s.reference_index ? std::string() : got_vs(got, s.reference_index); };

    measure_floor(env, s.in);
    env.measure(row_cub, bytes, [] { return std::string(); },
                [&] { return time_rotating(env, copies, [&](int k) { s.cub_call(k); }); });
    for_each_backend_row(env.stream, [&](const std::string& row, auto policy) {
      env.measure(
          row, bytes,
          [&] {
            s.index_out.memset(0xff);
            Case::tally_into(policy, first(0), first(0) + n, s.index_out.data());
            TALLY_SUPPORT_CHECK(cudaStreamSynchronize(env.stream));
            return right_index(s.index_out.get());
          },
          [&] {
            return time_rotating(env, copies,
                                 [&](int k) { Case::tally_into(policy, first(k), first(k) + n, s.index_out.data()); });
          });
    });
    const auto on = tally::par.on(env.stream);
    auto tally_sync = [&](int k) {
      return Case::is_max ? tally::max_element(on, first(k), first(k) + n) : tally::min_element(on, first(k), first(k) + n);
    };
    const T* sink = nullptr;
    env.measure(
        rows[rows.size() - 3], bytes, [&] { return right_index(tally_sync(0) - first(0)); },
        [&] { return time_rotating(env, copies, [&](int k) { sink = tally_sync(k); }); });
    env.measure(
        Case::thrust_name, bytes,
        [&] { return right_index(Case::thrust_call(first(0), first(0) + n, env.stream) - first(0)); },
        [&] {
          return time_rotating(env, copies,
                               [&](int k) { sink = Case::thrust_call(first(k), first(k) + n, env.stream); });
        });
    (void)sink;
    env.measure(
        Case::reduce_name, bytes,
        [&] {
          s.value_out.memset(0xff);
          Case::tally_reduce_into(on, first(0), first(0) + n, s.value_out.data());
          TALLY_SUPPORT_CHECK(cudaStreamSynchronize(env.stream));
          const T got = s.value_out.get();
          return got == s.reference_value ? std::string() : got_vs(got, s.reference_value);
        },
        [&] {
          return time_rotating(env, copies,
                               [&](int k) { Case::tally_reduce_into(on, first(k), first(k) + n, s.value_out.data()); });
        });
  };
  return e;
}

}  // namespace

std::vector<bench_entry> extrema_bench_entries() {
  return {extremum_entry<ts::extrema_cases::float_argmax>("max_element", "float"),
          extremum_entry<ts::extrema_cases::int32_argmax>("max_element", "int32"),
          extremum_entry<ts::extrema_cases::float_argmin>("min_element", "float")};
}

}  // namespace tally_tool
