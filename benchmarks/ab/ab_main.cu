// The A/B of two versions of tally in one process (benchmarks/ab/README.md): every call
// of the registry (ab_calls.cuh, compiled against the baseline and the working tree) on
// the same inputs, checked against the baseline's result first, then timed by the
// anchors' method (support/tally_support/timing.cuh) with the implementations
// interleaved: each round times one loop of each, and an implementation's figure is the
// median of its rounds. Prints, per case, µs and new ÷ old for each size.
//
//   tally_ab [--cases=LIST] [--sizes=LIST] [--rounds=N] [--runs=N] [--md=FILE]
//            [--timing=calls|queued|host]
//
// --runs repeats the whole measurement (each run its own rounds) so that a row read as a
// change is seen in more than one; the table shows the runs side by side (run1/run2).
// --timing says what a round measures: `calls` (default) the anchors' µs per call of
// calls back to back, which at a few µs a call is the host's launch cost wherever that is
// longer than the GPU's work; `queued` the GPU's µs per call, the calls queued behind a
// spin kernel (the launch cost hidden); `host` the host's µs per call, the time to enqueue
// them behind the spin. A difference in `calls` is the GPU's when `queued` shows it, the
// host path's when `host` does.

#include "ab.hpp"

#include <tally_support/args.hpp>
#include <tally_support/cuda_check.cuh>
#include <tally_support/data.cuh>
#include <tally_support/device_buffer.cuh>
#include <tally_support/timing.cuh>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <map>
#include <string>
#include <vector>

namespace {

using tally_ab::buffers;
using tally_ab::entry;

enum class item { i32, f32, f64 };
enum class check { exact_value, close_value, index, top_k, stable, multiset };

struct case_info {
  const char* name;
  item type;
  check how;
  int k;                       // top_k's K
  std::int64_t row_length = 0;  // rows of this many items (n / row_length of them); 0: flat
  // The data: the anchors' (random), or floats that defeat a threshold (sorted: an
  // ascending ramp over [0, 1); constant: every item 1.0).
  tally_support::pattern data = tally_support::pattern::random;
};

const case_info cases[] = {
    {"int32_sum", item::i32, check::exact_value, 0},    {"float_sum", item::f32, check::close_value, 0},
    {"double_sum", item::f64, check::close_value, 0},   {"float_max", item::f32, check::exact_value, 0},
    {"float_argmax", item::f32, check::index, 0},       {"float_argmin", item::f32, check::index, 0},
    {"int32_argmax", item::i32, check::index, 0},       {"float_top2", item::f32, check::top_k, 2},
    {"float_top8", item::f32, check::top_k, 8},         {"float_top32", item::f32, check::top_k, 32},
    {"int32_top2", item::i32, check::top_k, 2},         {"int32_top8", item::i32, check::top_k, 8},
    {"int32_top32", item::i32, check::top_k, 32},       {"int32_copy_if", item::i32, check::stable, 0},
    {"float_copy_if", item::f32, check::stable, 0},     {"int32_unordered", item::i32, check::multiset, 0},
    {"float_unordered", item::f32, check::multiset, 0},
    // The same copies with a byte stencil (a mask, as Python's select takes it).
    {"float_select", item::f32, check::stable, 0},     {"float_select_unordered", item::f32, check::multiset, 0},
    // top_k<2> on data that passes every filter a fold may have (every tile beats the second best; every item ties).
    {"float_top2_ascending", item::f32, check::top_k, 2, 0, tally_support::pattern::sorted},
    {"float_argmax_ascending", item::f32, check::index, 0, 0, tally_support::pattern::sorted},
    {"float_argmax_constant", item::f32, check::index, 0, 0, tally_support::pattern::constant},
    {"float_top2_constant", item::f32, check::top_k, 2, 0, tally_support::pattern::constant},
    // Rows (n / L rows of L items; a size not a multiple of L is skipped): each row's sum
    // (to 1e-4 relative), index of the largest, or best k values and indices.
    {"float_rowsum_16", item::f32, check::close_value, 0, 16},
    {"float_rowsum_256", item::f32, check::close_value, 0, 256},
    {"float_rowsum_2048", item::f32, check::close_value, 0, 2048},
    {"float_rowsum_65536", item::f32, check::close_value, 0, 65536},
    {"float_rowsum_131072", item::f32, check::close_value, 0, 131072},
    {"float_rowsum_2^24", item::f32, check::close_value, 0, 1 << 24},
    {"float_rowargmax_16", item::f32, check::index, 0, 16},
    {"float_rowargmax_65536", item::f32, check::index, 0, 65536},
    {"float_rowargmax_131072", item::f32, check::index, 0, 131072},
    {"float_rowargmax_2^24", item::f32, check::index, 0, 1 << 24},
    {"float_rowargmax_131072_ascending", item::f32, check::index, 0, 131072, tally_support::pattern::sorted},
    {"float_rowtop32_65536", item::f32, check::top_k, 32, 65536},
    {"float_rowtop50_131072", item::f32, check::top_k, 50, 131072},
    {"float_rowtop256_131072", item::f32, check::top_k, 256, 131072},
    // Rows too short for a block to stream, a warp each (top_k_warp_stream_rows; before, a
    // block each, ranked and chosen in top_k_pieces_kernel).
    {"float_rowtop50_512", item::f32, check::top_k, 50, 512},
    {"float_rowtop256_1024", item::f32, check::top_k, 256, 1024},
    {"float_rowtop50_4096", item::f32, check::top_k, 50, 4096},
    {"float_rowtop256_4096", item::f32, check::top_k, 256, 4096},
    // top_k with a run-time k, flat (float_top32 is top_k<32>, on the same engine).
    {"float_topk8", item::f32, check::top_k, 8},
    {"float_topk64", item::f32, check::top_k, 64},
    {"float_topk256", item::f32, check::top_k, 256},
    {"float_topk1024", item::f32, check::top_k, 1024},
    {"float_bottomk256", item::f32, check::top_k, 256},
    // The same calls on data that defeats a threshold (issue 21: no slower than 2x uniform data).
    {"float_topk8_ascending", item::f32, check::top_k, 8, 0, tally_support::pattern::sorted},
    {"float_topk8_constant", item::f32, check::top_k, 8, 0, tally_support::pattern::constant},
    {"float_topk64_ascending", item::f32, check::top_k, 64, 0, tally_support::pattern::sorted},
    {"float_topk64_constant", item::f32, check::top_k, 64, 0, tally_support::pattern::constant},
    {"float_topk256_ascending", item::f32, check::top_k, 256, 0, tally_support::pattern::sorted},
    {"float_topk1024_ascending", item::f32, check::top_k, 1024, 0, tally_support::pattern::sorted},
    {"float_topk1024_constant", item::f32, check::top_k, 1024, 0, tally_support::pattern::constant},
    {"float_rowtop50_131072_ascending", item::f32, check::top_k, 50, 131072, tally_support::pattern::sorted},
    {"float_rowtop50_131072_constant", item::f32, check::top_k, 50, 131072, tally_support::pattern::constant},
    {"float_rowtop50_512_ascending", item::f32, check::top_k, 50, 512, tally_support::pattern::sorted},
    {"float_rowtop256_1024_ascending", item::f32, check::top_k, 256, 1024, tally_support::pattern::sorted},
};

/// The rows of case c at n items (1 for a flat case).
std::int64_t rows_of(const case_info& c, std::int64_t n) { return c.row_length ? n / c.row_length : 1; }

std::size_t item_bytes(item t) { return t == item::f64 ? 8 : 4; }

/// The input: rotating copies of the anchors' data (int32 hash(i) % 4, floats uniform),
/// or of a float pattern (the case's data).
struct input {
  item type;
  std::int64_t n;
  int copies;
  std::size_t stride;  // bytes between copies (256-aligned)
  tally_support::device_buffer<unsigned char> storage;
  input(item t, std::int64_t n_, tally_support::pattern data)
      : type(t), n(n_), copies(tally_support::rotating_copies(std::size_t(n_) * item_bytes(t))),
        stride((std::size_t(n_) * item_bytes(t) + 255) / 256 * 256), storage(stride * std::size_t(copies)) {
    unsigned char* first = storage.data();
    if (t == item::i32) tally_support::fill_hash_mod(reinterpret_cast<int*>(first), std::size_t(n));
    else if (t == item::f32 && data != tally_support::pattern::random)
      tally_support::fill(reinterpret_cast<float*>(first), std::size_t(n), data);
    else if (t == item::f32) tally_support::fill_uniform(reinterpret_cast<float*>(first), std::size_t(n));
    else tally_support::fill_uniform(reinterpret_cast<double*>(first), std::size_t(n));
    for (int c = 1; c < copies; ++c)
      TALLY_SUPPORT_CHECK(cudaMemcpy(first + stride * c, first, std::size_t(n) * item_bytes(t), cudaMemcpyDeviceToDevice));
    TALLY_SUPPORT_CHECK(cudaDeviceSynchronize());
  }
  const void* copy(int c) const { return storage.data() + stride * std::size_t(c % copies); }
};

/// What one call wrote, read back for the comparison.
struct result {
  std::vector<unsigned char> out;
  std::vector<std::int64_t> index;
  std::int64_t count = 0;
};

struct outputs {
  tally_support::device_buffer<unsigned char> out;
  tally_support::device_buffer<std::int64_t> index;
  tally_support::device_buffer<std::int64_t> count;
  outputs(std::size_t out_bytes, std::size_t indices)
      : out(out_bytes), index(std::max<std::size_t>(indices, 64)), count(1) {}
  buffers view() { return {out.data(), index.data(), count.data()}; }
};

result run_once(const entry& e, const case_info& c, const input& in, outputs& o, cudaStream_t s) {
  // Poison first, so that an output the call did not write cannot match.
  TALLY_SUPPORT_CHECK(cudaMemsetAsync(o.out.data(), 0xa5, o.out.size(), s));
  TALLY_SUPPORT_CHECK(cudaMemsetAsync(o.index.data(), 0xa5, o.index.size() * sizeof(std::int64_t), s));
  TALLY_SUPPORT_CHECK(cudaMemsetAsync(o.count.data(), 0xa5, sizeof(std::int64_t), s));
  e.fn(in.copy(0), in.n, o.view(), s);
  TALLY_SUPPORT_CHECK(cudaStreamSynchronize(s));
  TALLY_SUPPORT_CHECK(cudaGetLastError());
  result r;
  const std::size_t b = item_bytes(c.type);
  TALLY_SUPPORT_CHECK(cudaMemcpy(&r.count, o.count.data(), sizeof(std::int64_t), cudaMemcpyDeviceToHost));
  // Per row (one for a flat case): top_k's min(k, length) values and indices (k of each
  // over rows: index -1 past a row's length), a reduction's value, an index.
  const std::int64_t rows = rows_of(c, in.n), length = c.row_length ? c.row_length : in.n;
  const std::int64_t per_row = c.how == check::top_k ? (c.row_length ? c.k : std::min<std::int64_t>(c.k, length)) : 1;
  std::size_t out_items = std::size_t(rows * per_row);
  if (c.how == check::stable || c.how == check::multiset) {
    if (r.count < 0 || r.count > in.n) r.count = -1;
    out_items = r.count < 0 ? 0 : std::size_t(r.count);
  }
  if (c.how == check::index) out_items = 0;
  r.out.resize(out_items * b);
  if (out_items) TALLY_SUPPORT_CHECK(cudaMemcpy(r.out.data(), o.out.data(), out_items * b, cudaMemcpyDeviceToHost));
  const std::int64_t indices = c.how == check::index || c.how == check::top_k ? rows * per_row : 0;
  r.index.resize(std::size_t(indices));
  if (indices)
    TALLY_SUPPORT_CHECK(cudaMemcpy(r.index.data(), o.index.data(), indices * sizeof(std::int64_t), cudaMemcpyDeviceToHost));
  return r;
}

double as_double(const unsigned char* p, item t) {
  if (t == item::i32) { int v; std::memcpy(&v, p, 4); return v; }
  if (t == item::f32) { float v; std::memcpy(&v, p, 4); return v; }
  double v; std::memcpy(&v, p, 8); return v;
}

/// Whether `got` is the same answer as the baseline's `want`; why not in `why`.
bool same(const case_info& c, const result& want, const result& got, std::string& why) {
  switch (c.how) {
    case check::exact_value:
      if (want.out == got.out) return true;
      why = "value differs";
      return false;
    case check::close_value: {  // each row's
      const std::size_t b = item_bytes(c.type);
      const double tol = c.type == item::f32 ? 1e-4 : 1e-10;
      for (std::size_t i = 0; i < want.out.size() / b; ++i) {
        const double x = as_double(want.out.data() + i * b, c.type), y = as_double(got.out.data() + i * b, c.type);
        if (!(std::fabs(x - y) <= tol * std::max(1.0, std::fabs(x)))) {
          why = "sum " + std::to_string(y) + " vs " + std::to_string(x) + (i ? " (row " + std::to_string(i) + ")" : "");
          return false;
        }
      }
      return true;
    }
    case check::index:
    case check::top_k:
      if (want.index == got.index && want.out == got.out) return true;
      why = "indices or values differ";
      return false;
    case check::stable:
      if (want.count == got.count && want.out == got.out) return true;
      why = "count " + std::to_string(got.count) + " vs " + std::to_string(want.count) + " or items differ";
      return false;
    case check::multiset: {
      if (want.count != got.count) {
        why = "count " + std::to_string(got.count) + " vs " + std::to_string(want.count);
        return false;
      }
      const std::size_t b = item_bytes(c.type);
      auto sorted = [&](const std::vector<unsigned char>& bytes) {
        std::vector<double> v(bytes.size() / b);
        for (std::size_t i = 0; i < v.size(); ++i) v[i] = as_double(bytes.data() + i * b, c.type);
        std::sort(v.begin(), v.end());
        return v;
      };
      if (sorted(want.out) == sorted(got.out)) return true;
      why = "items differ (as multisets)";
      return false;
    }
  }
  return false;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const std::size_t m = v.size();
  return m % 2 ? v[m / 2] : 0.5 * (v[m / 2 - 1] + v[m / 2]);
}

std::string size_label(std::int64_t n) {
  if (n > 0 && (n & (n - 1)) == 0) {
    int e = 0;
    while ((std::int64_t(1) << e) < n) ++e;
    return "2^" + std::to_string(e);
  }
  return std::to_string(n);
}


/// One round's µs per call of `call` under --timing (the header comment).
template <class Call>
double time_round(const std::string& timing, Call&& call, int copies, cudaStream_t stream,
                  const tally_support::spin_calibration& spin) {
  tally_support::timing_options one_loop;
  one_loop.loops = 1;
  if (timing == "calls") return tally_support::time_calls(call, copies, stream, one_loop).median_us;
  if (timing == "queued") {
    tally_support::queued_timing_options options;
    options.loops = 1;
    return tally_support::time_queued_calls(call, copies, stream, spin, options).median_us;
  }
  const long calls = tally_support::queued_calls_for(tally_support::time_calls(call, copies, stream, one_loop).median_us);
  // host: the enqueueing of `calls` calls behind a spin, so that no call waits for the GPU.
  tally_support::detail::spin_kernel<><<<1, 1, 0, stream>>>(spin.cycles);
  TALLY_SUPPORT_CHECK_LAUNCH();
  const auto start = std::chrono::steady_clock::now();
  for (long c = 0; c < calls; ++c) call(int(c % copies));
  const auto stop = std::chrono::steady_clock::now();
  TALLY_SUPPORT_CHECK(cudaStreamSynchronize(stream));
  return std::chrono::duration<double, std::micro>(stop - start).count() / double(calls);
}

}  // namespace

int main(int argc, char** argv) try {
  std::vector<std::string> case_names;
  for (const auto& c : cases) case_names.push_back(c.name);
  std::vector<std::string> wanted = case_names;
  std::vector<std::uint64_t> sizes;
  for (int e = 10; e <= 28; e += 2) sizes.push_back(std::uint64_t(1) << e);
  int rounds = 7, runs = 2;
  std::string md_path = "ab.md";
  std::string timing = "calls";
  try {
    tally_support::arg_list args(argc, argv);
    args.skip();
    std::string v;
    while (!args.done()) {
      if (args.take_value("--cases", v)) wanted = tally_support::parse_known_list("--cases", v, case_names);
      else if (args.take_value("--sizes", v)) sizes = tally_support::parse_sizes_flag(v);
      else if (args.take_value("--rounds", v)) rounds = tally_support::parse_int_flag("--rounds", v, 1, 99);
      else if (args.take_value("--runs", v)) runs = tally_support::parse_int_flag("--runs", v, 1, 9);
      else if (args.take_value("--md", v)) md_path = v;
      else if (args.take_value("--timing", v)) timing = tally_support::parse_known_list("--timing", v, {"calls", "queued", "host"}).at(0);
      else throw tally_support::usage_error("unknown option '" + args.current() + "'");
    }
  } catch (const tally_support::usage_error& e) {
    std::fprintf(stderr, "tally_ab: %s\n", e.what());
    return 2;
  }

  cudaStream_t stream;
  TALLY_SUPPORT_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  cudaDeviceProp prop{};
  TALLY_SUPPORT_CHECK(cudaGetDeviceProperties(&prop, 0));
  std::FILE* md = std::fopen(md_path.c_str(), "w");
  if (!md) { std::fprintf(stderr, "tally_ab: cannot write %s\n", md_path.c_str()); return 2; }
  auto both = [&](const char* fmt, auto... a) {
    std::printf(fmt, a...);
    std::fprintf(md, fmt, a...);
  };
  both("# A/B on %s (%d SMs): µs per call (%s), median of %d interleaved rounds; ratio = impl / old\n\n", prop.name,
       prop.multiProcessorCount,
       timing == "calls" ? "back to back" : timing == "queued" ? "GPU time, queued behind a spin" : "host time to enqueue",
       rounds);
  const tally_support::spin_calibration spin =
      timing == "calls" ? tally_support::spin_calibration{} : tally_support::calibrate_spin(stream);

  int mismatches = 0;
  for (const case_info& c : cases) {
    if (std::find(wanted.begin(), wanted.end(), c.name) == wanted.end()) continue;
    const entry* old_call = nullptr;
    std::vector<const entry*> impls;  // the baseline first
    for (const entry& e : tally_ab::registry())
      if (std::strcmp(e.case_name, c.name) == 0 && std::strcmp(e.version, "old") == 0) old_call = &e;
    if (!old_call) {  // e.g. rows, with a baseline from before them
      std::fprintf(stderr, "tally_ab: %s skipped: the baseline has no such call\n", c.name);
      continue;
    }
    impls.push_back(old_call);
    // Then the working tree's calls, then those of the variants (ab.sh --variant), in the
    // order they were registered.
    for (const entry& e : tally_ab::registry())
      if (std::strcmp(e.case_name, c.name) == 0 && std::strcmp(e.version, "new") == 0) impls.push_back(&e);
    for (const entry& e : tally_ab::registry())
      if (std::strcmp(e.case_name, c.name) == 0 && std::strcmp(e.version, "old") != 0 &&
          std::strcmp(e.version, "new") != 0)
        impls.push_back(&e);

    // ratio[impl][size] as "r1/r2/..." over runs; µs of the last run.
    std::map<std::pair<std::size_t, std::size_t>, std::string> cell;
    std::map<std::pair<std::size_t, std::size_t>, double> last_us;
    for (std::size_t si = 0; si < sizes.size(); ++si) {
      const std::int64_t n = std::int64_t(sizes[si]);
      if (c.row_length && (n < c.row_length || n % c.row_length != 0)) {  // not whole rows
        for (std::size_t i = 0; i < impls.size(); ++i) cell[{i, si}] = "-";
        continue;
      }
      const input in(c.type, n, c.data);
      const std::int64_t indices = rows_of(c, n) * std::max(c.k, 1);
      outputs o(std::max<std::size_t>(std::size_t(n), 64) * item_bytes(c.type), std::size_t(indices));
      const result want = run_once(*old_call, c, in, o, stream);
      std::vector<bool> ok(impls.size(), true);
      for (std::size_t i = 1; i < impls.size(); ++i) {
        std::string why;
        if (!same(c, want, run_once(*impls[i], c, in, o, stream), why)) {
          std::fprintf(stderr, "MISMATCH %s %s %s at n=%lld: %s\n", c.name, impls[i]->version, impls[i]->impl,
                       (long long)n, why.c_str());
          ok[i] = false;
          ++mismatches;
        }
      }
      for (int run = 0; run < runs; ++run) {
        std::vector<std::vector<double>> us(impls.size());
        for (int r = 0; r < rounds; ++r)
          for (std::size_t i = 0; i < impls.size(); ++i) {
            if (!ok[i]) continue;
            const buffers b = o.view();
            const entry& e = *impls[i];
            const auto call = [&](int k) { e.fn(in.copy(k), n, b, stream); };
            us[i].push_back(time_round(timing, call, in.copies, stream, spin));
          }
        const double old_us = median(us[0]);
        for (std::size_t i = 0; i < impls.size(); ++i) {
          std::string& s = cell[{i, si}];
          char buf[32];
          if (!ok[i]) std::snprintf(buf, sizeof buf, "WRONG");
          else if (i == 0) std::snprintf(buf, sizeof buf, "%.2f", median(us[i]));
          else std::snprintf(buf, sizeof buf, "%.2f", median(us[i]) / old_us);
          s += (run ? "/" : "") + std::string(buf);
          if (ok[i]) last_us[{i, si}] = median(us[i]);
        }
      }
    }
    both("## %s\n\n| impl |", c.name);
    for (auto n : sizes) both(" %s |", size_label(std::int64_t(n)).c_str());
    both("\n|---|");
    for (std::size_t si = 0; si < sizes.size(); ++si) both("---:|");
    both("\n");
    for (std::size_t i = 0; i < impls.size(); ++i) {
      both("| %s %s%s |", impls[i]->version, impls[i]->impl, i == 0 ? " (µs)" : "");
      for (std::size_t si = 0; si < sizes.size(); ++si) both(" %s |", cell[{i, si}].c_str());
      both("\n");
    }
    both("\n");
    std::fflush(stdout);
  }
  std::fclose(md);
  TALLY_SUPPORT_CHECK(cudaStreamDestroy(stream));
  if (mismatches) std::printf("%d MISMATCHES (those calls were not timed)\n", mismatches);
  return mismatches ? 1 : 0;
} catch (const std::exception& e) {
  std::fprintf(stderr, "tally_ab: %s\n", e.what());
  return 1;
}
