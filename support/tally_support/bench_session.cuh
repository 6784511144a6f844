#pragma once
/// @file
/// The frame the comparison benchmarks (bench_reduce, bench_max_element, bench_top_k)
/// share: what main() does around the measurements, and one measurement (check the
/// row's result, then time it, then record it).
///
///   ts::bench_session g;  // the run's stream, ruler and report, for the measurements
///
///   void run_benchmark(benchmark::State& st, ...) {
///     ts::checked_measurement(st, g, {case_name, row, key, n, sizeof(T)},
///         [&]() -> auto& { return g_inputs.get<Case>(n, g.stream); },   // the input (has `in`)
///         [&](auto& s) { return std::string(ok ? "" : "got ..."); },      // "" when right
///         [&](auto& s) { return ts::time_row(g, ..., s.in.count()); });
///   }
///   int main(int argc, char** argv) {
///     return ts::run_comparison_benchmarks(argc, argv, program, g,
///         [](const ts::bench_flags& f) { /* register the measurements */ },
///         [] { g_inputs.reset(); },
///         [](const ts::bench_session& s) { return "- method: ...\n" + s.report->markdown("cub"); });
///   }
///
/// time_row times a row as --timing says (the anchors' back-to-back calls by default).
/// The run: this program's flags, then Google Benchmark's (bad flags: exit 2); a usable
/// GPU (none: "FATAL", exit 1); the stream, the stream_read ruler and the report; the
/// header line and the device-to-device copy ceiling; the measurements; the Markdown
/// (head + the program's body) printed and written to --md, the rows to --json (JSON
/// Lines, with $TALLY_COMMIT as the commit); exit 1 when a row was WRONG.

#include <tally_support/bench_cli.hpp>
#include <tally_support/bench_report.hpp>
#include <tally_support/cuda_check.cuh>
#include <tally_support/device_info.cuh>
#include <tally_support/gbench_glue.cuh>
#include <tally_support/table.hpp>
#include <tally_support/timing.cuh>

#include <benchmark/benchmark.h>

#include <cstdint>
#include <cstdlib>
#include <exception>
#include <iostream>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace tally_support {

/// What the measurements of one run share (set up by run_comparison_benchmarks).
struct bench_session {
  std::string program;                   ///< "bench_reduce": starts every message
  cudaStream_t stream = nullptr;         ///< every call is enqueued here
  std::unique_ptr<stream_read> ruler;    ///< the floor row
  std::unique_ptr<bench_report> report;  ///< the tables
  device_info device;
  std::string when;  ///< utc_now() at the start
  copy_ceiling ceiling;
  std::vector<bench_row> rows;  ///< every measurement, for --json
  bool queued = false;          ///< --timing=queued
  spin_calibration spin;        ///< the spin the queued calls wait behind (--timing=queued)
};

/// A row whose calls make the host wait for the GPU (Thrust's reduce returns its value):
/// under --timing=queued it is left out (said on stderr), never timed with the host's time in.
struct not_queued : std::runtime_error {
  not_queued() : std::runtime_error("the calls did not queue behind the spin kernel (a call waits for the GPU)") {}
};

/// A row's timing as the run's --timing says: the anchors' back-to-back calls
/// (time_calls), or the GPU's time per call with the calls queued behind a spin kernel
/// (time_queued_calls, its calls per loop from an estimate). A call that makes the host
/// wait for the GPU cannot be queued: not_queued.
template <class Call>
timing_result time_row(const bench_session& g, Call&& call, int copies) {
  if (!g.queued) return time_calls(call, copies, g.stream);
  const queued_timing q = time_queued_calls(call, copies, g.stream, g.spin);
  if (!q.queued) throw not_queued();
  timing_result r;
  r.median_us = q.median_us;
  r.min_us = q.min_us;
  r.max_us = q.max_us;
  r.calls_per_loop = q.calls_per_loop;
  return r;
}

/// One measurement's place in the report and in Google Benchmark's output.
struct measurement_id {
  std::string case_name;  ///< "float_sum"
  std::string row;        ///< the report's row, "tally automatic"
  std::string key;        ///< the row in Google Benchmark's names and in messages, "tally_automatic"
  std::uint64_t n = 0;
  double bytes_per_item = 0;  ///< for GB/s: n x bytes_per_item bytes read per call
  double items = 0;           ///< when > 0, the items read per call (n is then a column key)
};

/// One Google Benchmark entry: `input()` returns the input of (case, n) (anything with
/// a device_copies member `in`); `check(input)` runs the row once and returns "" when
/// its result matches the reference, else what it got (the WRONG line ends with it);
/// `time(input)` returns the row's timing_result. A WRONG row is recorded, said on
/// stderr and skipped, never timed. Any exception (a CUDA error poisons the context:
/// nothing measured after it could be trusted) prints FATAL and exits with 1.
/// Returns the median µs per call when the row was timed.
template <class Input, class Check, class Time>
std::optional<double> checked_measurement(benchmark::State& state, bench_session& g, const measurement_id& id,
                                          Input&& input, Check&& check, Time&& time) {
  try {
    auto& s = input();
    const std::string got = check(s);
    if (!got.empty()) {
      g.report->record_wrong(id.case_name, id.row, id.n);
      g.rows.push_back({id.case_name, id.row, id.key, id.n, false});
      std::cerr << g.program << ": WRONG " << id.case_name << " " << id.key << " n=" << id.n << ": " << got << "\n";
      state.SkipWithError("WRONG result (differs from CUB); not timed");
      return std::nullopt;
    }
    timing_result t;
    try {
      for (auto _ : state) {
        t = time(s);
        state.SetIterationTime(t.median_us * 1e-6);
      }
    } catch (const not_queued& e) {
      std::cerr << g.program << ": " << id.case_name << " " << id.key << " n=" << id.n << " not timed: " << e.what()
                << "\n";
      state.SkipWithError("not timed under --timing=queued");
      return std::nullopt;
    }
    g.report->record(id.case_name, id.row, id.n, t.median_us);
    const double rate = gbps((id.items > 0 ? id.items : double(id.n)) * id.bytes_per_item, t.median_us);
    g.rows.push_back({id.case_name, id.row, id.key, id.n, true, t.median_us, t.min_us, t.max_us, rate});
    state.counters["GB/s"] = rate;
    state.counters["spread%"] = spread_percent(t.median_us, t.min_us, t.max_us);
    state.counters["calls/loop"] = double(t.calls_per_loop);
    state.counters["copies"] = double(s.in.count());
    return t.median_us;
  } catch (const std::exception& e) {
    std::cerr << g.program << ": FATAL in " << id.case_name << " " << id.key << " n=" << id.n << ": " << e.what()
              << "\n";
    std::exit(1);
  }
}

/// The whole main() of a comparison benchmark (see the file comment). `register_cases(flags)`
/// registers the measurements; `release_inputs()` frees the inputs once they have run;
/// `markdown_body(session)` returns the Markdown after the head (the method lines and the
/// tables). Returns the exit code: 0, 1 (FATAL or a WRONG row) or 2 (bad command line).
template <class Register, class Release, class Body>
int run_comparison_benchmarks(int argc, char** argv, const bench_program& p, bench_session& g,
                              Register&& register_cases, Release&& release_inputs, Body&& markdown_body) {
  bench_flags flags;
  if (!start_benchmarks(argc, argv, p, flags)) return 2;
  g.program = p.name;

  if (flags.device >= 0) {
    int count = 0;
    if (cudaGetDeviceCount(&count) != cudaSuccess) count = 0;
    if (flags.device >= count || cudaSetDevice(flags.device) != cudaSuccess) {
      std::cerr << p.name << ": --device " << flags.device << ": no such CUDA device (this machine has " << count
                << ")\n";
      return 2;
    }
  }

  try {
    require_device();
    g.device = current_device_info();
    g.when = utc_now();
    TALLY_SUPPORT_CHECK(cudaStreamCreateWithFlags(&g.stream, cudaStreamNonBlocking));
    g.ruler = std::make_unique<stream_read>();
    g.report = std::make_unique<bench_report>(flags.sizes);
    g.queued = flags.queued;
    if (g.queued) g.spin = calibrate_spin(g.stream);

    std::cout << p.name << " on " << describe(g.device) << ", " << g.when << "\n";
    g.ceiling = measure_copy_ceiling(g.stream);
    std::cout << "copy ceiling: 1 GiB device-to-device in " << figure(g.ceiling.us)
              << " us = " << figure(g.ceiling.gbps) << " GB/s (read + write)\n"
              << std::flush;
    benchmark::AddCustomContext("device", g.device.name + ", " + std::to_string(g.device.sms) + " SMs");
    benchmark::AddCustomContext("copy_ceiling_GBps", figure(g.ceiling.gbps));

    register_cases(static_cast<const bench_flags&>(flags));

    benchmark::RunSpecifiedBenchmarks();
    benchmark::Shutdown();
    release_inputs();

    const std::string md = markdown_head(p.name, g.device, g.when) +
                           (g.queued ? "- timing: **queued** (`--timing=queued`): the GPU's time per call, the calls "
                                       "queued behind a spin kernel; not the anchors' back-to-back figure\n"
                                     : "") +
                           markdown_body(static_cast<const bench_session&>(g));
    write_markdown(md, flags.md);
    if (!flags.json.empty()) {
      const char* commit = std::getenv("TALLY_COMMIT");  // `tally bench` sets it
      const bench_run_info run{p.name,           describe(g.device),    g.when,
                               commit && *commit ? commit : "unknown", tally_version_string(),
                               cccl_version_string(), g.device.sms, g.ceiling.gbps};
      write_file(json_lines(run, g.rows), flags.json);
      std::cout << "(rows written to " << flags.json << ")\n";
    }

    g.ruler.reset();  // free device memory while the CUDA runtime is still up
    TALLY_SUPPORT_CHECK(cudaStreamDestroy(g.stream));
    if (g.report->any_wrong()) {
      std::cerr << p.name << ": some implementations gave WRONG results (see the tables)\n";
      return 1;
    }
    return 0;
  } catch (const std::exception& e) {
    std::cerr << p.name << ": FATAL: " << e.what() << "\n";
    return 1;
  }
}

}  // namespace tally_support
