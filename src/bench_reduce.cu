// `tally bench` entries for reduce: int32, float and double sums and the float max
// (support/tally_support/reduce_cases.cuh), against CUB DeviceReduce, thrust::reduce and
// the floor; tally's synchronous reduce beside Thrust's (both return on the host).

#include "bench.hpp"
#include "bench_rows.cuh"

#include <tally/reduce.cuh>

#include <tally_support/compare.hpp>
#include <tally_support/cuda_check.cuh>
#include <tally_support/reduce_cases.cuh>
#include <tally_support/reduce_input.cuh>

#include <thrust/execution_policy.h>
#include <thrust/reduce.h>

namespace tally_tool {
namespace {

namespace ts = tally_support;

template <class Case>
bench_entry reduce_entry(const char* algorithm, const char* type) {
  using T = typename Case::T;
  bench_entry e;
  e.algorithm = algorithm;
  e.type = type;
  e.description = Case::description;
  e.item_bytes = int(sizeof(T));
  e.rows = {row_floor, row_cub};
  for (const auto& r : backend_rows()) e.rows.push_back(r);
  e.rows.push_back("tally reduce (sync)");
  e.rows.push_back("thrust::reduce (sync)");
  e.extra_bytes = [](std::uint64_t n) { return double(n) * sizeof(T); };  // one copy beyond the budget at worst
  e.run = [](std::uint64_t n, bench_env& env) {
    ts::reduce_input<Case> s(n, env.stream);
    const double bytes = double(n) * sizeof(T);
    const int copies = s.in.count();
    auto first = [&](int k) { return s.in.copy(k); };
    auto right = [&](T got) { return ts::close_enough(got, s.reference, Case::rel_tol) ? std::string() : got_vs(got, s.reference); };

    measure_floor(env, s.in);
    env.measure(row_cub, bytes, [] { return std::string(); },
                [&] { return time_rotating(env, copies, [&](int k) { s.cub_call(k); }); });
    for_each_backend_row(env.stream, [&](const std::string& row, auto policy) {
      env.measure(
          row, bytes,
          [&] {
            s.out.memset(0xff);  // a row that writes nothing cannot pass by accident
            tally::reduce_into(policy, first(0), first(0) + n, s.out.data(), Case::init(), Case::tally_op());
            TALLY_SUPPORT_CHECK(cudaStreamSynchronize(env.stream));
            return right(s.out.get());
          },
          [&] {
            return time_rotating(env, copies, [&](int k) {
              tally::reduce_into(policy, first(k), first(k) + n, s.out.data(), Case::init(), Case::tally_op());
            });
          });
    });
    T sink{};
    const auto sync_policy = tally::par.on(env.stream);
    env.measure(
        "tally reduce (sync)", bytes,
        [&] { return right(tally::reduce(sync_policy, first(0), first(0) + n, Case::init(), Case::tally_op())); },
        [&] {
          return time_rotating(env, copies, [&](int k) {
            sink = tally::reduce(sync_policy, first(k), first(k) + n, Case::init(), Case::tally_op());
          });
        });
    const auto thrust_policy = thrust::cuda::par.on(env.stream);
    env.measure(
        "thrust::reduce (sync)", bytes,
        [&] { return right(thrust::reduce(thrust_policy, first(0), first(0) + n, Case::init(), Case::thrust_op())); },
        [&] {
          return time_rotating(env, copies, [&](int k) {
            sink = thrust::reduce(thrust_policy, first(k), first(k) + n, Case::init(), Case::thrust_op());
          });
        });
    (void)sink;
  };
  return e;
}

}  // namespace

std::vector<bench_entry> reduce_bench_entries() {
  return {reduce_entry<ts::reduce_cases::int32_sum>("reduce_sum", "int32"),
          reduce_entry<ts::reduce_cases::float_sum>("reduce_sum", "float"),
          reduce_entry<ts::reduce_cases::double_sum>("reduce_sum", "double"),
          reduce_entry<ts::reduce_cases::float_max>("reduce_max", "float")};
}

}  // namespace tally_tool
