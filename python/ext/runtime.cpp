// Small runtime helpers the Python layer needs besides the kernels: the device of an
// address, reading a count back, waiting for a stream.
#include "ops.hpp"

#include <cuda_runtime.h>

#include <stdexcept>
#include <string>

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

std::int64_t read_int64(address pointer, int device, address stream) {
  device_guard guard(device);
  std::int64_t value = 0;
  auto s = reinterpret_cast<cudaStream_t>(stream);
  check(cudaMemcpyAsync(&value, reinterpret_cast<const void*>(pointer), sizeof value, cudaMemcpyDeviceToHost, s),
        "reading a count");
  check(cudaStreamSynchronize(s), "waiting for the stream");
  return value;
}

void synchronize(int device, address stream) {
  device_guard guard(device);
  check(cudaStreamSynchronize(reinterpret_cast<cudaStream_t>(stream)), "waiting for the stream");
}

}  // namespace tally_python
