// top_k: the K best items of a range and their indices. The synchronous tally::top_k<K>
// (returns a top_k_result on the host) and the asynchronous tally::top_k_into<K>
// (writes into device memory in stream order); ties in index order, the smallest
// instead of the largest, NaN, a comparator of your own, every backend giving the same
// answer, and the same selection made with CUB (a sort), tally::host and max_element.
//
// Without a CUDA device it prints "skipped: ..." and returns 77; otherwise it checks its
// results and returns 0 (all correct) or 1.
#include <tally/tally.cuh>

#include <cub/device/device_radix_sort.cuh>
#include <thrust/device_vector.h>
#include <thrust/host_vector.h>
#include <thrust/sequence.h>
#include <thrust/tabulate.h>

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <initializer_list>
#include <limits>

#include "example_check.hpp"

namespace {

// Item i: (i % 1000) / 1000, so each value below 1 appears about a thousand times.
struct pattern {
  __host__ __device__ float operator()(std::int64_t i) const { return float(i % 1000) / 1000.0f; }
};

// Item i: (i % 1000 - 500) / 1000, values in [-0.5, 0.5).
struct centred {
  __host__ __device__ float operator()(std::int64_t i) const { return float(i % 1000 - 500) / 1000.0f; }
};

// example-begin comparator
// A comparator of your own: "a is worse than b" when a is nearer to zero. With it,
// top_k finds the items farthest from zero, whatever their sign. It must be a strict
// weak order and callable on the device.
struct by_magnitude {
  __host__ __device__ bool operator()(float a, float b) const { return fabsf(a) < fabsf(b); }
};
// example-end comparator

// True when got[0 .. want.size()) equals want, item by item.
template <class Got, class T>
bool starts_with(const Got& got, std::initializer_list<T> want) {
  std::size_t i = 0;
  for (const T& w : want)
    if (!(got[i++] == w)) return false;
  return true;
}

}  // namespace

int main() {
  if (!have_cuda_device()) return 77;

  const std::int64_t n = 1 << 20;
  thrust::device_vector<float> scores(n);
  thrust::tabulate(scores.begin(), scores.end(), pattern{});
  scores[123456] = 5.0f;  // the largest item
  scores[777] = 3.0f;     // two equal runners-up
  scores[999999] = 3.0f;
  const float p999 = pattern{}(999);  // 0.999, the largest of the pattern

  // example-begin basics
  const float* first = thrust::raw_pointer_cast(scores.data());
  const float* last = first + scores.size();

  // The 4 largest items, best first, and their indices. Waits for the policy's stream
  // (here tally::par: stream 0) and returns the result on the host.
  tally::top_k_result<float, 4> best = tally::top_k<4>(first, last);
  // best.count   == 4
  // best.values  == {5, 3, 3, 0.999}
  // best.indices == {123456, 777, 999999, 999}: equal values in index order
  // example-end basics
  expect(best.count == 4, "top_k<4>: count 4");
  expect(starts_with(best.values, {5.0f, 3.0f, 3.0f, p999}), "top_k<4>: values 5, 3, 3, 0.999");
  expect(starts_with(best.indices, {std::int64_t{123456}, std::int64_t{777}, std::int64_t{999999}, std::int64_t{999}}),
         "top_k<4>: indices 123456, 777, 999999, 999 (ties in index order)");

  // example-begin smallest
  // tally::greater<> turns the order round: the 3 smallest, smallest first.
  auto low = tally::top_k<3>(first, last, tally::greater<>{});
  // low.values == {0, 0, 0}, low.indices == {0, 1000, 2000}
  // example-end smallest
  expect(starts_with(low.values, {0.0f, 0.0f, 0.0f}) &&
             starts_with(low.indices, {std::int64_t{0}, std::int64_t{1000}, std::int64_t{2000}}),
         "top_k<3> under greater: the first three zeros");

  // example-begin into
  // Asynchronous: the 8 best go to device memory in stream order, and the call returns
  // at once. The indices are 64-bit: give them a std::int64_t output (an int output
  // would keep only the low 32 bits of indices of 2^31 and above).
  cudaStream_t stream;
  cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking);
  thrust::device_vector<float> top_values(8);
  thrust::device_vector<std::int64_t> top_indices(8);
  tally::top_k_into<8>(tally::par.on(stream), first, last, top_values.data(), top_indices.data());

  // ... more work on the stream can use them here, with no host wait ...
  cudaStreamSynchronize(stream);  // before the host reads them
  // example-end into
  thrust::host_vector<float> got_values = top_values;
  thrust::host_vector<std::int64_t> got_indices = top_indices;
  expect(starts_with(got_values, {5.0f, 3.0f, 3.0f, p999, p999, p999, p999, p999}), "top_k_into<8>: values");
  expect(starts_with(got_indices, {std::int64_t{123456}, std::int64_t{777}, std::int64_t{999999}, std::int64_t{999},
                                   std::int64_t{1999}, std::int64_t{2999}, std::int64_t{3999}, std::int64_t{4999}}),
         "top_k_into<8>: indices");

  // example-begin host
  // tally::host makes the same selection sequentially on the CPU, from host memory.
  thrust::host_vector<float> on_host = scores;
  auto reference = tally::top_k<8>(tally::host, on_host.data(), on_host.data() + on_host.size());
  // reference.indices == top_indices, reference.values == top_values
  // example-end host
  bool host_agrees = reference.count == 8;
  for (int i = 0; i < 8; ++i)
    host_agrees = host_agrees && reference.indices[i] == got_indices[i] && reference.values[i] == got_values[i];
  expect(host_agrees, "tally::host gives top_k_into's result");

  // example-begin backends
  // Every backend, launch shape and GPU gives the same items in the same order: equal
  // values are ordered by index, so the best K are one well-defined list.
  auto by_tree = tally::top_k<8>(tally::par.with(tally::backend::shared_memory), first, last);
  auto by_shuffles = tally::top_k<8>(tally::par.with(tally::backend::warp_shuffle).tune<128, 4>(), first, last);
  // by_tree.indices == by_shuffles.indices == reference.indices
  // example-end backends
  expect(by_tree.count == 8 && by_tree.indices == by_shuffles.indices && by_tree.values == by_shuffles.values &&
             by_tree.indices == reference.indices,
         "top_k<8>: shared_memory, warp_shuffle and tally::host agree");

  // example-begin argmax
  // top_k<1> finds the item max_element finds: the first largest.
  const float* largest = tally::max_element(first, last);  // largest - first == 123456
  auto one = tally::top_k<1>(first, last);                 // one.indices[0] == 123456

  // max_element_into writes the index, also 64-bit: the same advice, use std::int64_t.
  thrust::device_vector<std::int64_t> argmax(1);
  tally::max_element_into(tally::par.on(stream), first, last, argmax.data());
  // example-end argmax
  cudaStreamSynchronize(stream);
  expect(largest - first == 123456 && one.indices[0] == 123456 && std::int64_t(argmax[0]) == 123456,
         "max_element, top_k<1> and max_element_into agree");

  // example-begin cub-sort
  // CUB (CCCL 3.0) has no top-k: sort all n (value, index) pairs by value, largest
  // first, and keep the first K. The radix sort is stable, so equal values stay in
  // index order, as in tally. It needs O(n) temporary storage and the index array.
  thrust::device_vector<std::int64_t> positions(n), sorted_positions(n);
  thrust::device_vector<float> sorted_values(n);
  thrust::sequence(positions.begin(), positions.end());
  const std::int64_t* positions_in = thrust::raw_pointer_cast(positions.data());
  std::int64_t* positions_out = thrust::raw_pointer_cast(sorted_positions.data());
  float* values_out = thrust::raw_pointer_cast(sorted_values.data());

  void* temp = nullptr;
  std::size_t temp_bytes = 0;
  cub::DeviceRadixSort::SortPairsDescending(temp, temp_bytes, first, values_out, positions_in, positions_out, n, 0,
                                            int(sizeof(float) * 8), stream);  // only sets temp_bytes
  cudaMallocAsync(&temp, temp_bytes, stream);
  cub::DeviceRadixSort::SortPairsDescending(temp, temp_bytes, first, values_out, positions_in, positions_out, n, 0,
                                            int(sizeof(float) * 8), stream);
  cudaFreeAsync(temp, stream);
  // sorted_positions[0 .. 8) == top_indices, sorted_values[0 .. 8) == top_values
  // example-end cub-sort
  cudaStreamSynchronize(stream);
  bool cub_agrees = true;
  for (int i = 0; i < 8; ++i)
    cub_agrees = cub_agrees && std::int64_t(sorted_positions[i]) == got_indices[i] &&
                 float(sorted_values[i]) == got_values[i];
  expect(cub_agrees, "CUB's sort gives top_k_into's first 8");

  thrust::device_vector<float> signed_values(n);
  thrust::tabulate(signed_values.begin(), signed_values.end(), centred{});
  signed_values[10] = -7.0f;
  signed_values[20] = 5.0f;

  // example-begin custom
  // Items in [-0.5, 0.5) with -7 at index 10 and 5 at index 20. The three farthest from
  // zero, by the comparator above (used as given: no special NaN order).
  const float* s = thrust::raw_pointer_cast(signed_values.data());
  auto far = tally::top_k<3>(s, s + n, by_magnitude{});
  // far.values == {-7, 5, -0.5}, far.indices == {10, 20, 0}
  // example-end custom
  expect(starts_with(far.values, {-7.0f, 5.0f, -0.5f}) &&
             starts_with(far.indices, {std::int64_t{10}, std::int64_t{20}, std::int64_t{0}}),
         "top_k<3> by magnitude: -7, 5, then the first -0.5");

  // example-begin nan
  // Under the default comparators NaN is greater than every number (as in torch.topk):
  // it comes first among the largest and never among the smallest.
  scores[2024] = std::numeric_limits<float>::quiet_NaN();
  auto with_nan = tally::top_k<4>(first, last);                    // {NaN, 5, 3, 3}, indices {2024, 123456, ...}
  auto without = tally::top_k<3>(first, last, tally::greater<>{});  // {0, 0, 0}, indices {0, 1000, 2000}
  // example-end nan
  expect(std::isnan(with_nan.values[0]) && starts_with(with_nan.indices, {std::int64_t{2024}, std::int64_t{123456}}),
         "top_k<4>: NaN first, then 5");
  expect(starts_with(without.indices, {std::int64_t{0}, std::int64_t{1000}, std::int64_t{2000}}),
         "top_k<3> under greater: NaN is not among the smallest");

  // example-begin short
  // Fewer than K items: all of them, sorted. None: count 0 (and no GPU work at all).
  auto three = tally::top_k<4>(first, first + 3);  // count 3: {0.002, 0.001, 0}, indices {2, 1, 0}
  auto none = tally::top_k<4>(first, first);       // count 0
  // example-end short
  expect(three.count == 3 && starts_with(three.indices, {std::int64_t{2}, std::int64_t{1}, std::int64_t{0}}),
         "top_k<4> of 3 items: all 3, best first");
  expect(none.count == 0, "top_k<4> of no items: count 0");

  cudaStreamDestroy(stream);
  std::printf("top_k: best %g at %lld, 8th best %g at %lld\n", best.values[0], static_cast<long long>(best.indices[0]),
              got_values[7], static_cast<long long>(got_indices[7]));
  return failures == 0 ? 0 : 1;
}
