#pragma once
// Helpers shared by the GPU tests (test/gpu/test_*.cu), namespace tt:
//
//   device_buffer<T>                 device memory (tally_support::device_buffer, never null)
//   pattern, make_data<T>(n, p)      seeded data generated on the device, with poison
//                                    values around the range (an out-of-range read shows):
//                                    tally_support's generator (data.cuh) with test_options
//   cub_reduce(in, n, init, op)      the CUB reference on the same device input
//                                    (tally_support/reference.cuh)
//   host_max / host_min, same_value, describe
//                                    host references in the library's float order and
//                                    comparisons (tally_support/compare.hpp)
//   for_each_backend(f)              f(tally::backend::atomic), ..., f(automatic)
//   run_tally(policy, first, n, init, op, mode)
//                                    tally::reduce (sync) or tally::reduce_into (async, on
//                                    a created non-blocking stream, with guard bytes)
//   make_exact_case / check_exact_ops
//                                    int sum, float max and min with exact results
//   report / check_exact / check_close
//                                    comparisons with a readable message, and a failure
//                                    budget so that a broken backend does not print
//                                    thousands of failures
//   reduce_suite<T>()                every size x data pattern x op x backend x mode,
//                                    compared with CUB (and the host reference)
//
// Every test file is its own executable, linked with test/gpu/main.cu.
#include <tally/tally.cuh>

#include <tally_support/compare.hpp>
#include <tally_support/data.cuh>
#include <tally_support/device_buffer.cuh>
#include <tally_support/reference.cuh>

#include <doctest/doctest.h>

#include <cuda/std/limits>

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <algorithm>
#include <climits>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <optional>
#include <random>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

// Type names in the names of TEST_CASE_TEMPLATE instances.
TYPE_TO_STRING_AS("int8", std::int8_t);
TYPE_TO_STRING_AS("int16", std::int16_t);
TYPE_TO_STRING_AS("int32", std::int32_t);
TYPE_TO_STRING_AS("int64", std::int64_t);
TYPE_TO_STRING_AS("uint8", std::uint8_t);
TYPE_TO_STRING_AS("uint16", std::uint16_t);
TYPE_TO_STRING_AS("uint32", std::uint32_t);
TYPE_TO_STRING_AS("uint64", std::uint64_t);
TYPE_TO_STRING_AS("half", __half);
TYPE_TO_STRING_AS("bfloat16", __nv_bfloat16);
TYPE_TO_STRING_AS("float", float);
TYPE_TO_STRING_AS("double", double);
TYPE_TO_STRING_AS("atomic", tally::backend::atomic_t);
TYPE_TO_STRING_AS("shared_memory", tally::backend::shared_memory_t);
TYPE_TO_STRING_AS("warp_shuffle", tally::backend::warp_shuffle_t);
TYPE_TO_STRING_AS("automatic", tally::backend::automatic_t);

/// The four backend tag types, for TEST_CASE_TEMPLATE(name, B, TT_BACKENDS).
#define TT_BACKENDS \
  tally::backend::atomic_t, tally::backend::shared_memory_t, tally::backend::warp_shuffle_t, tally::backend::automatic_t

/// Checks a cudaError_t expression; a failure ends the test case.
#define TT_CUDA(call)                                                                                       \
  do {                                                                                                      \
    const cudaError_t tt_status_ = (call);                                                                  \
    REQUIRE_MESSAGE(tt_status_ == cudaSuccess, #call, " failed: ", cudaGetErrorName(tt_status_), ": ",      \
                    cudaGetErrorString(tt_status_));                                                        \
  } while (0)

namespace tt {

// ---------------------------------------------------------------------------------------
// Types

// The value types and comparisons of tally_support (compare.hpp), shared with `tally
// verify` and the benchmarks.
using tally_support::bit_pattern;
using tally_support::describe;
using tally_support::host_arg;
using tally_support::host_max;
using tally_support::host_min;
using tally_support::is_16bit_float_v;
using tally_support::is_float_v;
using tally_support::is_nan;
using tally_support::same_item;
using tally_support::same_value;
using tally_support::to_double;

template <class T>
inline constexpr bool is_half_v = std::is_same_v<T, __half>;
template <class T>
inline constexpr bool is_bf16_v = std::is_same_v<T, __nv_bfloat16>;
template <class T>
inline constexpr bool is_arith_v = std::is_arithmetic_v<T> || is_16bit_float_v<T>;

/// The accumulator of a sum over T in these tests: float for the 16-bit floats (init
/// 0.0f, as users write it), T otherwise.
template <class T>
using sum_acc_t = std::conditional_t<is_16bit_float_v<T>, float, T>;

template <class T>
const char* type_name() {
  if constexpr (std::is_same_v<T, std::int8_t>) return "int8";
  else if constexpr (std::is_same_v<T, std::int16_t>) return "int16";
  else if constexpr (std::is_same_v<T, std::int32_t>) return "int32";
  else if constexpr (std::is_same_v<T, std::int64_t>) return "int64";
  else if constexpr (std::is_same_v<T, long long>) return "long long";
  else if constexpr (std::is_same_v<T, std::uint8_t>) return "uint8";
  else if constexpr (std::is_same_v<T, std::uint16_t>) return "uint16";
  else if constexpr (std::is_same_v<T, std::uint32_t>) return "uint32";
  else if constexpr (std::is_same_v<T, std::uint64_t>) return "uint64";
  else if constexpr (std::is_same_v<T, unsigned long long>) return "unsigned long long";
  else if constexpr (is_half_v<T>) return "half";
  else if constexpr (is_bf16_v<T>) return "bfloat16";
  else if constexpr (std::is_same_v<T, float>) return "float";
  else if constexpr (std::is_same_v<T, double>) return "double";
  else return T::type_name;  // test structs name themselves
}

template <class B>
const char* backend_label(B) {
  return tally::backend_name(B::id);
}

__host__ __device__ inline float to_float(__half x) { return __half2float(x); }
__host__ __device__ inline float to_float(__nv_bfloat16 x) { return __bfloat162float(x); }

template <class T>
__host__ __device__ T from_double(double x) {
  if constexpr (is_half_v<T>) return __float2half_rn(float(x));
  else if constexpr (is_bf16_v<T>) return __float2bfloat16_rn(float(x));
  else return static_cast<T>(x);
}

template <class T>
__host__ __device__ T lowest() {
  if constexpr (is_float_v<T>) return from_double<T>(-INFINITY);
  else return cuda::std::numeric_limits<T>::lowest();
}
template <class T>
__host__ __device__ T highest() {
  if constexpr (is_float_v<T>) return from_double<T>(INFINITY);
  else return cuda::std::numeric_limits<T>::max();
}

// ---------------------------------------------------------------------------------------
// Failure reporting

inline int& failures_in_case() {
  static int count = 0;
  return count;
}

/// Put one at the top of a test case that loops over many checks: after 25 failures
/// the test case stops (the first failures say enough).
struct failure_budget {
  failure_budget() { failures_in_case() = 0; }
  ~failure_budget() { failures_in_case() = 0; }
};

/// A check with a prebuilt message; stops the test case once the budget is spent.
inline bool report(bool ok, const std::string& message) {
  CHECK_MESSAGE(ok, message);
  if (!ok && ++failures_in_case() >= 25) {
    failures_in_case() = 0;
    REQUIRE_MESSAGE(false, "too many failures: stopping this test case");
  }
  return ok;
}

template <class T>
bool check_exact(const T& actual, const T& expected, const std::string& what) {
  const bool ok = same_value(actual, expected);
  if (ok) return report(true, what);
  return report(false, what + ": got " + describe(actual) + ", expected " + describe(expected));
}

/// |actual - expected| <= tol, NaN only against NaN, inf only against the same inf.
template <class T>
bool check_close(const T& actual, const T& expected, double tol, const std::string& what) {
  if (tally_support::within(actual, expected, tol)) return report(true, what);
  char buf[96];
  std::snprintf(buf, sizeof buf, " (|diff| %.4g, tolerance %.4g)", std::fabs(to_double(actual) - to_double(expected)),
                tol);
  return report(false, what + ": got " + describe(actual) + ", expected " + describe(expected) + buf);
}

// ---------------------------------------------------------------------------------------
// Device memory

/// tally_support::device_buffer as the tests use it: never a null pointer (n = 0 still
/// allocates one item, so that e.g. CUB's temporary storage of 0 bytes is not taken for
/// a size query), data() writable from a const buffer, and host copies checked with
/// REQUIRE. (Allocation failures throw, which doctest reports as a failed test case.)
template <class T>
class device_buffer {
 public:
  device_buffer() = default;
  explicit device_buffer(std::size_t n) : storage_(n ? n : 1), size_(n) {}
  explicit device_buffer(const std::vector<T>& host) : device_buffer(host.size()) { upload(host); }

  /// Takes over a tally_support::device_buffer (of at least one item).
  static device_buffer adopt(tally_support::device_buffer<T>&& b) {
    device_buffer d;
    d.size_ = b.size();
    d.storage_ = std::move(b);
    return d;
  }

  T* data() const { return const_cast<T*>(storage_.data()); }
  std::size_t size() const { return size_; }
  void upload(const std::vector<T>& host) {
    REQUIRE(host.size() <= size_);
    if (!host.empty()) TT_CUDA(cudaMemcpy(data(), host.data(), host.size() * sizeof(T), cudaMemcpyHostToDevice));
  }
  std::vector<T> download() const { return download(data(), size_); }
  static std::vector<T> download(const T* p, std::size_t n) {
    std::vector<T> host(n);
    if (n) TT_CUDA(cudaMemcpy(host.data(), p, n * sizeof(T), cudaMemcpyDeviceToHost));
    return host;
  }

 private:
  tally_support::device_buffer<T> storage_;
  std::size_t size_ = 0;
};

/// The created, non-blocking stream the asynchronous forms run on (never the default
/// stream: a library that slips work onto stream 0 races with it and fails).
inline cudaStream_t test_stream() {
  static cudaStream_t stream = [] {
    cudaStream_t s = nullptr;
    TT_CUDA(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    return s;
  }();
  return stream;
}

// ---------------------------------------------------------------------------------------
// Data: tally_support's generator (support/tally_support/data.cuh) with the tests' options

using tally_support::data_traits;  // the extension point: specialise tally_support::data_traits
using tally_support::has_nan_or_signed_zeros;
using tally_support::hash;
using tally_support::pattern;
using tally_support::pattern_name;
using tally_support::unit_double;
using tally_support::unit_float;
template <class T>
using dataset = tally_support::dataset<T>;

/// The range of pattern::random for integers: a sum of 2^26 items (plus 7) never
/// overflows a signed type of 32 or 64 bits; narrower and unsigned types wrap modulo
/// 2^bits, which every backend and CUB agree on.
template <class T>
struct int_range;
template <> struct int_range<std::int8_t> { static constexpr long long lo = -100, hi = 100; };
template <> struct int_range<std::int16_t> { static constexpr long long lo = -30000, hi = 30000; };
template <> struct int_range<std::int32_t> { static constexpr long long lo = -31, hi = 31; };
template <> struct int_range<std::int64_t> { static constexpr long long lo = -(1LL << 36), hi = 1LL << 36; };
template <> struct int_range<std::uint8_t> { static constexpr long long lo = 0, hi = 255; };
template <> struct int_range<std::uint16_t> { static constexpr long long lo = 0, hi = 65535; };
template <> struct int_range<std::uint32_t> { static constexpr long long lo = 0, hi = 4294967295LL; };
template <> struct int_range<std::uint64_t> { static constexpr long long lo = 0, hi = 1LL << 40; };

inline constexpr std::uint64_t default_seed = 0x7a11e5u;

/// The tests' data: integers in int_range<T>, floats in [-1, 1) (24 bits, 53 for double),
/// constant 3, NaN at about 1 in 61 items and at n/2 (with_nan).
template <class T>
tally_support::fill_options test_options(std::uint64_t seed = default_seed) {
  tally_support::fill_options o;
  o.seed = seed;
  o.constant = 3.0;
  if constexpr (std::is_integral_v<T>) {
    o.int_low = int_range<T>::lo;
    o.int_modulus = std::uint64_t(int_range<T>::hi - int_range<T>::lo) + 1;
  }
  o.float_low = -1.0;
  o.float_high = 1.0;
  o.nan_every = 61;
  o.nan_scattered = true;
  return o;
}

/// n items of a pattern in device memory at `ptr`, `offset` items after a 256-byte
/// aligned allocation, with poison items before and after (tally_support::make_dataset).
template <class T>
dataset<T> make_data(long long n, pattern p, int offset = 0, std::uint64_t seed = default_seed) {
  return tally_support::make_dataset<T>(n, p, test_options<T>(seed), offset);
}

/// n items gen(0), ..., gen(n - 1) the same way (tally_support::make_generated).
using tally_support::make_generated;

// ---------------------------------------------------------------------------------------
// References

// CUB's answer (tally_support/reference.cuh) and the library's order (compare.hpp).
using tally_support::ref_max;
using tally_support::ref_min;
using tally_support::ref_plus;

/// cub::DeviceReduce::Reduce on the same input, on the default stream.
template <class In, class T, class Op>
T cub_reduce(In in, long long n, T init, Op op) {
  REQUIRE(n >= 0);
  return tally_support::cub_reduce(in, std::uint64_t(n), init, op);
}

/// The library's float order: NaN above everything, -0.0 == +0.0.
template <class T>
bool lib_less(const T& a, const T& b) {
  return tally_support::library_less(a, b);
}
/// sum |x| + |init| in double (the scale of a float sum's rounding error).
template <class T, class Acc>
double abs_sum(const std::vector<T>& v, Acc init) {
  double s = std::fabs(to_double(init));
  for (const T& x : v) s += std::fabs(to_double(x));
  return s;
}
/// Relative tolerance of a sum accumulated in Acc.
template <class Acc>
constexpr double sum_rel_tolerance() {
  return std::is_same_v<Acc, double> ? 1e-12 : 1e-5;
}

// ---------------------------------------------------------------------------------------
// Running tally

/// Calls f(tag) for every backend tag: atomic, shared_memory, warp_shuffle, automatic.
template <class F>
void for_each_backend(F&& f) {
  f(tally::backend::atomic_t{});
  f(tally::backend::shared_memory_t{});
  f(tally::backend::warp_shuffle_t{});
  f(tally::backend::automatic_t{});
}
/// The same without the atomic backend (deterministic float sums, operators without an identity).
template <class F>
void for_each_non_atomic_backend(F&& f) {
  f(tally::backend::shared_memory_t{});
  f(tally::backend::warp_shuffle_t{});
  f(tally::backend::automatic_t{});
}

enum class run_mode {
  sync,   ///< tally::reduce(policy, ...) on the policy's stream
  async,  ///< tally::reduce_into(policy.on(test_stream()), ...), then cudaStreamSynchronize
};
inline constexpr run_mode run_modes[] = {run_mode::sync, run_mode::async};
inline const char* mode_name(run_mode m) { return m == run_mode::sync ? "reduce" : "reduce_into"; }

/// 256 bytes of device memory for reduce_into's output, with guard items around it.
inline unsigned char* output_area() {
  static device_buffer<unsigned char> area(256);
  return area.data();
}
inline constexpr unsigned char guard_byte = 0xA5;

/// Runs tally on [first, first + n). Returns nothing (after reporting) when tally threw
/// or when reduce_into wrote outside its output item.
template <class Policy, class It, class T, class Op>
std::optional<T> run_tally(const Policy& policy, It first, long long n, T init, Op op, run_mode mode,
                           const std::string& what) {
  static_assert(sizeof(T) <= 64);
  try {
    if (mode == run_mode::sync) return tally::reduce(policy, first, first + n, init, op);

    unsigned char* area = output_area();
    TT_CUDA(cudaMemset(area, guard_byte, 3 * sizeof(T)));
    TT_CUDA(cudaDeviceSynchronize());
    T* out = reinterpret_cast<T*>(area) + 1;
    const cudaStream_t stream = test_stream();
    tally::reduce_into(policy.on(stream), first, first + n, out, init, op);
    TT_CUDA(cudaStreamSynchronize(stream));
    std::vector<unsigned char> bytes(3 * sizeof(T));
    TT_CUDA(cudaMemcpy(bytes.data(), area, bytes.size(), cudaMemcpyDeviceToHost));
    bool guards_intact = true;
    for (std::size_t i = 0; i < sizeof(T); ++i)
      guards_intact = guards_intact && bytes[i] == guard_byte && bytes[2 * sizeof(T) + i] == guard_byte;
    if (!report(guards_intact, what + ": reduce_into wrote outside *out")) return std::nullopt;
    T result;
    std::memcpy(&result, bytes.data() + sizeof(T), sizeof(T));
    return result;
  } catch (const std::exception& e) {  // (doctest's own REQUIRE failures are no std::exception)
    report(false, what + ": threw " + e.what());
    return std::nullopt;
  }
}

/// "op=max backend=atomic reduce_into" for messages.
template <class B>
std::string run_label(const char* op, B backend, run_mode mode) {
  return std::string("op=") + op + " backend=" + backend_label(backend) + " " + mode_name(mode);
}

/// An int data set (pattern::random) and a float one (pattern::with_nan) of n items, with
/// the exact results over them of plus<int> from `int_init`, and of max<float> and
/// min<float> in the library's order.
struct exact_case {
  dataset<int> ints;
  dataset<float> floats;
  int int_init = 0, sum = 0;
  float max = 0, min = 0;
};
inline exact_case make_exact_case(long long n, int offset, int int_init) {
  exact_case c{make_data<int>(n, pattern::random, offset), make_data<float>(n, pattern::with_nan, offset), int_init};
  c.sum = cub_reduce(c.ints.ptr, n, int_init, ref_plus<int>{});
  const std::vector<float> fh = c.floats.host();
  c.max = host_max(fh, -std::numeric_limits<float>::infinity());
  c.min = host_min(fh, std::numeric_limits<float>::infinity());
  return c;
}
/// Runs plus<int>, max<float> and min<float> of `c` with `policy` in `mode`; each must
/// give the exact result.
template <class Policy>
void check_exact_ops(const Policy& policy, const exact_case& c, run_mode mode) {
  std::string what = std::string("op=plus<int> ") + mode_name(mode);
  if (auto r = run_tally(policy, c.ints.ptr, c.ints.n, c.int_init, tally::plus<int>{}, mode, what))
    check_exact(*r, c.sum, what);
  what = std::string("op=max<float> ") + mode_name(mode);
  if (auto r = run_tally(policy, c.floats.ptr, c.floats.n, -std::numeric_limits<float>::infinity(),
                         tally::maximum<float>{}, mode, what))
    check_exact(*r, c.max, what);
  what = std::string("op=min<float> ") + mode_name(mode);
  if (auto r = run_tally(policy, c.floats.ptr, c.floats.n, std::numeric_limits<float>::infinity(),
                         tally::minimum<float>{}, mode, what))
    check_exact(*r, c.min, what);
}

// ---------------------------------------------------------------------------------------
// Atomics

/// `count` items of T for atomics to update, one item after the start of an aligned
/// allocation and followed by 15 more: for 1- and 2-byte types the slots share 32-bit
/// words with guard items, whose bytes (0x5A) must survive every update.
template <class T>
class guarded_slots {
 public:
  static constexpr int lead = 1, tail = 15;
  guarded_slots(int count, T init) : count_(count), buffer_(std::size_t(count + lead + tail)) {
    std::vector<T> host(buffer_.size());
    std::memset(static_cast<void*>(host.data()), guard_byte, host.size() * sizeof(T));
    for (int i = 0; i < count; ++i) host[lead + i] = init;
    buffer_.upload(host);
  }
  T* slots() const { return buffer_.data() + lead; }
  /// The slots after the kernels ran; reports a clobbered guard.
  std::vector<T> result(const std::string& what) const {
    TT_CUDA(cudaDeviceSynchronize());
    const std::vector<T> all = buffer_.download();
    const unsigned char* bytes = reinterpret_cast<const unsigned char*>(all.data());
    std::size_t bad = 0;
    for (std::size_t b = 0; b < all.size() * sizeof(T); ++b) {
      const std::size_t item = b / sizeof(T);
      const bool is_slot = item >= std::size_t(lead) && item < std::size_t(lead + count_);
      if (!is_slot && bytes[b] != guard_byte) ++bad;
    }
    report(bad == 0, what + ": " + std::to_string(bad) + " guard bytes next to the slots were overwritten");
    return std::vector<T>(all.begin() + lead, all.begin() + lead + count_);
  }

 private:
  static constexpr unsigned char guard_byte = 0x5A;
  int count_;
  device_buffer<T> buffer_;
};

/// The launch shape of the atomic tests: 64 blocks of 256 threads.
inline constexpr int atomic_blocks = 64;
inline constexpr int atomic_threads = 256;
inline constexpr int atomic_n = atomic_blocks * atomic_threads;

// ---------------------------------------------------------------------------------------
// Sizes

/// Whether the tests run under compute-sanitizer (scripts/sanitize.sh sets
/// TALLY_SANITIZE=1): then they run smaller and fewer sizes.
inline bool sanitizing() {
  static const bool on = [] {
    const char* s = std::getenv("TALLY_SANITIZE");
    return s && *s && std::strcmp(s, "0") != 0;
  }();
  return on;
}

/// The largest size of the shared size lists: unlimited, except under compute-sanitizer,
/// where they stop at 33 tiles of 4096 + 1 items: every tile boundary and copy_if's
/// 32-tile look-back window are still crossed, and the tools, which slow kernels down 10
/// to 1000 times, finish in minutes.
inline long long max_listed_size() { return sanitizing() ? 33LL * 4096 + 1 : LLONG_MAX; }

/// `s` in its order (for tests where the order of the calls matters), without the sizes
/// above max_listed_size().
inline std::vector<long long> capped_sizes(std::vector<long long> s) {
  s.erase(std::remove_if(s.begin(), s.end(), [](long long n) { return n > max_listed_size(); }), s.end());
  return s;
}

/// `s` sorted, without duplicates and sizes above max_listed_size().
inline std::vector<long long> listed_sizes(std::vector<long long> s) {
  s = capped_sizes(std::move(s));
  std::sort(s.begin(), s.end());
  s.erase(std::unique(s.begin(), s.end()), s.end());
  return s;
}

/// 0, 1, 2, warp and tile boundaries (tiles of 256*16, 512*8 = 4096 and 1024*16 = 16384),
/// powers of two and their neighbours up to 2^26, and a few seeded random sizes.
inline std::vector<long long> standard_sizes() {
  std::vector<long long> s{0,     1,     2,     31,    32,    33,          1023,    1024,        1025,
                           4095,  4096,  4097,  16383, 16384, 16385,       65535,   65536,       65537,
                           (1 << 20) - 1,       1 << 20, (1 << 20) + 1, 1 << 22, 1LL << 26};
  std::mt19937_64 gen(20240611);  // the engine is fully specified: the same sizes everywhere
  for (int i = 0; i < 2; ++i) s.push_back(3 + static_cast<long long>(gen() % 5000));
  for (int i = 0; i < 3; ++i) s.push_back(5000 + static_cast<long long>(gen() % 3000000));
  return listed_sizes(std::move(s));
}

/// Sizes for the misaligned-input runs (fewer under TALLY_SANITIZE).
inline std::vector<long long> misaligned_sizes() {
  if (sanitizing()) return {1, 2, 3, 33, 4097, 65537};
  return listed_sizes({1, 2, 3, 15, 31, 33, 1025, 4095, 4097, 8191, 8193, 16385, 65537, (1 << 20) + 1, 123457});
}

/// The data patterns run at size n (fewer above 2^21 items, to keep the suite fast).
template <class T>
std::vector<pattern> patterns_for(long long n) {
  const bool big = n > (1LL << 21);
  if constexpr (is_float_v<T>) {
    if (big) return {pattern::random, pattern::sorted, pattern::with_nan};
    return {pattern::random,  pattern::constant, pattern::sorted,        pattern::reversed,     pattern::pos_inf,
            pattern::neg_inf, pattern::with_nan, pattern::neg_and_zeros, pattern::pos_and_zeros};
  } else {
    if (big) return {pattern::random, pattern::constant, pattern::wide};
    return {pattern::random, pattern::wide, pattern::constant, pattern::sorted, pattern::reversed};
  }
}

// ---------------------------------------------------------------------------------------
// The standard suite

/// Sum, maximum and minimum of one data set, on every backend, both forms, against CUB;
/// for floats the maximum and minimum also against the host reference in the library's
/// order (the only reference when the data has NaN or signed zeros: CUB's max is plain `<`).
template <class T>
void check_reduce_ops(const dataset<T>& d) {
  INFO("type=", type_name<T>(), " n=", d.n, " pattern=", pattern_name(d.pat), " offset=", d.offset);
  using Acc = sum_acc_t<T>;

  std::vector<T> host;
  if constexpr (is_float_v<T>) host = d.host();

  // --- sum: init 7 (0.5 for floats) takes part exactly once.
  const bool signed_overflow_possible =
      d.pat == pattern::wide && std::is_signed_v<T> && std::is_integral_v<T> && sizeof(T) >= 4;
  if (!signed_overflow_possible) {
    Acc init;
    if constexpr (is_float_v<Acc>) init = Acc(0.5f);
    else init = Acc(7);
    const Acc expected = cub_reduce(d.ptr, d.n, init, ref_plus<Acc>{});
    double tol = 0;
    if constexpr (is_float_v<Acc>) tol = sum_rel_tolerance<Acc>() * abs_sum(host, init) + 1e-30;
    for_each_backend([&](auto backend) {
      for (run_mode mode : run_modes) {
        const std::string what = run_label("plus", backend, mode);
        const auto r = run_tally(tally::par.with(backend), d.ptr, d.n, init, tally::plus<Acc>{}, mode, what);
        if (!r) continue;
        if constexpr (is_float_v<Acc>) check_close(*r, expected, tol, what);
        else check_exact(*r, expected, what);
      }
    });
  }

  // --- maximum and minimum: exact.
  const T max_init = lowest<T>(), min_init = highest<T>();
  T expected_max, expected_min;
  if constexpr (is_float_v<T>) {
    expected_max = host_max(host, max_init);
    expected_min = host_min(host, min_init);
    // The host backend follows the same order.
    check_exact(tally::reduce(tally::host, host.begin(), host.end(), max_init, tally::maximum<T>{}), expected_max,
                "op=max tally::host");
    check_exact(tally::reduce(tally::host, host.begin(), host.end(), min_init, tally::minimum<T>{}), expected_min,
                "op=min tally::host");
    if (!has_nan_or_signed_zeros(d.pat)) {  // CUB agrees where its plain `<` is the library's order
      check_exact(cub_reduce(d.ptr, d.n, max_init, ref_max<T>{}), expected_max, "op=max CUB vs host reference");
      check_exact(cub_reduce(d.ptr, d.n, min_init, ref_min<T>{}), expected_min, "op=min CUB vs host reference");
    }
  } else {
    expected_max = cub_reduce(d.ptr, d.n, max_init, ref_max<T>{});
    expected_min = cub_reduce(d.ptr, d.n, min_init, ref_min<T>{});
  }
  for_each_backend([&](auto backend) {
    for (run_mode mode : run_modes) {
      const std::string what_max = run_label("max", backend, mode);
      if (auto r = run_tally(tally::par.with(backend), d.ptr, d.n, max_init, tally::maximum<T>{}, mode, what_max))
        check_exact(*r, expected_max, what_max);
      const std::string what_min = run_label("min", backend, mode);
      if (auto r = run_tally(tally::par.with(backend), d.ptr, d.n, min_init, tally::minimum<T>{}, mode, what_min))
        check_exact(*r, expected_min, what_min);
    }
  });
}

/// Every standard size and pattern, then misaligned starts (ptr + 1, ptr + 3: the
/// vector-load prologue) for types of up to 8 bytes.
template <class T>
void reduce_suite() {
  failure_budget budget;
  for (long long n : standard_sizes()) {
    for (pattern p : patterns_for<T>(n)) check_reduce_ops(make_data<T>(n, p));
  }
  const std::vector<int> offsets = sizeof(T) <= 4 ? std::vector<int>{1, 3} : std::vector<int>{1};
  for (int offset : offsets) {
    for (long long n : misaligned_sizes()) check_reduce_ops(make_data<T>(n, pattern::random, offset));
  }
}

/// One piece's top-k from tally against CUB's (whose DeviceTopK / DeviceBatchedTopK give
/// the k best in no set order): tally's values are, entry by entry, CUB's values sorted
/// best first in the library's order (the same multiset, and tally's sorted), and every
/// index of both points at its value in `piece` (tally's with the same bits). Reports up
/// to `budget` failures, `where` saying which piece.
inline void check_top_k_as_multiset(const float* piece, std::int64_t length, const float* cub_values,
                                    const std::int64_t* cub_indices, const float* tally_values,
                                    const std::int64_t* tally_indices, int k, int& budget, const std::string& where) {
  std::vector<float> want(cub_values, cub_values + k);
  std::sort(want.begin(), want.end(), tally_support::library_order_greater{});
  for (int j = 0; j < k && budget > 0; ++j) {
    const std::int64_t c = cub_indices[j], t = tally_indices[j];
    const bool ok = c >= 0 && c < length && same_value(piece[c], cub_values[j]) && t >= 0 && t < length &&
                    std::memcmp(&piece[t], &tally_values[j], sizeof(float)) == 0 && same_value(want[j], tally_values[j]);
    if (!ok) {
      --budget;
      FAIL_CHECK(where, " entry ", j, ": tally ", tally_values[j], " at ", t, ", CUB's j-th best ", want[j],
                 " (CUB's entry ", cub_values[j], " at ", c, ")");
    }
  }
}

}  // namespace tt
