// One call of thrust::reduce (float sum) on raw device pointers under thrust::device, for
// reference beside tally_reduce.cu (it synchronises and returns the sum on the host).
#include <thrust/execution_policy.h>
#include <thrust/functional.h>
#include <thrust/reduce.h>

#include <cstdint>

float call(const float* in, std::int64_t n) {
  return thrust::reduce(thrust::device, in, in + n, 0.0f, thrust::plus<float>{});
}
