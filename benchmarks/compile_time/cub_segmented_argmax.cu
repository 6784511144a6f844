// One call site of cub::DeviceSegmentedReduce::ArgMax (float, int64 offsets), the peer of
// tally_max_element_rows.cu. The caller owns the temporary storage and the offsets (a CSR
// array of rows + 1 values); CUB writes (index, value) pairs, the index local to the row.
#include <cub/device/device_segmented_reduce.cuh>

#include <cstddef>
#include <cstdint>

cudaError_t call(void* temp, std::size_t& temp_bytes, const float* in, const std::int64_t* offsets, std::int64_t rows,
                 cub::KeyValuePair<int, float>* out, cudaStream_t s) {
  return cub::DeviceSegmentedReduce::ArgMax(temp, temp_bytes, in, out, rows, offsets, offsets + 1, s);
}
