// One call of tally::top_k_into over rows with a run-time k (float), as a user writes it;
// compiled by scripts/compile-time.sh (nvcc -O3 -c) against cub_topk.cu (CCCL 3.5's
// DeviceTopK, whose k is a run-time argument too; CUB's batched form takes segments of a
// compile-time maximum size only).
#include <tally/top_k.cuh>

#include <cstdint>

void call(const float* in, std::int64_t rows, std::int64_t length, std::int64_t k, float* values,
          std::int64_t* indices, cudaStream_t s) {
  tally::top_k_into(tally::par.on(s), in, tally::rows(rows, length), k, values, indices);
}
