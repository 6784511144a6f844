#pragma once
// The host backend's copy_if: sequential and stable.

#include <tally/detail/config.cuh>

#include <cstdint>

TALLY_NAMESPACE_BEGIN
namespace backend_host {

/// Copies first[i] to the output when select(first[i], i); returns how many were copied.
template <class It, class OutIt, class Select>
std::int64_t copy_if(It first, It last, OutIt result, Select select) {
  std::int64_t copied = 0, index = 0;
  for (It it = first; it != last; ++it, ++index) {
    if (select(*it, index)) {
      *result = *it;
      ++result;
      ++copied;
    }
  }
  return copied;
}

}  // namespace backend_host
TALLY_NAMESPACE_END
