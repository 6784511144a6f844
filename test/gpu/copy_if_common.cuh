#pragma once
// Helpers of the copy_if GPU tests (test/gpu/test_copy_if_*.cu), on top of common.cuh,
// namespace tt:
//
//   rec                              a 24-byte struct {double a; long long b; int c;}
//                                    (b unique per item: the sort key of the multiset check)
//   item_traits<T>                   per item type: make(i, seed) (hashed data: integers
//                                    over the whole type; floats in [0, 1) with NaN, -0.0,
//                                    +-inf mixed in), poison(j) (around the range, chosen
//                                    so that most predicates select it: an out-of-range
//                                    read shows), key(x) (a 64-bit sort key: the bits, one
//                                    NaN for all NaNs; rec: b) and same(a, b) (equal bits,
//                                    any NaN equals any NaN; rec: field by field)
//   select_pred<T>, selections<T>()  the predicates (one functor type per item type with a
//                                    runtime bound, so that each kernel is compiled once)
//                                    and the selectivities they run: 0%, ~1%, ~50%, ~99%,
//                                    100% (floats: x > +inf, x < 0.01, x > 0.5,
//                                    !(x >= 0.5) which selects NaN, x < 0.99, !(x >= NaN))
//   make_items<T>(n, offset, seed)   n hashed items at `offset` items into an aligned
//                                    allocation, poison around them
//   reference<T>, cub_select(in, n, pred), cub_flagged(in, stencil, n, pred)
//                                    the expected output (tally_support/reference.cuh):
//                                    cub::DeviceSelect::If, or cub::DeviceSelect::FlaggedIf
//                                    with pred on the stencil; the multiset order (a stable
//                                    radix sort of the keys) made on demand
//   guarded_output<T>                the output: room for n items plus guard items before
//                                    (lead) and after, all guard bytes before each call;
//                                    changed_outside(count) finds writes outside [0, count)
//   copy_form, run_copy_if(policy, first, n, stencil, out, pred, form, what)
//                                    tally::copy_if (sync: returns the end) or
//                                    tally::copy_if_into (async, on a created non-blocking
//                                    stream, the count into an int64 with guards around);
//                                    checks 0 <= count <= n and that nothing outside the
//                                    first `count` output items changed
//   check_selected(actual, count, expected, stable, what)
//                                    the same count, and the same items in the same order
//                                    (stable) or as multisets (unordered: both sorted by key)
//   unordered_policy_v<P>            whether a policy may reorder (unordered(), or the
//                                    atomic backend: the dispatch's rule)
//   all_policies / two_policies, for_each_policy(set, f)
//                                    the policies a suite runs
//   copy_if_sizes(max), copy_if_suite<T>(set, max_n)
//                                    every size x selectivity x policy x form against CUB,
//                                    then misaligned inputs and outputs
//
// Compile time: each (kernel kind, input iterator, selection, output iterator) is a
// kernel. Kernel kinds: stable with the warp_shuffle scan (tally::par, warp_shuffle,
// automatic), stable with the shared-memory scan, unordered with either scan, and each
// tuned shape. all_policies compiles five per item type, two_policies two.
//
// Every test file is its own executable, linked with test/gpu/main.cu.
#include "common.cuh"

#include <tally/copy_if.cuh>

#include <numeric>

namespace tt {

// ---------------------------------------------------------------------------------------
// Item types

/// A 24-byte item (4 bytes of padding at the end); b is unique per item of a data set.
struct rec {
  double a;
  long long b;
  int c;
  static constexpr const char* type_name = "rec{double a; long long b; int c;}";
};
static_assert(sizeof(rec) == 24);
inline std::string describe_value(const rec& r) {
  char buf[128];
  std::snprintf(buf, sizeof buf, "{a=%.17g, b=%lld, c=%d}", r.a, r.b, r.c);
  return buf;
}

template <class T, class Enable = void>
struct item_traits;

template <class T>
struct item_traits<T, std::enable_if_t<std::is_integral_v<T>>> {
  /// Random bit patterns over the whole type.
  __host__ __device__ static T make(long long i, std::uint64_t seed) {
    const std::uint64_t h = hash(std::uint64_t(i), seed);
    T v;
    memcpy(&v, &h, sizeof(T));
    return v;
  }
  /// The lowest value: level 0, selected by every predicate but the 0% one.
  __host__ __device__ static T poison(long long) { return cuda::std::numeric_limits<T>::lowest(); }
  /// The top 32 bits of the item's distance from the lowest value: uniform on random data.
  __host__ __device__ static std::uint32_t level(T x) {
    using U = std::make_unsigned_t<T>;
    constexpr int bits = int(sizeof(T)) * 8;
    U u = static_cast<U>(x);
    if constexpr (std::is_signed_v<T>) u = static_cast<U>(u ^ static_cast<U>(U(1) << (bits - 1)));
    if constexpr (bits >= 32) return static_cast<std::uint32_t>(std::uint64_t(u) >> (bits - 32));
    else return static_cast<std::uint32_t>(u) << (32 - bits);
  }
  __host__ __device__ static std::uint64_t key(T x) { return static_cast<std::uint64_t>(static_cast<std::make_unsigned_t<T>>(x)); }
  __host__ __device__ static bool same(T a, T b) { return a == b; }
};

template <class T>
struct item_traits<T, std::enable_if_t<std::is_floating_point_v<T>>> {
  using bits_t = std::conditional_t<sizeof(T) == 4, std::uint32_t, std::uint64_t>;
  /// [0, 1) (exact: 24 bits for float, 53 for double), with NaN (1 in 61), -0.0, +inf
  /// and -inf mixed in.
  __host__ __device__ static T make(long long i, std::uint64_t seed) {
    const std::uint64_t h = hash(std::uint64_t(i), seed);
    if (h % 61 == 0) return T(NAN);
    if (h % 67 == 1) return T(-0.0);
    if (h % 71 == 2) return T(INFINITY);
    if (h % 73 == 3) return T(-INFINITY);
    return static_cast<T>(sizeof(T) == 4 ? double(unit_float(h)) : unit_double(h));
  }
  /// -1: selected by x < t for every t in (0, 1].
  __host__ __device__ static T poison(long long) { return T(-1); }
  __host__ __device__ static bits_t bits(T x) {
    bits_t b;
    memcpy(&b, &x, sizeof(T));
    return b;
  }
  /// The bits; one key for every NaN.
  __host__ __device__ static std::uint64_t key(T x) {
    if (x != x) return sizeof(T) == 4 ? 0x7fc00000ull : 0x7ff8000000000000ull;
    return bits(x);
  }
  /// The same bits (-0.0 is not +0.0: a copy keeps the sign), or both NaN.
  __host__ __device__ static bool same(T a, T b) { return bits(a) == bits(b) || (a != a && b != b); }
};

template <>
struct item_traits<rec> {
  /// a in [0, 1) (53 bits), b = 3i + 1 (unique), c random.
  __host__ __device__ static rec make(long long i, std::uint64_t seed) {
    const std::uint64_t h = hash(std::uint64_t(i), seed);
    return rec{unit_double(h), 3 * i + 1, static_cast<int>(static_cast<std::uint32_t>(h))};
  }
  __host__ __device__ static rec poison(long long j) { return rec{-1.0, -1 - j, -1}; }
  __host__ __device__ static std::uint64_t key(const rec& x) { return static_cast<std::uint64_t>(x.b); }
  __host__ __device__ static bool same(const rec& x, const rec& y) {
    std::uint64_t bx, by;
    memcpy(&bx, &x.a, 8);
    memcpy(&by, &y.a, 8);
    return bx == by && x.b == y.b && x.c == y.c;
  }
};

// ---------------------------------------------------------------------------------------
// Predicates

template <class T, class Enable = void>
struct select_pred;

/// Integers: level(x) < bound (bound in [0, 2^32]: 0 selects nothing, 2^32 everything).
template <class T>
struct select_pred<T, std::enable_if_t<std::is_integral_v<T>>> {
  std::uint64_t bound;
  __host__ __device__ bool operator()(const T& x) const { return item_traits<T>::level(x) < bound; }
};

enum class float_test { less, greater, not_greater_equal };

/// Floats: x < t, x > t or !(x >= t) (the last selects NaN).
template <class T>
struct select_pred<T, std::enable_if_t<std::is_floating_point_v<T>>> {
  T t;
  float_test test;
  __host__ __device__ bool operator()(const T& x) const {
    switch (test) {
      case float_test::less: return x < t;
      case float_test::greater: return x > t;
      default: return !(x >= t);
    }
  }
};

/// rec: a < t.
template <>
struct select_pred<rec> {
  double t;
  __host__ __device__ bool operator()(const rec& x) const { return x.a < t; }
};

template <class T>
struct selection {
  std::string name;
  select_pred<T> pred;
};

/// The selectivities a suite runs.
template <class T>
std::vector<selection<T>> selections() {
  if constexpr (std::is_integral_v<T>) {
    std::vector<selection<T>> s;
    for (int percent : {0, 1, 50, 99, 100})
      s.push_back({"~" + std::to_string(percent) + "%", select_pred<T>{(std::uint64_t(percent) << 32) / 100}});
    return s;
  } else if constexpr (std::is_floating_point_v<T>) {
    const T inf = std::numeric_limits<T>::infinity(), nan = std::numeric_limits<T>::quiet_NaN();
    // Fractions selected of make()'s data: 0, 3.7% (-0.0 and -inf count), 48%, 52%, 96%, 1.
    return {{"x > +inf (none)", {inf, float_test::greater}},
            {"x < 0.01", {T(0.01), float_test::less}},
            {"x > 0.5", {T(0.5), float_test::greater}},
            {"!(x >= 0.5) (NaN selected)", {T(0.5), float_test::not_greater_equal}},
            {"x < 0.99", {T(0.99), float_test::less}},
            {"!(x >= NaN) (all)", {nan, float_test::not_greater_equal}}};
  } else {
    std::vector<selection<T>> s;
    for (int percent : {0, 1, 50, 99, 100})
      s.push_back({"~" + std::to_string(percent) + "% (a < " + std::to_string(percent / 100.0) + ")",
                   select_pred<T>{percent / 100.0}});
    return s;
  }
}

// ---------------------------------------------------------------------------------------
// Data

/// item_traits<T>::make and ::poison as functors (for make_generated).
template <class T>
struct hashed_items {
  std::uint64_t seed;
  __host__ __device__ T operator()(std::uint64_t i) const {
    return item_traits<T>::make(static_cast<long long>(i), seed);
  }
};
template <class T>
struct item_poison {
  __host__ __device__ T operator()(std::uint64_t j) const {
    return item_traits<T>::poison(static_cast<long long>(j));
  }
};

inline unsigned grid_for(long long n) { return unsigned(std::max<long long>(1, std::min<long long>((n + 255) / 256, 8192))); }

/// n hashed items at `offset` items into an aligned allocation, 16 poison items after.
template <class T>
dataset<T> make_items(long long n, int offset = 0, std::uint64_t seed = default_seed) {
  return make_generated<T>(n, hashed_items<T>{seed}, offset, item_poison<T>{});
}

// ---------------------------------------------------------------------------------------
// Device-side checks

/// Two counters on the device: [0] how many, [1] the first position (min).
inline unsigned long long* stats_area() {
  static device_buffer<unsigned long long> area(2);
  return area.data();
}
inline void clear_stats() {
  const unsigned long long init[2] = {0ull, ~0ull};
  TT_CUDA(cudaMemcpy(stats_area(), init, sizeof init, cudaMemcpyHostToDevice));
}
inline std::pair<unsigned long long, unsigned long long> read_stats() {
  TT_CUDA(cudaDeviceSynchronize());
  unsigned long long s[2];
  TT_CUDA(cudaMemcpy(s, stats_area(), sizeof s, cudaMemcpyDeviceToHost));
  return {s[0], s[1]};
}

template <class Byte>
__global__ void changed_bytes_kernel(const Byte* p, unsigned long long skip_begin, unsigned long long skip_end,
                                     unsigned long long total, Byte guard, unsigned long long* stats) {
  const unsigned long long stride = static_cast<unsigned long long>(gridDim.x) * blockDim.x;
  unsigned long long bad = 0, first = ~0ull;
  for (unsigned long long b = static_cast<unsigned long long>(blockIdx.x) * blockDim.x + threadIdx.x; b < total;
       b += stride) {
    if (b >= skip_begin && b < skip_end) continue;
    if (p[b] != guard) {
      ++bad;
      if (first == ~0ull) first = b;
    }
  }
  if (bad) {
    atomicAdd(&stats[0], bad);
    atomicMin(&stats[1], first);
  }
}

template <class T>
__global__ void mismatch_kernel(const T* actual, const std::int64_t* actual_order, const T* expected,
                                const std::int64_t* expected_order, long long n, unsigned long long* stats) {
  const long long stride = static_cast<long long>(gridDim.x) * blockDim.x;
  unsigned long long bad = 0, first = ~0ull;
  for (long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) {
    const T& a = actual[actual_order ? actual_order[i] : i];
    const T& e = expected[expected_order ? expected_order[i] : i];
    if (!item_traits<T>::same(a, e)) {
      ++bad;
      if (first == ~0ull) first = static_cast<unsigned long long>(i);
    }
  }
  if (bad) {
    atomicAdd(&stats[0], bad);
    atomicMin(&stats[1], first);
  }
}

template <class T>
__global__ void keys_kernel(const T* items, long long n, std::uint64_t* keys) {
  const long long stride = static_cast<long long>(gridDim.x) * blockDim.x;
  for (long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride)
    keys[i] = item_traits<T>::key(items[i]);
}

/// The positions of items[0, n) in ascending key order (a stable radix sort of the keys,
/// tally_support::cub_stable_order): two multisets are equal when the items taken in this
/// order are.
template <class T>
device_buffer<std::int64_t> sorted_order(const T* items, long long n) {
  if (n == 0) return device_buffer<std::int64_t>(0);
  device_buffer<std::uint64_t> keys{std::size_t(n)};
  keys_kernel<T><<<grid_for(n), 256>>>(items, n, keys.data());
  TT_CUDA(cudaGetLastError());
  return device_buffer<std::int64_t>::adopt(tally_support::cub_stable_order(keys.data(), std::uint64_t(n), false));
}

template <class T>
T item_at(const T* p, long long i) {
  T x;
  TT_CUDA(cudaMemcpy(&x, p + i, sizeof(T), cudaMemcpyDeviceToHost));
  return x;
}

// ---------------------------------------------------------------------------------------
// References

/// An expected output: the items (CUB's), their number, and their multiset order.
template <class T>
struct reference {
  device_buffer<T> items;
  long long count = 0;
  std::optional<device_buffer<std::int64_t>> order;

  const std::int64_t* sorted() {
    if (!order) order = sorted_order(items.data(), count);
    return order->data();
  }
  std::vector<T> host() const { return device_buffer<T>::download(items.data(), std::size_t(count)); }
};

template <class T>
reference<T> to_reference(tally_support::selection<T> s) {
  reference<T> r;
  r.items = device_buffer<T>::adopt(std::move(s.items));
  r.count = s.count;
  return r;
}

/// cub::DeviceSelect::If(in, n, pred), on the default stream (tally_support::cub_select).
template <class T, class Pred>
reference<T> cub_select(const T* in, long long n, Pred pred) {
  REQUIRE(n >= 0);
  return to_reference(tally_support::cub_select(in, std::uint64_t(n), pred));
}

/// cub::DeviceSelect::FlaggedIf(in, stencil, n, pred): in[i] where pred(stencil[i])
/// (tally_support::cub_select_flagged).
template <class T, class S, class Pred>
reference<T> cub_flagged(const T* in, const S* stencil, long long n, Pred pred) {
  REQUIRE(n >= 0);
  return to_reference(tally_support::cub_select_flagged(in, stencil, std::uint64_t(n), pred));
}

/// The reference against std::copy_if on a host copy of the input (pred called on the
/// host): checks CUB and the predicate's host/device agreement.
template <class T, class Pred>
void check_reference_on_host(const std::vector<T>& input, Pred pred, const reference<T>& expected) {
  std::vector<T> want;
  std::copy_if(input.begin(), input.end(), std::back_inserter(want), pred);
  const std::vector<T> got = expected.host();
  if (!report(got.size() == want.size(), "CUB vs std::copy_if: count " + std::to_string(got.size()) + ", expected " +
                                             std::to_string(want.size())))
    return;
  for (std::size_t i = 0; i < want.size(); ++i)
    if (!item_traits<T>::same(got[i], want[i]))
      return void(report(false, "CUB vs std::copy_if: item " + std::to_string(i) + " is " + describe(got[i]) +
                                    ", expected " + describe(want[i])));
  report(true, "CUB vs std::copy_if");
}

// ---------------------------------------------------------------------------------------
// The output

/// Output items at 16-byte aligned addresses (the allocation is 256-byte aligned).
template <class T>
constexpr int aligned_lead() {
  return int(16 / std::gcd(std::size_t(16), sizeof(T)));
}

/// Room for `capacity` output items after `lead` guard items, and `tail` guard items after.
template <class T>
class guarded_output {
 public:
  static constexpr int tail = 67;
  guarded_output(long long capacity, int lead)
      : lead_(lead), total_(capacity + lead + tail), buffer_(std::size_t(capacity + lead + tail)) {}
  T* data() const { return buffer_.data() + lead_; }
  /// Every byte to the guard pattern.
  void reset() const {
    TT_CUDA(cudaMemset(buffer_.data(), guard_byte, std::size_t(total_) * sizeof(T)));
    TT_CUDA(cudaDeviceSynchronize());
  }
  /// {how many, the first} bytes that changed outside output items [0, count) (item
  /// offsets relative to data(); the first as a byte offset from data()).
  std::pair<unsigned long long, long long> changed_outside(long long count) const {
    clear_stats();
    const unsigned long long begin = std::size_t(lead_) * sizeof(T), end = std::size_t(lead_ + count) * sizeof(T);
    const unsigned long long bytes = std::size_t(total_) * sizeof(T);
    changed_bytes_kernel<unsigned char><<<grid_for(static_cast<long long>(bytes / 4)), 256>>>(
        reinterpret_cast<const unsigned char*>(buffer_.data()), begin, end, bytes, guard_byte, stats_area());
    TT_CUDA(cudaGetLastError());
    const auto s = read_stats();
    return {s.first, static_cast<long long>(s.second) - static_cast<long long>(begin)};
  }

 private:
  int lead_;
  long long total_;
  device_buffer<T> buffer_;
};

// ---------------------------------------------------------------------------------------
// Running tally

enum class copy_form {
  sync,   ///< tally::copy_if on the policy's stream: returns the end of the output
  async,  ///< tally::copy_if_into on test_stream() (the count into an int64), then synchronise
};
inline constexpr copy_form copy_forms[] = {copy_form::sync, copy_form::async};
inline const char* copy_form_name(copy_form f) { return f == copy_form::sync ? "copy_if" : "copy_if_into"; }

/// The stencil argument of the runs without one.
struct no_stencil {};

/// copy_if_into's count: an int64 between two guard int64s.
inline std::int64_t* count_area() {
  static device_buffer<std::int64_t> area(3);
  return area.data();
}

/// Runs tally on [first, first + n) (with the stencil unless it is no_stencil) into
/// `out`. Returns the count, or nothing (after reporting) when tally threw, the count is
/// outside [0, n], the count's guards changed or an output byte outside the first
/// `count` items changed.
template <class Policy, class It, class S, class T, class Pred>
std::optional<long long> run_copy_if(const Policy& policy, It first, long long n, S stencil,
                                     const guarded_output<T>& out, Pred pred, copy_form form,
                                     const std::string& what) {
  constexpr bool has_stencil = !std::is_same_v<S, no_stencil>;
  out.reset();
  long long count = -1;
  try {
    if (form == copy_form::sync) {
      T* end;
      if constexpr (has_stencil) end = tally::copy_if(policy, first, first + n, stencil, out.data(), pred);
      else end = tally::copy_if(policy, first, first + n, out.data(), pred);
      count = static_cast<long long>(end - out.data());
    } else {
      std::int64_t* area = count_area();
      TT_CUDA(cudaMemset(area, guard_byte, 3 * sizeof(std::int64_t)));
      TT_CUDA(cudaDeviceSynchronize());
      const cudaStream_t stream = test_stream();
      if constexpr (has_stencil)
        tally::copy_if_into(policy.on(stream), first, first + n, stencil, out.data(), area + 1, pred);
      else
        tally::copy_if_into(policy.on(stream), first, first + n, out.data(), area + 1, pred);
      TT_CUDA(cudaStreamSynchronize(stream));
      std::int64_t host[3];
      TT_CUDA(cudaMemcpy(host, area, sizeof host, cudaMemcpyDeviceToHost));
      std::int64_t guard;
      std::memset(&guard, guard_byte, sizeof guard);
      if (!report(host[0] == guard && host[2] == guard, what + ": wrote next to *count")) return std::nullopt;
      count = static_cast<long long>(host[1]);
    }
  } catch (const std::exception& e) {  // (doctest's own REQUIRE failures are no std::exception)
    report(false, what + ": threw " + e.what());
    return std::nullopt;
  }
  if (!report(count >= 0 && count <= n,
              what + ": count " + std::to_string(count) + " outside [0, n = " + std::to_string(n) + "]"))
    return std::nullopt;
  const auto changed = out.changed_outside(count);
  if (!report(changed.first == 0, what + ": " + std::to_string(changed.first) +
                                      " output bytes outside the first count = " + std::to_string(count) +
                                      " items changed, the first at byte offset " + std::to_string(changed.second) +
                                      " from the output's start"))
    return std::nullopt;
  return count;
}

/// tally's output [actual, actual + count) against the expected one: the same count, and
/// the same items in order (stable) or as multisets (both sorted by key).
template <class T>
bool check_selected(const T* actual, long long count, reference<T>& expected, bool stable, const std::string& what) {
  if (!report(count == expected.count,
              what + ": count " + std::to_string(count) + ", expected " + std::to_string(expected.count)))
    return false;
  if (count == 0) return report(true, what);
  std::optional<device_buffer<std::int64_t>> actual_order;
  const std::int64_t* expected_order = nullptr;
  if (!stable) {
    actual_order = sorted_order(actual, count);
    expected_order = expected.sorted();
  }
  const std::int64_t* ao = actual_order ? actual_order->data() : nullptr;
  clear_stats();
  mismatch_kernel<T><<<grid_for(count), 256>>>(actual, ao, expected.items.data(), expected_order, count,
                                               stats_area());
  TT_CUDA(cudaGetLastError());
  const auto s = read_stats();
  if (s.first == 0) return report(true, what);
  const long long i = static_cast<long long>(s.second);
  const long long ai = ao ? static_cast<long long>(item_at(ao, i)) : i;
  const long long ei = expected_order ? static_cast<long long>(item_at(expected_order, i)) : i;
  return report(false, what + ": " + std::to_string(s.first) + " of " + std::to_string(count) + " items differ" +
                           (stable ? "" : " (as multisets, in key order)") + "; the first: item " +
                           std::to_string(i) + " is " + describe(item_at(actual, ai)) + " (output position " +
                           std::to_string(ai) + "), expected " + describe(item_at(expected.items.data(), ei)));
}

// ---------------------------------------------------------------------------------------
// Policies

/// Whether copy_if under P may reorder its output: unordered(), or the atomic backend
/// (include/tally/copy_if.cuh: "Unordered (`atomic`)"; dispatch.cuh's rule).
template <class P>
inline constexpr bool unordered_policy_v =
    P::is_unordered || std::is_same_v<typename P::backend_type, tally::backend::atomic_t>;

/// Every policy: tally::par, warp_shuffle, shared_memory, unordered(), atomic, a tuned
/// shape, and shared_memory's scan unordered.
struct all_policies {};
/// tally::par (stable) and tally::par.unordered().
struct two_policies {};

template <class F>
void for_each_policy(all_policies, F&& f) {
  f(tally::par, std::string("tally::par"));
  f(tally::par.with(tally::backend::warp_shuffle), std::string("par.with(warp_shuffle)"));
  f(tally::par.with(tally::backend::shared_memory), std::string("par.with(shared_memory)"));
  f(tally::par.unordered(), std::string("par.unordered()"));
  f(tally::par.with(tally::backend::atomic), std::string("par.with(atomic)"));
  f(tally::par.tune<128, 4>(), std::string("par.tune<128, 4>()"));
  f(tally::par.with(tally::backend::shared_memory).unordered(), std::string("par.with(shared_memory).unordered()"));
}
/// Tiles too big for two staging buffers (kernels.cuh: tile_compaction): tune<512, 16>
/// stages one tile of 4-byte items at a time; tune<1024, 16> (64 KiB of 4-byte items)
/// scatters from registers. Stable and unordered.
struct big_tile_policies {};

template <class F>
void for_each_policy(big_tile_policies, F&& f) {
  f(tally::par.tune<512, 16>(), std::string("par.tune<512, 16>()"));
  f(tally::par.tune<1024, 16>(), std::string("par.tune<1024, 16>()"));
  f(tally::par.unordered().tune<1024, 16>(), std::string("par.unordered().tune<1024, 16>()"));
}
template <class F>
void for_each_policy(two_policies, F&& f) {
  f(tally::par, std::string("tally::par"));
  f(tally::par.unordered(), std::string("par.unordered()"));
}

// ---------------------------------------------------------------------------------------
// The standard suite

/// 0, 1, 2, warp sizes, the tiles of the default shapes (256 threads x 16, 8, 4 or 2
/// items: 4096, 2048, 1024 and 512 items) and of tune<128, 4> (512) with their neighbours, 32 and 33
/// tiles (the look-back window), powers of two and neighbours up to 2^24, and a few
/// seeded random sizes; none above max_n. Under TALLY_SANITIZE a thinner list within
/// 33 tiles + 1 (empty, warp and tile boundaries of the 512- and 4096-item tiles, one and
/// two tiles, the look-back window): racecheck takes about a second per launch, and the
/// full list is about 2000 launches per suite.
inline std::vector<long long> copy_if_sizes(long long max_n) {
  if (sanitizing()) {
    std::vector<long long> s{0,    1,    2,    31,   32,   33,           255,       256,          257, 511,
                             512,  513,  1237, 4095, 4096, 4097,         2 * 4096 + 1, 32 * 4096, 33 * 4096 + 1};
    s.erase(std::remove_if(s.begin(), s.end(), [&](long long n) { return n > max_n; }), s.end());
    return listed_sizes(std::move(s));
  }
  std::vector<long long> s{0, 1, 2, 3, 31, 32, 33, 63, 64, 65, 255, 256, 257};
  for (long long tile : {512LL, 1024LL, 2048LL, 4096LL}) {
    for (long long m : {1LL, 2LL, 32LL, 33LL}) s.insert(s.end(), {m * tile - 1, m * tile, m * tile + 1});
  }
  for (int p : {12, 13, 14, 16, 17, 18, 20, 22, 24}) {
    const long long v = 1LL << p;
    s.insert(s.end(), {v - 1, v, v + 1});
  }
  std::mt19937_64 gen(20241123);  // fully specified engine: the same sizes everywhere
  for (int i = 0; i < 3; ++i) s.push_back(3 + static_cast<long long>(gen() % 5000));
  for (int i = 0; i < 3; ++i) s.push_back(5000 + static_cast<long long>(gen() % 3000000));
  s.erase(std::remove_if(s.begin(), s.end(), [&](long long n) { return n > max_n; }), s.end());
  return listed_sizes(std::move(s));
}

/// Every selectivity x policy of the set x form on one data set against CUB; CUB against
/// std::copy_if up to 2^16 items.
template <class T, class Policies>
void check_copy_if(const dataset<T>& d, Policies set, int out_lead) {
  INFO("type=", type_name<T>(), " n=", d.n, " input offset=", d.offset, " output lead=", out_lead);
  guarded_output<T> out(d.n, out_lead);
  std::vector<T> host;
  if (d.n <= (1 << 16)) host = d.host();
  for (const selection<T>& sel : selections<T>()) {
    reference<T> expected = cub_select(d.ptr, d.n, sel.pred);
    if (d.n <= (1 << 16)) check_reference_on_host(host, sel.pred, expected);
    for_each_policy(set, [&](const auto& policy, const std::string& label) {
      constexpr bool stable = !unordered_policy_v<std::decay_t<decltype(policy)>>;
      for (copy_form form : copy_forms) {
        const std::string what = std::string(copy_form_name(form)) + " " + label + " select " + sel.name;
        if (auto count = run_copy_if(policy, d.ptr, d.n, no_stencil{}, out, sel.pred, form, what))
          check_selected(out.data(), *count, expected, stable, what);
      }
    });
  }
}

/// Every size up to max_n (aligned input and output), then misaligned inputs (ptr + 1,
/// ptr + 3 for items of up to 4 bytes) into misaligned outputs (one item past an aligned
/// start).
template <class T, class Policies>
void copy_if_suite(Policies set, long long max_n) {
  failure_budget budget;
  for (long long n : copy_if_sizes(max_n)) check_copy_if(make_items<T>(n), set, aligned_lead<T>());
  const std::vector<int> offsets = sizeof(T) <= 4 ? std::vector<int>{1, 3} : std::vector<int>{1};
  for (int offset : offsets) {
    for (long long n : misaligned_sizes()) check_copy_if(make_items<T>(n, offset), set, aligned_lead<T>() + 1);
  }
}

}  // namespace tt
