// One call of tally::top_k_into with a run-time k (float), as a user writes it; compiled
// by scripts/compile-time.sh (nvcc -O3 -c) against cub_topk.cu (CCCL 3.5's DeviceTopK,
// whose k is a run-time argument too).
#include <tally/top_k.cuh>

#include <cstdint>

void call(const float* in, std::int64_t n, std::int64_t k, float* values, std::int64_t* indices, cudaStream_t s) {
  tally::top_k_into(tally::par.on(s), in, in + n, k, values, indices);
}
