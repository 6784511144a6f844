// bench_copy_if: tally's copy_if_into (stable on the automatic and shared_memory
// backends, and unordered()) and the synchronous tally::copy_if against CUB's
// DeviceSelect::If (FlaggedIf for the cases with a byte mask as the stencil, Python's
// select), Thrust's copy_if and the stream_read floor, side by side in one run,
// by the anchors' method (shared/anchors/README.md): back-to-back calls between CUDA
// events, inputs rotating over copies that fill 512 MiB, the figure is the median over 7
// loops of the mean µs per call.
//
// Each Google Benchmark entry is one (case, implementation, n); it runs the whole
// 7-loop measurement once (Iterations(1)) and reports the median through manual time.
// Every implementation's result is checked first against CUB's selection of the same
// input (support/tally_support/copy_if_cases.cuh; itself checked against a host loop up
// to 2^20 items): the same count, the same items in the same order for the stable rows,
// the same multiset for the unordered row (both sorted by CUB's radix sort on the
// device), and nothing written after the output's end. A wrong result is reported as
// WRONG, never timed, and the program exits with 1. At the end the Markdown tables (µs,
// GB/s counting the bytes read and written, speed-up vs CUB, and the targets of
// shared/DESIGN.md §5) are printed and written to --md=FILE.
//
// Flags (removed before Google Benchmark sees argv; its own --benchmark_* flags work):
//   --sizes=even|all|LIST   2^10, 2^12, ..., 2^28 (default) | every power 2^10..2^28 |
//                           e.g. --sizes=2^10,2^20,1000 (fewer than 2^31 items)
//   --cases=LIST            subset of int32_5pct,int32_50pct,int32_95pct,float_5pct,
//                           float_50pct,float_95pct,int32_anchors,int32_mask50,
//                           uint16_mask50,uint8_mask50
//   --md=FILE               where the Markdown tables go (default bench_copy_if.md)
//   --json=FILE             every row as JSON Lines (the input of `tally plot`)
//   --device=N              run on CUDA device N
// (support/tally_support/bench_cli.hpp; `tally bench` runs this program with them.)

#include <tally/tally.cuh>

#include <tally_support/bench_cli.hpp>
#include <tally_support/bench_session.cuh>
#include <tally_support/copy_if_cases.cuh>
#include <tally_support/cuda_check.cuh>
#include <tally_support/sizes.hpp>
#include <tally_support/table.hpp>
#include <tally_support/timing.cuh>

#include <benchmark/benchmark.h>
#include <thrust/copy.h>
#include <thrust/execution_policy.h>

#include <cstdint>
#include <map>
#include <set>
#include <stdexcept>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

namespace ts = tally_support;

namespace {

// --- the implementations (table rows, in this order) --------------------------------------

enum class impl {
  floor,
  cub,
  tally_automatic,
  tally_shared_memory,
  tally_unordered,
  tally_sync,
  thrust,
};
const impl all_impls[] = {impl::floor,           impl::cub,        impl::tally_automatic, impl::tally_shared_memory,
                          impl::tally_unordered, impl::tally_sync, impl::thrust};

/// The reference row of the speed-up table (FlaggedIf where a case has a stencil).
const char* const cub_row = "cub DeviceSelect::If";

std::string impl_row(impl which) {
  switch (which) {
    case impl::floor: return "stream_read (floor)";
    case impl::cub: return cub_row;
    case impl::tally_automatic: return "tally copy_if_into (automatic, stable)";
    case impl::tally_shared_memory: return "tally copy_if_into shared_memory (stable)";
    case impl::tally_unordered: return "tally copy_if_into unordered()";
    case impl::tally_sync: return "tally::copy_if (sync)";
    case impl::thrust: return "thrust::copy_if (sync)";
  }
  return "?";
}
const char* impl_key(impl which) {  // Google Benchmark names: no spaces
  switch (which) {
    case impl::floor: return "stream_read";
    case impl::cub: return "cub";
    case impl::tally_automatic: return "tally_automatic";
    case impl::tally_shared_memory: return "tally_shared_memory";
    case impl::tally_unordered: return "tally_unordered";
    case impl::tally_sync: return "tally_sync";
    case impl::thrust: return "thrust";
  }
  return "?";
}

/// Calls f(policy) with the policy of a tally copy_if_into row, on stream s.
template <class F>
void with_into_policy(impl which, cudaStream_t s, F&& f) {
  switch (which) {
    case impl::tally_automatic: f(tally::par.on(s).with(tally::backend::automatic)); break;
    case impl::tally_shared_memory: f(tally::par.on(s).with(tally::backend::shared_memory)); break;
    case impl::tally_unordered: f(tally::par.on(s).unordered()); break;
    default: throw std::logic_error("with_into_policy: not a tally copy_if_into row");
  }
}

// --- shared state of one run ----------------------------------------------------------------

/// The run's stream, ruler and report (support/tally_support/bench_session.cuh).
ts::bench_session g;

/// The input of one (case, n), CUB's selection on it and the rows' output, one at a
/// time (support/tally_support/copy_if_cases.cuh).
ts::copy_if_input_slot g_inputs;

/// What the tables are made of, by (case, row, n): the measured µs per call, the rows
/// found WRONG, and per (case, n) the number of items selected (for GB/s).
std::map<std::tuple<std::string, impl, std::uint64_t>, double> g_us;
std::set<std::tuple<std::string, impl, std::uint64_t>> g_wrong;
std::map<std::pair<std::string, std::uint64_t>, std::int64_t> g_selected;

/// The cases as registered: name, description, item size and stencil item size (0: no
/// stencil), in table order.
struct case_info {
  std::string name, description;
  std::size_t item_bytes, stencil_bytes;
};
std::vector<case_info> g_cases;

// --- one benchmark: verify, then time -------------------------------------------------------

/// Runs `which` once on copy 0 (synchronised) and compares its output with CUB's. Empty
/// when it matches, else what it gave.
template <class Case>
std::string mismatch(impl which, ts::copy_if_input<Case>& s) {
  using T = typename Case::T;
  const std::size_t n = s.in.size();
  const T* first = s.in.copy(0);
  T* out = s.out.data();
  const cudaStream_t st = g.stream;
  s.fill_out();
  s.fill_count();
  std::int64_t count = -1;
  bool stable = true;
  switch (which) {
    case impl::floor:  // computes nothing
      return "";
    case impl::cub:  // the reference's own call, into the rows' output: checked like a row
      s.cub_call(0, out);
      count = s.read_count();
      break;
    case impl::tally_sync:
      count = s.with_stencil(0, [&](auto... mask) {
        return tally::copy_if(tally::par.on(st), first, first + n, mask..., out, s.pred) - out;
      });
      break;
    case impl::thrust:
      count = s.with_stencil(0, [&](auto... mask) {
        return thrust::copy_if(thrust::cuda::par.on(st), first, first + n, mask..., out, s.pred) - out;
      });
      break;
    default:
      stable = which != impl::tally_unordered;
      with_into_policy(which, st, [&](auto policy) {
        s.with_stencil(0, [&](auto... mask) {
          tally::copy_if_into(policy, first, first + n, mask..., out, s.count_out.data(), s.pred);
        });
      });
      count = s.read_count();
      break;
  }
  return s.compare_output(count, stable);
}

template <class Case>
ts::timing_result time_impl(impl which, ts::copy_if_input<Case>& s) {
  using T = typename Case::T;
  const std::size_t n = s.in.size();
  const int copies = s.in.count();
  const cudaStream_t st = g.stream;
  T* out = s.out.data();
  switch (which) {
    case impl::floor: return ts::time_row(g, [&](int k) { (*g.ruler)(s.in.copy(k), n * sizeof(T), st); }, copies);
    case impl::cub: return ts::time_row(g, [&](int k) { s.cub_call(k, out); }, copies);
    case impl::tally_sync: {
      const auto policy = tally::par.on(st);
      T* end = nullptr;
      auto t = ts::time_row(g,
          [&](int k) {
            const T* first = s.in.copy(k);  // const T*, as in the check: one instantiation
            end = s.with_stencil(k, [&](auto... mask) {
              return tally::copy_if(policy, first, first + n, mask..., out, s.pred);
            });
          },
          copies);
      benchmark::DoNotOptimize(end);
      return t;
    }
    case impl::thrust: {
      T* end = nullptr;
      auto t = ts::time_row(g,
          [&](int k) {
            const T* first = s.in.copy(k);
            end = s.with_stencil(k, [&](auto... mask) {
              return thrust::copy_if(thrust::cuda::par.on(st), first, first + n, mask..., out, s.pred);
            });
          },
          copies);
      benchmark::DoNotOptimize(end);
      return t;
    }
    default: {
      ts::timing_result t;
      with_into_policy(which, st, [&](auto policy) {
        t = ts::time_row(g,
            [&](int k) {
              const T* first = s.in.copy(k);
              s.with_stencil(k, [&](auto... mask) {
                tally::copy_if_into(policy, first, first + n, mask..., out, s.count_out.data(), s.pred);
              });
            },
            copies);
      });
      return t;
    }
  }
}

/// Bytes a call moves: n items (and n stencil items) read, `selected` written (the floor
/// reads the items only).
double bytes_moved(impl which, std::uint64_t n, std::int64_t selected, std::size_t item_bytes,
                   std::size_t stencil_bytes) {
  if (which == impl::floor) return double(n) * double(item_bytes);
  return (double(n) + double(selected)) * double(item_bytes) + double(n) * double(stencil_bytes);
}

/// The stencil's item size of a case (0: none).
template <class Case>
constexpr std::size_t stencil_bytes_of() {
  return ts::copy_if_cases::stencil_of<Case>::present ? sizeof(typename ts::copy_if_cases::stencil_of<Case>::type)
                                                      : 0;
}

template <class Case>
void run_benchmark(benchmark::State& state, impl which, std::size_t n) {
  using T = typename Case::T;
  // bytes_per_item is the nominal one (read + the case's fraction written); the GB/s
  // counter is set again below from the exact count once the input exists.
  const double nominal = which == impl::floor
                             ? double(sizeof(T))
                             : double(sizeof(T)) * (1.0 + Case::fraction) + double(stencil_bytes_of<Case>());
  const auto us = ts::checked_measurement(
      state, g, {Case::name, impl_row(which), impl_key(which), n, nominal},
      [&]() -> auto& { return g_inputs.get<Case>(n, g.stream); }, [&](auto& s) { return mismatch(which, s); },
      [&](auto& s) { return time_impl(which, s); });
  const std::int64_t selected = g_inputs.get<Case>(n, g.stream).reference_count;
  g_selected[{Case::name, n}] = selected;
  if (!us) {
    g_wrong.insert({Case::name, which, n});
    return;
  }
  g_us[{Case::name, which, n}] = *us;
  state.counters["GB/s"] = ts::gbps(bytes_moved(which, n, selected, sizeof(T), stencil_bytes_of<Case>()), *us);
  state.counters["selected"] = double(selected);
}

template <class Case>
void register_case(const std::vector<std::uint64_t>& sizes) {
  g.report->add_case(Case::name, Case::description, double(sizeof(typename Case::T)));
  g_cases.push_back({Case::name, Case::description, sizeof(typename Case::T), stencil_bytes_of<Case>()});
  for (auto n : sizes) {
    if (n >= (std::uint64_t(1) << 31))
      throw std::invalid_argument("--sizes: " + ts::size_label(n) +
                                  " items: bench_copy_if takes fewer than 2^31 (the unordered check sorts with 32-bit "
                                  "counts, and the run holds about seven arrays of n items)");
    for (impl which : all_impls) {
      const std::string name = std::string(Case::name) + "/" + impl_key(which) + "/" + ts::size_label(n);
      ts::register_measurement(name, [which, n](benchmark::State& st) { run_benchmark<Case>(st, which, n); });
    }
  }
}

// --- the tables -------------------------------------------------------------------------------

/// A cell of a table: "-" not run, "WRONG", or format(µs).
template <class Format>
std::string cell(const std::string& c, impl which, std::uint64_t n, Format&& format) {
  if (g_wrong.count({c, which, n})) return "WRONG";
  const auto it = g_us.find({c, which, n});
  return it == g_us.end() || it->second <= 0 ? std::string("-") : format(it->second);
}

/// µs per call of (c, which, n), or 0 when not measured.
double us_of(const std::string& c, impl which, std::uint64_t n) {
  const auto it = g_us.find({c, which, n});
  return it == g_us.end() ? 0.0 : it->second;
}

/// Per case: µs, GB/s (bytes read + written) and the speed-up vs CUB.
std::string case_tables(const std::vector<std::uint64_t>& sizes) {
  std::string md;
  for (const case_info& c : g_cases) {
    std::vector<std::string> header{"implementation"};
    for (auto n : sizes) header.push_back(ts::size_label(n));
    ts::table us_table(header), gbps_table(header), speedup_table(header);
    std::vector<std::string> selected_row{"items selected"};
    for (auto n : sizes) {
      const auto it = g_selected.find({c.name, n});
      selected_row.push_back(it == g_selected.end() ? "-" : std::to_string(it->second));
    }
    for (impl which : all_impls) {
      std::vector<std::string> us_row{impl_row(which)}, gbps_row{impl_row(which)}, speedup_row{impl_row(which)};
      for (auto n : sizes) {
        us_row.push_back(cell(c.name, which, n, [](double us) { return ts::fixed(us, us < 10 ? 2 : 1); }));
        const auto sel = g_selected.find({c.name, n});
        gbps_row.push_back(cell(c.name, which, n, [&](double us) {
          if (sel == g_selected.end()) return std::string("-");
          return ts::fixed(ts::gbps(bytes_moved(which, n, sel->second, c.item_bytes, c.stencil_bytes), us), 1);
        }));
        const double ref = us_of(c.name, impl::cub, n);
        speedup_row.push_back(cell(c.name, which, n, [&](double us) {
          return ref > 0 ? ts::fixed(ref / us, 2) + "x" : std::string("-");
        }));
      }
      us_table.add_row(us_row);
      gbps_table.add_row(gbps_row);
      speedup_table.add_row(speedup_row);
    }
    const std::string bytes = std::to_string(c.item_bytes);
    md += "## " + c.name + ": " + c.description + "\n\n";
    md += "µs per call (median over loops of the mean per call):\n\n" + us_table.markdown();
    const std::string mask = c.stencil_bytes ? " + n x " + std::to_string(c.stencil_bytes) + " stencil bytes" : "";
    md += "\nGB/s ((n + selected) x " + bytes + " bytes read and written" + mask + " / time; the floor: n x " +
          bytes + " read):\n\n" + gbps_table.markdown();
    md += "\nspeed-up vs " + std::string(cub_row) + " (CUB µs / implementation µs; > 1 means faster than CUB):\n\n" +
          speedup_table.markdown();
    ts::table selected_table(header);
    selected_table.add_row(selected_row);
    md += "\nitems selected (CUB's count on the input):\n\n" + selected_table.markdown() + "\n";
  }
  return md;
}

/// One target of shared/DESIGN.md §5: `num`'s speed-up over `den` (den µs / num µs) must
/// be at least `bar` at the sizes where `applies(n)`.
struct target {
  const char* label;
  impl num, den;
  double bar;
  bool (*applies)(std::uint64_t n);
  const char* where;
};
const target targets[] = {
    {"stable copy_if_into (automatic) vs CUB", impl::tally_automatic, impl::cub, 1.0,
     [](std::uint64_t) { return true; }, "every size"},
    {"unordered() copy_if_into vs CUB", impl::tally_unordered, impl::cub, 1.2,
     [](std::uint64_t n) { return n >= (std::uint64_t(1) << 24); }, "n >= 2^24"},
    {"tally::copy_if (sync) vs thrust::copy_if", impl::tally_sync, impl::thrust, 2.0,
     [](std::uint64_t n) { return n <= (std::uint64_t(1) << 22); }, "n <= 2^22"},
};

/// The targets' table: per case and target, the speed-up at each n (a miss where the
/// target applies in bold, "(n/a)" marks sizes where it does not apply), then one
/// verdict line per case and target.
std::string target_markdown(const std::vector<std::uint64_t>& sizes) {
  std::vector<std::string> header{"case", "speed-up (target)"};
  for (auto n : sizes) header.push_back(ts::size_label(n));
  ts::table t(header, 2);
  std::string verdicts;
  for (const case_info& c : g_cases) {
    for (const target& tg : targets) {
      std::vector<std::string> row{c.name, std::string(tg.label) + " (>= " + ts::fixed(tg.bar, 1) + "x at " +
                                               tg.where + ")"};
      std::string missed, unmeasured;
      for (auto n : sizes) {
        const double a = us_of(c.name, tg.num, n), b = us_of(c.name, tg.den, n);
        const bool wrong = g_wrong.count({c.name, tg.num, n}) > 0;
        if (wrong) {
          row.push_back("WRONG");
          if (tg.applies(n)) missed += (missed.empty() ? "" : ", ") + ts::size_label(n) + " (WRONG)";
          continue;
        }
        if (a <= 0 || b <= 0) {
          row.push_back("-");
          if (tg.applies(n)) unmeasured += (unmeasured.empty() ? "" : ", ") + ts::size_label(n);
          continue;
        }
        const double r = b / a;
        const std::string text = ts::fixed(r, 2) + "x";
        if (!tg.applies(n)) {
          row.push_back("(" + text + ")");
        } else if (r < tg.bar) {
          row.push_back("**" + text + "**");
          missed += (missed.empty() ? "" : ", ") + ts::size_label(n) + " (" + text + ")";
        } else {
          row.push_back(text);
        }
      }
      t.add_row(row);
      verdicts += "- " + c.name + ", " + tg.label + ": " +
                  (missed.empty() ? "met at every measured size where it applies" : "**missed** at " + missed) +
                  (unmeasured.empty() ? "" : "; not measured at " + unmeasured) + "\n";
    }
  }
  return "## targets (shared/DESIGN.md §5): speed-up = reference µs / tally µs; a miss in bold, (parentheses): the "
         "target does not apply at that size\n\n" +
         t.markdown() + "\n" + verdicts + "\n";
}

// --- command line -----------------------------------------------------------------------------

const ts::bench_program program{
    "bench_copy_if",
    "tally copy_if_into (stable, shared_memory, unordered) and tally::copy_if vs CUB DeviceSelect::If, "
    "thrust::copy_if and the stream_read floor\n",
    "bench_copy_if.md", ts::copy_if_cases::names(), "float_50pct/tally_automatic"};

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::uint64_t> sizes;
  return ts::run_comparison_benchmarks(
      argc, argv, program, g,
      [&](const ts::bench_flags& flags) {
        sizes = flags.sizes;
        ts::copy_if_cases::for_each_wanted(flags.cases, [&](auto c) { register_case<decltype(c)>(flags.sizes); });
      },
      [] { g_inputs.reset(); },
      [&](const ts::bench_session& s) {
        std::string md =
            "- method: median over 7 loops of the mean time per call, back-to-back calls between CUDA events, "
            "inputs rotating over copies that fill 512 MiB (at most 1024); every row writes to one output of n "
            "items; CUB temporary storage allocated once, its count written to device memory; the sync rows "
            "(tally::copy_if, thrust::copy_if) include their wait for the stream and the count's trip to the host\n";
        md +=
            "- tally rows: copy_if_into(tally::par.on(s)..., first, last, out, count, pred) with a 64-bit count in "
            "device memory: `automatic` and `shared_memory` are stable (decoupled look-back; resident blocks take tiles by an atomic ticket), "
            "`unordered()` reserves each tile's room with one atomicAdd; tally::copy_if(tally::par.on(s), ...) "
            "waits and returns the end\n";
        md += "- copy ceiling: 1 GiB device-to-device copy, " + ts::figure(s.ceiling.gbps) + " GB/s (read + write)\n";
        md +=
            "- WRONG: the count differed from CUB's, the items differed (stable rows: in order; unordered: as a "
            "multiset, both sorted on the device), or an item was written after the output's end; such a row is "
            "not timed\n\n";
        md += case_tables(sizes);
        md += target_markdown(sizes);
        return md;
      });
}
