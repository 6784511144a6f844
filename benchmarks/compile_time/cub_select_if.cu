// One call site of cub::DeviceSelect::If (int; CUB's select is stable), the peer of
// tally_copy_if.cu, with the same predicate. The caller owns the temporary storage (two
// calls, one instantiation).
#include <cub/device/device_select.cuh>

#include <cstddef>
#include <cstdint>

struct greater_equal_2 {
  __host__ __device__ bool operator()(int x) const { return x >= 2; }
};

cudaError_t call(void* temp, std::size_t& temp_bytes, const int* in, std::int64_t n, int* out,
                 std::int64_t* count, cudaStream_t s) {
  return cub::DeviceSelect::If(temp, temp_bytes, in, out, count, n, greater_equal_2{}, s);
}
