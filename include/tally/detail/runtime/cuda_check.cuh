#pragma once
// Turning CUDA errors into tally exceptions that name the algorithm.

#include <tally/error.cuh>

#include <string>

TALLY_NAMESPACE_BEGIN
namespace detail {

[[noreturn]] inline void throw_cuda_error(const char* algorithm, const char* what, cudaError_t code) {
  throw cuda_error(std::string(algorithm) + ": " + what + " (" + cudaGetErrorName(code) + ": " +
                       cudaGetErrorString(code) + ")",
                   code);
}

[[noreturn]] inline void throw_error(const char* algorithm, const std::string& what) {
  throw error(std::string(algorithm) + ": " + what);
}

/// Throws a cuda_error naming `algorithm` and `what` when `code` is not cudaSuccess.
inline void check(cudaError_t code, const char* algorithm, const char* what) {
  if (code != cudaSuccess) {
    // Clear the error if it is not sticky, so that later calls start clean.
    (void)cudaGetLastError();
    throw_cuda_error(algorithm, what, code);
  }
}

/// Checks that the launch just made was accepted.
inline void check_launch(const char* algorithm) { check(cudaGetLastError(), algorithm, "kernel launch failed"); }

}  // namespace detail
TALLY_NAMESPACE_END
