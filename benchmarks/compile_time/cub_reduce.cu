// One call site of cub::DeviceReduce::Sum (float), the peer of tally_reduce.cu. The caller
// owns the temporary storage: it calls this once with temp == nullptr for the size, then
// again with the allocation (both calls are the same instantiation, so one site is fair).
#include <cub/device/device_reduce.cuh>

#include <cstddef>
#include <cstdint>

cudaError_t call(void* temp, std::size_t& temp_bytes, const float* in, std::int64_t n, float* out,
                 cudaStream_t s) {
  return cub::DeviceReduce::Sum(temp, temp_bytes, in, out, n, s);
}
