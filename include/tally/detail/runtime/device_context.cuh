#pragma once
// What a launch needs to know about the current device, read once per device and cached.

#include <tally/detail/runtime/cuda_check.cuh>

#include <atomic>
#include <mutex>

TALLY_NAMESPACE_BEGIN
namespace detail {

struct device_context {
  int device = -1;
  int sm_count = 0;
  int arch = 0;                      // compute capability as 10 * major + minor: 90 for H100
  bool pageable_memory_access = false;  // the device can read pageable host memory (HMM/ATS)
};

inline constexpr int max_cached_devices = 64;

/// The current device's context. Throws cuda_error naming `algorithm` when there is no device.
inline device_context current_device(const char* algorithm) {
  int device = -1;
  cudaError_t status = cudaGetDevice(&device);
  if (status != cudaSuccess) {
    (void)cudaGetLastError();
    throw_cuda_error(algorithm, "no CUDA device available", status);
  }
  static device_context cache[max_cached_devices];
  static std::atomic<bool> ready[max_cached_devices];
  static std::mutex mutex;
  if (device >= 0 && device < max_cached_devices && ready[device].load(std::memory_order_acquire)) {
    return cache[device];
  }
  device_context ctx;
  ctx.device = device;
  int major = 0, minor = 0, pageable = 0;
  check(cudaDeviceGetAttribute(&ctx.sm_count, cudaDevAttrMultiProcessorCount, device), algorithm,
        "cannot read the device's multiprocessor count");
  check(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device), algorithm,
        "cannot read the device's compute capability");
  check(cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, device), algorithm,
        "cannot read the device's compute capability");
  check(cudaDeviceGetAttribute(&pageable, cudaDevAttrPageableMemoryAccess, device), algorithm,
        "cannot read the device's attributes");
  ctx.arch = major * 10 + minor;
  ctx.pageable_memory_access = pageable != 0;
  if (device >= 0 && device < max_cached_devices) {
    std::lock_guard<std::mutex> lock(mutex);
    cache[device] = ctx;
    ready[device].store(true, std::memory_order_release);
  }
  return ctx;
}

}  // namespace detail
TALLY_NAMESPACE_END
