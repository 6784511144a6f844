// `tally bench`: tally (each backend and automatic) against CUB, Thrust and the floor,
// in one run, by the anchors' method (shared/anchors/README.md; support/tally_support/
// timing.cuh): every row's result is checked first, then timed: back-to-back calls
// between CUDA events, inputs rotating over copies that fill 512 MiB, the median over
// --loops loops of the mean µs per call. Prints a table (µs, GB/s, % of the measured
// device-to-device copy bandwidth, CUB's time over the row's), writes --json / --csv.

#include "bench.hpp"
#include "bench_args.hpp"
#include "bench_output.hpp"
#include "tool_common.hpp"

#include <tally/version.hpp>

#include <tally_support/cuda_check.cuh>
#include <tally_support/device_info.cuh>
#include <tally_support/sizes.hpp>

#include <algorithm>
#include <iostream>
#include <string>
#include <vector>

namespace tally_tool {

std::vector<bench_entry> all_bench_entries() {
  std::vector<bench_entry> all;
  for (auto part : {reduce_bench_entries, extrema_bench_entries, top_k_bench_entries, copy_if_bench_entries})
    for (auto& e : part()) all.push_back(std::move(e));
  return all;
}

namespace {

namespace ts = tally_support;

bool wanted(const bench_options& o, const bench_entry& e) {
  auto in = [](const std::vector<std::string>& v, const std::string& x) {
    return v.empty() || std::find(v.begin(), v.end(), x) != v.end();
  };
  return in(o.algos, e.algorithm) && in(o.types, e.type);
}

/// The device bytes the largest input of `e` takes.
double bytes_needed(const bench_entry& e, std::uint64_t n) {
  const double copies = std::max(double(ts::rotation_budget_bytes), double(n) * e.item_bytes);
  return copies + e.extra_bytes(n) + 64e6;  // + CUB's storage, the ruler, the runtime's own
}

void print_help(std::ostream& out) {
  out << "usage: tally bench [options]\n"
         "\n"
         "Times tally on every backend and `automatic` against CUB, Thrust and the floor (one\n"
         "read of the input), in the same run, after checking every row's result against CUB.\n"
         "Prints a table: µs per call, GB/s, percent of the measured device-to-device copy\n"
         "bandwidth, and the ratio to CUB (CUB µs / row µs: above 1, faster than CUB).\n"
         "A progress bar goes to stderr. Exit code 0, 1 when a row was wrong or CUDA\n"
         "failed, 2 for a bad command line.\n"
         "\n"
         "options:\n"
         "  --algo LIST     reduce_sum, reduce_max, max_element, min_element, top_k2, top_k8,\n"
         "                  top_k32, copy_if, or the groups reduce, extrema, top_k, all\n"
         "                  (default: all)\n"
         "  --type LIST     int32, float, double (default: all; not every algorithm has each)\n"
         "  --sizes LIST    item counts: 1000, 2^20, 2^16+3, ranges of powers of two\n"
         "                  2^10..2^28 (each) or 2^10..2^28:2 (every other; the default)\n"
         "  --loops N       timed loops per figure, the median is reported (default 7)\n"
         "  --json FILE     write every row as JSON (the input of `tally plot`); - : stdout\n"
         "  --csv FILE      write every row as CSV; - : stdout\n"
         "  --markdown      print the tables as Markdown\n"
         "  --no-progress   no progress bar\n"
         "  --device N      run on CUDA device N (default: CUDA's default device)\n"
         "  -h, --help      this text\n"
         "\n"
         "Before anything is allocated, every size is checked against the device's free\n"
         "memory: a size that does not fit is refused (exit 2).\n"
         "\n"
         "rows: floor (stream_read: one 16-byte-load read of the input, the anchors' ruler),\n"
         "cub (DeviceReduce Sum/Max, ArgMax/ArgMin, a top-K DeviceReduce::Reduce for K <= 8,\n"
         "DeviceRadixSort pairs for K = 32, DeviceSelect::If), tally automatic / atomic /\n"
         "shared_memory / warp_shuffle (the asynchronous _into forms), the synchronous tally\n"
         "call and the Thrust call it replaces, and per algorithm: tally's value-only reduce\n"
         "beside max_element and top_k2, tally unordered() beside copy_if.\n";
}

int run(const bench_options& o) {
  select_device(o.device);
  ts::require_device();
  std::vector<bench_entry> entries;
  for (auto& e : all_bench_entries())
    if (wanted(o, e)) entries.push_back(std::move(e));
  if (entries.empty()) throw usage_error("no benchmark matches --algo and --type together");

  // Refuse a size that cannot fit before allocating anything.
  const double free_bytes = free_device_bytes();
  for (const auto& e : entries)
    for (std::uint64_t n : o.sizes)
      if (bytes_needed(e, n) > free_bytes)
        throw usage_error("--sizes: " + ts::size_label(n) + " items of " + e.algorithm + " " + e.type + " need about " +
                          gigabytes(bytes_needed(e, n)) + " of device memory; the device has " +
                          gigabytes(free_bytes) + " free");

  bench_run r;
  r.device = ts::current_device_info();
  r.when = ts::utc_now();
  r.commit = current_commit();
  r.version = std::to_string(TALLY_VERSION_MAJOR) + "." + std::to_string(TALLY_VERSION_MINOR) + "." +
              std::to_string(TALLY_VERSION_PATCH);
  r.loops = o.loops;
  std::ostream& info = (o.json == "-" || o.csv == "-") ? std::cerr : std::cout;
  info << "tally bench on " << ts::describe(r.device) << ", " << r.when << ", commit " << r.commit << "\n"
       << std::flush;

  cudaStream_t stream = nullptr;
  TALLY_SUPPORT_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  r.ceiling = ts::measure_copy_ceiling(stream);
  info << "copy bandwidth: 1 GiB device-to-device in " << ts::figure(r.ceiling.us)
       << " µs = " << ts::figure(r.ceiling.gbps) << " GB/s (read + write)\n"
       << std::flush;

  long total = 0;
  for (const auto& e : entries) total += long(e.rows.size() * o.sizes.size());
  progress_bar bar(total, o.progress);

  {
    ts::stream_read ruler;
    bench_env env;
    env.stream = stream;
    env.ruler = &ruler;
    env.timing.loops = o.loops;
    for (const auto& e : entries) {
      const std::string type = e.variant.empty() ? e.type : e.type + " (" + e.variant + ")";
      for (std::uint64_t n : o.sizes) {
        env.algorithm = e.algorithm;
        env.type = type;
        env.n = n;
        std::size_t seen = 0;
        env.sink = [&](const bench_sample& s) {
          ++seen;
          r.samples.push_back(s);
          bar.step(e.algorithm + " " + type + " " + ts::size_label(n) + " " + s.impl);
          if (!s.ok) std::cerr << "\ntally bench: WRONG " << e.algorithm << " " << type << " n=" << n << " " << s.impl
                               << ": " << s.detail << "\n";
        };
        try {
          e.run(n, env);
        } catch (const std::exception& ex) {
          // The input or a row failed with an error: the rows not reached are failures too.
          for (std::size_t i = seen; i < e.rows.size(); ++i) {
            bench_sample s;
            s.algorithm = e.algorithm;
            s.type = type;
            s.impl = e.rows[i];
            s.n = n;
            s.ok = false;
            s.detail = ex.what();
            env.sink(s);
          }
          const cudaError_t sticky = cudaDeviceSynchronize();
          if (sticky != cudaSuccess) {
            bar.finish();
            throw std::runtime_error(std::string("the CUDA context is broken (") + cudaGetErrorString(sticky) +
                                     "); stopping after " + e.algorithm + " " + type + " n=" + std::to_string(n) +
                                     ": " + ex.what());
          }
        }
      }
    }
  }
  bar.finish();
  TALLY_SUPPORT_CHECK(cudaStreamDestroy(stream));

  if (!(o.json == "-" || o.csv == "-")) std::cout << "\n" << bench_tables(r, entries, o.markdown) << std::flush;
  if (!o.json.empty()) write_output(o.json, bench_json(r));
  if (!o.csv.empty()) write_output(o.csv, bench_csv(r));
  const auto wrong = std::count_if(r.samples.begin(), r.samples.end(), [](const bench_sample& s) { return !s.ok; });
  info << r.samples.size() << " rows, " << wrong << " wrong or failed\n";
  return wrong == 0 ? 0 : 1;
}

}  // namespace

int bench_main(int argc, char** argv) {
  bench_options o;
  try {
    o = parse_bench_args(argc, argv);
    if (o.help) {
      print_help(std::cout);
      return 0;
    }
    return run(o);
  } catch (const usage_error& e) {
    std::cerr << "tally bench: " << e.what() << " (see 'tally bench --help')\n";
    return 2;
  } catch (const std::exception& e) {
    std::cerr << "tally bench: " << e.what() << "\n";
    return 1;
  }
}

}  // namespace tally_tool
