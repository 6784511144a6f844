#pragma once
/// @file
/// The input of one (reduce case, n) in the benchmarks: rotating device copies filled by
/// the case, CUB's temporary storage (allocated once, outside every timed loop), an
/// output item and CUB's result, which every implementation is checked against. And
/// `reduce_input_slot`, which keeps one such input alive at a time (the benchmarks of one
/// (case, n) run one after another).
///
///   reduce_input_slot inputs;
///   auto& s = inputs.get<reduce_cases::float_sum>(n, stream);
///   s.cub_call(k);  s.reference;  s.in.copy(k);  s.out.data();
///   inputs.reset();  // before the CUDA runtime goes down

#include <tally_support/cuda_check.cuh>
#include <tally_support/device_buffer.cuh>
#include <tally_support/timing.cuh>

#include <cstddef>
#include <memory>
#include <stdexcept>
#include <string>

namespace tally_support {

struct reduce_input_base {
  virtual ~reduce_input_base() = default;
};

/// n items of Case's data in as many copies as the timing method rotates over, with CUB's
/// result on them. The constructor refuses an input whose result is 0 or whose last copy
/// differs from the first (never time on zeros).
template <class Case>
struct reduce_input : reduce_input_base {
  using T = typename Case::T;
  cudaStream_t stream;
  device_copies<T> in;
  device_buffer<unsigned char> cub_temp;
  std::size_t cub_temp_bytes = 0;
  device_buffer<T> out{1};
  T reference{};

  reduce_input(std::size_t n, cudaStream_t s) : stream(s), in(n, rotating_copies(n * sizeof(T))) {
    Case::fill(in.copy(0), n);
    in.replicate_first(stream);
    TALLY_SUPPORT_CHECK(Case::cub(nullptr, cub_temp_bytes, in.copy(0), out.data(), n, stream));
    cub_temp = device_buffer<unsigned char>(cub_temp_bytes == 0 ? 1 : cub_temp_bytes);
    reference = cub_result(0);
    // Never time on zeros: the data must be there, in the first copy and the last.
    if (reference == T(0)) throw std::runtime_error(std::string(Case::name) + ": CUB's result is 0: input not filled?");
    const T last = cub_result(in.count() - 1);
    if (!(last == reference))
      throw std::runtime_error(std::string(Case::name) + ": the last input copy differs from the first");
  }

  /// Enqueues CUB's reduce of copy k into `out`.
  void cub_call(int k) {
    TALLY_SUPPORT_CHECK(Case::cub(cub_temp.data(), cub_temp_bytes, in.copy(k), out.data(), in.size(), stream));
  }
  /// CUB's result on copy k (synchronised).
  T cub_result(int k) {
    out.memset(0xff);
    cub_call(k);
    TALLY_SUPPORT_CHECK(cudaStreamSynchronize(stream));
    return out.get();
  }
};

/// Holds the input of one (case, n) at a time: asking for another frees the previous
/// one first.
class reduce_input_slot {
 public:
  template <class Case>
  reduce_input<Case>& get(std::size_t n, cudaStream_t stream) {
    const std::string key = std::string(Case::name) + "/" + std::to_string(n);
    if (key != key_) {
      reset();  // free the previous input before allocating the next one
      input_ = std::make_unique<reduce_input<Case>>(n, stream);
      key_ = key;
    }
    return static_cast<reduce_input<Case>&>(*input_);
  }
  void reset() {
    input_.reset();
    key_.clear();
  }

 private:
  std::unique_ptr<reduce_input_base> input_;
  std::string key_;
};

}  // namespace tally_support
