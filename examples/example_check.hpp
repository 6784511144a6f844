#pragma once
// What every example needs around its real content: skip (exit code 77, which CTest
// reports as Skipped) when there is no CUDA device, and report each check it makes.
// Included once per example; everything is internal to that example.

#include <cuda_runtime_api.h>

#include <cstdio>

namespace {

/// False (after printing "skipped: ...") when no CUDA device can be used.
bool have_cuda_device() {
  int count = 0;
  const cudaError_t status = cudaGetDeviceCount(&count);
  if (status != cudaSuccess || count == 0) {
    std::printf("skipped: no CUDA device (%s)\n",
                status != cudaSuccess ? cudaGetErrorString(status) : "cudaGetDeviceCount returned 0 devices");
    return false;
  }
  return true;
}

/// The number of failed checks so far; main returns 1 when it is not zero.
int failures = 0;

/// Prints "ok" or "FAIL" with `what`, counting failures.
void expect(bool ok, const char* what) {
  std::printf("%s: %s\n", ok ? "ok  " : "FAIL", what);
  if (!ok) ++failures;
}

}  // namespace
