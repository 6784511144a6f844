// top_k_sampling: top-k sampling over a logits matrix (batch x vocabulary), as an LLM
// decoder does for its next tokens: the 50 largest logits of every row in one launch
// (tally::top_k_into over tally::rows: sorted, ties by the lower token id), then one token
// drawn per row from the softmax of those 50 at a temperature. Checked against tally::host
// on the same logits, and the draw against the same draw on the host.
//
// Without a CUDA device it prints "skipped: ..." and returns 77; otherwise it checks its
// results and returns 0 (all correct) or 1.
#include <tally/tally.cuh>

#include <thrust/device_vector.h>
#include <thrust/host_vector.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <vector>

#include "example_check.hpp"

/// Row r's token: the first j whose cumulative softmax weight (at temperature t) of the
/// row's k best logits passes u[r] times their total.
__host__ __device__ std::int64_t draw(const float* best, const std::int64_t* ids, int k, float t, float u) {
  float total = 0;
  for (int j = 0; j < k; ++j) total += expf((best[j] - best[0]) / t);
  float sum = 0;
  for (int j = 0; j < k; ++j) {
    sum += expf((best[j] - best[0]) / t);
    if (sum >= u * total) return ids[j];
  }
  return ids[k - 1];
}

__global__ void draw_tokens(const float* best, const std::int64_t* ids, int k, float t, const float* u,
                            std::int64_t* tokens, std::int64_t batch) {
  const std::int64_t r = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x;
  if (r < batch) tokens[r] = draw(best + r * k, ids + r * k, k, t, u[r]);
}

int main() {
  if (!have_cuda_device()) return 77;
  const std::int64_t batch = 64, vocab = 131072;
  std::vector<float> host_logits(batch * vocab);
  for (std::int64_t i = 0; i < batch * vocab; ++i) host_logits[i] = std::sin(0.37f * float(i % 100003)) * 6.0f;
  std::vector<float> host_u(batch);
  for (std::int64_t r = 0; r < batch; ++r) host_u[r] = float((r * 2654435761u) % 1000) / 1000.0f;
  thrust::device_vector<float> logits(host_logits.begin(), host_logits.end()), u(host_u.begin(), host_u.end());
  const float* first = thrust::raw_pointer_cast(logits.data());

  // example-begin top_k_sampling
  // The k largest logits of every row and their token ids (within the row), best first,
  // in one launch; then a token per row drawn from their softmax.
  const int k = 50;
  const float temperature = 0.8f;
  thrust::device_vector<float> best(batch * k);
  thrust::device_vector<std::int64_t> ids(batch * k), tokens(batch);
  tally::top_k_into(tally::par, first, tally::rows(batch, vocab), k, best.data(), ids.data());
  draw_tokens<<<(batch + 127) / 128, 128>>>(thrust::raw_pointer_cast(best.data()),
                                            thrust::raw_pointer_cast(ids.data()), k, temperature,
                                            thrust::raw_pointer_cast(u.data()),
                                            thrust::raw_pointer_cast(tokens.data()), batch);
  // example-end top_k_sampling
  expect(cudaGetLastError() == cudaSuccess, "the draw launched");

  std::vector<float> want_best(batch * k);
  std::vector<std::int64_t> want_ids(batch * k);
  tally::top_k_into(tally::host, host_logits.data(), tally::rows(batch, vocab), k, want_best.data(), want_ids.data());
  const thrust::host_vector<float> got_best = best;
  const thrust::host_vector<std::int64_t> got_ids = ids, got_tokens = tokens;
  bool top_ok = true, tokens_ok = true;
  for (std::int64_t i = 0; i < batch * k; ++i) top_ok = top_ok && got_ids[i] == want_ids[i] && got_best[i] == want_best[i];
  for (std::int64_t r = 0; r < batch; ++r)
    tokens_ok = tokens_ok && got_tokens[r] == draw(&want_best[r * k], &want_ids[r * k], k, temperature, host_u[r]);
  expect(top_ok, "the 50 best logits of each row and their ids = tally::host's");
  expect(tokens_ok, "the drawn tokens = the same draw on the host");
  return failures == 0 ? 0 : 1;
}
