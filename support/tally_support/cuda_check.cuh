#pragma once
/// @file
/// Loud CUDA error checks for benchmarks, tests and tools.
///
///   TALLY_SUPPORT_CHECK(cudaMalloc(&p, bytes));   // throws on failure
///   kernel<<<grid, block, 0, stream>>>(...);
///   TALLY_SUPPORT_CHECK_LAUNCH();                 // launch-configuration errors
///
/// Failures throw std::runtime_error("file:line: expr failed: <cuda error name>: <string>").
/// Harnesses catch it at the top, print it and exit non-zero: a measurement taken after
/// a CUDA error (a sticky error poisons the context) must never be reported.

#include <cuda_runtime.h>

#include <stdexcept>
#include <string>

namespace tally_support {

/// Throws std::runtime_error naming the failed expression, its location and the CUDA error.
[[noreturn]] inline void throw_cuda_error(cudaError_t code, const char* expr, const char* file, int line) {
  throw std::runtime_error(std::string(file) + ":" + std::to_string(line) + ": " + expr + " failed: " +
                           cudaGetErrorName(code) + ": " + cudaGetErrorString(code));
}

/// Throws when `code` is not cudaSuccess.
inline void check_cuda(cudaError_t code, const char* expr, const char* file, int line) {
  if (code != cudaSuccess) throw_cuda_error(code, expr, file, line);
}

}  // namespace tally_support

/// Evaluates a cudaError_t expression once and throws std::runtime_error if it failed.
#define TALLY_SUPPORT_CHECK(expr) ::tally_support::check_cuda((expr), #expr, __FILE__, __LINE__)

/// Checks cudaGetLastError() right after a kernel launch (bad grid, too much shared
/// memory, no kernel image for this GPU...). Asynchronous faults surface at the next
/// synchronising call, which is checked with TALLY_SUPPORT_CHECK.
#define TALLY_SUPPORT_CHECK_LAUNCH() \
  ::tally_support::check_cuda(cudaGetLastError(), "kernel launch (cudaGetLastError)", __FILE__, __LINE__)
