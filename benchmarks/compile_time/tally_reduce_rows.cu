// One call of tally::reduce_into over rows (float sums of every row), as a user writes it;
// compiled by scripts/compile-time.sh (nvcc -O3 -c) against cub_segmented_reduce.cu.
#include <tally/reduce.cuh>

#include <cstdint>

void call(const float* in, std::int64_t rows, std::int64_t length, float* out, cudaStream_t s) {
  tally::reduce_into(tally::par.on(s), in, tally::rows(rows, length), out, 0.0f, tally::plus<float>{});
}
