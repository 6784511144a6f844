// `tally bench` entries for top_k (support/tally_support/top_k_cases.cuh): tally's
// top_k_into<K> on each backend and the synchronous top_k<K>, against what a CUB user
// writes: a top-K reduction (DeviceReduce::Reduce with a list-merging operator) for K = 2
// and 8, a radix sort of (value, index) pairs for K = 32. Every row is checked against
// CUB's stable sort. top_k2 also times tally's value-only reduce (DESIGN §5: top_k<2>
// within 10% of it).

#include "bench.hpp"
#include "bench_rows.cuh"

#include <tally/top_k.cuh>

#include <tally_support/cuda_check.cuh>
#include <tally_support/top_k_cases.cuh>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

namespace tally_tool {
namespace {

namespace ts = tally_support;

/// "" when the first `count` entries match the reference (values by bit pattern).
template <class T>
std::string compare_entries(const T* values, const std::int64_t* indices, int count, const std::vector<T>& ref_values,
                            const std::vector<std::int64_t>& ref_indices) {
  for (int i = 0; i < count; ++i) {
    const bool same_value = std::memcmp(&values[i], &ref_values[i], sizeof(T)) == 0;
    const bool same_index = indices == nullptr || indices[i] == ref_indices[i];
    if (!same_value || !same_index)
      return "entry " + std::to_string(i) + ": " +
             got_vs(std::to_string(double(values[i])) + " (index " + (indices ? std::to_string(indices[i]) : "-") + ")",
                    std::to_string(double(ref_values[i])) + " (index " + std::to_string(ref_indices[i]) + ")",
                    "CUB's sort");
  }
  return "";
}

template <class Case, int K>
bench_entry top_k_entry(const char* type) {
  using T = typename Case::T;
  bench_entry e;
  e.algorithm = "top_k" + std::to_string(K);
  e.type = type;
  e.description = std::string(Case::description) + "; cub row: " +
                  (K <= 8 ? "DeviceReduce::Reduce of top-" + std::to_string(K) + " lists (values + indices)"
                          : std::string("DeviceRadixSort::SortPairsDescending"));
  e.item_bytes = int(sizeof(T));
  e.rows = {row_floor, row_cub};
  for (const auto& r : backend_rows()) e.rows.push_back(r);
  e.rows.push_back("tally top_k (sync)");
  if (K == 2) e.rows.push_back("tally reduce max (value only)");
  // The reference sort: keys, 32-bit indices in and out, CUB's temporary storage.
  e.extra_bytes = [](std::uint64_t n) { return double(n) * (2 * sizeof(T) + 12); };
  e.run = [](std::uint64_t n, bench_env& env) {
    ts::top_k_input<Case> s(n, env.stream);
    const double bytes = double(n) * sizeof(T);
    const int copies = s.in.count();
    const int count = int(std::min<std::uint64_t>(K, n));
    auto first = [&](int k) { return s.in.copy(k); };

    measure_floor(env, s.in);
    if constexpr (K <= 8) {
      env.measure(
          row_cub, bytes,
          [&] {
            TALLY_SUPPORT_CHECK(cudaMemset(s.list_out.data(), 0xff, s.list_out.bytes()));
            s.template cub_reduce_call<K, true>(0);
            const auto list = s.template cub_reduce_result<K, true>();
            return compare_entries<T>(list.value, list.index, count, s.reference_values, s.reference_indices);
          },
          [&] { return time_rotating(env, copies, [&](int k) { s.template cub_reduce_call<K, true>(k); }); });
    } else {
      env.measure(row_cub, bytes, [] { return std::string(); },  // the sort is the reference
                  [&] { return time_rotating(env, copies, [&](int k) { s.sort.call(first(k)); }); });
    }
    for_each_backend_row(env.stream, [&](const std::string& row, auto policy) {
      env.measure(
          row, bytes,
          [&] {
            s.values_out.memset(0xff);
            s.indices_out.memset(0xff);
            tally::top_k_into<K>(policy, first(0), first(0) + n, s.values_out.data(), s.indices_out.data());
            TALLY_SUPPORT_CHECK(cudaStreamSynchronize(env.stream));
            const std::vector<T> values = s.values_out.to_host();
            const std::vector<std::int64_t> indices = s.indices_out.to_host();
            std::string got = compare_entries<T>(values.data(), indices.data(), count, s.reference_values,
                                                 s.reference_indices);
            for (int i = count; i < K && got.empty(); ++i)  // min(K, n) entries written, nothing after them
              if (indices[i] != -1) got = "wrote entry " + std::to_string(i) + " of only " + std::to_string(count);
            return got;
          },
          [&] {
            return time_rotating(env, copies, [&](int k) {
              tally::top_k_into<K>(policy, first(k), first(k) + n, s.values_out.data(), s.indices_out.data());
            });
          });
    });
    const auto on = tally::par.on(env.stream);
    env.measure(
        "tally top_k (sync)", bytes,
        [&] {
          const auto r = tally::top_k<K>(on, first(0), first(0) + n);
          if (r.count != count) return "count " + std::to_string(r.count) + ", expected " + std::to_string(count);
          return compare_entries<T>(r.values.data(), r.indices.data(), count, s.reference_values, s.reference_indices);
        },
        [&] {
          return time_rotating(env, copies, [&](int k) {
            const auto r = tally::top_k<K>(on, first(k), first(k) + n);
            if (r.count < 0) throw std::logic_error("negative count");
          });
        });
    if constexpr (K == 2) {
      env.measure(
          "tally reduce max (value only)", bytes,
          [&] {
            s.value_out.memset(0xff);
            Case::tally_reduce_into(on, first(0), first(0) + n, s.value_out.data());
            TALLY_SUPPORT_CHECK(cudaStreamSynchronize(env.stream));
            const T got = s.value_out.get();
            return compare_entries<T>(&got, nullptr, 1, s.reference_values, s.reference_indices);
          },
          [&] {
            return time_rotating(env, copies, [&](int k) {
              Case::tally_reduce_into(on, first(k), first(k) + n, s.value_out.data());
            });
          });
    }
  };
  return e;
}

}  // namespace

std::vector<bench_entry> top_k_bench_entries() {
  using ts::top_k_cases::float_top_k;
  using ts::top_k_cases::int32_top_k;
  return {top_k_entry<float_top_k, 2>("float"),  top_k_entry<int32_top_k, 2>("int32"),
          top_k_entry<float_top_k, 8>("float"),  top_k_entry<int32_top_k, 8>("int32"),
          top_k_entry<float_top_k, 32>("float"), top_k_entry<int32_top_k, 32>("int32")};
}

}  // namespace tally_tool
