#pragma once
// top_k's kernels for one element type T, declared here and defined in top_k.cuh: top_k.cu
// chooses T from the dtype's name, and each of the generated units top_k_<i>.cu (see
// python/CMakeLists.txt) instantiates them for two types, so that the twelve types'
// kernels compile in parallel.

#include "ops.hpp"

#include <cstdint>

namespace tally_python {

/// top_k_rows (ops.hpp) over items of type T.
template <class T>
void top_k_rows_of(address x, std::int64_t rows, std::int64_t length, std::int64_t stride, std::int64_t k,
                   bool largest, address values, address indices, int device, address stream);

/// top_k_flat (ops.hpp) over items of type T.
template <class T>
void top_k_flat_of(address x, std::int64_t n, std::int64_t k, bool largest, address values, address indices,
                   int device, address stream);

}  // namespace tally_python
