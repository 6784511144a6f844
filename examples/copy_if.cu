// copy_if: stream compaction. The synchronous tally::copy_if (returns the end of the
// output, as std::copy_if does) and the asynchronous tally::copy_if_into (writes the
// items and their count in stream order); the stable default, unordered(), a stencil,
// every backend giving the same output, an empty range, tally::host, and the same
// selection made with thrust::copy_if and cub::DeviceSelect::If.
//
// Without a CUDA device it prints "skipped: ..." and returns 77; otherwise it checks its
// results and returns 0 (all correct) or 1.
#include <tally/tally.cuh>

#include <cub/device/device_select.cuh>
#include <thrust/copy.h>
#include <thrust/device_vector.h>
#include <thrust/execution_policy.h>
#include <thrust/host_vector.h>
#include <thrust/sort.h>
#include <thrust/tabulate.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <vector>

#include "example_check.hpp"

namespace {

// Item i: (i * 7919) % 1000, the values 0..999 in a scrambled order; as many even items
// as odd ones.
struct scrambled {
  __host__ __device__ int operator()(std::int64_t i) const { return int((i * 7919) % 1000); }
};

// Flag i: 1 for every third item.
struct every_third {
  __host__ __device__ std::uint8_t operator()(std::int64_t i) const { return i % 3 == 0 ? 1 : 0; }
};

// example-begin predicate
// A predicate: a function object with a __host__ __device__ call operator (device only
// is enough for the GPU; tally::host needs the host side), or an extended lambda. It
// is called once per item, in no particular order.
struct is_even {
  __host__ __device__ bool operator()(int x) const { return x % 2 == 0; }
};
// example-end predicate

struct below {
  int bar;
  __host__ __device__ bool operator()(int x) const { return x < bar; }
};

struct nonzero {
  __host__ __device__ bool operator()(std::uint8_t flag) const { return flag != 0; }
};

// True when the device items [first, first + count) equal want, in order.
bool equals(const thrust::device_vector<int>& got, std::int64_t count, const std::vector<int>& want) {
  if (count != std::int64_t(want.size())) return false;
  thrust::host_vector<int> host(got.begin(), got.begin() + count);
  return std::equal(want.begin(), want.end(), host.begin());
}

}  // namespace

int main() {
  if (!have_cuda_device()) return 77;

  const std::int64_t n = 1 << 20;
  thrust::device_vector<int> values(n);
  thrust::tabulate(values.begin(), values.end(), scrambled{});

  // What each call must give, computed on the host.
  std::vector<int> all(n), want_even, want_small, want_third;
  for (std::int64_t i = 0; i < n; ++i) {
    all[i] = scrambled{}(i);
    if (all[i] % 2 == 0) want_even.push_back(all[i]);
    if (all[i] < 10) want_small.push_back(all[i]);
    if (i % 3 == 0) want_third.push_back(all[i]);
  }

  // example-begin basics
  const int* first = thrust::raw_pointer_cast(values.data());
  const int* last = first + values.size();
  thrust::device_vector<int> evens(values.size());  // room for every item
  int* out = thrust::raw_pointer_cast(evens.data());

  // The even items, in their input order (stable, as std::copy_if and thrust::copy_if).
  // Waits for the policy's stream (tally::par: stream 0) and returns the end of the
  // output.
  int* end = tally::copy_if(first, last, out, is_even{});
  const std::int64_t kept = end - out;  // 524288: half of the items, {0, 838, 676, 514, ...}
  // example-end basics
  expect(kept == n / 2 && equals(evens, kept, want_even), "copy_if: the even items, in input order");

  // example-begin into
  // Asynchronous: the items and their number go to device memory in stream order, and
  // the call returns at once. The count is 64-bit: give it a std::int64_t.
  cudaStream_t stream;
  cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking);
  thrust::device_vector<int> small(values.size());
  thrust::device_vector<std::int64_t> count(1);
  tally::copy_if_into(tally::par.on(stream), first, last, small.data(), count.data(), below{10});

  // ... later work on the stream can use the items and count[0], with no host wait ...
  cudaStreamSynchronize(stream);  // before the host reads them
  // count[0] == 10487, small == {0, 3, 6, 9, 2, 5, ...}
  // example-end into
  const std::int64_t small_count = count[0];
  expect(small_count == 10487 && equals(small, small_count, want_small),
         "copy_if_into: the items below 10 and their count");

  // example-begin unordered
  // When the order of the output does not matter, unordered() lets each block write its
  // items as soon as it has counted them (one atomicAdd per tile, no look-back): the
  // same items and the same count, in an order that may change from run to run.
  thrust::device_vector<int> any_order(values.size());
  int* any_out = thrust::raw_pointer_cast(any_order.data());
  int* any_end = tally::copy_if(tally::par.unordered(), first, last, any_out, is_even{});
  // any_end - any_out == 524288; sorted, any_order holds what evens holds
  // example-end unordered
  thrust::sort(any_order.begin(), any_order.begin() + (any_end - any_out));
  std::vector<int> sorted_even = want_even;
  std::sort(sorted_even.begin(), sorted_even.end());
  expect(any_end - any_out == n / 2 && equals(any_order, any_end - any_out, sorted_even),
         "copy_if unordered(): the same items");

  thrust::device_vector<std::uint8_t> flags(n);
  thrust::tabulate(flags.begin(), flags.end(), every_third{});

  // example-begin stencil
  // With a stencil: values[i] is copied when pred(flags[i]) holds (here flags[i] != 0,
  // set for every third item).
  const std::uint8_t* stencil = thrust::raw_pointer_cast(flags.data());
  thrust::device_vector<int> thirds(values.size());
  int* thirds_out = thrust::raw_pointer_cast(thirds.data());
  int* thirds_end = tally::copy_if(first, last, stencil, thirds_out, nonzero{});
  // thirds_end - thirds_out == 349526: values[0], values[3], values[6], ...
  // example-end stencil
  expect(equals(thirds, thirds_end - thirds_out, want_third), "copy_if with a stencil: every third item");

  // example-begin backends
  // Every backend and launch shape gives the same stable output; only the way a block
  // adds up its warps' counts differs. Only unordered() changes the order.
  thrust::device_vector<int> by_tree(values.size());
  int* tree_out = thrust::raw_pointer_cast(by_tree.data());
  int* tree_end = tally::copy_if(tally::par.with(tally::backend::shared_memory).tune<128, 4>(), first, last,
                                 tree_out, is_even{});
  // by_tree holds exactly what evens holds, in the same order
  // example-end backends
  expect(tree_end - tree_out == kept && equals(by_tree, kept, want_even), "copy_if on shared_memory: the same output");

  // example-begin host
  // tally::host makes the same selection sequentially on the CPU, from host memory.
  std::vector<int> on_host(all.begin(), all.end()), host_out(on_host.size());
  auto host_end = tally::copy_if(tally::host, on_host.begin(), on_host.end(), host_out.begin(), is_even{});
  // host_end - host_out.begin() == 524288, the same items in the same order
  // example-end host
  expect(host_end - host_out.begin() == kept && std::equal(want_even.begin(), want_even.end(), host_out.begin()),
         "tally::host gives the same items");

  // example-begin empty
  // An empty range selects nothing and writes nothing; copy_if returns result (and makes
  // no CUDA call at all), copy_if_into writes a count of 0 in stream order.
  int* none = tally::copy_if(first, first, out, is_even{});  // none == out
  tally::copy_if_into(tally::par.on(stream), first, first, out, count.data(), is_even{});  // count[0] == 0
  // example-end empty
  cudaStreamSynchronize(stream);
  expect(none == out && std::int64_t(count[0]) == 0, "an empty range: nothing selected");

  thrust::device_vector<int> by_thrust(values.size()), by_cub(values.size()), by_tally(values.size());
  int* thrust_out = thrust::raw_pointer_cast(by_thrust.data());
  int* cub_out = thrust::raw_pointer_cast(by_cub.data());
  int* tally_out = thrust::raw_pointer_cast(by_tally.data());
  thrust::device_vector<std::int64_t> counts(2);
  std::int64_t* cub_count = thrust::raw_pointer_cast(counts.data());
  std::int64_t* tally_count = cub_count + 1;

  // example-begin thrust
  // Thrust: synchronous; returns the end of the output.
  int* thrust_end = thrust::copy_if(thrust::cuda::par.on(stream), first, last, thrust_out, is_even{});
  // example-end thrust
  // example-begin tally-sync
  // tally: the same call, the same result.
  int* tally_end = tally::copy_if(tally::par.on(stream), first, last, tally_out, is_even{});
  // example-end tally-sync
  expect(thrust_end - thrust_out == kept && tally_end - tally_out == kept && equals(by_thrust, kept, want_even) &&
             equals(by_tally, kept, want_even),
         "thrust::copy_if and tally::copy_if give the same items");

  // example-begin cub
  // CUB: a first call that only sizes the temporary storage, the allocation, the real
  // call; the count goes to device memory.
  void* temp = nullptr;
  std::size_t temp_bytes = 0;
  cub::DeviceSelect::If(temp, temp_bytes, first, cub_out, cub_count, n, is_even{}, stream);  // sizes temp_bytes
  cudaMallocAsync(&temp, temp_bytes, stream);
  cub::DeviceSelect::If(temp, temp_bytes, first, cub_out, cub_count, n, is_even{}, stream);
  cudaFreeAsync(temp, stream);
  // example-end cub
  // example-begin tally-into
  // tally: one call, no temporary storage to manage; the count goes to device memory.
  tally::copy_if_into(tally::par.on(stream), first, last, tally_out, tally_count, is_even{});
  // example-end tally-into
  cudaStreamSynchronize(stream);
  expect(std::int64_t(counts[0]) == kept && std::int64_t(counts[1]) == kept && equals(by_cub, kept, want_even) &&
             equals(by_tally, kept, want_even),
         "cub::DeviceSelect::If and tally::copy_if_into agree");

  cudaStreamDestroy(stream);
  std::printf("copy_if: kept %lld of %lld items (the even ones), %lld below 10\n", static_cast<long long>(kept),
              static_cast<long long>(n), static_cast<long long>(small_count));
  return failures == 0 ? 0 : 1;
}
