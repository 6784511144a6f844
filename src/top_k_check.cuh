#pragma once
// The machinery of `tally verify`'s top_k entries (checks_top_k*.cu): the forms of the call
// (compile-time K, run-time k; into an output or synchronous), the references, and the
// check of one entry. The entries are split over several translation units because each
// (K, type, comparator) compiles its own kernels for every backend: in one file they were
// the tool's longest compile (138 s of nvcc on the 2-core machine), and the README's first
// command waits for its longest file on a 16-core machine.
//
// `tally verify` entries for top_k: top_k_into<K> for K in {1, 2, 8, 32} on float and
// K = 3 (K = 1 for int64) on int32, int64, double and half; on random and constant data,
// all +inf / all -inf (for int32: all INT_MAX / all INT_MIN) and, for the floating types,
// data with NaNs; with the default comparators (tally::less: the largest first;
// tally::greater: the smallest first), with user comparators (the (value, index) pair
// path), and through the synchronous top_k<K>. Each compares the values and indices tally
// writes on every backend with the first min(K, n) entries of CUB's stable radix sort of
// (value, index) pairs on the same input (descending for less, ascending for greater:
// equal values in index order, as top_k), except where CUB's order is not the
// comparator's: on data with NaN (tally puts it above every number) the same sort over
// keys in the library's order, and for user comparators a plain host sort under the
// comparator on a copy of the input (tally_support/reference.cuh, compare.hpp). It also checks
// that nothing is written after the first min(K, n) entries. Then it times tally against
// that CUB sort (what a CUB user calls for a top-K; CCCL 3.0 has no DeviceTopK). The
// run-time-k forms (top_k_into(..., k, ...), top_k(..., k)) the same way, for several k.

#include "check.hpp"
#include "device_checks.cuh"

#include <tally/tally.cuh>

#include <tally_support/data.cuh>
#include <tally_support/compare.hpp>
#include <tally_support/device_buffer.cuh>
#include <tally_support/reference.cuh>
#include <tally_support/top_k_cases.cuh>

#include <cuda_fp16.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <optional>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

namespace tally_tool {
namespace top_k_check {

namespace ts = tally_support;

/// A user comparator the same as tally::less on numbers (no NaN in the data it is used on):
/// top_k takes the (value, index) pair path for it.
struct plain_less {
  __host__ __device__ bool operator()(float a, float b) const { return a < b; }
};

/// A user comparator with many ties between different values: by x % 3 (on hash(i) % 4
/// data: 2 first, then 1, then 0 and 3 together, each group in index order).
struct mod3_less {
  __host__ __device__ bool operator()(int a, int b) const { return a % 3 < b % 3; }
};

/// Which order the CUB reference sorts in (only used with the default comparators).
template <class Compare>
inline constexpr bool largest_first_v = !std::is_same_v<Compare, tally::greater<>>;

/// The reference of an entry (tally_support/reference.cuh, compare.hpp): CUB's sorted
/// pairs; CUB's sort over the library's order keys (NaN above every number); or a plain
/// host sort under the comparator (user comparators whose order CUB's sort does not know).
enum class reference { cub, cub_library_order, host };

/// What a synchronous call returned: `slots` entries, the first `count` meaningful.
template <class T>
struct top_k_output {
  std::vector<T> values;
  std::vector<std::int64_t> indices;
  std::size_t count = 0;
};

/// The compile-time forms: top_k_into<K> (Sync: top_k<K>, which returns a top_k_result
/// whose entries after `count` are value-initialised).
template <int K, bool Sync>
struct fixed_k {
  static constexpr bool sync = Sync;
  std::size_t slots() const { return K; }
  std::string name() const { return std::string(Sync ? "top_k<" : "top_k_into<") + std::to_string(K) + ">"; }
  template <class Policy, class T, class Compare>
  top_k_output<T> get(const Policy& policy, const T* first, std::uint64_t n, Compare comp) const {
    const tally::top_k_result<T, K> r = tally::top_k<K>(policy, first, first + n, comp);
    return {{r.values.begin(), r.values.end()}, {r.indices.begin(), r.indices.end()}, std::size_t(r.count)};
  }
  template <class Policy, class T, class Compare>
  void into(const Policy& policy, const T* first, std::uint64_t n, T* values, std::int64_t* indices, Compare comp) const {
    tally::top_k_into<K>(policy, first, first + n, values, indices, comp);
  }
};

/// The run-time forms: top_k_into(..., k, ...) (Sync: top_k(..., k), whose vectors hold
/// exactly min(k, n) entries).
template <bool Sync>
struct any_k {
  static constexpr bool sync = Sync;
  std::int64_t k;
  std::size_t slots() const { return std::size_t(k); }
  std::string name() const { return std::string(Sync ? "top_k(k = " : "top_k_into(k = ") + std::to_string(k) + ")"; }
  template <class Policy, class T, class Compare>
  top_k_output<T> get(const Policy& policy, const T* first, std::uint64_t n, Compare comp) const {
    tally::top_k_values<T> r = tally::top_k(policy, first, first + n, k, comp);
    top_k_output<T> out{std::move(r.values), std::move(r.indices), 0};
    out.count = out.indices.size();
    out.values.resize(slots());
    out.indices.resize(slots(), 0);  // nothing beyond the count, as the fixed form's zeros
    return out;
  }
  template <class Policy, class T, class Compare>
  void into(const Policy& policy, const T* first, std::uint64_t n, T* values, std::int64_t* indices, Compare comp) const {
    tally::top_k_into(policy, first, first + n, k, values, indices, comp);
  }
};

/// The entries' shorthands (checks_top_k*.cu).
using greater = tally::greater<>;
inline constexpr bool sync = true;  ///< Sync: the synchronous form (top_k<K>, top_k(k))
inline constexpr reference by_host = reference::host, by_cub = reference::cub,
                           by_order = reference::cub_library_order;
using ts::pattern;

/// The first min(k, n) entries of one form of top_k (fixed_k or any_k) of n items of T
/// (pattern `data`) under comp, on every requested backend, against the reference, then
/// times of tally and of CUB's sort.
template <class Form, class T, class Compare>
std::vector<check_row> check_top_k(const check_row& label, ts::pattern data, reference ref, Compare comp, Form form,
                                   std::uint64_t n, const verify_options& o) {
  constexpr bool Sync = Form::sync;
  const std::size_t K = form.slots();
  device_input<T> input(n, data, o);
  const T* in0 = input.copies.copy(0);
  const std::size_t count = std::min<std::uint64_t>(K, n);

  // The reference: CUB's sorted pairs, CUB's sort in the library's order, or the host's.
  std::optional<ts::cub_sorted_reference<T, largest_first_v<Compare>>> sort;
  if (n > 0) sort.emplace(n, input.stream);
  std::vector<T> ref_values;
  std::vector<std::int64_t> ref_indices;
  std::string reference_name = "CUB's sort";
  if (ref == reference::host || ref == reference::cub_library_order) {
    std::vector<long long> indices;
    if (ref == reference::host) {
      std::vector<T> host(n);
      if (n > 0) TALLY_SUPPORT_CHECK(cudaMemcpy(host.data(), in0, n * sizeof(T), cudaMemcpyDeviceToHost));
      indices = ts::host_top_indices(host, comp, int(count));
      reference_name = "the host reference";
    } else {
      indices = ts::cub_top_indices(in0, n, largest_first_v<Compare>, count, input.stream);
      reference_name = "CUB's sort in the library's order";
    }
    ref_values.resize(indices.size());
    for (std::size_t i = 0; i < indices.size(); ++i)
      TALLY_SUPPORT_CHECK(cudaMemcpy(&ref_values[i], in0 + indices[i], sizeof(T), cudaMemcpyDeviceToHost));
    ref_indices.assign(indices.begin(), indices.end());
  } else if (sort) {
    sort->call(in0);
    sort->read(count, ref_values, ref_indices);
  }
  if (ref_indices.size() != count)
    throw std::runtime_error(reference_name + " gave " + std::to_string(ref_indices.size()) + " entries");

  const bool timing = o.timing && n > 0;
  auto cub_call = [&](int k) { sort->call(input.copies.copy(k)); };
  const double cub_us = timing ? time_us(cub_call, input, o.loops) : 0.0;

  ts::device_buffer<T> values(K);
  ts::device_buffer<std::int64_t> indices(K);
  return rows_per_backend(label, n, double(n) * sizeof(T), o, input.stream, [&](auto policy, check_row& row) {
    auto call = [&](int k) {
      const T* first = input.copies.copy(k);
      if constexpr (Sync)
        return form.get(policy, first, n, comp);
      else
        form.into(policy, first, n, values.data(), indices.data(), comp);
    };

    // What tally gives on copy 0: K entries, the first `got_count` of them meaningful.
    std::vector<T> got_values(K);
    std::vector<std::int64_t> got_indices(K);
    std::size_t got_count = count;
    if constexpr (Sync) {
      top_k_output<T> r = call(0);
      got_values = std::move(r.values);
      got_indices = std::move(r.indices);
      got_count = r.count;
    } else {
      values.memset(0xff);  // a backend that writes nothing cannot pass by accident
      indices.memset(0xff);
      call(0);
      TALLY_SUPPORT_CHECK(cudaStreamSynchronize(input.stream));
      values.copy_to_host(got_values);
      indices.copy_to_host(got_indices);
    }

    row.ok = got_count == count;
    if (!row.ok) row.detail = "count " + std::to_string(got_count) + ", expected " + std::to_string(count);
    for (std::size_t i = 0; i < count && row.ok; ++i) {
      row.ok = got_indices[i] == ref_indices[i] && std::memcmp(&got_values[i], &ref_values[i], sizeof(T)) == 0;
      if (!row.ok)
        row.detail = "entry " + std::to_string(i) + ": got " + value_text(got_values[i]) + " (index " +
                     std::to_string(got_indices[i]) + "), " + reference_name + " gives " +
                     value_text(ref_values[i]) + " (index " + std::to_string(ref_indices[i]) + ")";
    }
    // Only min(K, n) entries are written (top_k_into), the rest value-initialised (top_k).
    for (std::size_t i = count; i < std::size_t(K) && row.ok; ++i) {
      const bool untouched = Sync ? got_indices[i] == 0 : got_indices[i] == -1;
      row.ok = untouched;
      if (!row.ok)
        row.detail = "entry " + std::to_string(i) + " has index " + std::to_string(got_indices[i]) + ", but only " +
                     std::to_string(count) + " entries exist";
    }

    time_passed_row(row, timing, [&](int k) { (void)call(k); }, input, cub_us, o.loops);
  });
}

/// One entry: top_k_into<K> (Sync: top_k<K>) of T on `data` under Compare, shown as
/// "top_k_into<K>" plus `what` (e.g. " greater").
template <class T, class Compare, class Form>
check_entry top_k_form_entry(Form form, const char* type_key, ts::pattern data, reference ref, const char* what) {
  return labelled_entry(form.name() + what, type_key, type_key, data,
                        [=](const check_row& label, std::uint64_t n, const verify_options& o) {
                          return check_top_k<Form, T>(label, data, ref, Compare{}, form, n, o);
                        });
}
template <int K, class T, class Compare = tally::less<>, bool Sync = false>
check_entry top_k_entry(const char* type_key, ts::pattern data, reference ref = reference::cub, const char* what = "") {
  return top_k_form_entry<T, Compare>(fixed_k<K, Sync>{}, type_key, data, ref, what);
}
/// One entry of the run-time-k form: "top_k_into(k = k)" (Sync: "top_k(k = k)") plus `what`.
template <class T, class Compare = tally::less<>, bool Sync = false>
check_entry top_k_any_entry(std::int64_t k, const char* type_key, ts::pattern data, reference ref = reference::cub,
                            const char* what = "") {
  return top_k_form_entry<T, Compare>(any_k<Sync>{k}, type_key, data, ref, what);
}

}  // namespace top_k_check
}  // namespace tally_tool
