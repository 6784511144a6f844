#pragma once
// What every entry of the module does around a tally call: make the array's device
// current (and restore the caller's afterwards), and turn tally's exceptions into the
// standard ones nanobind maps to Python's (tally::error -> ValueError, tally::cuda_error
// -> RuntimeError). The kernel translation units include this, not nanobind.

#include <tally/error.cuh>

#include <cuda_runtime.h>

#include <cstdint>
#include <stdexcept>
#include <string>

namespace tally_python {

/// The stream a Python caller passes: the framework's current stream as an integer
/// (0 = the legacy default stream).
inline cudaStream_t as_stream(std::uintptr_t stream) { return reinterpret_cast<cudaStream_t>(stream); }

template <class T>
T* as_pointer(std::uintptr_t address) {
  return reinterpret_cast<T*>(address);
}

/// Runs f() with `device` current; restores the caller's device afterwards (the usual
/// case, the array on the current device, costs one cudaGetDevice).
template <class F>
void on_device(int device, F&& f) {
  int previous = 0;
  if (cudaGetDevice(&previous) != cudaSuccess || (previous != device && cudaSetDevice(device) != cudaSuccess)) {
    const cudaError_t code = cudaGetLastError();
    throw std::runtime_error(std::string("tally: cannot use CUDA device ") + std::to_string(device) + " (" +
                             cudaGetErrorName(code) + ": " + cudaGetErrorString(code) + ")");
  }
  struct restore {
    int previous, device;
    ~restore() {
      if (previous != device) cudaSetDevice(previous);
    }
  } restore_previous{previous, device};
  try {
    f();
  } catch (const tally::cuda_error& e) {
    throw std::runtime_error(e.what());
  } catch (const tally::error& e) {
    throw std::invalid_argument(e.what());
  }
}

}  // namespace tally_python
