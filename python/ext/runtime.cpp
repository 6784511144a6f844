// Small runtime helpers the Python layer needs besides the kernels: the device of an
// address, a count the host can read, waiting for a stream.
#include "ops.hpp"

#include <cuda_runtime.h>

#include <stdexcept>
#include <string>
#include <unordered_map>

namespace tally_python {
namespace {

void check(cudaError_t code, const char* what) {
  if (code != cudaSuccess) {
    cudaGetLastError();  // clear a non-sticky error
    throw std::runtime_error(std::string("tally: ") + what + " (" + cudaGetErrorName(code) + ": " +
                             cudaGetErrorString(code) + ")");
  }
}

struct device_guard {
  int previous = 0;
  explicit device_guard(int device) {
    check(cudaGetDevice(&previous), "cudaGetDevice");
    check(cudaSetDevice(device), "cudaSetDevice");
  }
  ~device_guard() { cudaSetDevice(previous); }
};

}  // namespace

int device_of(address pointer) {
  cudaPointerAttributes attributes{};
  check(cudaPointerGetAttributes(&attributes, reinterpret_cast<const void*>(pointer)), "cudaPointerGetAttributes");
  if (attributes.type != cudaMemoryTypeDevice && attributes.type != cudaMemoryTypeManaged) {
    throw std::invalid_argument("tally: the array's data is not in CUDA device memory");
  }
  return attributes.device;
}

address count_slot(int device) {
  // One mapped, pinned int64 per thread and device, allocated once: the kernel writes the
  // count straight into host memory, so reading it back is a stream wait, not a copy (a
  // device-to-host copy to pageable memory costs a launch and a staging copy per call).
  thread_local std::unordered_map<int, std::int64_t*> slots;
  std::int64_t*& slot = slots[device];
  if (slot == nullptr) {
    device_guard guard(device);
    void* p = nullptr;
    check(cudaHostAlloc(&p, sizeof(std::int64_t), cudaHostAllocMapped | cudaHostAllocPortable),
          "allocating the count slot");
    slot = static_cast<std::int64_t*>(p);
  }
  return reinterpret_cast<address>(slot);
}

std::int64_t read_count(address slot, int device, address stream) {
  device_guard guard(device);
  check(cudaStreamSynchronize(reinterpret_cast<cudaStream_t>(stream)), "waiting for the stream");
  return *reinterpret_cast<const volatile std::int64_t*>(slot);
}

void synchronize(int device, address stream) {
  device_guard guard(device);
  check(cudaStreamSynchronize(reinterpret_cast<cudaStream_t>(stream)), "waiting for the stream");
}

}  // namespace tally_python
