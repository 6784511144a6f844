// top_k over rows in one launch and over one flat range: the dtype's name chooses the
// element type; the kernels themselves are instantiated in the generated top_k_<i>.cu.
#include "dtypes.cuh"
#include "top_k.hpp"

namespace tally_python {

static_assert(dtype_count == 2 * TALLY_PYTHON_TOP_K_UNITS,
              "python/CMakeLists.txt generates one unit of top_k's instances for two types");

void top_k_rows(const std::string& dtype, address x, std::int64_t rows, std::int64_t length, std::int64_t stride,
                std::int64_t k, bool largest, address values, address indices, int device, address stream) {
  for_dtype(dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    top_k_rows_of<T>(x, rows, length, stride, k, largest, values, indices, device, stream);
  });
}

void top_k_flat(const std::string& dtype, address x, std::int64_t n, std::int64_t k, bool largest, address values,
                address indices, int device, address stream) {
  for_dtype(dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    top_k_flat_of<T>(x, n, k, largest, values, indices, device, stream);
  });
}

}  // namespace tally_python
