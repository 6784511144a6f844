// One call site of cub::DeviceTopK::MaxPairs (float keys, 64-bit indices as the values),
// the peer of tally_top_k*.cu. DeviceTopK exists from CCCL 3.3 on and k is a run-time
// argument, so one instantiation serves every k; scripts/compile-time.sh compiles this
// file with the CCCL 3.5 headers first on the include path. CCCL 3.5 implements only the
// unsorted, non-deterministic configuration, which must be requested in the environment
// (anything else is rejected at compile time); the stream goes in the same environment.
// The caller owns the temporary storage (two calls, one instantiation).
#include <cub/device/device_topk.cuh>

#include <cuda/iterator>
#include <cuda/std/execution>
#include <cuda/stream_ref>

#include <cstddef>
#include <cstdint>

#if !defined(CCCL_VERSION) || CCCL_VERSION < 3003000
#  error "cub::DeviceTopK needs CCCL >= 3.3: put the CCCL 3.5 headers first on the include path"
#endif

cudaError_t call(void* temp, std::size_t& temp_bytes, const float* in, std::int64_t n, int k, float* values,
                 std::int64_t* indices, cudaStream_t s) {
  auto requirements = cuda::execution::require(cuda::execution::determinism::not_guaranteed,
                                               cuda::execution::output_ordering::unsorted);
  auto env = cuda::std::execution::env{cuda::stream_ref{s}, requirements};
  return cub::DeviceTopK::MaxPairs(temp, temp_bytes, in, values, cuda::counting_iterator<std::int64_t>{0},
                                   indices, n, k, env);
}
