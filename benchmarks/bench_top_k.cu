// bench_top_k: tally's top_k_into<2>, <8> and <32>, and top_k_into with a run-time k
// (8, 32, 256, 1024) against cub::DeviceTopK (built against CCCL >= 3.3), and the target's reference
// (tally's own reduce: top_k_into<2> within 10% of it at every size), tally's
// max_element_into (K = 1), CUB's ArgMax, the CUB top-K reductions a CUB user would write
// (the anchors' top-2 reduction among them) and CUB's radix sort, side by side in one
// run, by the anchors' method (shared/anchors/README.md): back-to-back calls between CUDA
// events, inputs rotating over copies that fill 512 MiB, the figure is the median over 7
// loops of the mean µs per call.
//
// Each Google Benchmark entry is one (case, implementation, n); it runs the whole
// 7-loop measurement once (Iterations(1)) and reports the median through manual time.
// The top_k_into<2> entry times its loops interleaved with reduce_into's
// (time_calls_interleaved), and the target's ratio is theirs.
// Every implementation's result is checked first against the reference, the first
// entries of CUB's stable descending radix sort of (value, index) pairs on the same
// input (itself checked against CUB ArgMax, and up to 2^20 items against a host sort):
// top_k's values and indices, the reduce's value, the indices of max_element and ArgMax.
// A wrong result is reported as WRONG, never timed, and the program exits with 1. At the
// end the Markdown tables (µs, GB/s, speed-up vs CUB ArgMax, and top_k_into / reduce_into
// against the target) are printed and written to --md=FILE.
//
// Flags (removed before Google Benchmark sees argv; its own --benchmark_* flags work):
//   --sizes=even|all|LIST   2^10, 2^12, ..., 2^28 (default) | every power 2^10..2^28 |
//                           e.g. --sizes=2^10,2^20,1000 (fewer than 2^32 items)
//   --cases=LIST            subset of float_top_k,int32_top_k,float_top_k_ascending,
//                           float_top_k_constant (the last two: data that defeats a threshold)
//   --md=FILE               where the Markdown tables go (default bench_top_k.md)
//   --json=FILE             every row as JSON Lines (the input of `tally plot`)
//   --device=N              run on CUDA device N
// (support/tally_support/bench_cli.hpp; `tally bench` runs this program with them.)

#include <tally/tally.cuh>

#include <tally_support/bench_cli.hpp>
#include <tally_support/bench_report.hpp>
#include <tally_support/bench_session.cuh>
#include <tally_support/cuda_check.cuh>
#include <tally_support/sizes.hpp>
#include <tally_support/table.hpp>
#include <tally_support/timing.cuh>
#include <tally_support/top_k_cases.cuh>

#include <benchmark/benchmark.h>

#include <cstdint>
#include <cstring>
#include <map>
#include <sstream>
#include <stdexcept>
#include <string>
#include <tuple>
#include <type_traits>
#include <vector>

namespace ts = tally_support;

namespace {

// --- the implementations (table rows, in this order) --------------------------------------

enum class impl {
  floor,
  cub_argmax,
  tally_reduce,
  tally_max_element,
  top2,
  cub_top2,
  cub_top2_values,
  top8,
  top8_atomic,
  top8_shared_memory,
  top8_warp_shuffle,
  cub_top8,
  top32,
  top32_shared_memory,  // the list kernel (what automatic ran for K = 32 before the engine)
  any8,  // top_k_into with a run-time k
  any32,
  any256,
  any1024,
  cub_topk8,  // cub::DeviceTopK (CCCL >= 3.3)
  cub_topk32,
  cub_topk256,
  cub_topk1024,
  cub_sort,
};
const impl all_impls[] = {impl::floor,
                          impl::cub_argmax,
                          impl::tally_reduce,
                          impl::tally_max_element,
                          impl::top2,
                          impl::cub_top2,
                          impl::cub_top2_values,
                          impl::top8,
                          impl::top8_atomic,
                          impl::top8_shared_memory,
                          impl::top8_warp_shuffle,
                          impl::cub_top8,
                          impl::top32,
                          impl::top32_shared_memory,
                          impl::any8,
                          impl::cub_topk8,
                          impl::any32,
                          impl::cub_topk32,
                          impl::any256,
                          impl::cub_topk256,
                          impl::any1024,
                          impl::cub_topk1024,
                          impl::cub_sort};

/// k of a run-time-k row (tally's or CUB DeviceTopK's); 0 for the others.
int run_time_k(impl which) {
  switch (which) {
    case impl::any8: case impl::cub_topk8: return 8;
    case impl::any32: case impl::cub_topk32: return 32;
    case impl::any256: case impl::cub_topk256: return 256;
    case impl::any1024: case impl::cub_topk1024: return 1024;
    default: return 0;
  }
}
bool is_cub_top_k(impl which) {
  return which == impl::cub_topk8 || which == impl::cub_topk32 || which == impl::cub_topk256 ||
         which == impl::cub_topk1024;
}

/// The reference row of the speed-up table.
const char* const argmax_row = "cub ArgMax";

/// The row of `which` in the tables.
std::string impl_row(impl which) {
  switch (which) {
    case impl::floor: return "stream_read (floor)";
    case impl::cub_argmax: return argmax_row;
    case impl::tally_reduce: return "tally::reduce_into maximum (value only)";
    case impl::tally_max_element: return "tally::max_element_into (K = 1)";
    case impl::top2: return "tally top_k_into<2>";
    case impl::cub_top2: return "cub top-2 reduce (values + indices)";
    case impl::cub_top2_values: return "cub top-2 reduce (values only: the anchors')";
    case impl::top8: return "tally top_k_into<8>";
    case impl::top8_atomic: return "tally top_k_into<8> atomic";
    case impl::top8_shared_memory: return "tally top_k_into<8> shared_memory";
    case impl::top8_warp_shuffle: return "tally top_k_into<8> warp_shuffle";
    case impl::cub_top8: return "cub top-8 reduce (values + indices)";
    case impl::top32: return "tally top_k_into<32>";
    case impl::top32_shared_memory: return "tally top_k_into<32> shared_memory (list kernel)";
    case impl::any8: return "tally top_k_into(k = 8)";
    case impl::any32: return "tally top_k_into(k = 32)";
    case impl::any256: return "tally top_k_into(k = 256)";
    case impl::any1024: return "tally top_k_into(k = 1024)";
    case impl::cub_topk8: return "cub DeviceTopK (k = 8)";
    case impl::cub_topk32: return "cub DeviceTopK (k = 32)";
    case impl::cub_topk256: return "cub DeviceTopK (k = 256)";
    case impl::cub_topk1024: return "cub DeviceTopK (k = 1024)";
    case impl::cub_sort: return "cub radix sort pairs, descending (any K)";
  }
  return "?";
}
const char* impl_key(impl which) {  // Google Benchmark names: no spaces
  switch (which) {
    case impl::floor: return "stream_read";
    case impl::cub_argmax: return "cub_argmax";
    case impl::tally_reduce: return "tally_reduce";
    case impl::tally_max_element: return "tally_max_element";
    case impl::top2: return "tally_top_k_2";
    case impl::cub_top2: return "cub_top_2";
    case impl::cub_top2_values: return "cub_top_2_values";
    case impl::top8: return "tally_top_k_8";
    case impl::top8_atomic: return "tally_top_k_8_atomic";
    case impl::top8_shared_memory: return "tally_top_k_8_shared_memory";
    case impl::top8_warp_shuffle: return "tally_top_k_8_warp_shuffle";
    case impl::cub_top8: return "cub_top_8";
    case impl::top32: return "tally_top_k_32";
    case impl::top32_shared_memory: return "tally_top_k_32_shared_memory";
    case impl::any8: return "tally_top_k_any_8";
    case impl::any32: return "tally_top_k_any_32";
    case impl::any256: return "tally_top_k_any_256";
    case impl::any1024: return "tally_top_k_any_1024";
    case impl::cub_topk8: return "cub_device_top_k_8";
    case impl::cub_topk32: return "cub_device_top_k_32";
    case impl::cub_topk256: return "cub_device_top_k_256";
    case impl::cub_topk1024: return "cub_device_top_k_1024";
    case impl::cub_sort: return "cub_sort";
  }
  return "?";
}

template <int K>
using k_constant = std::integral_constant<int, K>;

/// Calls f(k_constant<K>{}, policy) for a tally top_k row (on `s`, backend forced).
template <class F>
void with_top_k_row(impl which, cudaStream_t s, F&& f) {
  const auto on_s = tally::par.on(s);
  switch (which) {
    case impl::top2: f(k_constant<2>{}, on_s.with(tally::backend::automatic)); break;
    case impl::top8: f(k_constant<8>{}, on_s.with(tally::backend::automatic)); break;
    case impl::top8_atomic: f(k_constant<8>{}, on_s.with(tally::backend::atomic)); break;
    case impl::top8_shared_memory: f(k_constant<8>{}, on_s.with(tally::backend::shared_memory)); break;
    case impl::top8_warp_shuffle: f(k_constant<8>{}, on_s.with(tally::backend::warp_shuffle)); break;
    case impl::top32: f(k_constant<32>{}, on_s.with(tally::backend::automatic)); break;
    case impl::top32_shared_memory: f(k_constant<32>{}, on_s.with(tally::backend::shared_memory)); break;
    default: throw std::logic_error("with_top_k_row: not a tally top_k row");
  }
}

/// Calls f(k_constant<K>{}, std::bool_constant<WithIndex>{}) for a CUB top-K reduce row.
template <class F>
void with_cub_reduce_row(impl which, F&& f) {
  switch (which) {
    case impl::cub_top2: f(k_constant<2>{}, std::true_type{}); break;
    case impl::cub_top2_values: f(k_constant<2>{}, std::false_type{}); break;
    case impl::cub_top8: f(k_constant<8>{}, std::true_type{}); break;
    default: throw std::logic_error("with_cub_reduce_row: not a CUB top-K reduce row");
  }
}

// --- shared state of one run ----------------------------------------------------------------

ts::bench_session g;

/// The input of one (case, n), the reference and CUB's ArgMax on it, one at a time
/// (support/tally_support/top_k_cases.cuh).
ts::top_k_input_slot g_inputs;

/// Every measured µs per call, by (case, row, n), for the top_k / reduce table.
std::map<std::tuple<std::string, impl, std::uint64_t>, double> g_us;
// top_k_into<2>'s time ÷ reduce_into's, the two timed in interleaved loops
// (time_calls_interleaved) by the top_k_into<2> row: the target's ratio.
std::map<std::pair<std::string, std::uint64_t>, double> g_top2_ratio;

// --- one benchmark: verify, then time -------------------------------------------------------

template <class T>
std::string value_text(T x) {
  std::ostringstream s;
  s.precision(9);
  s << x;
  return s.str();
}

/// Compares the first min(K, n) entries a row gave with the reference; `indices` null:
/// values only. Empty when they match, else the first difference.
template <class T>
std::string compare_with_reference(const std::vector<T>& values, const std::int64_t* indices, int count,
                                   const std::vector<T>& ref_values, const std::vector<std::int64_t>& ref_indices) {
  for (int i = 0; i < count; ++i) {
    const bool same_value = std::memcmp(&values[i], &ref_values[i], sizeof(T)) == 0;
    const bool same_index = indices == nullptr || indices[i] == ref_indices[i];
    if (!same_value || !same_index)
      return "entry " + std::to_string(i) + ": got " + value_text(values[i]) +
             (indices ? " (index " + std::to_string(indices[i]) + ")" : std::string()) + ", CUB's sort gives " +
             value_text(ref_values[i]) + " (index " + std::to_string(ref_indices[i]) + ")";
  }
  return "";
}

/// Checks one call of `which` on copy 0 (synchronised) against the reference. Empty when
/// it matches, else what it gave.
template <class Case>
std::string mismatch(impl which, ts::top_k_input<Case>& s) {
  using T = typename Case::T;
  const std::size_t n = s.in.size();
  const T* first = s.in.copy(0);
  auto count_for = [&](int k) { return int(std::min<std::size_t>(std::size_t(k), n)); };
  switch (which) {
    case impl::floor:     // computes nothing
    case impl::cub_sort:  // is the reference
      return "";
    case impl::cub_argmax:  // checked against the reference when the input was made
      return "";
    case impl::tally_reduce: {
      s.value_out.memset(0xff);  // a row that writes nothing cannot pass by accident
      Case::tally_reduce_into(tally::par.on(g.stream), first, first + n, s.value_out.data());
      TALLY_SUPPORT_CHECK(cudaStreamSynchronize(g.stream));
      const std::vector<T> got{s.value_out.get()};
      return compare_with_reference<T>(got, nullptr, 1, s.reference_values, s.reference_indices);
    }
    case impl::tally_max_element: {
      s.index_out.memset(0xff);
      Case::tally_into(tally::par.on(g.stream), first, first + n, s.index_out.data());
      TALLY_SUPPORT_CHECK(cudaStreamSynchronize(g.stream));
      const std::int64_t got = s.index_out.get();
      return got == s.reference_indices[0]
                 ? ""
                 : "index " + std::to_string(got) + ", CUB's sort gives " + std::to_string(s.reference_indices[0]);
    }
    case impl::cub_top2:
    case impl::cub_top2_values:
    case impl::cub_top8: {
      std::string got;
      with_cub_reduce_row(which, [&](auto k, auto with_index) {
        constexpr int K = decltype(k)::value;
        constexpr bool WithIndex = decltype(with_index)::value;
        TALLY_SUPPORT_CHECK(cudaMemset(s.list_out.data(), 0xff, s.list_out.bytes()));
        s.template cub_reduce_call<K, WithIndex>(0);
        const auto list = s.template cub_reduce_result<K, WithIndex>();
        const std::vector<T> values(list.value, list.value + K);
        const std::int64_t* indices = nullptr;
        if constexpr (WithIndex) indices = list.index;
        got = compare_with_reference<T>(values, indices, count_for(K), s.reference_values, s.reference_indices);
      });
      return got;
    }
    case impl::any8:
    case impl::any32:
    case impl::any256:
    case impl::any1024: {
      const int k = run_time_k(which);
      s.values_out.memset(0xff);
      s.indices_out.memset(0xff);
      tally::top_k_into(tally::par.on(g.stream), first, first + n, k, s.values_out.data(), s.indices_out.data());
      TALLY_SUPPORT_CHECK(cudaStreamSynchronize(g.stream));
      const std::vector<T> values = s.values_out.to_host();
      const std::vector<std::int64_t> indices = s.indices_out.to_host();
      std::string got = compare_with_reference<T>(values, indices.data(), count_for(k), s.reference_values,
                                                  s.reference_indices);
      for (int i = count_for(k); i < ts::bench_max_k && got.empty(); ++i)
        if (indices[i] != -1) got = "wrote entry " + std::to_string(i) + " (only " + std::to_string(count_for(k)) + " exist)";
      return got;
    }
    case impl::cub_topk8:
    case impl::cub_topk32:
    case impl::cub_topk256:
    case impl::cub_topk1024: {
      // Unsorted, and any of equal items may be picked: the values as a multiset must be
      // the reference's, each index distinct and holding its value.
      const int count = count_for(run_time_k(which));
      s.cub_top_k_call(0, count);
      TALLY_SUPPORT_CHECK(cudaStreamSynchronize(g.stream));
      std::vector<T> values = s.values_out.to_host();
      std::vector<std::int64_t> indices = s.indices_out.to_host();
      values.resize(std::size_t(count));
      indices.resize(std::size_t(count));
      for (int i = 0; i < count; ++i) {
        if (indices[i] < 0 || std::uint64_t(indices[i]) >= n) return "index " + std::to_string(indices[i]) + " out of range";
        T item;
        TALLY_SUPPORT_CHECK(cudaMemcpy(&item, first + indices[i], sizeof(T), cudaMemcpyDeviceToHost));
        if (std::memcmp(&item, &values[i], sizeof(T)) != 0)
          return "entry " + std::to_string(i) + ": the value is not the item at its index";
      }
      std::sort(values.begin(), values.end(), [](T a, T b) { return a > b; });
      std::sort(indices.begin(), indices.end());
      if (std::adjacent_find(indices.begin(), indices.end()) != indices.end()) return "an index repeats";
      return compare_with_reference<T>(values, nullptr, count, s.reference_values, s.reference_indices);
    }
    default: {  // a tally top_k row
      std::string got;
      with_top_k_row(which, g.stream, [&](auto k, auto policy) {
        constexpr int K = decltype(k)::value;
        s.values_out.memset(0xff);
        s.indices_out.memset(0xff);
        tally::top_k_into<K>(policy, first, first + n, s.values_out.data(), s.indices_out.data());
        TALLY_SUPPORT_CHECK(cudaStreamSynchronize(g.stream));
        const std::vector<T> values = s.values_out.to_host();
        const std::vector<std::int64_t> indices = s.indices_out.to_host();
        const int count = count_for(K);
        got = compare_with_reference<T>(values, indices.data(), count, s.reference_values, s.reference_indices);
        // min(K, n) entries written, nothing after them.
        for (int i = count; i < ts::bench_max_k && got.empty(); ++i)
          if (indices[i] != -1)
            got = "wrote entry " + std::to_string(i) + " (only " + std::to_string(count) + " exist)";
      });
      return got;
    }
  }
}

template <class Case>
ts::timing_result time_impl(impl which, ts::top_k_input<Case>& s) {
  using T = typename Case::T;
  const std::size_t n = s.in.size();
  const int copies = s.in.count();
  const cudaStream_t st = g.stream;
  switch (which) {
    case impl::floor: return ts::time_row(g, [&](int k) { (*g.ruler)(s.in.copy(k), n * sizeof(T), st); }, copies);
    case impl::cub_argmax: return ts::time_row(g, [&](int k) { s.cub_call(k); }, copies);
    case impl::cub_sort: return ts::time_row(g, [&](int k) { s.sort.call(s.in.copy(k)); }, copies);
    case impl::tally_reduce: {
      const auto policy = tally::par.on(st);
      return ts::time_row(g,
          [&](int k) { Case::tally_reduce_into(policy, s.in.copy(k), s.in.copy(k) + n, s.value_out.data()); }, copies);
    }
    case impl::tally_max_element: {
      const auto policy = tally::par.on(st);
      return ts::time_row(g,
          [&](int k) { Case::tally_into(policy, s.in.copy(k), s.in.copy(k) + n, s.index_out.data()); }, copies);
    }
    case impl::cub_top2:
    case impl::cub_top2_values:
    case impl::cub_top8: {
      ts::timing_result t;
      with_cub_reduce_row(which, [&](auto k, auto with_index) {
        constexpr int K = decltype(k)::value;
        constexpr bool WithIndex = decltype(with_index)::value;
        t = ts::time_row(g, [&](int c) { s.template cub_reduce_call<K, WithIndex>(c); }, copies);
      });
      return t;
    }
    case impl::any8:
    case impl::any32:
    case impl::any256:
    case impl::any1024: {
      const auto policy = tally::par.on(st);
      const std::int64_t k = run_time_k(which);
      return ts::time_row(g,
          [&](int c) {
            const T* first = s.in.copy(c);
            tally::top_k_into(policy, first, first + n, k, s.values_out.data(), s.indices_out.data());
          },
          copies);
    }
    case impl::cub_topk8:
    case impl::cub_topk32:
    case impl::cub_topk256:
    case impl::cub_topk1024: {
      const int k = int(std::min<std::size_t>(std::size_t(run_time_k(which)), n));
      return ts::time_row(g, [&](int c) { s.cub_top_k_call(c, k); }, copies);
    }
    default: {
      ts::timing_result t;
      with_top_k_row(which, st, [&](auto k, auto policy) {
        constexpr int K = decltype(k)::value;
        const auto top_k = [&](int c) {
          const T* first = s.in.copy(c);  // const T*, as in the check: one instantiation
          tally::top_k_into<K>(policy, first, first + n, s.values_out.data(), s.indices_out.data());
        };
        if (which == impl::top2 && !g.queued) {
          // The target's pair, interleaved loop by loop with tally's reduce.
          const auto reduce = [&](int c) {
            Case::tally_reduce_into(tally::par.on(st), s.in.copy(c), s.in.copy(c) + n, s.value_out.data());
          };
          const auto [top2, max] = ts::time_calls_interleaved(top_k, reduce, copies, st);
          if (max.median_us > 0) g_top2_ratio[{Case::name, n}] = top2.median_us / max.median_us;
          t = top2;
        } else {
          t = ts::time_row(g, top_k, copies);
        }
      });
      return t;
    }
  }
}

template <class Case>
void run_benchmark(benchmark::State& state, impl which, std::size_t n) {
  const auto us = ts::checked_measurement(
      state, g, {Case::name, impl_row(which), impl_key(which), n, double(sizeof(typename Case::T))},
      [&]() -> auto& { return g_inputs.get<Case>(n, g.stream); }, [&](auto& s) { return mismatch(which, s); },
      [&](auto& s) { return time_impl(which, s); });
  if (us) g_us[{Case::name, which, n}] = *us;
}

template <class Case>
void register_case(const std::vector<std::uint64_t>& sizes) {
  g.report->add_case(Case::name, Case::description, double(sizeof(typename Case::T)));
  for (auto n : sizes) {
    if (n > std::uint64_t(UINT32_MAX))
      throw std::invalid_argument("--sizes: " + ts::size_label(n) +
                                  " items: bench_top_k takes fewer than 2^32 (its reference sort has 32-bit indices)");
    for (impl which : all_impls) {
      if (is_cub_top_k(which) && !ts::has_cub_device_top_k) continue;
      const std::string name = std::string(Case::name) + "/" + impl_key(which) + "/" + ts::size_label(n);
      ts::register_measurement(name, [which, n](benchmark::State& st) { run_benchmark<Case>(st, which, n); });
    }
  }
}

// --- the target's table -----------------------------------------------------------------------

/// DESIGN.md §5: top_k_into<2> within 10% of tally's own reduce time at every size.
constexpr double target_ratio = 1.10;

/// One table, rows = case x (top_k_into<K> / reduce_into), columns = n (top_k_into<2>'s
/// from its interleaved loops with reduce_into: g_top2_ratio); then one line per
/// case saying where the target was met.
std::string target_markdown(const std::vector<std::string>& cases, const std::vector<std::uint64_t>& sizes) {
  auto ratio = [&](const std::string& c, impl num, impl den, std::uint64_t n) -> double {
    if (num == impl::top2 && den == impl::tally_reduce) {
      const auto interleaved = g_top2_ratio.find({c, n});
      if (interleaved != g_top2_ratio.end()) return interleaved->second;
    }
    const auto a = g_us.find({c, num, n}), b = g_us.find({c, den, n});
    return a == g_us.end() || b == g_us.end() || b->second <= 0 ? 0.0 : a->second / b->second;
  };
  std::vector<std::string> header{"case", "ratio"};
  for (auto n : sizes) header.push_back(ts::size_label(n));
  ts::table t(header, 2);
  const std::pair<impl, const char*> ratios[] = {{impl::top2, "top_k_into<2> / reduce_into"},
                                                 {impl::top8, "top_k_into<8> / reduce_into"},
                                                 {impl::top32, "top_k_into<32> / reduce_into"},
                                                 {impl::tally_max_element, "max_element_into / reduce_into"}};
  std::string verdicts;
  for (const auto& c : cases) {
    for (const auto& [num, label] : ratios) {
      std::vector<std::string> row{c, label};
      for (auto n : sizes) {
        const double r = ratio(c, num, impl::tally_reduce, n);
        const bool missed = num == impl::top2 && r > target_ratio;
        row.push_back(r > 0 ? (missed ? "**" + ts::fixed(r, 2) + "**" : ts::fixed(r, 2)) : std::string("-"));
      }
      t.add_row(row);
    }
    std::string missed, unmeasured;
    for (auto n : sizes) {
      const double r = ratio(c, impl::top2, impl::tally_reduce, n);
      if (r <= 0)
        unmeasured += (unmeasured.empty() ? "" : ", ") + ts::size_label(n);
      else if (r > target_ratio)
        missed += (missed.empty() ? "" : ", ") + ts::size_label(n) + " (" + ts::fixed(r, 2) + ")";
    }
    verdicts += "- " + c + ": " + (missed.empty() ? "met at every measured size" : "**missed** at " + missed) +
                (unmeasured.empty() ? "" : "; not measured at " + unmeasured) + "\n";
  }
  return "## target: top_k_into<2> within 10% of tally::reduce_into (time ratio <= " + ts::fixed(target_ratio, 2) +
         ", missed in bold; the two timed in interleaved loops, the other ratios from their rows)\n\n" + t.markdown() + "\n" + verdicts + "\n";
}

// --- command line -----------------------------------------------------------------------------

const ts::bench_program program{
    "bench_top_k",
    "tally top_k_into<2|8|32> vs tally::reduce_into, tally::max_element_into, CUB ArgMax, CUB top-K reductions, "
    "CUB radix sort and the stream_read floor\n",
    "bench_top_k.md", ts::top_k_cases::names(), "float_top_k/tally_top_k_2"};

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::string> cases;
  std::vector<std::uint64_t> sizes;
  return ts::run_comparison_benchmarks(
      argc, argv, program, g,
      [&](const ts::bench_flags& flags) {
        cases = flags.cases;
        sizes = flags.sizes;
        ts::top_k_cases::for_each_wanted(flags.cases, [&](auto c) { register_case<decltype(c)>(flags.sizes); });
      },
      [] { g_inputs.reset(); },
      [&](const ts::bench_session& s) {
        std::string md =
            "- method: median over 7 loops of the mean time per call, back-to-back calls between CUDA events, "
            "inputs rotating over copies that fill 512 MiB (at most 1024); CUB temporary storage allocated once\n";
        md +=
            "- tally rows: top_k_into<K> writing K values and K 64-bit indices to device memory (the largest "
            "first, tally::less), automatic policy unless a backend is named; tally::reduce_into (maximum, value "
            "only) and max_element_into (64-bit index) on the automatic policy\n";
        md +=
            "- cub top-K reduce rows: cub::DeviceReduce::Reduce over a transform iterator (item i -> a one-entry "
            "list) with an operator merging two sorted K-lists; `values only`: lists of values without indices "
            "(the anchors' cub_top2_reduce_f32); the radix sort row: cub::DeviceRadixSort::SortPairsDescending "
            "of (value, 32-bit index) pairs into separate outputs, what a CUB user does for any K (CCCL " +
            std::to_string(CCCL_MAJOR_VERSION) + "." + std::to_string(CCCL_MINOR_VERSION) +
            (ts::has_cub_device_top_k ? std::string("; its DeviceTopK rows: MaxPairs with the indices as values, "
                                                    "unsorted and non-deterministic, checked as a multiset")
                                      : std::string(" has no DeviceTopK")) +
            ")\n";
        md += "- copy ceiling: 1 GiB device-to-device copy, " + ts::figure(s.ceiling.gbps) + " GB/s (read + write)\n";
        md +=
            "- WRONG: values or indices differed from the reference (the first entries of CUB's stable descending "
            "radix sort of the same input; the reduce row: its value, the max_element row: its index); such a "
            "row is not timed\n\n";
        md += s.report->markdown(argmax_row);
        md += target_markdown(cases, sizes);
        return md;
      });
}
