// One call of tally::max_element_into (float), as a user writes it; compiled by
// scripts/compile-time.sh (nvcc -O3 -c) against cub_argmax.cu.
#include <tally/max_element.cuh>

#include <cstdint>

void call(const float* in, std::int64_t n, std::int64_t* index_out, cudaStream_t s) {
  tally::max_element_into(tally::par.on(s), in, in + n, index_out);
}
