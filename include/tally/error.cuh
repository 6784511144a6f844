#pragma once
/// @file
/// The exceptions tally throws.
///
/// - `tally::error` for invalid arguments: a reversed range, a null pointer with a
///   non-empty range, a host-only pointer given to a device policy.
/// - `tally::cuda_error` for CUDA failures (no device, out of memory, a failed launch);
///   it carries the `cudaError_t`.
///
/// Messages start with the algorithm's name; a cuda_error's ends with the CUDA error's
/// name and description, e.g.
/// `tally::reduce: no CUDA device available (cudaErrorNoDevice: no CUDA-capable device is detected)`.
/// A call that throws has not modified the caller's data.

#include <tally/detail/config.cuh>

#include <stdexcept>
#include <string>

TALLY_NAMESPACE_BEGIN

/// Invalid arguments (and the base of every tally exception).
class error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// A CUDA runtime failure; `code()` is the error CUDA reported.
class cuda_error : public error {
 public:
  cuda_error(const std::string& what, cudaError_t code) : error(what), code_(code) {}
  /// The CUDA error behind this exception.
  cudaError_t code() const noexcept { return code_; }

 private:
  cudaError_t code_;
};

TALLY_NAMESPACE_END
