#pragma once
// Helpers shared by the host (no GPU needed) error tests.

#include <cuda_runtime.h>

#include <cstdint>
#include <string>

namespace host_test {

inline bool contains(const std::string& haystack, const std::string& needle) {
  return haystack.find(needle) != std::string::npos;
}

/// True when the machine has no usable CUDA device (no driver, no device, ...); `reason`
/// gets what CUDA said.
inline bool no_cuda_device(std::string* reason = nullptr) {
  int count = 0;
  const cudaError_t status = cudaGetDeviceCount(&count);
  if (status != cudaSuccess) {
    (void)cudaGetLastError();
    if (reason) *reason = cudaGetErrorString(status);
    return true;
  }
  if (reason) *reason = "cudaGetDeviceCount returned " + std::to_string(count);
  return count == 0;
}

/// A pointer value that is never dereferenced: invalid arguments must be detected first.
inline int* fake_device_pointer() { return reinterpret_cast<int*>(std::uintptr_t(0x10000)); }

}  // namespace host_test
