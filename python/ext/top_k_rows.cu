// top_k over rows in one launch: tally::top_k_into over tally::rows (k <= 2048).
#include "call.cuh"
#include "dtypes.cuh"
#include "ops.hpp"

#include <tally/top_k.cuh>

namespace tally_python {

void top_k_rows(const std::string& dtype, address x, std::int64_t rows, std::int64_t length, std::int64_t stride,
                std::int64_t k, bool largest, address values, address indices, int device, address stream) {
  for_dtype(dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
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
  });
}

}  // namespace tally_python
