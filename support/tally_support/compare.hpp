#pragma once
/// @file
/// Whether a result matches its reference (CUB's, on the same input): exactly for
/// integers and where `rel_tol` is 0, else within a relative tolerance; NaN matches only
/// NaN, an infinity only the same infinity.
///
///   if (!close_enough(got, cub_result, 1e-4)) report_wrong(...);

#include <cmath>
#include <type_traits>

namespace tally_support {

/// How close a result must be to the reference: exact (integers, max, min: rel_tol 0)
/// or |got - ref| <= rel_tol * |ref|.
template <class T>
bool close_enough(T got, T ref, double rel_tol) {
  if constexpr (std::is_integral_v<T>) {
    return got == ref;
  } else {
    if (std::isnan(ref) || std::isnan(got)) return std::isnan(ref) && std::isnan(got);
    if (rel_tol == 0 || std::isinf(ref)) return got == ref;  // == treats -0.0 and +0.0 as equal
    return std::fabs(double(got) - double(ref)) <= rel_tol * std::fabs(double(ref));
  }
}

}  // namespace tally_support
