#pragma once
// Helpers of the top_k GPU tests (test/gpu/test_top_k_*.cu), on top of common.cuh and
// extrema_common.cuh, namespace tt:
//
//   k_list<Ks...>                    the K values a suite runs (template arguments)
//   top_list<T>                      an expected answer: the best indices, best first,
//                                    and the values at them (at most max_top_k entries)
//   cub_top_indices(keys, n, largest)
//                                    the reference: a stable cub::DeviceRadixSort of
//                                    (key, index) pairs, descending (largest) or
//                                    ascending, floats by the library's order (NaN
//                                    greatest); equal keys stay in index order
//                                    (tally_support/reference.cuh)
//   host_top_indices(host, less)     the same on the host under any comparator (a partial
//                                    sort under the total order "better value, then lower
//                                    index"; tally_support/compare.hpp): the reference
//                                    where the data has NaN or signed zeros, checked
//                                    against CUB's
//   gather(in, indices)              the input's values at the indices (the expected values)
//   top_k_form, run_top_k<K>(policy, first, n, comp, form, what)
//                                    tally::top_k (sync: checks count and that the rest of
//                                    the result is value-initialised) or tally::top_k_into
//                                    (async, on a created non-blocking stream, into outputs
//                                    with guard entries before and after: exactly min(K, n)
//                                    entries written)
//   check_top_k_forms<K>(policy, first, n, comp, expected, label)
//                                    both forms against an expected list
//   for_each_top_k_policy(f)         tally::par and par.with(each backend)
//   for_each_shuffle_policy(f)       the same without shared_memory (no kernels of its own)
//   k_plan<Less, LessShuffle, Greater>
//                                    which Ks a suite runs where (k_lists)
//   check_top_k(d, data_name, has_nan, plan)
//                                    every policy and form of the plan on one data set,
//                                    against CUB (NaN-free data) or the host reference;
//                                    the host backend too
//   top_k_suite<T>(plan)            every size (K - 1, K, K + 1 included) x pattern, ties,
//                                    extreme values, misaligned starts
//   make_generated<T>(n, gen, offset) data from a functor (extreme_ints, all_equal,
//                                    special_floats), poison around it
//
// Compile time: every top_k instantiation is a kernel per merge kind (shared_memory's
// tree; the shuffles of the other backends), per launch shape (two for K <= 2) and per
// candidate kind (values of up to 4 bytes compile the packed kernel and the wide one for
// more than 2^32 - 1 items), and K = 32 kernels take 5-20 s each: the suites pick their
// Ks (k_plan), run most of them on tally::par's kernels only, and tally::greater<> for few.
//
// Every test file is its own executable, linked with test/gpu/main.cu.
#include "extrema_common.cuh"

#include <initializer_list>
#include <numeric>

namespace tt {

/// The K values a suite instantiates.
template <int... Ks>
struct k_list {};

/// The longest reference list kept: enough for every K.
inline constexpr int reference_length = tally::max_top_k;

/// An expected top-K answer: indices best first and the input's values at them.
template <class T>
struct top_list {
  std::vector<long long> indices;
  std::vector<T> values;
};

// ---------------------------------------------------------------------------------------
// References

template <class T>
__global__ void gather_kernel(const T* in, const long long* indices, int count, T* out) {
  const int i = static_cast<int>(threadIdx.x);
  if (i < count) out[i] = in[indices[i]];
}

/// The items of `in` at `indices` (at most 1024 of them).
template <class T>
std::vector<T> gather(const T* in, const std::vector<long long>& indices) {
  const int count = static_cast<int>(indices.size());
  if (count == 0) return {};
  REQUIRE(count <= 1024);
  const device_buffer<long long> idx(indices);
  device_buffer<T> out{std::size_t(count)};
  gather_kernel<<<1, 1024>>>(in, idx.data(), count, out.data());
  TT_CUDA(cudaGetLastError());
  TT_CUDA(cudaDeviceSynchronize());
  return out.download();
}

/// The first min(count, n) indices of a stable radix sort of (keys[i], i): the largest
/// keys first (ascending when !largest), equal keys in index order; floating-point keys in
/// the library's order (NaN above every number, -0.0 == +0.0). On the default stream
/// (tally_support::cub_top_indices).
template <class Key>
std::vector<long long> cub_top_indices(const Key* keys, long long n, bool largest, int count = reference_length) {
  REQUIRE(n >= 0);
  return tally_support::cub_top_indices(keys, std::uint64_t(n), largest, std::size_t(count));
}

/// The first min(count, n) indices of v ordered best first under `less` (the largest
/// first), equal values in index order (tally_support::host_top_indices).
template <class T, class Less>
std::vector<long long> host_top_indices(const std::vector<T>& v, Less less, int count = reference_length) {
  return tally_support::host_top_indices(v, less, count);
}

/// lib_less with the arguments swapped: the smallest first under host_top_indices.
using lib_order_greater = tally_support::library_order_greater;

// ---------------------------------------------------------------------------------------
// Comparing results

template <class T>
std::string describe_list(const std::vector<long long>& indices, const std::vector<T>& values, std::size_t count) {
  std::string s = "[";
  for (std::size_t i = 0; i < count && i < indices.size(); ++i) {
    if (i == 8) {
      s += ", ...";
      break;
    }
    if (i) s += ", ";
    s += std::to_string(indices[i]);
    if (i < values.size()) s += ": " + describe(values[i]);
  }
  return s + "]";
}

/// One report for a whole list: the first `count` entries of (indices, values) against
/// the expected ones.
template <class T>
bool check_list(const std::vector<long long>& indices, const std::vector<T>& values, const top_list<T>& expected,
                std::size_t count, const std::string& what) {
  REQUIRE(expected.indices.size() >= count);
  REQUIRE(expected.values.size() >= count);
  for (std::size_t i = 0; i < count; ++i) {
    const bool index_ok = indices[i] == expected.indices[i];
    const bool value_ok = i >= values.size() || same_item(values[i], expected.values[i]);
    if (!index_ok || !value_ok)
      return report(false, what + ": entry " + std::to_string(i) + " is " + std::to_string(indices[i]) +
                               (i < values.size() ? ": " + describe(values[i]) : std::string()) + ", expected " +
                               std::to_string(expected.indices[i]) + ": " + describe(expected.values[i]) + "; got " +
                               describe_list(indices, values, count) + ", expected " +
                               describe_list(expected.indices, expected.values, count));
  }
  return report(true, what);
}

/// Two index lists (references against each other).
inline bool check_indices(const std::vector<long long>& actual, const std::vector<long long>& expected,
                          const std::string& what) {
  if (actual == expected) return report(true, what);
  const std::vector<int> none;
  return report(false, what + ": got " + describe_list(actual, none, actual.size()) + " (" +
                           std::to_string(actual.size()) + " entries), expected " +
                           describe_list(expected, none, expected.size()) + " (" + std::to_string(expected.size()) +
                           " entries)");
}

// ---------------------------------------------------------------------------------------
// Running tally

enum class top_k_form {
  sync,   ///< tally::top_k on the policy's stream: returns a top_k_result
  async,  ///< tally::top_k_into on test_stream(), then synchronise
};
inline constexpr top_k_form top_k_forms[] = {top_k_form::sync, top_k_form::async};
inline const char* form_name(top_k_form f) { return f == top_k_form::sync ? "top_k" : "top_k_into"; }

/// What one call gave: `count` entries (the sync form's count; min(K, n) for the async one).
template <class V>
struct top_k_output {
  int count = 0;
  std::vector<long long> indices;
  std::vector<V> values;
};

/// Device memory for top_k_into's outputs, with guard entries around them.
inline unsigned char* top_k_output_area() {
  static device_buffer<unsigned char> area(4096);
  return area.data();
}
inline constexpr std::size_t top_k_indices_offset = 2048;  // values at 0, indices here
inline constexpr int top_k_lead = 2;                       // guard entries before each output
inline constexpr int top_k_tail = 6;                       // and after entry K - 1

/// Runs tally's top_k<K> on [first, first + n). Returns nothing (after reporting) when
/// tally threw, the sync form's count or padding is wrong, or the async form wrote
/// outside its first min(K, n) entries.
template <int K, class Policy, class It, class Compare>
std::optional<top_k_output<tally::detail::iter_value_t<It>>> run_top_k(const Policy& policy, It first, long long n,
                                                                       Compare comp, top_k_form form,
                                                                       const std::string& what) {
  using V = tally::detail::iter_value_t<It>;
  const int count = static_cast<int>(std::min<long long>(K, n));
  top_k_output<V> out;
  try {
    if (form == top_k_form::sync) {
      const tally::top_k_result<V, K> r = tally::top_k<K>(policy, first, first + n, comp);
      if (!report(r.count == count,
                  what + ": count " + std::to_string(r.count) + ", expected " + std::to_string(count)))
        return std::nullopt;
      const V zero{};
      for (int i = count; i < K; ++i) {
        if (!report(r.indices[std::size_t(i)] == 0 && std::memcmp(&r.values[std::size_t(i)], &zero, sizeof(V)) == 0,
                    what + ": entry " + std::to_string(i) + " past count is not value-initialised (index " +
                        std::to_string(r.indices[std::size_t(i)]) + ")"))
          return std::nullopt;
      }
      out.count = r.count;
      out.indices.assign(r.indices.begin(), r.indices.begin() + count);
      out.values.assign(r.values.begin(), r.values.begin() + count);
      return out;
    }

    static_assert((K + top_k_lead + top_k_tail) * sizeof(V) <= top_k_indices_offset);
    static_assert(top_k_indices_offset + (K + top_k_lead + top_k_tail) * sizeof(std::int64_t) <= 4096);
    constexpr int slots = K + top_k_lead + top_k_tail;
    unsigned char* area = top_k_output_area();
    TT_CUDA(cudaMemset(area, guard_byte, 4096));
    TT_CUDA(cudaDeviceSynchronize());
    V* values = reinterpret_cast<V*>(area) + top_k_lead;
    std::int64_t* indices = reinterpret_cast<std::int64_t*>(area + top_k_indices_offset) + top_k_lead;
    const cudaStream_t stream = test_stream();
    tally::top_k_into<K>(policy.on(stream), first, first + n, values, indices, comp);
    TT_CUDA(cudaStreamSynchronize(stream));
    const std::vector<V> all_values = device_buffer<V>::download(values - top_k_lead, slots);
    const std::vector<std::int64_t> all_indices = device_buffer<std::int64_t>::download(indices - top_k_lead, slots);

    // Entries [0, count) written (an index never has the guard pattern), nothing else.
    std::int64_t guard_index;
    std::memset(&guard_index, guard_byte, sizeof guard_index);
    auto untouched = [&](int slot) {
      const unsigned char* v = reinterpret_cast<const unsigned char*>(&all_values[std::size_t(slot)]);
      for (std::size_t b = 0; b < sizeof(V); ++b)
        if (v[b] != guard_byte) return false;
      return all_indices[std::size_t(slot)] == guard_index;
    };
    for (int slot = 0; slot < slots; ++slot) {
      const int entry = slot - top_k_lead;
      if (entry >= 0 && entry < count) {
        if (!report(all_indices[std::size_t(slot)] != guard_index,
                    what + ": index " + std::to_string(entry) + " of " + std::to_string(count) + " not written"))
          return std::nullopt;
      } else if (!report(untouched(slot), what + ": wrote outside the first " + std::to_string(count) +
                                              " entries (at entry " + std::to_string(entry) + ")")) {
        return std::nullopt;
      }
    }
    out.count = count;
    for (int i = 0; i < count; ++i) {
      out.indices.push_back(static_cast<long long>(all_indices[std::size_t(top_k_lead + i)]));
      out.values.push_back(all_values[std::size_t(top_k_lead + i)]);
    }
    return out;
  } catch (const std::exception& e) {  // (doctest's own REQUIRE failures are no std::exception)
    report(false, what + ": threw " + e.what());
    return std::nullopt;
  }
}

/// Both forms of top_k<K> on [first, first + n) against `expected` (at least min(K, n)
/// entries).
template <int K, class Policy, class It, class Compare, class V>
void check_top_k_forms(const Policy& policy, It first, long long n, Compare comp, const top_list<V>& expected,
                       const std::string& label) {
  static_assert(std::is_same_v<V, tally::detail::iter_value_t<It>>);
  const std::size_t count = std::size_t(std::min<long long>(K, n));
  for (top_k_form form : top_k_forms) {
    const std::string what = std::string(form_name(form)) + "<" + std::to_string(K) + "> " + label;
    if (auto r = run_top_k<K>(policy, first, n, comp, form, what))
      check_list(r->indices, r->values, expected, count, what);
  }
}

/// The host backend's top_k<K> on a host copy against `expected`.
template <int K, class T, class Compare>
void check_host_top_k(const std::vector<T>& host, Compare comp, const top_list<T>& expected, const std::string& label) {
  const std::string what = "tally::host top_k<" + std::to_string(K) + "> " + label;
  const tally::top_k_result<T, K> r = tally::top_k<K>(tally::host, host.begin(), host.end(), comp);
  const int count = static_cast<int>(std::min<std::size_t>(K, host.size()));
  if (!report(r.count == count, what + ": count " + std::to_string(r.count) + ", expected " + std::to_string(count)))
    return;
  check_list(std::vector<long long>(r.indices.begin(), r.indices.begin() + count),
             std::vector<T>(r.values.begin(), r.values.begin() + count), expected, std::size_t(count), what);
}

/// f(policy, label) for the four backends (tally::par itself is the automatic one).
/// automatic, atomic and warp_shuffle share their kernels (top_k has one kernel; they
/// merge a block's lists by shuffles), shared_memory has its own (a tree in shared
/// memory). The tuned launch shapes have their own test (test_top_k_tuned.cu).
template <class F>
void for_each_top_k_policy(F&& f) {
  f(tally::par, std::string("backend=automatic (tally::par)"));
  f(tally::par.with(tally::backend::atomic), std::string("backend=atomic"));
  f(tally::par.with(tally::backend::warp_shuffle), std::string("backend=warp_shuffle"));
  f(tally::par.with(tally::backend::shared_memory), std::string("backend=shared_memory"));
}
/// The same without shared_memory: no kernel beyond those of tally::par.
template <class F>
void for_each_shuffle_policy(F&& f) {
  f(tally::par, std::string("backend=automatic (tally::par)"));
  f(tally::par.with(tally::backend::atomic), std::string("backend=atomic"));
  f(tally::par.with(tally::backend::warp_shuffle), std::string("backend=warp_shuffle"));
}

/// The Ks a suite runs: under tally::less<> on every backend (Less), under tally::less<>
/// on the backends that share tally::par's kernels (LessShuffle: no shared_memory
/// kernels), under tally::greater<> on every backend (Greater).
template <class Less, class LessShuffle, class Greater>
struct k_plan {};

// ---------------------------------------------------------------------------------------
// Data

/// Integers: the lowest, lowest + 1, 0, highest - 1 and highest at random (the ends of
/// the order keys: a packed key whose value word is 0 or all ones).
template <class T>
struct extreme_ints {
  std::uint64_t seed;
  __host__ __device__ T operator()(long long i) const {
    const T lo = cuda::std::numeric_limits<T>::lowest(), hi = cuda::std::numeric_limits<T>::max();
    switch (hash(std::uint64_t(i), seed) % 5) {
      case 0:
        return lo;
      case 1:
        return T(lo + 1);
      case 2:
        return T(0);
      case 3:
        return T(hi - 1);
      default:
        return hi;
    }
  }
};
/// One value everywhere.
template <class T>
struct all_equal {
  T value;
  __host__ __device__ T operator()(long long) const { return value; }
};
/// Floats: +NaN, -NaN, +inf, -inf, +0.0, -0.0 and numbers in [-1, 1) at random.
template <class T>
struct special_floats {
  std::uint64_t seed;
  __host__ __device__ T operator()(long long i) const {
    const std::uint64_t h = hash(std::uint64_t(i), seed);
    switch (h % 9) {
      case 0:
        return from_double<T>(double(NAN));
      case 1:
        return from_double<T>(-double(NAN));
      case 2:
        return from_double<T>(INFINITY);
      case 3:
        return from_double<T>(-INFINITY);
      case 4:
        return from_double<T>(0.0);
      case 5:
        return from_double<T>(-0.0);
      default:
        return from_double<T>(2.0 * double(unit_float(h >> 8)) - 1.0);
    }
  }
};

// ---------------------------------------------------------------------------------------
// The standard suite

/// Every policy and form of the plan (k_plan: tally::less<>, the largest first;
/// tally::greater<>, the smallest first) on one data set. Expected: CUB's stable radix
/// sort (over the library's order keys); the host reference in the library's order where
/// the data has NaN or signed zeros. Up to 2^20 items (and wherever the host copy is
/// taken anyway) CUB and the host reference must agree, and the host backend must give
/// the expected lists.
template <class T, int... Ls, int... Ss, int... Gs>
void check_top_k(const dataset<T>& d, const char* data_name, bool has_nan,
                 k_plan<k_list<Ls...>, k_list<Ss...>, k_list<Gs...>>) {
  INFO("type=", type_name<T>(), " n=", d.n, " data=", data_name, " offset=", d.offset);
  const bool signed_zeros = is_float_v<T> && has_nan_or_signed_zeros(d.pat);
  const bool host_reference = has_nan || signed_zeros;
  const bool need_host = host_reference || d.n <= (1LL << 20);

  std::vector<T> host;
  if (need_host) host = d.host();
  std::vector<long long> largest, smallest;
  if (host_reference) {
    largest = host_top_indices(host, lib_order_less{});
    smallest = host_top_indices(host, lib_order_greater{});
  }
  {  // CUB's sort over the library's order keys: a reference with NaN too
    const std::vector<long long> cub_largest = cub_top_indices(d.ptr, d.n, true);
    const std::vector<long long> cub_smallest = cub_top_indices(d.ptr, d.n, false);
    if (need_host) {
      check_indices(cub_largest, host_reference ? largest : host_top_indices(host, lib_order_less{}),
                    "CUB SortPairsDescending vs host reference");
      check_indices(cub_smallest, host_reference ? smallest : host_top_indices(host, lib_order_greater{}),
                    "CUB SortPairs vs host reference");
    }
    if (!host_reference) {
      largest = cub_largest;
      smallest = cub_smallest;
    }
  }
  const top_list<T> expect_largest{largest, gather(d.ptr, largest)};
  const top_list<T> expect_smallest{smallest, gather(d.ptr, smallest)};

  if (need_host) {
    (check_host_top_k<Ls>(host, tally::less<>{}, expect_largest, "comp=less<>"), ...);
    (check_host_top_k<Ss>(host, tally::less<>{}, expect_largest, "comp=less<>"), ...);
    (check_host_top_k<Gs>(host, tally::greater<>{}, expect_smallest, "comp=greater<>"), ...);
  }
  for_each_top_k_policy([&](const auto& policy, const std::string& label) {
    (check_top_k_forms<Ls>(policy, d.ptr, d.n, tally::less<>{}, expect_largest, label + " comp=less<>"), ...);
    (check_top_k_forms<Gs>(policy, d.ptr, d.n, tally::greater<>{}, expect_smallest, label + " comp=greater<>"), ...);
  });
  for_each_shuffle_policy([&](const auto& policy, const std::string& label) {
    (check_top_k_forms<Ss>(policy, d.ptr, d.n, tally::less<>{}, expect_largest, label + " comp=less<>"), ...);
  });
}

/// The standard sizes (common.cuh: 0, 1, 2, warp and tile boundaries up to 2^26, random
/// sizes) and for each K: K - 1, K, K + 1, 2K + 1; the tiles of the top_k table's shapes
/// (512 x 8, 1024 x 8, 256 x 8) and of tune<128, 4> around them (top_k<2>'s one round of
/// 4 and 8 tiles of 128 x 8: 4096, 8192, and of 256 x 8: 8192, 16384); 2^16 + 3, 2^19 and
/// 2^20 and their neighbours (top2_small's limits, then and now), 2^20 + 3 (past the
/// table's size switch) and 3000017.
inline std::vector<long long> top_k_sizes(std::initializer_list<int> ks) {
  std::vector<long long> s = standard_sizes();
  for (int k : ks) s.insert(s.end(), {k - 1LL, k + 0LL, k + 1LL, 2LL * k + 1});
  s.insert(s.end(), {511, 512, 513, 2047, 2048, 2049, 8191, 8192, 8193, 16383, 16384, 16385, 65539, (1 << 19) - 1,
                     1 << 19, (1 << 19) + 1, (1 << 20) - 1, 1 << 20, (1 << 20) + 1, (1 << 20) + 3, (1 << 21) - 1,
                     1 << 21, (1 << 21) + 1, 3000017});
  s.erase(std::remove_if(s.begin(), s.end(), [](long long n) { return n < 0; }), s.end());
  return listed_sizes(std::move(s));
}

/// Every size x pattern (extrema_patterns_for: the reduce suite's, all +-inf and constant
/// also above 2^21 items for floats), many ties (-1..2), extreme values (integers: the
/// ends of the type; floats: +-NaN, +-inf, +-0.0), and misaligned starts (ptr + 1,
/// ptr + 3 for types of up to 4 bytes, ptr + 1 otherwise) on random and tied data.
template <class T, int... Ls, int... Ss, int... Gs>
void top_k_suite(k_plan<k_list<Ls...>, k_list<Ss...>, k_list<Gs...>> plan) {
  failure_budget budget;
  auto check = [&](const dataset<T>& d, const char* data_name, bool has_nan) {
    check_top_k(d, data_name, has_nan, plan);
  };
  for (long long n : top_k_sizes({Ls..., Ss..., Gs...})) {
    for (pattern p : extrema_patterns_for<T>(n)) check(make_data<T>(n, p), pattern_name(p), p == pattern::with_nan);
    check(make_ties<T>(n), "ties", false);
    if (n > (1LL << 21)) continue;
    if constexpr (is_float_v<T>) {
      check(make_generated<T>(n, special_floats<T>{default_seed}), "+-NaN, +-inf, +-0", true);
      check(make_generated<T>(n, all_equal<T>{from_double<T>(double(NAN))}), "all NaN", true);
    } else {
      check(make_generated<T>(n, extreme_ints<T>{default_seed}), "lowest, highest and neighbours", false);
      check(make_generated<T>(n, all_equal<T>{cuda::std::numeric_limits<T>::lowest()}), "all lowest", false);
      check(make_generated<T>(n, all_equal<T>{cuda::std::numeric_limits<T>::max()}), "all highest", false);
    }
  }
  const std::vector<int> offsets = sizeof(T) <= 4 ? std::vector<int>{1, 3} : std::vector<int>{1};
  for (int offset : offsets) {
    for (long long n : misaligned_sizes()) {
      check(make_data<T>(n, pattern::random, offset), "random", false);
      check(make_ties<T>(n, offset), "ties", false);
    }
  }
}

}  // namespace tt
