#pragma once
/// @file
/// Host-side references and comparisons, shared by the GPU tests (test/gpu/), `tally
/// verify` (src/checks_*.cu) and the benchmarks; the device-side references (CUB's answer
/// on a device input) are in reference.cuh.
///
///   same_value(a, b)          exact: equal bits, both NaN, or both zero (-0.0 == +0.0)
///   same_item(a, b)           equal bits, or both NaN (a copy keeps the sign of a zero)
///   close_enough(got, ref, r) |got - ref| <= r * |ref| (r = 0: exact); NaN only NaN
///   within(got, ref, tol)     |got - ref| <= tol; NaN only NaN, an infinity only itself
///   describe(x), value_text(x)
///                             a value for messages: with its bits / as a user reads it
///   library_less(a, b)        the library's order: NaN above everything, -0.0 == +0.0
///   host_max / host_min / host_arg<Max> / host_top_indices
///                             plain host loops in any order: the references where CUB's
///                             plain `<` is not the library's order (NaN, signed zeros) or
///                             where CUB has no equivalent (user comparators)
///
/// Value types: integers, float, double, __half, __nv_bfloat16; describe() takes any
/// other type through `describe_value(x)`, found by ADL.

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <numeric>
#include <string>
#include <type_traits>
#include <vector>

#if defined(__CUDACC__)
#define TALLY_SUPPORT_HD __host__ __device__
#else
#define TALLY_SUPPORT_HD
#endif

namespace tally_support {

// --- value types ----------------------------------------------------------------------

template <class T>
inline constexpr bool is_16bit_float_v = std::is_same_v<T, __half> || std::is_same_v<T, __nv_bfloat16>;
template <class T>
inline constexpr bool is_float_v = std::is_floating_point_v<T> || is_16bit_float_v<T>;

/// x as a double (exact for every supported type but the 64-bit integers above 2^53).
template <class T>
TALLY_SUPPORT_HD double to_double(const T& x) {
  if constexpr (std::is_same_v<T, __half>) return double(__half2float(x));
  else if constexpr (std::is_same_v<T, __nv_bfloat16>) return double(__bfloat162float(x));
  else return static_cast<double>(x);
}

template <class T>
TALLY_SUPPORT_HD bool is_nan(const T& x) {
  if constexpr (is_float_v<T>) {
    const double d = to_double(x);
    return d != d;
  } else {
    return false;
  }
}

/// The bit pattern of x, zero-extended.
template <class T>
std::uint64_t bit_pattern(const T& x) {
  static_assert(sizeof(T) <= 8);
  std::uint64_t b = 0;
  std::memcpy(&b, &x, sizeof(T));
  return b;
}

// --- comparisons ------------------------------------------------------------------------

/// Exact equality in the sense of the tests: integers (and other types) equal; floats
/// with equal bits, or both NaN, or both zero (-0.0 == +0.0: which zero a max over both
/// zeros returns is not specified).
template <class T>
bool same_value(const T& a, const T& b) {
  if constexpr (is_float_v<T>) {
    if (is_nan(a) || is_nan(b)) return is_nan(a) && is_nan(b);
    if (to_double(a) == 0.0 && to_double(b) == 0.0) return true;
    return bit_pattern(a) == bit_pattern(b);
  } else {
    return a == b;
  }
}

/// The same bits (any NaN matches any NaN: the payload of a NaN is not specified).
template <class T>
bool same_item(const T& a, const T& b) {
  if (std::memcmp(&a, &b, sizeof(T)) == 0) return true;
  if constexpr (is_float_v<T>) return is_nan(a) && is_nan(b);
  else return false;
}

/// How close a result must be to the reference: exact (integers, max, min: rel_tol 0)
/// or |got - ref| <= rel_tol * |ref|. NaN matches only NaN, an infinity only the same
/// infinity.
template <class T>
bool close_enough(T got, T ref, double rel_tol) {
  if constexpr (std::is_integral_v<T>) {
    return got == ref;
  } else {
    const double g = to_double(got), r = to_double(ref);
    if (std::isnan(r) || std::isnan(g)) return std::isnan(r) && std::isnan(g);
    if (rel_tol == 0 || std::isinf(r)) return g == r;  // == treats -0.0 and +0.0 as equal
    return std::fabs(g - r) <= rel_tol * std::fabs(r);
  }
}

/// |got - ref| <= tol (an absolute tolerance); NaN matches only NaN, an infinity only the
/// same infinity.
template <class T>
bool within(const T& got, const T& ref, double tol) {
  const double g = to_double(got), r = to_double(ref);
  if (std::isnan(r) || std::isnan(g)) return std::isnan(r) && std::isnan(g);
  if (std::isinf(r) || std::isinf(g)) return g == r;
  return std::fabs(g - r) <= tol;
}

// --- messages ---------------------------------------------------------------------------

/// A readable value with its bits: integers in decimal, floats as %.10g [bits 0x...];
/// other types through describe_value(x) (ADL).
template <class T>
std::string describe(const T& x) {
  if constexpr (std::is_integral_v<T> && std::is_signed_v<T>) {
    return std::to_string(static_cast<long long>(x));
  } else if constexpr (std::is_integral_v<T>) {
    return std::to_string(static_cast<unsigned long long>(x));
  } else if constexpr (is_float_v<T>) {
    char buf[96];
    std::snprintf(buf, sizeof buf, "%.10g [bits 0x%llx]", to_double(x),
                  static_cast<unsigned long long>(bit_pattern(x)));
    return buf;
  } else {
    return describe_value(x);
  }
}

/// A value as a user reads it: integers in full, floats with 9 significant digits
/// ("nan", "-0", "inf").
template <class T>
std::string value_text(const T& x) {
  if constexpr (std::is_integral_v<T>) {
    return std::to_string(x);
  } else {
    const double d = to_double(x);
    if (std::isnan(d)) return "nan";
    char buf[48];
    std::snprintf(buf, sizeof buf, "%.9g", d);
    return buf;
  }
}

// --- host references in the library's order ---------------------------------------------

/// The library's order: NaN above everything (all NaNs equal), -0.0 == +0.0; integers
/// and other types by `<`.
template <class T>
bool library_less(const T& a, const T& b) {
  if constexpr (is_float_v<T>) {
    if (is_nan(a)) return false;
    if (is_nan(b)) return true;
    return to_double(a) < to_double(b);
  } else {
    return a < b;
  }
}

/// library_less as a comparator.
struct library_order_less {
  template <class T>
  bool operator()(const T& a, const T& b) const {
    return library_less(a, b);
  }
};
/// library_less with the arguments swapped: the smallest first under host_top_indices.
struct library_order_greater {
  template <class T>
  bool operator()(const T& a, const T& b) const {
    return library_less(b, a);
  }
};

/// The maximum of init and v in the library's order (the first of equal maxima).
template <class T>
T host_max(const std::vector<T>& v, T init) {
  T acc = init;
  for (const T& x : v)
    if (library_less(acc, x)) acc = x;
  return acc;
}
/// The minimum of init and v in the library's order (the first of equal minima).
template <class T>
T host_min(const std::vector<T>& v, T init) {
  T acc = init;
  for (const T& x : v)
    if (library_less(x, acc)) acc = x;
  return acc;
}

/// Index of the first largest (Max) or first smallest item under `less`; 0 when empty.
template <bool Max, class T, class Less>
long long host_arg(const std::vector<T>& v, Less less) {
  std::size_t best = 0;
  for (std::size_t i = 1; i < v.size(); ++i)
    if (Max ? less(v[best], v[i]) : less(v[i], v[best])) best = i;
  return static_cast<long long>(best);
}

/// The first min(count, n) indices of v ordered best first under `less` (the largest
/// first), equal values in index order: what top_k gives.
template <class T, class Less>
std::vector<long long> host_top_indices(const std::vector<T>& v, Less less, int count) {
  std::vector<long long> order(v.size());
  std::iota(order.begin(), order.end(), 0LL);
  const std::size_t m = std::min<std::size_t>(std::size_t(count < 0 ? 0 : count), v.size());
  std::partial_sort(order.begin(), order.begin() + static_cast<std::ptrdiff_t>(m), order.end(),
                    [&](long long a, long long b) {
                      if (less(v[std::size_t(b)], v[std::size_t(a)])) return true;
                      if (less(v[std::size_t(a)], v[std::size_t(b)])) return false;
                      return a < b;
                    });
  order.resize(m);
  return order;
}

}  // namespace tally_support
