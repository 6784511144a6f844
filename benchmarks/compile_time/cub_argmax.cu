// One call site of cub::DeviceReduce::ArgMax (float), the peer of tally_max_element.cu.
// The form with separate value and index outputs and 64-bit num_items: it is in CCCL 3.0.1
// and 3.5 alike, and not deprecated (the older KeyValuePair-output form is deprecated in
// both). The caller owns the temporary storage (two calls, one instantiation).
#include <cub/device/device_reduce.cuh>

#include <cstddef>
#include <cstdint>

cudaError_t call(void* temp, std::size_t& temp_bytes, const float* in, std::int64_t n, float* value_out,
                 std::int64_t* index_out, cudaStream_t s) {
  return cub::DeviceReduce::ArgMax(temp, temp_bytes, in, value_out, index_out, n, s);
}
