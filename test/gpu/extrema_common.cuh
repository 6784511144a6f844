#pragma once
// Helpers of the extrema GPU tests (test/gpu/test_extrema_*.cu), on top of common.cuh,
// namespace tt:
//
//   cub_arg<Max>(in, n)              CUB's index of the first largest (Max) or smallest
//                                    item (tally_support/reference.cuh: cub::DeviceReduce::
//                                    ArgMax / ArgMin)
//   host_arg<Max>(host, less)        the same on the host, a plain loop, in any order
//                                    (tally_support/compare.hpp)
//   lib_order_less                   the library's order as a functor (compare.hpp)
//   ext_mode, run_extremum<Max>(policy, first, n, comp, mode, what)
//                                    tally::max_element / min_element (sync: waits, returns
//                                    an iterator) or max_element_into / min_element_into
//                                    (async, on a created non-blocking stream, into an
//                                    int64 with guard bytes around it)
//   run_minmax(policy, first, n, comp, what)
//                                    tally::minmax_element
//   check_all_forms(policy, first, n, comp, expect_max, expect_min, label)
//                                    max_element, min_element (both forms) and
//                                    minmax_element against the expected indices
//   make_ties<T>(n, offset)          values -1, 0, 1, 2 (0..3 unsigned) at random: many ties
//   check_extrema(d, data_name)      every backend, every form, less<> and greater<>,
//                                    against CUB (NaN-free data) or the host reference
//   extrema_suite<T>()               every standard size x pattern, misaligned starts
//
// Every test file is its own executable, linked with test/gpu/main.cu.
#include "common.cuh"

#include <cuda/std/cstdint>

#include <iterator>

namespace tt {

// ---------------------------------------------------------------------------------------
// References

/// CUB's index of the first largest (Max) or first smallest item of [in, in + n), n >= 1,
/// on the default stream (tally_support::cub_arg_extremum: cub::DeviceReduce::ArgMax /
/// ArgMin). CUB compares with plain `<` / `>`: the reference only for data without NaN
/// (where -0.0 == +0.0 agrees with the library's order too).
template <bool Max, class In>
long long cub_arg(In in, long long n) {
  REQUIRE(n >= 1);
  return tally_support::cub_arg_extremum<Max>(in, std::uint64_t(n));
}

/// The library's order (NaN greatest, -0.0 == +0.0) as a comparator.
using lib_order_less = tally_support::library_order_less;

// ---------------------------------------------------------------------------------------
// Running tally

enum class ext_mode {
  sync,   ///< tally::max_element / min_element on the policy's stream: returns an iterator
  async,  ///< tally::max_element_into / min_element_into on test_stream(), then synchronise
};
inline constexpr ext_mode ext_modes[] = {ext_mode::sync, ext_mode::async};

inline const char* ext_name(bool max, ext_mode m) {
  if (m == ext_mode::sync) return max ? "max_element" : "min_element";
  return max ? "max_element_into" : "min_element_into";
}

/// The index tally finds in [first, first + n) (Max: max_element, else min_element).
/// Nothing (after reporting) when tally threw, when the sync form returned an iterator
/// outside [first, first + n], or when the async form wrote outside its output item.
template <bool Max, class Policy, class It, class Compare>
std::optional<long long> run_extremum(const Policy& policy, It first, long long n, Compare comp, ext_mode mode,
                                      const std::string& what) {
  try {
    const It last = first + n;
    if (mode == ext_mode::sync) {
      It found;
      if constexpr (Max) found = tally::max_element(policy, first, last, comp);
      else found = tally::min_element(policy, first, last, comp);
      const long long index = static_cast<long long>(found - first);
      if (!report(index >= 0 && index <= n, what + ": returned an iterator outside [first, last]: index " +
                                                std::to_string(index)))
        return std::nullopt;
      return index;
    }
    unsigned char* area = output_area();
    TT_CUDA(cudaMemset(area, guard_byte, 3 * sizeof(std::int64_t)));
    TT_CUDA(cudaDeviceSynchronize());
    std::int64_t* out = reinterpret_cast<std::int64_t*>(area) + 1;
    const cudaStream_t stream = test_stream();
    if constexpr (Max) tally::max_element_into(policy.on(stream), first, last, out, comp);
    else tally::min_element_into(policy.on(stream), first, last, out, comp);
    TT_CUDA(cudaStreamSynchronize(stream));
    std::vector<unsigned char> bytes(3 * sizeof(std::int64_t));
    TT_CUDA(cudaMemcpy(bytes.data(), area, bytes.size(), cudaMemcpyDeviceToHost));
    bool guards_intact = true;
    for (std::size_t i = 0; i < sizeof(std::int64_t); ++i)
      guards_intact = guards_intact && bytes[i] == guard_byte && bytes[2 * sizeof(std::int64_t) + i] == guard_byte;
    if (!report(guards_intact, what + ": wrote outside *out_index")) return std::nullopt;
    std::int64_t index;
    std::memcpy(&index, bytes.data() + sizeof(std::int64_t), sizeof(index));
    return static_cast<long long>(index);
  } catch (const std::exception& e) {  // (doctest's own REQUIRE failures are no std::exception)
    report(false, what + ": threw " + e.what());
    return std::nullopt;
  }
}

/// {index of the first smallest, index of the first largest} from tally::minmax_element.
template <class Policy, class It, class Compare>
std::optional<std::pair<long long, long long>> run_minmax(const Policy& policy, It first, long long n, Compare comp,
                                                          const std::string& what) {
  try {
    const auto r = tally::minmax_element(policy, first, first + n, comp);
    const long long lo = static_cast<long long>(r.first - first), hi = static_cast<long long>(r.second - first);
    if (!report(lo >= 0 && lo <= n && hi >= 0 && hi <= n,
                what + ": returned an iterator outside [first, last]: " + std::to_string(lo) + ", " +
                    std::to_string(hi)))
      return std::nullopt;
    return std::make_pair(lo, hi);
  } catch (const std::exception& e) {
    report(false, what + ": threw " + e.what());
    return std::nullopt;
  }
}

/// Runs max_element, min_element (both forms) and minmax_element with `comp` under
/// `policy` and checks them against the expected indices.
template <class Policy, class It, class Compare>
void check_all_forms(const Policy& policy, It first, long long n, Compare comp, long long expect_max,
                     long long expect_min, const std::string& label) {
  for (ext_mode mode : ext_modes) {
    const std::string what_max = std::string(ext_name(true, mode)) + " " + label;
    if (auto r = run_extremum<true>(policy, first, n, comp, mode, what_max)) check_exact(*r, expect_max, what_max);
    const std::string what_min = std::string(ext_name(false, mode)) + " " + label;
    if (auto r = run_extremum<false>(policy, first, n, comp, mode, what_min)) check_exact(*r, expect_min, what_min);
  }
  const std::string what = "minmax_element " + label;
  if (auto r = run_minmax(policy, first, n, comp, what)) {
    check_exact(r->first, expect_min, what + " (min)");
    check_exact(r->second, expect_max, what + " (max)");
  }
}

// ---------------------------------------------------------------------------------------
// Data: many ties

/// -1, 0, 1, 2 (0..3 for unsigned types) at random.
template <class T>
struct ties_items {
  std::uint64_t seed;
  __host__ __device__ T operator()(std::uint64_t i) const {
    return from_double<T>(double(hash(i, seed) % 4) - (std::is_unsigned_v<T> ? 0.0 : 1.0));
  }
};

/// n items of -1, 0, 1, 2 (0..3 for unsigned types) at random: every value occurs about
/// n/4 times, so the first occurrence has to win among many. Poison around, as make_data.
template <class T>
dataset<T> make_ties(long long n, int offset = 0, std::uint64_t seed = default_seed) {
  return make_generated<T>(n, ties_items<T>{seed}, offset);
}

// ---------------------------------------------------------------------------------------
// The standard suite

/// Every backend, every form (max_element, min_element, their _into forms, minmax_element),
/// under tally::less<> and tally::greater<> (which swaps max and min), on one data set.
/// The expected indices: CUB's ArgMax / ArgMin where the data has no NaN; the host
/// reference in the library's order where it has (max_element finds the first NaN,
/// min_element ignores NaN). CUB and the host reference must agree on NaN-free data
/// (checked up to 2^20 items, and wherever the host copy is taken anyway), and the host
/// backend (tally::host) must give the same indices.
template <class T>
void check_extrema(const dataset<T>& d, const char* data_name) {
  INFO("type=", type_name<T>(), " n=", d.n, " data=", data_name, " offset=", d.offset);
  const bool has_nan = d.pat == pattern::with_nan;
  const bool host_reference = has_nan_or_signed_zeros(d.pat);
  const bool need_host = host_reference || d.n <= (1LL << 20);

  std::vector<T> host;
  if (need_host) host = d.host();
  long long expect_max = 0, expect_min = 0;  // an empty range: the index n = 0
  if (d.n > 0) {
    if (host_reference) {
      expect_max = host_arg<true>(host, lib_order_less{});
      expect_min = host_arg<false>(host, lib_order_less{});
    }
    if (!has_nan) {  // CUB agrees where its plain `<` is the library's order
      const long long cub_max = cub_arg<true>(d.ptr, d.n), cub_min = cub_arg<false>(d.ptr, d.n);
      if (need_host) {
        check_exact(cub_max, host_arg<true>(host, lib_order_less{}), "CUB ArgMax vs host reference");
        check_exact(cub_min, host_arg<false>(host, lib_order_less{}), "CUB ArgMin vs host reference");
      }
      if (!host_reference) {
        expect_max = cub_max;
        expect_min = cub_min;
      }
    }
  }

  // The host backend follows the same semantics.
  if (need_host) {
    const auto b = host.begin(), e = host.end();
    check_exact(static_cast<long long>(tally::max_element(tally::host, b, e) - b), expect_max,
                "tally::host max_element");
    check_exact(static_cast<long long>(tally::min_element(tally::host, b, e) - b), expect_min,
                "tally::host min_element");
    const auto mm = tally::minmax_element(tally::host, b, e);
    check_exact(static_cast<long long>(mm.first - b), expect_min, "tally::host minmax_element (min)");
    check_exact(static_cast<long long>(mm.second - b), expect_max, "tally::host minmax_element (max)");
    check_exact(static_cast<long long>(tally::max_element(tally::host, b, e, tally::greater<>{}) - b), expect_min,
                "tally::host max_element comp=greater");
  }

  for_each_backend([&](auto backend) {
    const auto policy = tally::par.with(backend);
    const std::string b = std::string("backend=") + backend_label(backend);
    check_all_forms(policy, d.ptr, d.n, tally::less<>{}, expect_max, expect_min, b + " comp=less<>");
    // greater<>: max_element finds the first smallest, min_element the first largest.
    check_all_forms(policy, d.ptr, d.n, tally::greater<>{}, expect_min, expect_max, b + " comp=greater<>");
  });
}

/// The data patterns of the extrema suite at size n: the reduce suite's (common.cuh,
/// signed zeros and NaN included for floats), and for floats above 2^21 items also
/// constant, all +inf and all -inf (the first index must win across many blocks; cub#642).
template <class T>
std::vector<pattern> extrema_patterns_for(long long n) {
  std::vector<pattern> p = patterns_for<T>(n);
  if constexpr (is_float_v<T>) {
    if (n > (1LL << 21)) p.insert(p.end(), {pattern::constant, pattern::pos_inf, pattern::neg_inf});
  }
  return p;
}

/// Every standard size (common.cuh) x pattern, plus the ties data; then misaligned
/// starts (ptr + 1, ptr + 3 for types of up to 4 bytes, ptr + 1 otherwise) on random
/// and tied data.
template <class T>
void extrema_suite() {
  failure_budget budget;
  for (long long n : standard_sizes()) {
    for (pattern p : extrema_patterns_for<T>(n)) check_extrema(make_data<T>(n, p), pattern_name(p));
    check_extrema(make_ties<T>(n), "ties");
  }
  const std::vector<int> offsets = sizeof(T) <= 4 ? std::vector<int>{1, 3} : std::vector<int>{1};
  for (int offset : offsets) {
    for (long long n : misaligned_sizes()) {
      check_extrema(make_data<T>(n, pattern::random, offset), "random");
      check_extrema(make_ties<T>(n, offset), "ties");
    }
  }
}

}  // namespace tt
