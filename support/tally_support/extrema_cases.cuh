#pragma once
/// @file
/// The max_element / min_element cases the benchmarks compare tally with CUB on
/// (bench_max_element), and their inputs. A case fixes the item type, the data, whether
/// the largest or the smallest item is sought, and how CUB (ArgMax / ArgMin, the form
/// with separate value and 64-bit index outputs), Thrust (max_element / min_element),
/// tally (max_element_into / min_element_into) and tally's value-only reduce (maximum /
/// minimum, for reference) spell it.
///
///   using C = tally_support::extrema_cases::float_argmax;
///   extrema_input_slot inputs;
///   auto& s = inputs.get<C>(n, stream);
///   C::tally_into(policy, s.in.copy(k), s.in.copy(k) + n, s.index_out.data());
///   if (s.index_out.get() != s.reference_index) ...
///
/// The input of one (case, n) is like reduce_input's (reduce_input.cuh): rotating device
/// copies, CUB's temporary storage allocated once (outside every timed loop), CUB's
/// index and value on copy 0, which every implementation is checked against.

#include <tally/tally.cuh>

#include <tally_support/cuda_check.cuh>
#include <tally_support/data.cuh>
#include <tally_support/device_buffer.cuh>
#include <tally_support/reference.cuh>
#include <tally_support/timing.cuh>

#include <cuda/std/cstdint>
#include <thrust/execution_policy.h>
#include <thrust/extrema.h>

#include <cstddef>
#include <cstdint>
#include <limits>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

namespace tally_support::extrema_cases {

/// What the cases share, for the largest (Max) or the smallest item of Item.
template <class Item, bool Max>
struct extremum_case {
  using T = Item;
  static constexpr bool is_max = Max;
  /// CUB's ArgMax / ArgMin (reference.cuh): the baseline and the reference.
  static cudaError_t cub(void* tmp, std::size_t& bytes, const T* in, T* value_out, std::int64_t* index_out,
                         std::size_t n, cudaStream_t s) {
    return cub_arg_extremum_call<Max>(tmp, bytes, in, value_out, index_out, n, s);
  }
  static constexpr const char* cub_name = Max ? "cub DeviceReduce::ArgMax" : "cub DeviceReduce::ArgMin";

  /// thrust::max_element / min_element (synchronises; returns an iterator).
  static const T* thrust_call(const T* first, const T* last, cudaStream_t s) {
    if constexpr (Max) return thrust::max_element(thrust::cuda::par.on(s), first, last);
    else return thrust::min_element(thrust::cuda::par.on(s), first, last);
  }
  static constexpr const char* thrust_name = Max ? "thrust::max_element (sync)" : "thrust::min_element (sync)";

  /// tally::max_element_into / min_element_into (asynchronous).
  template <class Policy>
  static void tally_into(const Policy& policy, const T* first, const T* last, std::int64_t* index_out) {
    if constexpr (Max) tally::max_element_into(policy, first, last, index_out);
    else tally::min_element_into(policy, first, last, index_out);
  }

  /// tally::reduce_into with tally::maximum / minimum: the value only, for reference.
  template <class Policy>
  static void tally_reduce_into(const Policy& policy, const T* first, const T* last, T* value_out) {
    if constexpr (Max)
      tally::reduce_into(policy, first, last, value_out, std::numeric_limits<T>::lowest(), tally::maximum<T>{});
    else
      tally::reduce_into(policy, first, last, value_out, std::numeric_limits<T>::max(), tally::minimum<T>{});
  }
  static constexpr const char* reduce_name =
      Max ? "tally::reduce_into maximum (value only)" : "tally::reduce_into minimum (value only)";
};

struct float_argmax : extremum_case<float, true> {
  static constexpr const char* name = "float_argmax";
  static constexpr const char* description = "float max_element, data uniform in [0, 1)";
  static void fill(T* p, std::size_t n) { fill_uniform(p, n); }
};

struct float_argmin : extremum_case<float, false> {
  static constexpr const char* name = "float_argmin";
  static constexpr const char* description = "float min_element, data uniform in [0, 1)";
  static void fill(T* p, std::size_t n) { fill_uniform(p, n); }
};

struct int32_argmax : extremum_case<int, true> {
  static constexpr const char* name = "int32_argmax";
  static constexpr const char* description = "int32 max_element, data hash(i) % 4 (the first 3 wins: many ties)";
  static void fill(T* p, std::size_t n) { fill_hash_mod(p, n); }
};

/// The case names, in table order (the values --cases accepts).
inline std::vector<std::string> names() { return {float_argmax::name, float_argmin::name, int32_argmax::name}; }

/// Calls f(Case{}) for each case whose name is in `wanted`, in table order.
template <class Names, class F>
void for_each_wanted(const Names& wanted, F&& f) {
  auto is_wanted = [&](const char* name) {
    for (const auto& w : wanted)
      if (w == name) return true;
    return false;
  };
  if (is_wanted(float_argmax::name)) f(float_argmax{});
  if (is_wanted(float_argmin::name)) f(float_argmin{});
  if (is_wanted(int32_argmax::name)) f(int32_argmax{});
}

}  // namespace tally_support::extrema_cases

namespace tally_support {

struct extrema_input_base {
  virtual ~extrema_input_base() = default;
};

/// n items of Case's data in as many copies as the timing method rotates over, with
/// CUB's index and value on them. The constructor refuses an input whose CUB result is
/// item 0 with the value 0 (never time on zeros) or whose last copy gives another result
/// than the first.
template <class Case>
struct extrema_input : extrema_input_base {
  using T = typename Case::T;
  cudaStream_t stream;
  device_copies<T> in;
  device_buffer<unsigned char> cub_temp;
  std::size_t cub_temp_bytes = 0;
  device_buffer<T> value_out{1};             ///< CUB's value; tally::reduce_into's value
  device_buffer<std::int64_t> index_out{1};  ///< CUB's index; tally's index
  std::int64_t reference_index = -1;
  T reference_value{};

  extrema_input(std::size_t n, cudaStream_t s) : stream(s), in(n, rotating_copies(n * sizeof(T))) {
    Case::fill(in.copy(0), n);
    in.replicate_first(stream);
    TALLY_SUPPORT_CHECK(Case::cub(nullptr, cub_temp_bytes, in.copy(0), value_out.data(), index_out.data(), n, stream));
    cub_temp = device_buffer<unsigned char>(cub_temp_bytes == 0 ? 1 : cub_temp_bytes);
    cub_result(0, reference_index, reference_value);
    if (reference_index < 0 || std::size_t(reference_index) >= n)
      throw std::runtime_error(std::string(Case::name) + ": CUB's index is out of range");
    if (reference_index == 0 && reference_value == T(0))
      throw std::runtime_error(std::string(Case::name) + ": CUB finds item 0 with the value 0: input not filled?");
    std::int64_t last_index = -1;
    T last_value{};
    cub_result(in.count() - 1, last_index, last_value);
    if (last_index != reference_index || !(last_value == reference_value))
      throw std::runtime_error(std::string(Case::name) + ": the last input copy differs from the first");
  }

  /// Enqueues CUB's ArgMax / ArgMin of copy k into value_out and index_out.
  void cub_call(int k) {
    TALLY_SUPPORT_CHECK(Case::cub(cub_temp.data(), cub_temp_bytes, in.copy(k), value_out.data(), index_out.data(),
                                  in.size(), stream));
  }
  /// CUB's index and value on copy k (synchronised).
  void cub_result(int k, std::int64_t& index, T& value) {
    index_out.memset(0xff);
    value_out.memset(0xff);
    cub_call(k);
    TALLY_SUPPORT_CHECK(cudaStreamSynchronize(stream));
    index = index_out.get();
    value = value_out.get();
  }
};

/// Holds the input of one (case, n) at a time: asking for another frees the previous
/// one first.
class extrema_input_slot {
 public:
  template <class Case>
  extrema_input<Case>& get(std::size_t n, cudaStream_t stream) {
    const std::string key = std::string(Case::name) + "/" + std::to_string(n);
    if (key != key_) {
      reset();  // free the previous input before allocating the next one
      input_ = std::make_unique<extrema_input<Case>>(n, stream);
      key_ = key;
    }
    return static_cast<extrema_input<Case>&>(*input_);
  }
  void reset() {
    input_.reset();
    key_.clear();
  }

 private:
  std::unique_ptr<extrema_input_base> input_;
  std::string key_;
};

}  // namespace tally_support
