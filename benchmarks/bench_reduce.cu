// bench_reduce: tally's reduce against CUB, Thrust and the stream_read floor, side by
// side in one run, by the anchors' method (shared/anchors/README.md): back-to-back calls
// between CUDA events, inputs rotating over copies that fill 512 MiB, the figure is the
// median over 7 loops of the mean µs per call.
//
// Each Google Benchmark entry is one (case, implementation, n); it runs the whole
// 7-loop measurement once (Iterations(1)) and reports the median through manual time.
// Every implementation's result is checked against CUB on the same input first; a
// wrong result is reported as WRONG and never timed. At the end the Markdown tables
// (µs, GB/s, speed-up vs CUB) are printed and written to --md=FILE.
//
// Flags (removed before Google Benchmark sees argv; its own --benchmark_* flags work):
//   --sizes=even|all|LIST   2^10, 2^12, ..., 2^28 (default) | every power 2^10..2^28 |
//                           e.g. --sizes=2^10,2^20,1000
//   --cases=LIST            subset of int32_sum,float_sum,double_sum,float_max
//   --md=FILE               where the Markdown tables go (default bench_reduce.md)
//   --json=FILE             every row as JSON Lines (the input of `tally plot`)
//   --device=N              run on CUDA device N
// (support/tally_support/bench_cli.hpp; `tally bench` runs this program with them.)

#include <tally/tally.cuh>

#include <tally_support/bench_cli.hpp>
#include <tally_support/bench_session.cuh>
#include <tally_support/compare.hpp>
#include <tally_support/cuda_check.cuh>
#include <tally_support/reduce_cases.cuh>
#include <tally_support/reduce_input.cuh>
#include <tally_support/sizes.hpp>
#include <tally_support/timing.cuh>

#include <benchmark/benchmark.h>
#include <thrust/execution_policy.h>
#include <thrust/reduce.h>

#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

namespace ts = tally_support;

namespace {

// The cases (support/tally_support/reduce_cases.cuh) fix the item type, the data, the
// operator (as tally, CUB and Thrust spell it) and how closely a result must match CUB's.

// --- the implementations (table rows, in this order) --------------------------------------

enum class impl { floor, cub, tally_automatic, tally_atomic, tally_shared_memory, tally_warp_shuffle, thrust };
const impl all_impls[] = {impl::floor,        impl::cub,
                          impl::tally_automatic, impl::tally_atomic,
                          impl::tally_shared_memory, impl::tally_warp_shuffle,
                          impl::thrust};

const char* impl_row(impl i) {
  switch (i) {
    case impl::floor: return "stream_read (floor)";
    case impl::cub: return "cub";
    case impl::tally_automatic: return "tally automatic";
    case impl::tally_atomic: return "tally atomic";
    case impl::tally_shared_memory: return "tally shared_memory";
    case impl::tally_warp_shuffle: return "tally warp_shuffle";
    case impl::thrust: return "thrust::reduce (sync)";
  }
  return "?";
}
const char* impl_key(impl i) {  // Google Benchmark names: no spaces
  switch (i) {
    case impl::floor: return "stream_read";
    case impl::cub: return "cub";
    case impl::tally_automatic: return "tally_automatic";
    case impl::tally_atomic: return "tally_atomic";
    case impl::tally_shared_memory: return "tally_shared_memory";
    case impl::tally_warp_shuffle: return "tally_warp_shuffle";
    case impl::thrust: return "thrust";
  }
  return "?";
}

/// Calls f with the tally policy of a tally row (on `s`, backend forced).
template <class F>
void with_tally_policy(impl which, cudaStream_t s, F&& f) {
  switch (which) {
    case impl::tally_automatic: f(tally::par.on(s).with(tally::backend::automatic)); break;
    case impl::tally_atomic: f(tally::par.on(s).with(tally::backend::atomic)); break;
    case impl::tally_shared_memory: f(tally::par.on(s).with(tally::backend::shared_memory)); break;
    case impl::tally_warp_shuffle: f(tally::par.on(s).with(tally::backend::warp_shuffle)); break;
    default: throw std::logic_error("with_tally_policy: not a tally row");
  }
}

// --- shared state of one run ----------------------------------------------------------------

/// The run's stream, ruler and report (support/tally_support/bench_session.cuh).
ts::bench_session g;

/// The input of one (case, n) and CUB's result on it, one at a time
/// (support/tally_support/reduce_input.cuh).
ts::reduce_input_slot g_inputs;

// --- one benchmark: verify, then time -------------------------------------------------------

/// The result of one call of `which` on copy 0 (synchronised), for the check against CUB.
template <class Case>
typename Case::T result_of(impl which, ts::reduce_input<Case>& s) {
  using T = typename Case::T;
  const std::size_t n = s.in.size();
  const T* first = s.in.copy(0);
  switch (which) {
    case impl::cub: return s.cub_result(0);
    case impl::thrust: return thrust::reduce(thrust::cuda::par.on(g.stream), first, first + n, Case::init(), Case::thrust_op());
    default:
      s.out.memset(0xff);  // a row that writes nothing cannot pass by accident
      with_tally_policy(which, g.stream, [&](auto policy) {
        tally::reduce_into(policy, first, first + n, s.out.data(), Case::init(), Case::tally_op());
      });
      TALLY_SUPPORT_CHECK(cudaStreamSynchronize(g.stream));
      return s.out.get();
  }
}

template <class Case>
ts::timing_result time_impl(impl which, ts::reduce_input<Case>& s) {
  using T = typename Case::T;
  const std::size_t n = s.in.size();
  const int copies = s.in.count();
  switch (which) {
    case impl::floor:
      return ts::time_row(g, [&](int k) { (*g.ruler)(s.in.copy(k), n * sizeof(T), g.stream); }, copies);
    case impl::cub:
      return ts::time_row(g, [&](int k) { s.cub_call(k); }, copies);
    case impl::thrust: {
      T sink{};
      auto t = ts::time_row(g,
          [&](int k) {
            sink = thrust::reduce(thrust::cuda::par.on(g.stream), s.in.copy(k), s.in.copy(k) + n, Case::init(),
                                  Case::thrust_op());
          },
          copies);
      benchmark::DoNotOptimize(sink);
      return t;
    }
    default: {
      ts::timing_result t;
      with_tally_policy(which, g.stream, [&](auto policy) {
        t = ts::time_row(g,
            [&](int k) {
              tally::reduce_into(policy, s.in.copy(k), s.in.copy(k) + n, s.out.data(), Case::init(),
                                 Case::tally_op());
            },
            copies);
      });
      return t;
    }
  }
}

template <class Case>
void run_benchmark(benchmark::State& state, impl which, std::size_t n) {
  ts::checked_measurement(
      state, g, {Case::name, impl_row(which), impl_key(which), n, double(sizeof(typename Case::T))},
      [&]() -> auto& { return g_inputs.get<Case>(n, g.stream); },
      [&](ts::reduce_input<Case>& s) {
        if (which == impl::floor) return std::string();  // the ruler computes nothing to check
        const auto got = result_of(which, s);
        if (ts::close_enough(got, s.reference, Case::rel_tol)) return std::string();
        std::ostringstream why;
        why << "got " << got << ", CUB gives " << s.reference;
        return why.str();
      },
      [&](ts::reduce_input<Case>& s) { return time_impl(which, s); });
}

template <class Case>
void register_case(const std::vector<std::uint64_t>& sizes) {
  g.report->add_case(Case::name, std::string(Case::description) + " (cub row: " + Case::cub_name + ")",
                     double(sizeof(typename Case::T)));
  for (auto n : sizes)
    for (impl which : all_impls) {
      const std::string name = std::string(Case::name) + "/" + impl_key(which) + "/" + ts::size_label(n);
      ts::register_measurement(name, [which, n](benchmark::State& st) { run_benchmark<Case>(st, which, n); });
    }
}

// --- command line -----------------------------------------------------------------------------

const ts::bench_program program{
    "bench_reduce", "tally reduce vs CUB, Thrust and the stream_read floor\n", "bench_reduce.md",
    ts::reduce_cases::names(), "float_max"};

}  // namespace

int main(int argc, char** argv) {
  return ts::run_comparison_benchmarks(
      argc, argv, program, g,
      [](const ts::bench_flags& flags) {
        ts::reduce_cases::for_each_wanted(flags.cases, [&](auto c) { register_case<decltype(c)>(flags.sizes); });
      },
      [] { g_inputs.reset(); },
      [](const ts::bench_session& s) {
        std::string md =
            "- method: median over 7 loops of the mean time per call, back-to-back calls between CUDA events, "
            "inputs rotating over copies that fill 512 MiB (at most 1024); CUB temporary storage allocated once; "
            "thrust::reduce includes its synchronisation and the copy of the result to the host\n";
        md += "- copy ceiling: 1 GiB device-to-device copy, " + ts::figure(s.ceiling.gbps) + " GB/s (read + write)\n";
        md += "- WRONG: the result differed from CUB's on the same input; such a row is not timed\n\n";
        md += s.report->markdown("cub");
        return md;
      });
}
