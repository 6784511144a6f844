// One call site of cub::DeviceSegmentedReduce::Sum (float, int64 offsets), the peer of
// tally_reduce_rows.cu. The caller owns the temporary storage and the offsets (a CSR array
// of rows + 1 values).
#include <cub/device/device_segmented_reduce.cuh>

#include <cstddef>
#include <cstdint>

cudaError_t call(void* temp, std::size_t& temp_bytes, const float* in, const std::int64_t* offsets, std::int64_t rows,
                 float* out, cudaStream_t s) {
  return cub::DeviceSegmentedReduce::Sum(temp, temp_bytes, in, out, rows, offsets, offsets + 1, s);
}
