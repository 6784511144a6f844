// One call of tally::max_element_into over rows (the float arg-max of every row), as a user
// writes it; compiled by scripts/compile-time.sh (nvcc -O3 -c) against cub_segmented_argmax.cu.
#include <tally/max_element.cuh>

#include <cstdint>

void call(const float* in, std::int64_t rows, std::int64_t length, std::int64_t* index_out, cudaStream_t s) {
  tally::max_element_into(tally::par.on(s), in, tally::rows(rows, length), index_out);
}
