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

#include <tally/tally.cuh>

#include <tally_support/bench_report.hpp>
#include <tally_support/cuda_check.cuh>
#include <tally_support/data.cuh>
#include <tally_support/device_buffer.cuh>
#include <tally_support/device_info.cuh>
#include <tally_support/sizes.hpp>
#include <tally_support/timing.cuh>

#include <benchmark/benchmark.h>
#include <cub/device/device_reduce.cuh>
#include <cuda/functional>
#include <cuda/std/functional>
#include <thrust/execution_policy.h>
#include <thrust/reduce.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <limits>
#include <memory>
#include <string>
#include <type_traits>
#include <vector>

namespace ts = tally_support;

namespace {

// --- the cases ---------------------------------------------------------------------------
// A case fixes the item type, the data, the operator (as tally, CUB and Thrust spell it)
// and how closely a result must match CUB's.

struct int32_sum {
  using T = int;
  static constexpr const char* name = "int32_sum";
  static constexpr const char* description = "int32 sum, data hash(i) % 4";
  static constexpr double rel_tol = 0;  // exact
  static T init() { return 0; }
  static tally::plus<T> tally_op() { return {}; }
  static ::cuda::std::plus<T> thrust_op() { return {}; }
  static void fill(T* p, std::size_t n) { ts::fill_hash_mod(p, n); }
  static cudaError_t cub(void* tmp, std::size_t& bytes, const T* in, T* out, std::size_t n, cudaStream_t s) {
    return cub::DeviceReduce::Sum(tmp, bytes, in, out, n, s);
  }
  static constexpr const char* cub_name = "cub DeviceReduce::Sum";
};

struct float_sum {
  using T = float;
  static constexpr const char* name = "float_sum";
  static constexpr const char* description = "float sum, data uniform in [0, 1)";
  static constexpr double rel_tol = 1e-4;
  static T init() { return 0.0f; }
  static tally::plus<T> tally_op() { return {}; }
  static ::cuda::std::plus<T> thrust_op() { return {}; }
  static void fill(T* p, std::size_t n) { ts::fill_uniform(p, n); }
  static cudaError_t cub(void* tmp, std::size_t& bytes, const T* in, T* out, std::size_t n, cudaStream_t s) {
    return cub::DeviceReduce::Sum(tmp, bytes, in, out, n, s);
  }
  static constexpr const char* cub_name = "cub DeviceReduce::Sum";
};

struct double_sum {
  using T = double;
  static constexpr const char* name = "double_sum";
  static constexpr const char* description = "double sum, data uniform in [0, 1)";
  static constexpr double rel_tol = 1e-10;
  static T init() { return 0.0; }
  static tally::plus<T> tally_op() { return {}; }
  static ::cuda::std::plus<T> thrust_op() { return {}; }
  static void fill(T* p, std::size_t n) { ts::fill_uniform(p, n); }
  static cudaError_t cub(void* tmp, std::size_t& bytes, const T* in, T* out, std::size_t n, cudaStream_t s) {
    return cub::DeviceReduce::Sum(tmp, bytes, in, out, n, s);
  }
  static constexpr const char* cub_name = "cub DeviceReduce::Sum";
};

struct float_max {
  using T = float;
  static constexpr const char* name = "float_max";
  static constexpr const char* description = "float max, init -inf, data uniform in [0, 1)";
  static constexpr double rel_tol = 0;  // exact
  static T init() { return -std::numeric_limits<float>::infinity(); }
  static tally::maximum<T> tally_op() { return {}; }
  static ::cuda::maximum<T> thrust_op() { return {}; }
  static void fill(T* p, std::size_t n) { ts::fill_uniform(p, n); }
  static cudaError_t cub(void* tmp, std::size_t& bytes, const T* in, T* out, std::size_t n, cudaStream_t s) {
    return cub::DeviceReduce::Max(tmp, bytes, in, out, n, s);
  }
  static constexpr const char* cub_name = "cub DeviceReduce::Max";
};

template <class T>
bool matches(T got, T ref, double rel_tol) {
  if constexpr (std::is_integral_v<T>) {
    return got == ref;
  } else {
    if (std::isnan(ref) || std::isnan(got)) return std::isnan(ref) && std::isnan(got);
    if (rel_tol == 0) return got == ref;
    return std::fabs(double(got) - double(ref)) <= rel_tol * std::fabs(double(ref));
  }
}

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

cudaStream_t g_stream = nullptr;
std::unique_ptr<ts::stream_read> g_ruler;
std::unique_ptr<ts::bench_report> g_report;

/// The input of one (case, n), with CUB's temporary storage (allocated once, outside
/// every timed loop) and CUB's result, which every other row is checked against.
/// Only one input lives at a time; the benchmarks of one (case, n) run one after another.
struct input_base {
  virtual ~input_base() = default;
};
template <class Case>
struct input_state : input_base {
  using T = typename Case::T;
  ts::device_copies<T> in;
  ts::device_buffer<unsigned char> cub_temp;
  std::size_t cub_temp_bytes = 0;
  ts::device_buffer<T> out{1};
  T reference{};

  explicit input_state(std::size_t n) : in(n, ts::rotating_copies(n * sizeof(T))) {
    Case::fill(in.copy(0), n);
    in.replicate_first(g_stream);
    TALLY_SUPPORT_CHECK(Case::cub(nullptr, cub_temp_bytes, in.copy(0), out.data(), n, g_stream));
    cub_temp = ts::device_buffer<unsigned char>(cub_temp_bytes == 0 ? 1 : cub_temp_bytes);
    reference = cub_result(0);
    // Never time on zeros: the data must be there, in the first copy and the last.
    if (reference == T(0)) throw std::runtime_error(std::string(Case::name) + ": CUB's result is 0: input not filled?");
    const T last = cub_result(in.count() - 1);
    if (!(last == reference))
      throw std::runtime_error(std::string(Case::name) + ": the last input copy differs from the first");
  }

  void cub_call(int k) {
    TALLY_SUPPORT_CHECK(Case::cub(cub_temp.data(), cub_temp_bytes, in.copy(k), out.data(), in.size(), g_stream));
  }
  T cub_result(int k) {
    out.memset(0xff);
    cub_call(k);
    TALLY_SUPPORT_CHECK(cudaStreamSynchronize(g_stream));
    return out.get();
  }
};

std::unique_ptr<input_base> g_input;
std::string g_input_key;

template <class Case>
input_state<Case>& input_for(std::size_t n) {
  const std::string key = std::string(Case::name) + "/" + std::to_string(n);
  if (key != g_input_key) {
    g_input.reset();  // free the previous input before allocating the next one
    g_input_key.clear();
    g_input = std::make_unique<input_state<Case>>(n);
    g_input_key = key;
  }
  return static_cast<input_state<Case>&>(*g_input);
}

// --- one benchmark: verify, then time -------------------------------------------------------

/// The result of one call of `which` on copy 0 (synchronised), for the check against CUB.
template <class Case>
typename Case::T result_of(impl which, input_state<Case>& s) {
  using T = typename Case::T;
  const std::size_t n = s.in.size();
  const T* first = s.in.copy(0);
  switch (which) {
    case impl::cub: return s.cub_result(0);
    case impl::thrust: return thrust::reduce(thrust::cuda::par.on(g_stream), first, first + n, Case::init(), Case::thrust_op());
    default:
      s.out.memset(0xff);  // a row that writes nothing cannot pass by accident
      with_tally_policy(which, g_stream, [&](auto policy) {
        tally::reduce_into(policy, first, first + n, s.out.data(), Case::init(), Case::tally_op());
      });
      TALLY_SUPPORT_CHECK(cudaStreamSynchronize(g_stream));
      return s.out.get();
  }
}

template <class Case>
ts::timing_result time_impl(impl which, input_state<Case>& s) {
  using T = typename Case::T;
  const std::size_t n = s.in.size();
  const int copies = s.in.count();
  switch (which) {
    case impl::floor:
      return ts::time_calls([&](int k) { (*g_ruler)(s.in.copy(k), n * sizeof(T), g_stream); }, copies, g_stream);
    case impl::cub:
      return ts::time_calls([&](int k) { s.cub_call(k); }, copies, g_stream);
    case impl::thrust: {
      T sink{};
      auto t = ts::time_calls(
          [&](int k) {
            sink = thrust::reduce(thrust::cuda::par.on(g_stream), s.in.copy(k), s.in.copy(k) + n, Case::init(),
                                  Case::thrust_op());
          },
          copies, g_stream);
      benchmark::DoNotOptimize(sink);
      return t;
    }
    default: {
      ts::timing_result t;
      with_tally_policy(which, g_stream, [&](auto policy) {
        t = ts::time_calls(
            [&](int k) {
              tally::reduce_into(policy, s.in.copy(k), s.in.copy(k) + n, s.out.data(), Case::init(),
                                 Case::tally_op());
            },
            copies, g_stream);
      });
      return t;
    }
  }
}

template <class Case>
void run_benchmark(benchmark::State& state, impl which, std::size_t n) {
  try {
    auto& s = input_for<Case>(n);
    if (which != impl::floor) {  // the ruler computes nothing to check
      const auto got = result_of(which, s);
      if (!matches(got, s.reference, Case::rel_tol)) {
        g_report->record_wrong(Case::name, impl_row(which), n);
        std::cerr << "bench_reduce: WRONG " << Case::name << " " << impl_key(which) << " n=" << n << ": got " << got
                  << ", CUB gives " << s.reference << "\n";
        state.SkipWithError("WRONG result (differs from CUB); not timed");
        return;
      }
    }
    ts::timing_result t;
    for (auto _ : state) {
      t = time_impl(which, s);
      state.SetIterationTime(t.median_us * 1e-6);
    }
    g_report->record(Case::name, impl_row(which), n, t.median_us);
    state.counters["GB/s"] = ts::gbps(double(n) * sizeof(typename Case::T), t.median_us);
    state.counters["spread%"] = t.median_us > 0 ? 100.0 * (t.max_us - t.min_us) / t.median_us : 0.0;
    state.counters["calls/loop"] = double(t.calls_per_loop);
    state.counters["copies"] = double(s.in.count());
  } catch (const std::exception& e) {
    // A CUDA error poisons the context: nothing measured after it could be trusted.
    std::cerr << "bench_reduce: FATAL in " << Case::name << " " << impl_key(which) << " n=" << n << ": " << e.what()
              << "\n";
    std::exit(1);
  }
}

template <class Case>
void register_case(const std::vector<std::uint64_t>& sizes) {
  g_report->add_case(Case::name, std::string(Case::description) + " (cub row: " + Case::cub_name + ")",
                     double(sizeof(typename Case::T)));
  for (auto n : sizes)
    for (impl which : all_impls) {
      const std::string name = std::string(Case::name) + "/" + impl_key(which) + "/" + ts::size_label(n);
      benchmark::RegisterBenchmark(name.c_str(), [which, n](benchmark::State& st) { run_benchmark<Case>(st, which, n); })
          ->Iterations(1)
          ->UseManualTime()
          ->Unit(benchmark::kMicrosecond);
    }
}

// --- command line -----------------------------------------------------------------------------

struct options {
  std::vector<std::uint64_t> sizes;
  std::vector<std::string> cases{"int32_sum", "float_sum", "double_sum", "float_max"};
  std::string md = "bench_reduce.md";
};

std::vector<std::uint64_t> powers(int from, int to, int step) {
  std::vector<std::uint64_t> v;
  for (int e = from; e <= to; e += step) v.push_back(std::uint64_t(1) << e);
  return v;
}

std::vector<std::string> split(const std::string& s) {
  std::vector<std::string> out;
  std::size_t start = 0;
  for (std::size_t c; (c = s.find(',', start)) != std::string::npos; start = c + 1) out.push_back(s.substr(start, c - start));
  out.push_back(s.substr(start));
  return out;
}

void print_usage() {
  std::cout << "bench_reduce: tally reduce vs CUB, Thrust and the stream_read floor\n"
               "  --sizes=even|all|LIST  even powers 2^10..2^28 (default), every power, or e.g. 2^10,2^20,1000\n"
               "  --cases=LIST           subset of int32_sum,float_sum,double_sum,float_max\n"
               "  --md=FILE              Markdown tables (default bench_reduce.md)\n"
               "  plus Google Benchmark's flags, e.g. --benchmark_filter=float_max\n\n";
}

/// Takes this program's flags out of argv (so that Google Benchmark never sees them).
options parse_and_strip(int& argc, char** argv) {
  options o;
  o.sizes = powers(10, 28, 2);
  int kept = 1;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto value = [&](const std::string& flag) { return a.substr(flag.size()); };
    if (a.rfind("--sizes=", 0) == 0) {
      const std::string v = value("--sizes=");
      o.sizes = v == "even" ? powers(10, 28, 2) : v == "all" ? powers(10, 28, 1) : ts::parse_size_list(v);
      for (auto n : o.sizes)
        if (n == 0) throw std::invalid_argument("--sizes: every size must be at least 1");
    } else if (a.rfind("--cases=", 0) == 0) {
      o.cases = split(value("--cases="));
      for (const auto& c : o.cases)
        if (c != "int32_sum" && c != "float_sum" && c != "double_sum" && c != "float_max")
          throw std::invalid_argument("unknown case '" + c + "'");
    } else if (a.rfind("--md=", 0) == 0) {
      o.md = value("--md=");
    } else if (a == "--sizes" || a == "--cases" || a == "--md") {
      throw std::invalid_argument(a + " needs a value: " + a + "=...");
    } else {
      if (a == "--help" || a == "-h") print_usage();
      argv[kept++] = argv[i];
    }
  }
  argc = kept;
  argv[argc] = nullptr;
  return o;
}

bool wanted(const options& o, const char* name) {
  for (const auto& c : o.cases)
    if (c == name) return true;
  return false;
}

}  // namespace

int main(int argc, char** argv) {
  options opt;
  try {
    opt = parse_and_strip(argc, argv);
  } catch (const std::exception& e) {
    std::cerr << "bench_reduce: " << e.what() << " (see --help)\n";
    return 2;
  }
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 2;

  try {
    ts::require_device();
    const ts::device_info dev = ts::current_device_info();
    const std::string when = ts::utc_now();
    TALLY_SUPPORT_CHECK(cudaStreamCreateWithFlags(&g_stream, cudaStreamNonBlocking));
    g_ruler = std::make_unique<ts::stream_read>();
    g_report = std::make_unique<ts::bench_report>(opt.sizes);

    std::cout << "bench_reduce on " << ts::describe(dev) << ", " << when << "\n";
    const ts::copy_ceiling ceiling = ts::measure_copy_ceiling(g_stream);
    std::cout << "copy ceiling: 1 GiB device-to-device in " << ts::figure(ceiling.us) << " us = "
              << ts::figure(ceiling.gbps) << " GB/s (read + write)\n"
              << std::flush;
    benchmark::AddCustomContext("device", dev.name + ", " + std::to_string(dev.sms) + " SMs");
    benchmark::AddCustomContext("copy_ceiling_GBps", ts::figure(ceiling.gbps));

    if (wanted(opt, "int32_sum")) register_case<int32_sum>(opt.sizes);
    if (wanted(opt, "float_sum")) register_case<float_sum>(opt.sizes);
    if (wanted(opt, "double_sum")) register_case<double_sum>(opt.sizes);
    if (wanted(opt, "float_max")) register_case<float_max>(opt.sizes);

    benchmark::RunSpecifiedBenchmarks();
    benchmark::Shutdown();
    g_input.reset();

    std::string md = "# bench_reduce\n\n";
    md += "- device: " + ts::describe(dev) + "\n";
    md += "- date: " + when + "\n";
    md += "- tally " + std::to_string(TALLY_VERSION_MAJOR) + "." + std::to_string(TALLY_VERSION_MINOR) + "." +
          std::to_string(TALLY_VERSION_PATCH) + ", CCCL " + std::to_string(CCCL_MAJOR_VERSION) + "." +
          std::to_string(CCCL_MINOR_VERSION) + "." + std::to_string(CCCL_PATCH_VERSION) + "\n";
    md += "- method: median over 7 loops of the mean time per call, back-to-back calls between CUDA events, "
          "inputs rotating over copies that fill 512 MiB (at most 1024); CUB temporary storage allocated once; "
          "thrust::reduce includes its synchronisation and the copy of the result to the host\n";
    md += "- copy ceiling: 1 GiB device-to-device copy, " + ts::figure(ceiling.gbps) + " GB/s (read + write)\n";
    md += "- WRONG: the result differed from CUB's on the same input; such a row is not timed\n\n";
    md += g_report->markdown("cub");

    std::cout << "\n" << md;
    std::ofstream file(opt.md);
    file << md;
    if (!file) throw std::runtime_error("cannot write " + opt.md);
    std::cout << "(tables written to " << opt.md << ")\n";

    g_ruler.reset();  // free device memory while the CUDA runtime is still up
    TALLY_SUPPORT_CHECK(cudaStreamDestroy(g_stream));
    if (g_report->any_wrong()) {
      std::cerr << "bench_reduce: some implementations gave WRONG results (see the tables)\n";
      return 1;
    }
    return 0;
  } catch (const std::exception& e) {
    std::cerr << "bench_reduce: FATAL: " << e.what() << "\n";
    return 1;
  }
}
