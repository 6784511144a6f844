// policies_and_backends: one reduction under different policies. Forcing each backend
// with with(), fixing the launch shape with tune<>(), composing modifiers, asking what
// the automatic policy picks on this GPU, writing a function generic over policies, and
// the sequential tally::host reference.
//
// Without a CUDA device it prints "skipped: ..." and returns 77; otherwise it checks its
// results and returns 0 (all correct) or 1.
#include <tally/tally.cuh>

#include <thrust/device_vector.h>
#include <thrust/host_vector.h>
#include <thrust/tabulate.h>

#include <cstdio>
#include <type_traits>
#include <vector>

#include "example_check.hpp"

namespace {

// Item i: (7 i) % 5, small integers.
struct pattern {
  __host__ __device__ int operator()(long long i) const { return int((7 * i) % 5); }
};

}  // namespace

// example-begin generic
// A function of your own that takes any tally policy, device or host, and passes it on.
template <class Policy>
double mean(const Policy& policy, const int* first, const int* last) {
  static_assert(tally::is_execution_policy_v<Policy>, "mean() needs a tally policy");
  const long long sum = tally::reduce(policy, first, last, 0LL);
  return last == first ? 0.0 : double(sum) / double(last - first);
}
// example-end generic

int main() {
  if (!have_cuda_device()) return 77;

  const long long n = 3'000'000;
  thrust::device_vector<int> values(n);
  thrust::tabulate(values.begin(), values.end(), pattern{});
  cudaStream_t stream;
  cudaStreamCreate(&stream);

  // example-begin backends
  const int* first = thrust::raw_pointer_cast(values.data());
  const int* last = first + values.size();
  const auto on_stream = tally::par.on(stream);  // every call below waits for `stream` only

  // The same reduction on each backend; all give the same integer sum.
  int by_atomic = tally::reduce(on_stream.with(tally::backend::atomic), first, last, 0);
  int by_shared = tally::reduce(on_stream.with(tally::backend::shared_memory), first, last, 0);
  int by_shuffle = tally::reduce(on_stream.with(tally::backend::warp_shuffle), first, last, 0);
  // No with() means with(tally::backend::automatic): chosen per call from the tuning table.
  int by_automatic = tally::reduce(on_stream, first, last, 0);
  // example-end backends
  const int expected = int(n / 5) * 10;  // each run of five items sums to 0+2+4+1+3
  expect(by_atomic == expected, "atomic backend");
  expect(by_shared == expected, "shared_memory backend");
  expect(by_shuffle == expected, "warp_shuffle backend");
  expect(by_automatic == expected, "automatic backend");

  // example-begin tune
  // A fixed launch shape: 128 threads per block, 8 items per thread. Both are template
  // arguments, checked at compile time (threads a multiple of 32 up to 1024, 1 to 64
  // items). Modifiers compose in any order and give the same policy type.
  auto tuned = tally::par.with(tally::backend::warp_shuffle).tune<128, 8>().on(stream);
  auto same = tally::par.on(stream).tune<128, 8>().with(tally::backend::warp_shuffle);
  static_assert(std::is_same_v<decltype(tuned), decltype(same)>);
  int by_tuned = tally::reduce(tuned, first, last, 0);
  int by_same = tally::reduce(same, first, last, 0);

  // tune<>() without with(): the automatic backend choice, with this shape.
  int by_tuned_automatic = tally::reduce(on_stream.tune<512, 4>(), first, last, 0);
  // example-end tune
  expect(by_tuned == expected && by_same == expected, "warp_shuffle tuned to 128x8");
  expect(by_tuned_automatic == expected, "automatic tuned to 512x4");

  // example-begin inspect
  // The backend, the shape and the flags are part of a policy's type; the stream is data.
  using policy_t = decltype(tally::par.tune<256, 16>().deterministic());
  static_assert(std::is_same_v<policy_t::backend_type, tally::backend::automatic_t>);
  static_assert(policy_t::threads == 256 && policy_t::items_per_thread == 16);
  static_assert(policy_t::is_deterministic && !policy_t::is_unordered);
  static_assert(decltype(tally::par)::threads == 0);  // 0: not tuned, the table decides
  // example-end inspect
  expect(on_stream.stream() == stream && tally::par.stream() == nullptr, "stream() gives the policy's stream");

  // example-begin automatic
  // What the automatic policy runs for a float sum on this GPU: the rule of the tuning
  // table for its architecture (include/tally/tuning/select.cuh), whatever the size (the
  // grid follows the size at run time).
  int device = 0, major = 0, minor = 0;
  cudaGetDevice(&device);
  cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device);
  cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, device);
  const tally::tuning::launch_policy choice =
      tally::tuning::select(10 * major + minor, tally::tuning::kernel_class::floating_sum, int(sizeof(float)));
  std::printf("float sum on sm_%d%d: %s, %d threads x %d items\n", major, minor, tally::backend_name(choice.backend),
              choice.threads, choice.items_per_thread);
  // example-end automatic

  // example-begin host
  // tally::host: the sequential CPU reference, on host iterators, with the same semantics.
  thrust::host_vector<int> copy = values;
  std::vector<int> on_host(copy.begin(), copy.end());
  int reference = tally::reduce(tally::host, on_host.data(), on_host.data() + on_host.size(), 0);

  // The generic function above, on the GPU and on the CPU.
  double device_mean = mean(on_stream, first, last);
  double host_mean = mean(tally::host, on_host.data(), on_host.data() + on_host.size());
  // example-end host
  expect(reference == expected, "tally::host");
  expect(device_mean == host_mean && device_mean == 2.0, "mean() on the device and on the host");

  std::printf("policies_and_backends: sum %d on every backend, mean %g\n", by_automatic, device_mean);
  cudaStreamDestroy(stream);
  return failures == 0 ? 0 : 1;
}
