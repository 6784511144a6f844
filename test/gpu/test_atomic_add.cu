// tally::atomic_add for every arithmetic type, from 64 x 256 threads:
//  - into one address and into 7 neighbouring addresses (for 1- and 2-byte types these
//    share 32-bit words with each other and with guard items that must survive), against
//    a closed form: the values are exact in the type and so is every partial sum (for
//    __half and __nv_bfloat16 most threads add 0 so that the totals stay exact);
//  - the returned old values: every thread adds 1 to one counter, and the old values are
//    a permutation of 0..N-1.
#include "common.cuh"

namespace atomic_add_test {

/// What thread i adds.
template <class T>
__host__ __device__ T add_value(int i) {
  if constexpr (tt::is_half_v<T>) return tt::from_double<T>(i % 16 == 0 ? 1 + (i / 16) % 2 : 0);  // total <= 1536
  // bf16 holds every integer up to 256 only: keep the slot (which starts at 2) under it.
  else if constexpr (tt::is_bf16_v<T>) return tt::from_double<T>(i % 128 == 0 ? 1 : 0);         // total <= 128
  else return static_cast<T>(i % 5 + 1);
}

template <class T>
__global__ void add_kernel(T* slots, int num_slots) {
  const int i = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
  tally::atomic_add(&slots[i % num_slots], add_value<T>(i));
}

template <class T>
__global__ void count_kernel(T* counter, T* olds, int n) {
  const int i = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
  if (i < n) olds[i] = tally::atomic_add(counter, tt::from_double<T>(1.0));
}

}  // namespace atomic_add_test

using namespace atomic_add_test;

TEST_CASE_TEMPLATE("atomic_add from many threads into one and into neighbouring addresses", T, std::int8_t,
                   std::int16_t, std::int32_t, std::int64_t, std::uint8_t, std::uint16_t, std::uint32_t, std::uint64_t,
                   __half, __nv_bfloat16, float, double) {
  tt::failure_budget budget;
  for (int num_slots : {1, 7}) {
    INFO("type=", tt::type_name<T>(), " slots=", num_slots);
    // Closed form, modulo 2^bits for integers (an int8 total wraps).
    std::vector<unsigned long long> total(num_slots, 0);
    for (int i = 0; i < tt::atomic_n; ++i) total[i % num_slots] += static_cast<unsigned long long>(tt::to_double(add_value<T>(i)));
    const T start = tt::from_double<T>(2.0);
    tt::guarded_slots<T> slots(num_slots, start);
    add_kernel<T><<<tt::atomic_blocks, tt::atomic_threads>>>(slots.slots(), num_slots);
    TT_CUDA(cudaGetLastError());
    const std::vector<T> result = slots.result("atomic_add");
    for (int s = 0; s < num_slots; ++s) {
      T expected;
      if constexpr (std::is_integral_v<T>) expected = static_cast<T>(total[s] + 2);
      else expected = tt::from_double<T>(double(total[s] + 2));
      tt::check_exact(result[s], expected, "atomic_add slot " + std::to_string(s));
    }
  }
}

TEST_CASE_TEMPLATE("atomic_add returns the old value: counters give a permutation of 0..N-1", T, std::int32_t,
                   std::int64_t, std::uint8_t, std::uint16_t, std::uint32_t, __half, __nv_bfloat16, float, double) {
  tt::failure_budget budget;
  // Every old value must be exact in T: up to 2^8 for uint8 and bfloat16, 2^11 for half.
  int n = 1 << 20;
  if constexpr (std::is_same_v<T, std::uint8_t> || tt::is_bf16_v<T>) n = 256;
  else if constexpr (tt::is_half_v<T>) n = 2048;
  else if constexpr (std::is_same_v<T, std::uint16_t> || std::is_same_v<T, float>) n = tt::atomic_n;
  INFO("type=", tt::type_name<T>(), " threads=", n);
  tt::guarded_slots<T> counter(1, tt::from_double<T>(0.0));
  tt::device_buffer<T> olds(n);
  count_kernel<T><<<(n + 255) / 256, 256>>>(counter.slots(), olds.data(), n);
  TT_CUDA(cudaGetLastError());
  const std::vector<T> final_value = counter.result("atomic_add counter");
  const std::vector<T> h = olds.download();
  std::vector<long long> seen;
  seen.reserve(n);
  for (const T& x : h) seen.push_back(static_cast<long long>(tt::to_double(x)));
  std::sort(seen.begin(), seen.end());
  long long first_wrong = -1;
  for (int i = 0; i < n && first_wrong < 0; ++i)
    if (seen[i] != i) first_wrong = i;
  tt::report(first_wrong < 0, "the old values are not a permutation of 0..N-1: sorted, item " +
                                  std::to_string(first_wrong) + " is " +
                                  (first_wrong >= 0 ? std::to_string(seen[first_wrong]) : std::string()));
  // The final value is N (modulo 2^8 for uint8).
  T expected;
  if constexpr (std::is_integral_v<T>) expected = static_cast<T>(n);
  else expected = tt::from_double<T>(double(n));
  tt::check_exact(final_value[0], expected, "final counter");
}
