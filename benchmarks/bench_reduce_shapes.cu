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

#include <tally_support/cuda_check.cuh>
#include <tally_support/data.cuh>
#include <tally_support/device_buffer.cuh>
#include <tally_support/device_info.cuh>
#include <tally_support/sizes.hpp>
#include <tally_support/table.hpp>
#include <tally_support/timing.cuh>

#include <benchmark/benchmark.h>
#include <cub/device/device_reduce.cuh>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <limits>
#include <map>
#include <memory>
#include <string>
#include <type_traits>
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
// The same four as bench_reduce, plus the operator class the tuning table is looked up with.

struct int32_sum {
  using T = int;
  static constexpr const char* name = "int32_sum";
  static constexpr const char* description = "int32 sum, data hash(i) % 4";
  static constexpr reduce_op_class op_class = reduce_op_class::integer_sum;
  static constexpr double rel_tol = 0;  // exact
  static T init() { return 0; }
  static tally::plus<T> tally_op() { return {}; }
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
  static constexpr reduce_op_class op_class = reduce_op_class::floating_sum;
  static constexpr double rel_tol = 1e-4;
  static T init() { return 0.0f; }
  static tally::plus<T> tally_op() { return {}; }
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
  static constexpr reduce_op_class op_class = reduce_op_class::floating_sum;
  static constexpr double rel_tol = 1e-10;
  static T init() { return 0.0; }
  static tally::plus<T> tally_op() { return {}; }
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
  static constexpr reduce_op_class op_class = reduce_op_class::min_max;
  static constexpr double rel_tol = 0;  // exact
  static T init() { return -std::numeric_limits<float>::infinity(); }
  static tally::maximum<T> tally_op() { return {}; }
  static void fill(T* p, std::size_t n) { ts::fill_uniform(p, n); }
  static cudaError_t cub(void* tmp, std::size_t& bytes, const T* in, T* out, std::size_t n, cudaStream_t s) {
    return cub::DeviceReduce::Max(tmp, bytes, in, out, n, s);
  }
  static constexpr const char* cub_name = "cub DeviceReduce::Max";
};

// The class the table is looked up with here must be the one tally's automatic dispatch
// derives, or the "table" column would not be what `automatic` runs.
template <class Case>
constexpr bool op_class_matches_tally =
    Case::op_class == tally::detail::reduce_op_class_of<decltype(Case::tally_op()), typename Case::T>();
static_assert(op_class_matches_tally<int32_sum> && op_class_matches_tally<float_sum> &&
                  op_class_matches_tally<double_sum> && op_class_matches_tally<float_max>,
              "a case's op_class differs from the class tally's automatic dispatch uses");

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

// --- shared state of one run ------------------------------------------------------------------

cudaStream_t g_stream = nullptr;

/// The input of one (case, n), with CUB's temporary storage (allocated once, outside
/// every timed loop) and CUB's result, which every configuration is checked against.
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
  void (*call)(input_state<Case>&, int k) = nullptr;
};

template <class Case, class Backend, int Threads, int Items>
void call_forced(input_state<Case>& s, int k) {
  const auto policy = tally::par.on(g_stream).with(Backend{}).template tune<Threads, Items>();
  tally::reduce_into(policy, s.in.copy(k), s.in.copy(k) + s.in.size(), s.out.data(), Case::init(), Case::tally_op());
}
template <class Case>
void call_automatic(input_state<Case>& s, int k) {
  const auto policy = tally::par.on(g_stream).with(tally::backend::automatic);
  tally::reduce_into(policy, s.in.copy(k), s.in.copy(k) + s.in.size(), s.out.data(), Case::init(), Case::tally_op());
}
template <class Case>
void call_cub(input_state<Case>& s, int k) {
  s.cub_call(k);
}

template <class Case, class Backend, class... Shapes>
void add_backend_rows(std::vector<row<Case>>& rows, shape_list<Shapes...>) {
  const std::string b = tally::backend_name(Backend::id);
  auto add = [&](int threads, int items, void (*call)(input_state<Case>&, int)) {
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

/// Busy-waits `cycles` SM clock cycles: the stream holds everything queued behind it.
__global__ void spin_kernel(long long cycles) {
  const long long start = clock64();
  while (clock64() - start < cycles) {
  }
}

inline constexpr double spin_target_ms = 3.0;
inline constexpr int gpu_loops = 5;
inline constexpr long gpu_calls_max = 100;       ///< calls per loop...
inline constexpr long gpu_calls_min = 10;        ///< ...fewer (not below this) where 100 would take
inline constexpr double gpu_loop_max_ms = 10.0;  ///< longer than this (n >= about 2^26)
inline constexpr int max_spin_doublings = 4;

long long g_spin_cycles = 0;  ///< about spin_target_ms (calibrate_spin)
double g_spin_ms = 0;

struct event_pair {
  cudaEvent_t start = nullptr, stop = nullptr;
  event_pair() {
    TALLY_SUPPORT_CHECK(cudaEventCreate(&start));
    TALLY_SUPPORT_CHECK(cudaEventCreate(&stop));
  }
  ~event_pair() {
    cudaEventDestroy(start);
    cudaEventDestroy(stop);
  }
  event_pair(const event_pair&) = delete;
  event_pair& operator=(const event_pair&) = delete;
  double elapsed_ms() const {
    float ms = 0;
    TALLY_SUPPORT_CHECK(cudaEventElapsedTime(&ms, start, stop));
    return double(ms);
  }
};

/// Sets g_spin_cycles so that the spin lasts about spin_target_ms: a first guess from the
/// peak SM clock, then corrected by the spin's measured time.
void calibrate_spin() {
  int device = 0, clock_khz = 0;
  TALLY_SUPPORT_CHECK(cudaGetDevice(&device));
  TALLY_SUPPORT_CHECK(cudaDeviceGetAttribute(&clock_khz, cudaDevAttrClockRate, device));
  g_spin_cycles = (long long)(spin_target_ms * (clock_khz > 0 ? clock_khz : 2000000));  // kHz x ms = cycles
  event_pair ev;
  for (int pass = 0; pass < 2; ++pass) {  // the first pass also pays module loading
    TALLY_SUPPORT_CHECK(cudaEventRecord(ev.start, g_stream));
    spin_kernel<<<1, 1, 0, g_stream>>>(g_spin_cycles);
    TALLY_SUPPORT_CHECK_LAUNCH();
    TALLY_SUPPORT_CHECK(cudaEventRecord(ev.stop, g_stream));
    TALLY_SUPPORT_CHECK(cudaEventSynchronize(ev.stop));
    g_spin_ms = ev.elapsed_ms();
  }
  if (g_spin_ms > 0 && std::fabs(g_spin_ms - spin_target_ms) > 0.1 * spin_target_ms) {
    g_spin_cycles = (long long)(double(g_spin_cycles) * spin_target_ms / g_spin_ms);
    g_spin_cycles = std::clamp<long long>(g_spin_cycles, 1000000, 100000000);
    TALLY_SUPPORT_CHECK(cudaEventRecord(ev.start, g_stream));
    spin_kernel<<<1, 1, 0, g_stream>>>(g_spin_cycles);
    TALLY_SUPPORT_CHECK_LAUNCH();
    TALLY_SUPPORT_CHECK(cudaEventRecord(ev.stop, g_stream));
    TALLY_SUPPORT_CHECK(cudaEventSynchronize(ev.stop));
    g_spin_ms = ev.elapsed_ms();
  }
}

/// ~100 calls per loop; fewer where a loop would last longer than gpu_loop_max_ms
/// (there the host's launch cost is far below the GPU time anyway).
long gpu_calls_for(double estimate_us) {
  if (!(estimate_us > 0)) return gpu_calls_max;
  const long fit = long(gpu_loop_max_ms * 1e3 / estimate_us);
  return std::clamp(fit, gpu_calls_min, gpu_calls_max);
}

struct gpu_timing {
  double median_us = 0, min_us = 0, max_us = 0;  ///< over the loops' means
  long calls_per_loop = 0;
  int redone_loops = 0;  ///< loops redone with a longer spin
  bool queued = true;    ///< false: some loop was not fully queued even after the last doubling
};

/// GPU µs per call of `call(copy_index)`: the spin, an event, `calls` calls, an event;
/// the median of gpu_loops loops' means.
template <class Call>
gpu_timing time_gpu(Call&& call, int copies, cudaStream_t stream, long calls) {
  event_pair ev;
  long next = 0;
  for (int w = 0; w < 5; ++w, ++next) call(int(next % copies));  // warm-up (the anchors' loops ran just before)
  TALLY_SUPPORT_CHECK(cudaStreamSynchronize(stream));
  TALLY_SUPPORT_CHECK(cudaGetLastError());

  gpu_timing r;
  r.calls_per_loop = calls;
  std::vector<double> loop_us;
  for (int l = 0; l < gpu_loops; ++l) {
    bool queued = false;
    double us = 0;
    for (int attempt = 0; attempt <= max_spin_doublings && !queued; ++attempt) {
      spin_kernel<<<1, 1, 0, stream>>>(g_spin_cycles << attempt);
      TALLY_SUPPORT_CHECK_LAUNCH();
      TALLY_SUPPORT_CHECK(cudaEventRecord(ev.start, stream));
      for (long c = 0; c < calls; ++c, ++next) call(int(next % copies));
      TALLY_SUPPORT_CHECK(cudaEventRecord(ev.stop, stream));
      // Still spinning now that every call is enqueued: the calls ran back to back.
      const cudaError_t q = cudaEventQuery(ev.start);
      if (q != cudaErrorNotReady) TALLY_SUPPORT_CHECK(q);
      if (cudaPeekAtLastError() == cudaErrorNotReady) (void)cudaGetLastError();  // "not ready" is no error
      queued = q == cudaErrorNotReady;
      TALLY_SUPPORT_CHECK(cudaEventSynchronize(ev.stop));
      TALLY_SUPPORT_CHECK(cudaGetLastError());  // a failed launch inside the loop invalidates it
      us = ev.elapsed_ms() * 1e3 / double(calls);
      if (!queued && attempt < max_spin_doublings) ++r.redone_loops;
    }
    r.queued = r.queued && queued;
    loop_us.push_back(us);
  }
  std::sort(loop_us.begin(), loop_us.end());
  r.median_us = loop_us[loop_us.size() / 2];
  r.min_us = loop_us.front();
  r.max_us = loop_us.back();
  return r;
}

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
    auto& s = input_for<Case>(n);
    cell& c = report_of(Case::name).cells[{r.name, n}];

    s.out.memset(0xff);  // a configuration that writes nothing cannot pass by accident
    r.call(s, 0);
    TALLY_SUPPORT_CHECK(cudaStreamSynchronize(g_stream));
    const T got = s.out.get();
    if (!matches(got, s.reference, Case::rel_tol)) {
      c.wrong = true;
      std::cerr << "bench_reduce_shapes: WRONG " << label << ": got " << got << ", CUB gives " << s.reference << "\n";
      state.SkipWithError("WRONG result (differs from CUB); not timed");
      return;
    }

    const int copies = s.in.count();
    auto call = [&](int k) { r.call(s, k); };
    ts::timing_result anchors;
    gpu_timing gpu;
    for (auto _ : state) {
      anchors = ts::time_calls(call, copies, g_stream);
      gpu = time_gpu(call, copies, g_stream, gpu_calls_for(anchors.median_us));
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
    state.counters["spread%"] = gpu.median_us > 0 ? 100.0 * (gpu.max_us - gpu.min_us) / gpu.median_us : 0.0;
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
  rep.op_class = Case::op_class;
  rep.value_bytes = int(sizeof(typename Case::T));
  for (const auto& r : rows) rep.rows.push_back(r);
  g_cases.push_back(std::move(rep));
  for (auto n : sizes)
    for (const row<Case>& r : rows) {
      const std::string name = std::string(Case::name) + "/" + r.key + "/" + ts::size_label(n);
      benchmark::RegisterBenchmark(name.c_str(), [&r, n](benchmark::State& st) { run_benchmark<Case>(st, r, n); })
          ->Iterations(1)
          ->UseManualTime()
          ->Unit(benchmark::kMicrosecond);
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
           std::to_string(gpu_loops) + " loops). Bold: the fastest backend x shape at that n.\n\n";
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

struct options {
  std::vector<std::uint64_t> sizes;
  std::vector<std::string> cases{"int32_sum", "float_sum", "double_sum", "float_max"};
  std::string md = "bench_reduce_shapes.md";
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
  std::cout << "bench_reduce_shapes: tally reduce, every backend x launch shape, GPU time per call and the\n"
               "anchors' method, next to automatic and CUB (the run behind include/tally/tuning/reduce.cuh)\n"
               "  --sizes=even|all|LIST  even powers 2^10..2^28 (default), every power, or e.g. 2^10,2^20,1000\n"
               "  --cases=LIST           subset of int32_sum,float_sum,double_sum,float_max\n"
               "  --md=FILE              Markdown tables (default bench_reduce_shapes.md)\n"
               "  plus Google Benchmark's flags, e.g. --benchmark_filter=float_max/atomic\n\n";
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
    std::cerr << "bench_reduce_shapes: " << e.what() << " (see --help)\n";
    return 2;
  }
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 2;

  try {
    ts::require_device();
    const ts::device_info dev = ts::current_device_info();
    const std::string when = ts::utc_now();
    g_arch = dev.cc_major * 10 + dev.cc_minor;
    g_sizes = opt.sizes;
    TALLY_SUPPORT_CHECK(cudaStreamCreateWithFlags(&g_stream, cudaStreamNonBlocking));
    calibrate_spin();

    std::cout << "bench_reduce_shapes on " << ts::describe(dev) << ", " << when << "\n"
              << "spin kernel: " << ts::fixed(g_spin_ms, 2) << " ms (" << g_spin_cycles << " cycles)\n"
              << std::flush;
    benchmark::AddCustomContext("device", dev.name + ", " + std::to_string(dev.sms) + " SMs");
    benchmark::AddCustomContext("spin_ms", ts::fixed(g_spin_ms, 2));

    if (wanted(opt, "int32_sum")) register_case<int32_sum>(opt.sizes);
    if (wanted(opt, "float_sum")) register_case<float_sum>(opt.sizes);
    if (wanted(opt, "double_sum")) register_case<double_sum>(opt.sizes);
    if (wanted(opt, "float_max")) register_case<float_max>(opt.sizes);

    benchmark::RunSpecifiedBenchmarks();
    benchmark::Shutdown();
    g_input.reset();

    std::string md = "# bench_reduce_shapes\n\n";
    md += "- device: " + ts::describe(dev) + "\n";
    md += "- date: " + when + "\n";
    md += "- tally " + std::to_string(TALLY_VERSION_MAJOR) + "." + std::to_string(TALLY_VERSION_MINOR) + "." +
          std::to_string(TALLY_VERSION_PATCH) + ", CCCL " + std::to_string(CCCL_MAJOR_VERSION) + "." +
          std::to_string(CCCL_MINOR_VERSION) + "." + std::to_string(CCCL_PATCH_VERSION) + "\n";
    md += "- rows: tally::reduce_into with the backend forced (`with(backend)`) and the launch shape forced "
          "(`tune<threads, items>()`), written `backend threadsxitems`; `automatic`: no backend or shape forced; "
          "`cub`: CUB, temporary storage allocated once\n";
    md += "- GPU time: a " + ts::fixed(g_spin_ms, 2) +
          " ms spin kernel, an event, about 100 calls (fewer where a loop would pass 10 ms), an event: the calls "
          "queue behind the spin and run back to back, so host launch cost is hidden; median of " +
          std::to_string(gpu_loops) + " loops; a loop not fully queued when the spin ended is redone with a "
          "longer spin (" + std::to_string(g_redone_loops) + " redone in this run); `~`: still not fully queued\n";
    md += "- anchors' method: back-to-back calls between events, inputs rotating over copies that fill 512 MiB "
          "(at most 1024), median over 7 loops of the mean per call\n";
    md += "- WRONG: the result differed from CUB's on the same input; such a row is not timed\n\n";
    md += markdown_tables();

    std::cout << "\n" << md;
    std::ofstream file(opt.md);
    file << md;
    if (!file) throw std::runtime_error("cannot write " + opt.md);
    std::cout << "(tables written to " << opt.md << ")\n";

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
