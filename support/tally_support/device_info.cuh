#pragma once
/// @file
/// Where a measurement was taken: the device, the CUDA versions and the date, and a
/// check that a usable GPU is there at all (harnesses refuse to measure otherwise).

#include <tally_support/cuda_check.cuh>

#include <cstddef>
#include <ctime>
#include <stdexcept>
#include <string>

namespace tally_support {

struct device_info {
  int id = 0;
  std::string name;
  int sms = 0;
  int cc_major = 0, cc_minor = 0;
  std::size_t l2_bytes = 0;
  std::size_t memory_bytes = 0;
  int runtime_version = 0, driver_version = 0;  ///< as CUDA reports them, e.g. 13000
};

/// Throws std::runtime_error unless a CUDA device exists and a context can be created
/// on the current one (a GPU in a bad state fails here, before anything is measured).
inline void require_device() {
  int count = 0;
  const cudaError_t e = cudaGetDeviceCount(&count);
  if (e != cudaSuccess)
    throw std::runtime_error(std::string("no usable CUDA device: cudaGetDeviceCount: ") + cudaGetErrorString(e));
  if (count == 0) throw std::runtime_error("no CUDA device found");
  TALLY_SUPPORT_CHECK(cudaFree(nullptr));  // creates the context
  TALLY_SUPPORT_CHECK(cudaDeviceSynchronize());
  TALLY_SUPPORT_CHECK(cudaGetLastError());
}

inline device_info current_device_info() {
  device_info d;
  TALLY_SUPPORT_CHECK(cudaGetDevice(&d.id));
  cudaDeviceProp p{};
  TALLY_SUPPORT_CHECK(cudaGetDeviceProperties(&p, d.id));
  d.name = p.name;
  d.sms = p.multiProcessorCount;
  d.cc_major = p.major;
  d.cc_minor = p.minor;
  d.l2_bytes = std::size_t(p.l2CacheSize);
  d.memory_bytes = p.totalGlobalMem;
  TALLY_SUPPORT_CHECK(cudaRuntimeGetVersion(&d.runtime_version));
  TALLY_SUPPORT_CHECK(cudaDriverGetVersion(&d.driver_version));
  return d;
}

/// "13.0" from 13000.
inline std::string cuda_version_string(int v) { return std::to_string(v / 1000) + "." + std::to_string(v % 1000 / 10); }

/// One line: "NVIDIA H100 80GB HBM3, 132 SMs, sm_90, L2 50 MB, 80 GB, CUDA runtime 13.0, driver 13.0".
inline std::string describe(const device_info& d) {
  return d.name + ", " + std::to_string(d.sms) + " SMs, sm_" + std::to_string(d.cc_major) + std::to_string(d.cc_minor) +
         ", L2 " + std::to_string(d.l2_bytes >> 20) + " MB, " + std::to_string(d.memory_bytes >> 30) +
         " GB, CUDA runtime " + cuda_version_string(d.runtime_version) + ", driver " +
         cuda_version_string(d.driver_version);
}

/// The current date and time in UTC, "2026-11-22 14:05 UTC".
inline std::string utc_now() {
  const std::time_t t = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%d %H:%M UTC", &tm);
  return buf;
}

}  // namespace tally_support
