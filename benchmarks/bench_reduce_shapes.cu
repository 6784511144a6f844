// bench_reduce_shapes: the sweep that chooses the entries of tally's reduce tuning table
// (include/tally/tuning/reduce.cuh). For each case and n it times tally::reduce_into on
// every forced backend (atomic, warp_shuffle, shared_memory) in every launch shape of
// `shape_list` below (threads per block x items per thread), plus tally's automatic
// choice and CUB as references.
//
// Two figures per (configuration, n):
//   - GPU µs per call, the figure the table is chosen on: a ~3 ms spin kernel is
//     enqueued first, then an event, ~100 calls, an event. The calls queue up behind the
//     spin, so the GPU runs them back to back and the host's launch cost (~4-5 µs per
//     launch on the lent machines, which would hide every difference at small n) is not
//     in the figure. Median over 5 such loops. A loop counts only if the spin was still
//     running once every call was enqueued; otherwise it is redone with a spin twice as
//     long (up to 4 times).
//   - µs per call by the anchors' method (support/tally_support/timing.cuh): back-to-back
//     calls between events, inputs rotating over copies that fill 512 MiB, median over 7
//     loops of the mean per call. This is what a user calling in a loop sees, host cost
//     included.
// Both rotate over the same input copies. Every configuration's result is checked
// against CUB on the same input before it is timed; a wrong one is reported as WRONG,
// never timed, and the program exits with code 1 at the end.
//
// Each Google Benchmark entry is one (case, configuration, n); it runs both measurements
// once (Iterations(1)) and reports the GPU µs through manual time. At the end, per case,
// the Markdown tables (GPU µs, anchors' µs, the best configuration per backend and
// overall at each n next to automatic and the table's choice) are printed and written to
// --md=FILE.
//
// Flags (removed before Google Benchmark sees argv; its own --benchmark_* flags work):
//   --sizes=even|all|LIST   2^10, 2^12, ..., 2^28 (default) | every power 2^10..2^28 |
//                           e.g. --sizes=2^10,2^20,1000
//   --cases=LIST            subset of int32_sum,float_sum,double_sum,float_max
//   --md=FILE               where the Markdown tables go (default bench_reduce_shapes.md)

#include <tally/tally.cuh>
#include <tally/tuning/reduce.cuh>

#include <tally_support/bench_cli.hpp>
#include <tally_support/compare.hpp>
#include <tally_support/cuda_check.cuh>
#include <tally_support/device_info.cuh>
#include <tally_support/gbench_glue.cuh>
#include <tally_support/reduce_cases.cuh>
#include <tally_support/reduce_input.cuh>
#include <tally_support/sizes.hpp>
#include <tally_support/table.hpp>
#include <tally_support/timing.cuh>

#include <benchmark/benchmark.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <iostream>
#include <limits>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace ts = tally_support;
using tally::tuning::reduce_op_class;

namespace {

// --- what is swept ------------------------------------------------------------------------

template <int Threads, int Items>
struct shape {
  static constexpr int threads = Threads;
  static constexpr int items = Items;
};
template <class... Shapes>
struct shape_list {};

/// Launch shapes (threads per block x items per thread), in table order. Each is compiled
/// once per backend and case: 8 shapes x 3 backends x 4 cases = 96 reduce kernels.
using swept_shapes = shape_list<shape<128, 16>, shape<256, 4>, shape<256, 8>, shape<256, 16>, shape<256, 32>,
                                shape<512, 8>, shape<512, 16>, shape<1024, 8>>;

/// The forced backends, in table order.
const tally::backend_id swept_backends[] = {tally::backend_id::atomic, tally::backend_id::warp_shuffle,
                                            tally::backend_id::shared_memory};

// --- the cases ------------------------------------------------------------------------------
// The same four as bench_reduce (support/tally_support/reduce_cases.cuh), plus the operator
// class the tuning table is looked up with.

using ts::reduce_cases::double_sum;
using ts::reduce_cases::float_max;
using ts::reduce_cases::float_sum;
using ts::reduce_cases::int32_sum;

template <class Case>
constexpr reduce_op_class op_class_of = reduce_op_class::other;
template <>
constexpr reduce_op_class op_class_of<int32_sum> = reduce_op_class::integer_sum;
template <>
constexpr reduce_op_class op_class_of<float_sum> = reduce_op_class::floating_sum;
template <>
constexpr reduce_op_class op_class_of<double_sum> = reduce_op_class::floating_sum;
template <>
constexpr reduce_op_class op_class_of<float_max> = reduce_op_class::min_max;

// The class the table is looked up with here must be the one tally's automatic dispatch
// derives, or the "table" column would not be what `automatic` runs.
template <class Case>
constexpr bool op_class_matches_tally =
    op_class_of<Case> == tally::detail::reduce_op_class_of<decltype(Case::tally_op()), typename Case::T>();
static_assert(op_class_matches_tally<int32_sum> && op_class_matches_tally<float_sum> &&
                  op_class_matches_tally<double_sum> && op_class_matches_tally<float_max>,
              "a case's op_class differs from the class tally's automatic dispatch uses");

// --- shared state of one run ------------------------------------------------------------------

cudaStream_t g_stream = nullptr;

/// The input of one (case, n) and CUB's result on it, which every configuration is
/// checked against; one at a time (support/tally_support/reduce_input.cuh).
ts::reduce_input_slot g_inputs;

// --- the rows: one per configuration ------------------------------------------------------------

enum class row_kind { forced, automatic, cub };

/// What a table row is (the same for every case).
struct row_info {
  std::string name;  ///< "atomic 256x16", "automatic", "cub"
  std::string key;   ///< in Google Benchmark names: "atomic_256x16"
  row_kind kind = row_kind::forced;
  tally::backend_id backend = tally::backend_id::automatic;
  int threads = 0, items = 0;
};

std::string shape_name(int threads, int items) { return std::to_string(threads) + "x" + std::to_string(items); }

/// A row of one case, with the function that enqueues one call on input copy k.
template <class Case>
struct row : row_info {
  void (*call)(ts::reduce_input<Case>&, int k) = nullptr;
};

template <class Case, class Backend, int Threads, int Items>
void call_forced(ts::reduce_input<Case>& s, int k) {
  const auto policy = tally::par.on(g_stream).with(Backend{}).template tune<Threads, Items>();
  tally::reduce_into(policy, s.in.copy(k), s.in.copy(k) + s.in.size(), s.out.data(), Case::init(), Case::tally_op());
}
template <class Case>
void call_automatic(ts::reduce_input<Case>& s, int k) {
  const auto policy = tally::par.on(g_stream).with(tally::backend::automatic);
  tally::reduce_into(policy, s.in.copy(k), s.in.copy(k) + s.in.size(), s.out.data(), Case::init(), Case::tally_op());
}
template <class Case>
void call_cub(ts::reduce_input<Case>& s, int k) {
  s.cub_call(k);
}

template <class Case, class Backend, class... Shapes>
void add_backend_rows(std::vector<row<Case>>& rows, shape_list<Shapes...>) {
  const std::string b = tally::backend_name(Backend::id);
  auto add = [&](int threads, int items, void (*call)(ts::reduce_input<Case>&, int)) {
    row<Case> r;
    r.name = b + " " + shape_name(threads, items);
    r.key = b + "_" + shape_name(threads, items);
    r.kind = row_kind::forced;
    r.backend = Backend::id;
    r.threads = threads;
    r.items = items;
    r.call = call;
    rows.push_back(r);
  };
  (add(Shapes::threads, Shapes::items, &call_forced<Case, Backend, Shapes::threads, Shapes::items>), ...);
}

/// Every row of a case: atomic, warp_shuffle, shared_memory x the shapes; automatic; cub.
template <class Case>
std::vector<row<Case>> make_rows() {
  std::vector<row<Case>> rows;
  add_backend_rows<Case, tally::backend::atomic_t>(rows, swept_shapes{});
  add_backend_rows<Case, tally::backend::warp_shuffle_t>(rows, swept_shapes{});
  add_backend_rows<Case, tally::backend::shared_memory_t>(rows, swept_shapes{});
  row<Case> automatic;
  automatic.name = automatic.key = "automatic";
  automatic.kind = row_kind::automatic;
  automatic.call = &call_automatic<Case>;
  rows.push_back(automatic);
  row<Case> cub;
  cub.name = cub.key = "cub";
  cub.kind = row_kind::cub;
  cub.call = &call_cub<Case>;
  rows.push_back(cub);
  return rows;
}

// --- GPU time per call ------------------------------------------------------------------------------
// ts::time_queued_calls (support/tally_support/timing.cuh): calls queued behind a spin kernel.

const ts::queued_timing_options gpu_timing_options;  ///< 5 loops, ~100 calls, spin doubled up to 4 times
ts::spin_calibration g_spin;                         ///< about 3 ms (ts::calibrate_spin)

// --- results -------------------------------------------------------------------------------------

struct cell {
  bool measured = false, wrong = false, queued = true;
  double gpu_us = 0, anchors_us = 0;
};

struct case_report {
  std::string name, description;
  reduce_op_class op_class;
  int value_bytes;
  std::vector<row_info> rows;
  std::map<std::pair<std::string, std::uint64_t>, cell> cells;  // (row name, n)

  const cell* find(const std::string& row, std::uint64_t n) const {
    const auto it = cells.find({row, n});
    return it == cells.end() ? nullptr : &it->second;
  }
};

std::vector<case_report> g_cases;
std::vector<std::uint64_t> g_sizes;
int g_arch = 0;
int g_redone_loops = 0;

case_report& report_of(const char* case_name) {
  for (auto& c : g_cases)
    if (c.name == case_name) return c;
  throw std::logic_error(std::string("unknown case ") + case_name);
}

// --- one benchmark: verify, then time --------------------------------------------------------------

template <class Case>
void run_benchmark(benchmark::State& state, const row<Case>& r, std::size_t n) {
  using T = typename Case::T;
  const std::string label = std::string(Case::name) + " " + r.name + " n=" + ts::size_label(n);
  try {
    auto& s = g_inputs.get<Case>(n, g_stream);
    cell& c = report_of(Case::name).cells[{r.name, n}];

    s.out.memset(0xff);  // a configuration that writes nothing cannot pass by accident
    r.call(s, 0);
    TALLY_SUPPORT_CHECK(cudaStreamSynchronize(g_stream));
    const T got = s.out.get();
    if (!ts::close_enough(got, s.reference, Case::rel_tol)) {
      c.wrong = true;
      std::cerr << "bench_reduce_shapes: WRONG " << label << ": got " << got << ", CUB gives " << s.reference << "\n";
      state.SkipWithError("WRONG result (differs from CUB); not timed");
      return;
    }

    const int copies = s.in.count();
    auto call = [&](int k) { r.call(s, k); };
    ts::timing_result anchors;
    ts::queued_timing gpu;
    for (auto _ : state) {
      anchors = ts::time_calls(call, copies, g_stream);
      gpu = ts::time_queued_calls(call, copies, g_stream, ts::queued_calls_for(anchors.median_us, gpu_timing_options),
                                  g_spin, gpu_timing_options);
      state.SetIterationTime(gpu.median_us * 1e-6);
    }
    c.measured = true;
    c.gpu_us = gpu.median_us;
    c.anchors_us = anchors.median_us;
    c.queued = gpu.queued;
    g_redone_loops += gpu.redone_loops;
    if (!gpu.queued)
      std::cerr << "bench_reduce_shapes: " << label
                << ": calls not all queued behind the spin even at its longest; GPU time may include host time\n";

    state.counters["anchors_us"] = anchors.median_us;
    state.counters["GB/s"] = ts::gbps(double(n) * sizeof(T), gpu.median_us);
    state.counters["spread%"] = ts::spread_percent(gpu.median_us, gpu.min_us, gpu.max_us);
    state.counters["gpu_calls"] = double(gpu.calls_per_loop);
    state.counters["copies"] = double(copies);
  } catch (const std::exception& e) {
    // A CUDA error poisons the context: nothing measured after it could be trusted.
    std::cerr << "bench_reduce_shapes: FATAL in " << label << ": " << e.what() << "\n";
    std::exit(1);
  }
}

template <class Case>
void register_case(const std::vector<std::uint64_t>& sizes) {
  static const std::vector<row<Case>> rows = make_rows<Case>();
  case_report rep;
  rep.name = Case::name;
  rep.description = std::string(Case::description) + " (cub row: " + Case::cub_name + ")";
  rep.op_class = op_class_of<Case>;
  rep.value_bytes = int(sizeof(typename Case::T));
  for (const auto& r : rows) rep.rows.push_back(r);
  g_cases.push_back(std::move(rep));
  for (auto n : sizes)
    for (const row<Case>& r : rows) {
      const std::string name = std::string(Case::name) + "/" + r.key + "/" + ts::size_label(n);
      ts::register_measurement(name, [&r, n](benchmark::State& st) { run_benchmark<Case>(st, r, n); });
    }
}

// --- the tables ---------------------------------------------------------------------------------------

std::string figure_us(double us) { return ts::fixed(us, us < 10 ? 2 : 1); }  // as the anchors write them

const char* op_class_name(reduce_op_class c) {
  switch (c) {
    case reduce_op_class::integer_sum: return "integer_sum";
    case reduce_op_class::floating_sum: return "floating_sum";
    case reduce_op_class::min_max: return "min_max";
    case reduce_op_class::other: return "other";
    case reduce_op_class::extremum: return "extremum";
    case reduce_op_class::top2: return "top2";
  }
  return "?";
}

/// The fastest measured forced row at n (of `backend`, or of any backend), by GPU time.
const row_info* best_row(const case_report& c, std::uint64_t n, const tally::backend_id* backend) {
  const row_info* best = nullptr;
  double best_us = 0;
  for (const auto& r : c.rows) {
    if (r.kind != row_kind::forced || (backend && r.backend != *backend)) continue;
    const cell* x = c.find(r.name, n);
    if (!x || !x->measured) continue;
    if (!best || x->gpu_us < best_us) best = &r, best_us = x->gpu_us;
  }
  return best;
}

/// Rows = configuration, columns = n; the fastest forced configuration of each column in bold.
std::string figure_table(const case_report& c, double cell::*figure) {
  std::vector<std::string> header{"configuration"};
  for (auto n : g_sizes) header.push_back(ts::size_label(n));
  ts::table t(header);
  for (const auto& r : c.rows) {
    std::vector<std::string> line{r.name};
    for (auto n : g_sizes) {
      const cell* x = c.find(r.name, n);
      if (!x) line.push_back("-");
      else if (x->wrong) line.push_back("WRONG");
      else if (!x->measured) line.push_back("-");
      else {
        double best = std::numeric_limits<double>::infinity();
        for (const auto& o : c.rows)
          if (const cell* y = c.find(o.name, n); o.kind == row_kind::forced && y && y->measured)
            best = std::min(best, (*y).*figure);
        std::string s = figure_us((*x).*figure);
        if (figure == &cell::gpu_us && !x->queued) s = "~" + s;
        line.push_back(r.kind == row_kind::forced && (*x).*figure == best ? "**" + s + "**" : s);
      }
    }
    t.add_row(line);
  }
  return t.markdown();
}

/// One line per n: the best shape of each backend and overall, automatic, the table's choice.
std::string choice_table(const case_report& c) {
  std::vector<std::string> header{"n"};
  for (auto b : swept_backends) header.push_back(std::string("best ") + tally::backend_name(b));
  for (const char* h : {"best overall", "automatic", "table (select_reduce)", "table / best", "cub"}) header.push_back(h);
  ts::table t(header);
  auto gpu_of = [&](const std::string& row, std::uint64_t n) -> std::string {
    const cell* x = c.find(row, n);
    return !x ? "-" : x->wrong ? "WRONG" : x->measured ? figure_us(x->gpu_us) : "-";
  };
  for (auto n : g_sizes) {
    std::vector<std::string> line{ts::size_label(n)};
    for (const auto& b : swept_backends) {
      const row_info* r = best_row(c, n, &b);
      line.push_back(r ? shape_name(r->threads, r->items) + ": " + gpu_of(r->name, n) : "-");
    }
    const row_info* best = best_row(c, n, nullptr);
    line.push_back(best ? best->name + ": " + gpu_of(best->name, n) : "-");
    line.push_back(gpu_of("automatic", n));
    const tally::tuning::reduce_config chosen =
        tally::tuning::select_reduce(g_arch, c.op_class, c.value_bytes, std::int64_t(n));
    const std::string chosen_name =
        std::string(tally::backend_name(chosen.backend)) + " " + shape_name(chosen.threads, chosen.items_per_thread);
    line.push_back(chosen_name);
    const cell* chosen_cell = c.find(chosen_name, n);
    const cell* best_cell = best ? c.find(best->name, n) : nullptr;
    line.push_back(chosen_cell && chosen_cell->measured && best_cell && best_cell->gpu_us > 0
                       ? ts::fixed(chosen_cell->gpu_us / best_cell->gpu_us, 2) + "x"
                       : "-");
    line.push_back(gpu_of("cub", n));
    t.add_row(line);
  }
  return t.markdown();
}

std::string markdown_tables() {
  std::string out;
  for (const auto& c : g_cases) {
    out += "## " + c.name + ": " + c.description + "\n\n";
    out += "GPU µs per call (calls queued behind a spin kernel, run back to back; median of " +
           std::to_string(gpu_timing_options.loops) + " loops). Bold: the fastest backend x shape at that n.\n\n";
    out += figure_table(c, &cell::gpu_us);
    out += "\nµs per call by the anchors' method (back-to-back calls between events, median of 7 loops; "
           "includes the host's launch cost where it exceeds the GPU time):\n\n";
    out += figure_table(c, &cell::anchors_us);
    out += "\nChoices by GPU time (µs); table = tally::tuning::select_reduce(" + std::to_string(g_arch) + ", " +
           op_class_name(c.op_class) + ", " + std::to_string(c.value_bytes) +
           ", n), what `automatic` runs; table / best = its GPU time over the best's:\n\n";
    out += choice_table(c);
    out += "\n";
  }
  return out;
}

// --- command line -------------------------------------------------------------------------------------

const ts::bench_program program{
    "bench_reduce_shapes",
    "tally reduce, every backend x launch shape, GPU time per call and the\n"
    "anchors' method, next to automatic and CUB (the run behind include/tally/tuning/reduce.cuh)\n",
    "bench_reduce_shapes.md",
    ts::reduce_cases::names(),
    "float_max/atomic"};

}  // namespace

int main(int argc, char** argv) {
  ts::bench_flags opt;
  if (!ts::start_benchmarks(argc, argv, program, opt)) return 2;

  try {
    ts::require_device();
    const ts::device_info dev = ts::current_device_info();
    const std::string when = ts::utc_now();
    g_arch = dev.cc_major * 10 + dev.cc_minor;
    g_sizes = opt.sizes;
    TALLY_SUPPORT_CHECK(cudaStreamCreateWithFlags(&g_stream, cudaStreamNonBlocking));
    g_spin = ts::calibrate_spin(g_stream);

    std::cout << "bench_reduce_shapes on " << ts::describe(dev) << ", " << when << "\n"
              << "spin kernel: " << ts::fixed(g_spin.ms, 2) << " ms (" << g_spin.cycles << " cycles)\n"
              << std::flush;
    benchmark::AddCustomContext("device", dev.name + ", " + std::to_string(dev.sms) + " SMs");
    benchmark::AddCustomContext("spin_ms", ts::fixed(g_spin.ms, 2));

    ts::reduce_cases::for_each_wanted(opt.cases, [&](auto c) { register_case<decltype(c)>(opt.sizes); });

    benchmark::RunSpecifiedBenchmarks();
    benchmark::Shutdown();
    g_inputs.reset();

    std::string md = ts::markdown_head("bench_reduce_shapes", dev, when);
    md += "- rows: tally::reduce_into with the backend forced (`with(backend)`) and the launch shape forced "
          "(`tune<threads, items>()`), written `backend threadsxitems`; `automatic`: no backend or shape forced; "
          "`cub`: CUB, temporary storage allocated once\n";
    md += "- GPU time: a " + ts::fixed(g_spin.ms, 2) +
          " ms spin kernel, an event, about 100 calls (fewer where a loop would pass 10 ms), an event: the calls "
          "queue behind the spin and run back to back, so host launch cost is hidden; median of " +
          std::to_string(gpu_timing_options.loops) + " loops; a loop not fully queued when the spin ended is redone with a "
          "longer spin (" + std::to_string(g_redone_loops) + " redone in this run); `~`: still not fully queued\n";
    md += "- anchors' method: back-to-back calls between events, inputs rotating over copies that fill 512 MiB "
          "(at most 1024), median over 7 loops of the mean per call\n";
    md += "- WRONG: the result differed from CUB's on the same input; such a row is not timed\n\n";
    md += markdown_tables();

    ts::write_markdown(md, opt.md);

    TALLY_SUPPORT_CHECK(cudaStreamDestroy(g_stream));
    for (const auto& c : g_cases)
      for (const auto& [key, x] : c.cells)
        if (x.wrong) {
          std::cerr << "bench_reduce_shapes: some configurations gave WRONG results (see the tables)\n";
          return 1;
        }
    return 0;
  } catch (const std::exception& e) {
    std::cerr << "bench_reduce_shapes: FATAL: " << e.what() << "\n";
    return 1;
  }
}
