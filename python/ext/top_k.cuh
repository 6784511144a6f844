#pragma once
// The definitions of top_k.hpp's kernels: tally::top_k_into with a run-time k over rows
// (tally::rows, k <= 2048) and over one flat range (any k). Included by the generated
// units that instantiate them (TALLY_PYTHON_TOP_K_INSTANCES), not by top_k.cu.
#include "call.cuh"
#include "dtypes.cuh"
#include "top_k.hpp"

#include <tally/top_k.cuh>

namespace tally_python {

template <class T>
void top_k_rows_of(address x, std::int64_t rows, std::int64_t length, std::int64_t stride, std::int64_t k,
                   bool largest, address values, address indices, int device, address stream) {
  on_device(device, [&] {
    const auto policy = tally::par.on(as_stream(stream));
    const auto pieces = tally::rows(rows, length, stride);
    if (largest) {
      tally::top_k_into(policy, as_pointer<const T>(x), pieces, k, as_pointer<T>(values),
                        as_pointer<std::int64_t>(indices), tally::less<>{});
    } else {
      tally::top_k_into(policy, as_pointer<const T>(x), pieces, k, as_pointer<T>(values),
                        as_pointer<std::int64_t>(indices), tally::greater<>{});
    }
  });
}

template <class T>
void top_k_flat_of(address x, std::int64_t n, std::int64_t k, bool largest, address values, address indices,
                   int device, address stream) {
  on_device(device, [&] {
    const auto policy = tally::par.on(as_stream(stream));
    const T* first = as_pointer<const T>(x);
    if (largest) {
      tally::top_k_into(policy, first, first + n, k, as_pointer<T>(values), as_pointer<std::int64_t>(indices),
                        tally::less<>{});
    } else {
      tally::top_k_into(policy, first, first + n, k, as_pointer<T>(values), as_pointer<std::int64_t>(indices),
                        tally::greater<>{});
    }
  });
}

}  // namespace tally_python

/// Instantiates both kernels for T (inside namespace tally_python).
#define TALLY_PYTHON_TOP_K_INSTANCES(T)                                                                       \
  template void top_k_rows_of<T>(address, std::int64_t, std::int64_t, std::int64_t, std::int64_t, bool,       \
                                 address, address, int, address);                                           \
  template void top_k_flat_of<T>(address, std::int64_t, std::int64_t, bool, address, address, int, address);
