// One call of tally::reduce_into (float sum), as a user writes it; compiled by
// scripts/compile-time.sh (nvcc -O3 -c) against cub_reduce.cu.
#include <tally/reduce.cuh>

#include <cstdint>

void call(const float* in, std::int64_t n, float* out, cudaStream_t s) {
  tally::reduce_into(tally::par.on(s), in, in + n, out, 0.0f, tally::plus<float>{});
}
