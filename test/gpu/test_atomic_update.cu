// tally::atomic_update with custom operators (compare-and-swap loops), from 64 x 256
// threads, against a host fold of the same values. The operators are commutative and
// associative, so the result does not depend on the order of the updates; every value is
// invertible under its operator, so a lost or doubled update changes the result:
//  - uint8 / uint16 / uint32: multiplication by odd numbers modulo 2^bits, into one and
//    into neighbouring addresses (sub-word CAS through the containing word);
//  - an 8-byte struct {int a; int b;}: Gaussian-integer multiplication modulo 2^32
//    ((a + bi)(c + di), combining both fields), factors of odd norm;
//  - a 16-byte struct (sm_90): the same modulo 2^64;
//  - an extended __device__ lambda (xor);
//  - the returned old values of a custom add: a permutation of 0..N-1 on 1, 2, 4, 8 and
//    16 bytes;
//  - atomic_update with tally::plus / maximum / minimum (the native paths).
#include "common.cuh"

struct pair32 {
  int a;
  int b;
  static constexpr const char* type_name = "pair32{int a; int b;}";
};
struct alignas(16) pair64 {
  unsigned long long a;
  unsigned long long b;
  static constexpr const char* type_name = "pair64{u64 a; u64 b;}";
};
inline bool operator==(const pair32& x, const pair32& y) { return x.a == y.a && x.b == y.b; }
inline bool operator==(const pair64& x, const pair64& y) { return x.a == y.a && x.b == y.b; }
inline std::string describe_value(const pair32& p) { return "{" + std::to_string(p.a) + ", " + std::to_string(p.b) + "}"; }
inline std::string describe_value(const pair64& p) { return "{" + std::to_string(p.a) + ", " + std::to_string(p.b) + "}"; }

namespace atomic_update_test {

/// x * y modulo 2^bits (unsigned arithmetic: no overflow).
template <class U>
struct multiply {
  __host__ __device__ U operator()(U x, U y) const { return static_cast<U>(static_cast<unsigned int>(x) * y); }
};
template <>
struct multiply<std::uint32_t> {
  __host__ __device__ std::uint32_t operator()(std::uint32_t x, std::uint32_t y) const { return x * y; }
};

/// (a + bi)(c + di) = (ac - bd) + (ad + bc)i, modulo 2^32.
struct gaussian_multiply32 {
  __host__ __device__ pair32 operator()(const pair32& x, const pair32& y) const {
    const unsigned a = unsigned(x.a), b = unsigned(x.b), c = unsigned(y.a), d = unsigned(y.b);
    return {int(a * c - b * d), int(a * d + b * c)};
  }
};
/// The same modulo 2^64.
struct gaussian_multiply64 {
  __host__ __device__ pair64 operator()(const pair64& x, const pair64& y) const {
    return {x.a * y.a - x.b * y.b, x.a * y.b + x.b * y.a};
  }
};

/// A custom add (not tally::plus: it takes the CAS path).
template <class T>
struct custom_add {
  __host__ __device__ T operator()(const T& x, const T& y) const { return static_cast<T>(x + y); }
};
struct custom_add64 {
  __host__ __device__ pair64 operator()(const pair64& x, const pair64& y) const { return {x.a + y.a, x.b + y.b}; }
};

template <class T, class Op>
__global__ void update_kernel(T* slots, int num_slots, const T* values, int n, Op op) {
  const int i = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
  if (i < n) tally::atomic_update(&slots[i % num_slots], values[i], op);
}

template <class T, class Op>
__global__ void update_old_kernel(T* counter, T one, T* olds, int n, Op op) {
  const int i = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
  if (i < n) olds[i] = tally::atomic_update(counter, one, op);
}

/// Runs update_kernel over `values` into `num_slots` slots starting at `identity` and
/// compares every slot with the host fold.
template <class T, class Op>
void check_update(const std::vector<T>& values, T identity, Op op, int num_slots, const char* label) {
  INFO("type=", tt::type_name<T>(), " op=", label, " slots=", num_slots, " threads=", values.size());
  tt::device_buffer<T> d(values);
  tt::guarded_slots<T> slots(num_slots, identity);
  update_kernel<<<unsigned((values.size() + 255) / 256), 256>>>(slots.slots(), num_slots, d.data(), int(values.size()),
                                                                 op);
  TT_CUDA(cudaGetLastError());
  const std::vector<T> got = slots.result(label);
  for (int s = 0; s < num_slots; ++s) {
    T expected = identity;
    for (std::size_t i = s; i < values.size(); i += num_slots) expected = op(expected, values[i]);
    tt::check_exact(got[s], expected, std::string(label) + " slot " + std::to_string(s));
  }
}

/// Odd numbers other than 1, as U.
template <class U>
std::vector<U> odd_values(int n) {
  std::vector<U> v(n);
  for (int i = 0; i < n; ++i) v[i] = static_cast<U>(2 * (1 + tt::hash(std::uint64_t(i), 17) % 1000) + 1);
  return v;
}

/// Checks that the old values returned by a custom add of 1 are a permutation of 0..n-1.
template <class T, class Op, class ToIndex>
void check_old_values(int n, T zero, T one, Op op, ToIndex to_index) {
  INFO("type=", tt::type_name<T>(), " threads=", n);
  tt::guarded_slots<T> counter(1, zero);
  tt::device_buffer<T> olds(n);
  update_old_kernel<<<unsigned((n + 255) / 256), 256>>>(counter.slots(), one, olds.data(), n, op);
  TT_CUDA(cudaGetLastError());
  (void)counter.result("custom add counter");
  const std::vector<T> h = olds.download();
  std::vector<long long> seen;
  for (const T& x : h) seen.push_back(to_index(x));
  std::sort(seen.begin(), seen.end());
  long long first_wrong = -1;
  for (int i = 0; i < n && first_wrong < 0; ++i)
    if (seen[i] != i) first_wrong = i;
  tt::report(first_wrong < 0, "old values are not a permutation of 0..N-1 (first wrong at sorted position " +
                                  std::to_string(first_wrong) + ")");
}

}  // namespace atomic_update_test

using namespace atomic_update_test;

TEST_CASE("atomic_update: multiplication modulo 2^bits on 1, 2 and 4 bytes, one and neighbouring addresses") {
  tt::failure_budget budget;
  for (int num_slots : {1, 3, 7}) {
    check_update(odd_values<std::uint8_t>(tt::atomic_n), std::uint8_t(1), multiply<std::uint8_t>{}, num_slots,
                 "multiply mod 2^8");
    check_update(odd_values<std::uint16_t>(tt::atomic_n), std::uint16_t(1), multiply<std::uint16_t>{}, num_slots,
                 "multiply mod 2^16");
    check_update(odd_values<std::uint32_t>(tt::atomic_n), std::uint32_t(1), multiply<std::uint32_t>{}, num_slots,
                 "multiply mod 2^32");
  }
}

TEST_CASE("atomic_update: an 8-byte struct with an operator that combines its fields") {
  tt::failure_budget budget;
  std::vector<pair32> values(tt::atomic_n);
  for (int i = 0; i < tt::atomic_n; ++i) {  // a even, b odd: odd norm a^2 + b^2, never the identity
    const std::uint64_t h = tt::hash(std::uint64_t(i), 23);
    values[i] = {int(2 * (h % 50)) - 50, int(2 * ((h >> 16) % 50)) - 49};
  }
  for (int num_slots : {1, 3}) check_update(values, pair32{1, 0}, gaussian_multiply32{}, num_slots, "gaussian multiply mod 2^32");
}

TEST_CASE("atomic_update: a 16-byte struct (sm_90)") {
  tt::failure_budget budget;
  std::vector<pair64> values(tt::atomic_n);
  for (int i = 0; i < tt::atomic_n; ++i) {
    const std::uint64_t h = tt::hash(std::uint64_t(i), 29);
    values[i] = {2 * (h % 100000), 2 * ((h >> 20) % 100000) + 1};
  }
  for (int num_slots : {1, 3}) check_update(values, pair64{1, 0}, gaussian_multiply64{}, num_slots, "gaussian multiply mod 2^64");
}

TEST_CASE("atomic_update: an extended __device__ lambda") {
  tt::failure_budget budget;
  std::vector<std::uint32_t> values(tt::atomic_n);
  for (int i = 0; i < tt::atomic_n; ++i) values[i] = std::uint32_t(tt::hash(std::uint64_t(i), 31));
  auto bit_xor = [] __host__ __device__(std::uint32_t x, std::uint32_t y) { return x ^ y; };
  for (int num_slots : {1, 5}) check_update(values, 0u, bit_xor, num_slots, "xor lambda");
  std::vector<std::uint16_t> values16(tt::atomic_n);
  for (int i = 0; i < tt::atomic_n; ++i) values16[i] = std::uint16_t(tt::hash(std::uint64_t(i), 37));
  auto bit_xor16 = [] __host__ __device__(std::uint16_t x, std::uint16_t y) { return std::uint16_t(x ^ y); };
  for (int num_slots : {1, 5}) check_update(values16, std::uint16_t(0), bit_xor16, num_slots, "xor lambda (16 bits)");
}

TEST_CASE("atomic_update returns the old value on 1, 2, 4, 8 and 16 bytes") {
  tt::failure_budget budget;
  check_old_values(256, std::uint8_t(0), std::uint8_t(1), custom_add<std::uint8_t>{},
                   [](std::uint8_t x) { return (long long)x; });
  check_old_values(tt::atomic_n, std::uint16_t(0), std::uint16_t(1), custom_add<std::uint16_t>{},
                   [](std::uint16_t x) { return (long long)x; });
  check_old_values(1 << 18, std::uint32_t(0), std::uint32_t(1), custom_add<std::uint32_t>{},
                   [](std::uint32_t x) { return (long long)x; });
  check_old_values(1 << 18, std::uint64_t(0), std::uint64_t(1), custom_add<std::uint64_t>{},
                   [](std::uint64_t x) { return (long long)x; });
  check_old_values(1 << 18, pair64{0, 7}, pair64{1, 0}, custom_add64{}, [](const pair64& x) {
    return x.b == 7 ? (long long)x.a : -1LL;  // b must stay untouched
  });
}

TEST_CASE_TEMPLATE("atomic_update with tally::plus / maximum / minimum (the native paths)", T, std::int32_t,
                   std::uint64_t, float, double, __half) {
  tt::failure_budget budget;
  // Small integers: every partial sum is exact. For half (exact up to 2048) only one
  // thread in 16 adds a 1, the others 0.
  std::vector<T> values(tt::atomic_n);
  for (int i = 0; i < tt::atomic_n; ++i) {
    const std::uint64_t h = tt::hash(std::uint64_t(i), 41);
    values[i] = tt::from_double<T>(tt::is_half_v<T> ? double(i % 16 == 0 ? h % 2 : 0) : double(h % 4));
  }
  for (int num_slots : {1, 3}) {
    check_update(values, tt::from_double<T>(1.0), tally::plus<T>{}, num_slots, "tally::plus");
    check_update(values, tt::lowest<T>(), tally::maximum<T>{}, num_slots, "tally::maximum");
    check_update(values, tt::highest<T>(), tally::minimum<T>{}, num_slots, "tally::minimum");
  }
}
