// rows: reductions over every row of a matrix in one launch. Greedy decoding and softmax
// over a logits matrix (batch x vocabulary): the argmax of each row (the next token), and
// each row's maximum and sum of exp(x - max) (the softmax denominator), each in one call
// over tally::rows. Checked against tally::host on the same logits.
//
// Without a CUDA device it prints "skipped: ..." and returns 77; otherwise it checks its
// results and returns 0 (all correct) or 1.
#include <tally/tally.cuh>

#include <thrust/device_vector.h>
#include <thrust/execution_policy.h>
#include <thrust/host_vector.h>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/transform.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <vector>

#include "example_check.hpp"

int main() {
  if (!have_cuda_device()) return 77;
  const std::int64_t batch = 64, vocab = 32000;
  std::vector<float> host_logits(batch * vocab);
  for (std::int64_t i = 0; i < batch * vocab; ++i) host_logits[i] = std::sin(0.001f * float(i % 7919)) * 8.0f;
  thrust::device_vector<float> logits(host_logits.begin(), host_logits.end());
  const float* first = thrust::raw_pointer_cast(logits.data());

  // example-begin rows
  // One launch each, over the batch x vocab logits (row-major): the next token of every
  // sequence (the first largest logit of its row: ties go to the lower token id), and the
  // row maxima for a stable softmax.
  thrust::device_vector<std::int64_t> next_token(batch);
  thrust::device_vector<float> row_max(batch);
  tally::max_element_into(tally::par, first, tally::rows(batch, vocab), next_token.data());
  tally::reduce_into(tally::par, first, tally::rows(batch, vocab), row_max.data(), -INFINITY,
                     tally::maximum<float>{});
  // example-end rows

  std::vector<std::int64_t> want_token(batch);
  std::vector<float> want_max(batch);
  tally::max_element_into(tally::host, host_logits.data(), tally::rows(batch, vocab), want_token.data());
  tally::reduce_into(tally::host, host_logits.data(), tally::rows(batch, vocab), want_max.data(), -INFINITY,
                     tally::maximum<float>{});
  const thrust::host_vector<std::int64_t> got_token = next_token;
  const thrust::host_vector<float> got_max = row_max;
  bool tokens_ok = true, max_ok = true;
  for (std::int64_t r = 0; r < batch; ++r) {
    tokens_ok = tokens_ok && got_token[r] == want_token[r];
    max_ok = max_ok && got_max[r] == want_max[r];
  }
  expect(tokens_ok, "greedy next token of each row = tally::host's");
  expect(max_ok, "row maxima = tally::host's");

  // example-begin softmax
  // The softmax denominators: sum over each row of exp(x - row max).
  thrust::device_vector<float> shifted(batch * vocab);
  const float* maxima = thrust::raw_pointer_cast(row_max.data());
  float* out = thrust::raw_pointer_cast(shifted.data());
  // thrust::device: with raw pointers and a counting iterator, Thrust would pick the host.
  thrust::transform(thrust::device, thrust::counting_iterator<std::int64_t>(0),
                    thrust::counting_iterator<std::int64_t>(batch * vocab), out,
                    [=] __device__(std::int64_t i) { return expf(first[i] - maxima[i / vocab]); });
  thrust::device_vector<float> denominator(batch);
  tally::reduce_into(tally::par, out, tally::rows(batch, vocab), denominator.data(), 0.0f);
  // example-end softmax

  const thrust::host_vector<float> got_den = denominator;
  bool den_ok = true;
  for (std::int64_t r = 0; r < batch; ++r) {
    double want = 0;
    for (std::int64_t j = 0; j < vocab; ++j) want += std::exp(double(host_logits[r * vocab + j]) - want_max[r]);
    den_ok = den_ok && std::fabs(got_den[r] - want) <= 1e-4 * want;
  }
  expect(den_ok, "softmax denominators = the host's (double) to 1e-4");
  return failures == 0 ? 0 : 1;
}
