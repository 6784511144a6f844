// Small runtime helpers the Python layer needs besides the kernels: the device of an
// address, a count the host can read as soon as a kernel writes it, waiting for a stream.
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

std::int64_t* count_slot(int device) {
  // Two mapped, pinned int64 per thread and device, allocated once: kernels write a count
  // straight into host memory, so the host reads it without a copy (a device-to-host copy
  // to pageable memory costs a launch and a staging copy per call). The first word is
  // the count wait_count returns; the second takes a count nobody reads (select's copy,
  // when a reduce over the mask wrote the first).
  thread_local std::unordered_map<int, std::int64_t*> slots;
  std::int64_t*& slot = slots[device];
  if (slot == nullptr) {
    device_guard guard(device);
    void* p = nullptr;
    check(cudaHostAlloc(&p, 2 * sizeof(std::int64_t), cudaHostAllocMapped | cudaHostAllocPortable),
          "allocating the count slot");
    slot = static_cast<std::int64_t*>(p);
  }
  return slot;
}

std::int64_t wait_count(int device, address stream) {
  // The kernel stores the count once, as soon as it is known (the stable copy at its last
  // tile's look-back, the reduce at its end): polling the word returns then, before the
  // kernel's last writes land (they are ordered before anything later on the stream) and
  // without a stream wait's wake-up. The stream is asked now and then, so that a failed
  // or never-run kernel is an error, not a hang.
  const volatile std::int64_t* slot = count_slot(device);
  const cudaStream_t s = reinterpret_cast<cudaStream_t>(stream);
  std::int64_t count = *slot;
  for (unsigned spins = 1; count < 0; ++spins, count = *slot) {
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();  // a spinning core's hint (and its sibling thread's time)
#endif
    if (spins % 256 != 0) continue;
    device_guard guard(device);
    const cudaError_t state = cudaStreamQuery(s);
    if (state == cudaErrorNotReady) continue;
    check(state, "waiting for the count");
    count = *slot;  // the stream is done: the count is there
    if (count < 0) throw std::runtime_error("tally: the kernel finished without writing its count");
  }
  return count;
}

void synchronize(int device, address stream) {
  device_guard guard(device);
  check(cudaStreamSynchronize(reinterpret_cast<cudaStream_t>(stream)), "waiting for the stream");
}

}  // namespace tally_python
