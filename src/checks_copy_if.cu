// `tally verify` entries for copy_if: copy_if_into of int32, int64, float and double on
// random data and on data where every item or none is selected (constant, all +inf, all
// -inf; for the integers all INT_MAX / all INT_MIN), sorted data (one run selected),
// data with NaNs (never selected), the unordered() form, the synchronous copy_if, and
// the stencil form (a counting iterator as the stencil, every third index selected).
// Predicates: x >= 2 for the integers (hash(i) % 4 data: half of the items), x < 0.5
// for the floating types (uniform [0, 1) data: half of them).
//
// The reference is CUB's DeviceSelect::If (the stencil form: FlaggedIf) on the same
// input (tally_support/reference.cuh); an empty range is checked against a count of 0. A stable result (the default,
// on every backend but atomic) must hold CUB's items in CUB's order; an unordered one
// (unordered(), or the atomic backend, which implies it) the same items in any order
// (both sorted by their bit patterns with CUB's radix sort, then compared). Either way
// the count must be CUB's and nothing may be written after the output's end. Then it
// times tally against CUB.

#include "check.hpp"
#include "device_checks.cuh"

#include <tally/tally.cuh>

#include <tally_support/copy_if_cases.cuh>
#include <tally_support/data.cuh>
#include <tally_support/device_buffer.cuh>
#include <tally_support/reference.cuh>

#include <thrust/iterator/counting_iterator.h>

#include <cstdint>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

namespace tally_tool {
namespace {

namespace ts = tally_support;

/// x >= 2: half of hash(i) % 4, all of INT_MAX, none of INT_MIN or of the constant 1.
struct at_least_two {
  template <class T>
  __host__ __device__ bool operator()(const T& x) const {
    return x >= T(2);
  }
};

/// x < 0.5: half of uniform [0, 1), all of -inf, none of +inf, NaN or the constant 1.
struct below_half {
  template <class T>
  __host__ __device__ bool operator()(const T& x) const {
    return x < T(0.5);
  }
};

/// The stencil form's predicate, on the index: every third item.
struct every_third_index {
  __host__ __device__ bool operator()(std::int64_t i) const { return i % 3 == 0; }
};

/// Which call is checked.
enum class form {
  into,       ///< copy_if_into(policy, first, last, out, count, pred)
  unordered,  ///< the same with policy.unordered()
  sync,       ///< copy_if(policy, first, last, out, pred), the end returned
  stencil,    ///< copy_if_into(policy, first, last, stencil, out, count, pred)
};

/// The call of `Form` on n items of T (pattern `data`) with `pred`, on every requested
/// backend, against CUB's selection of the same input, then times of tally and of CUB.
template <form Form, class T, class Pred>
std::vector<check_row> check_copy_if(const check_row& label, ts::pattern data, Pred pred, std::uint64_t n,
                                     const verify_options& o) {
  device_input<T> input(n, data, o);
  const cudaStream_t st = input.stream;
  const T* in0 = input.copies.copy(0);
  const thrust::counting_iterator<std::int64_t> stencil(0);
  ts::device_buffer<T> reference(n), out(n + ts::copy_if_guard_items);
  ts::device_buffer<std::int64_t> count(1);

  // CUB's selection of `in` into `to` (its count into `count`; tally_support/reference.cuh).
  ts::cub_temp_storage temp;
  auto cub_select = [&](const T* in, T* to) {
    temp.run([&](void* storage, std::size_t& bytes) {
      if constexpr (Form == form::stencil)
        return ts::cub_select_flagged_if_call(storage, bytes, in, stencil, to, count.data(), n, pred, st);
      else
        return ts::cub_select_if_call(storage, bytes, in, to, count.data(), n, pred, st);
    });
  };
  std::int64_t reference_count = 0;  // an empty range: nothing selected
  if (n > 0) {
    TALLY_SUPPORT_CHECK(cudaMemsetAsync(count.data(), 0xff, sizeof(std::int64_t), st));
    cub_select(in0, reference.data());
    TALLY_SUPPORT_CHECK(cudaMemcpyAsync(&reference_count, count.data(), sizeof reference_count,
                                        cudaMemcpyDeviceToHost, st));
    TALLY_SUPPORT_CHECK(cudaStreamSynchronize(st));
    if (reference_count < 0 || std::uint64_t(reference_count) > n)
      throw std::runtime_error("CUB selected " + std::to_string(reference_count) + " items");
  }
  const bool timing = o.timing && n > 0;
  auto cub_call = [&](int k) { cub_select(input.copies.copy(k), out.data()); };
  const double cub_us = timing ? time_us(cub_call, input, o.loops) : 0.0;

  // For the unordered results: the reference's bit patterns sorted (made on first use).
  ts::bit_sorter<T> sorter(st);
  ts::device_buffer<ts::bits_of<T>> sorted_reference, sorted_got;

  const double bytes = double(n + std::uint64_t(reference_count)) * sizeof(T);  // read + written
  return rows_per_backend(label, n, bytes, o, st, [&](auto chosen, check_row& row) {
    const auto policy = [&] {
      if constexpr (Form == form::unordered) return chosen.unordered();
      else return chosen;
    }();
    // The atomic backend implies unordered().
    const bool stable = Form != form::unordered && row.backend != tally::backend_id::atomic;
    // One call on copy k; returns the count for the synchronous form.
    auto call = [&](int k) -> std::int64_t {
      const T* first = input.copies.copy(k);
      if constexpr (Form == form::sync) {
        return tally::copy_if(policy, first, first + n, out.data(), pred) - out.data();
      } else if constexpr (Form == form::stencil) {
        tally::copy_if_into(policy, first, first + n, stencil, out.data(), count.data(), pred);
        return 0;
      } else {
        tally::copy_if_into(policy, first, first + n, out.data(), count.data(), pred);
        return 0;
      }
    };

    // A call that writes too little or too much cannot pass by accident.
    TALLY_SUPPORT_CHECK(cudaMemsetAsync(out.data(), 0xff, out.bytes(), st));
    TALLY_SUPPORT_CHECK(cudaMemsetAsync(count.data(), 0xff, sizeof(std::int64_t), st));
    std::int64_t got = call(0);
    if constexpr (Form != form::sync)
      TALLY_SUPPORT_CHECK(cudaMemcpyAsync(&got, count.data(), sizeof got, cudaMemcpyDeviceToHost, st));
    TALLY_SUPPORT_CHECK(cudaStreamSynchronize(st));

    if (!stable && sorted_reference.size() < std::size_t(reference_count)) {
      sorted_reference = ts::device_buffer<ts::bits_of<T>>(std::size_t(reference_count));
      sorted_got = ts::device_buffer<ts::bits_of<T>>(std::size_t(reference_count));
      sorter.sort(reference.data(), std::uint64_t(reference_count), sorted_reference.data());
    }
    const std::uint64_t end = got >= 0 && std::uint64_t(got) <= n ? std::uint64_t(got) : 0;
    row.detail = ts::compare_selection<T>(out.data(), got, reference.data(), reference_count, stable, &sorter,
                                          sorted_got.data(), sorted_reference.data(),
                                          n + ts::copy_if_guard_items - end, st);
    row.ok = row.detail.empty();
    time_passed_row(row, timing, [&](int k) { (void)call(k); }, input, cub_us, o.loops);
  });
}

/// One entry: the call of `Form` on T with Pred, shown as `algorithm`.
template <form Form, class T, class Pred>
check_entry copy_if_entry(const char* algorithm, const char* type_key, ts::pattern data) {
  return labelled_entry(algorithm, type_key, type_key, data,
                        [=](const check_row& label, std::uint64_t n, const verify_options& o) {
                          return check_copy_if<Form, T>(label, data, Pred{}, n, o);
                        });
}

}  // namespace

std::vector<check_entry> copy_if_checks() {
  using ts::pattern;
  std::vector<check_entry> v;
  // Each (form, type, predicate) compiles its own kernels (stable with shuffles, stable
  // with shared memory, unordered with each): the list is kept short.

  // int32 (x >= 2): half selected, none (constant 1, all INT_MIN), all (INT_MAX), one run (sorted).
  v.push_back(copy_if_entry<form::into, int, at_least_two>("copy_if_into", "int32", pattern::random));
  v.push_back(copy_if_entry<form::into, int, at_least_two>("copy_if_into", "int32", pattern::constant));
  v.push_back(copy_if_entry<form::into, int, at_least_two>("copy_if_into", "int32", pattern::pos_inf));
  v.push_back(copy_if_entry<form::into, int, at_least_two>("copy_if_into", "int32", pattern::neg_inf));
  v.push_back(copy_if_entry<form::into, int, at_least_two>("copy_if_into", "int32", pattern::sorted));
  v.push_back(copy_if_entry<form::unordered, int, at_least_two>("copy_if_into unordered", "int32", pattern::random));
  v.push_back(copy_if_entry<form::sync, int, at_least_two>("copy_if", "int32", pattern::random));

  // 8-byte items.
  v.push_back(copy_if_entry<form::into, std::int64_t, at_least_two>("copy_if_into", "int64", pattern::random));
  v.push_back(copy_if_entry<form::into, double, below_half>("copy_if_into", "double", pattern::random));

  // float (x < 0.5): half selected, NaN never, all (-inf), none (+inf), one run (sorted);
  // unordered, synchronous, and the stencil form.
  v.push_back(copy_if_entry<form::into, float, below_half>("copy_if_into", "float", pattern::random));
  v.push_back(copy_if_entry<form::into, float, below_half>("copy_if_into", "float", pattern::with_nan));
  v.push_back(copy_if_entry<form::into, float, below_half>("copy_if_into", "float", pattern::neg_inf));
  v.push_back(copy_if_entry<form::into, float, below_half>("copy_if_into", "float", pattern::pos_inf));
  v.push_back(copy_if_entry<form::into, float, below_half>("copy_if_into", "float", pattern::sorted));
  v.push_back(copy_if_entry<form::unordered, float, below_half>("copy_if_into unordered", "float", pattern::random));
  v.push_back(copy_if_entry<form::sync, float, below_half>("copy_if", "float", pattern::random));
  v.push_back(
      copy_if_entry<form::stencil, float, every_third_index>("copy_if_into stencil i % 3 == 0", "float", pattern::random));
  return v;
}

}  // namespace tally_tool
