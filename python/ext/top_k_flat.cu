// top_k over one flat range, any k: tally::top_k_into with a run-time k.
#include "call.cuh"
#include "dtypes.cuh"
#include "ops.hpp"

#include <tally/top_k.cuh>

namespace tally_python {

void top_k_flat(const std::string& dtype, address x, std::int64_t n, std::int64_t k, bool largest, address values,
                address indices, int device, address stream) {
  for_dtype(dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
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
  });
}

}  // namespace tally_python
