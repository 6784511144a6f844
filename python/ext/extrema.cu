// argmax / argmin over rows: tally::max_element_into / min_element_into over tally::rows.
#include "call.cuh"
#include "dtypes.cuh"
#include "ops.hpp"

#include <tally/max_element.cuh>

namespace tally_python {

void argmax_rows(const std::string& dtype, address x, std::int64_t rows, std::int64_t length, std::int64_t stride,
                 address out, int device, address stream) {
  for_dtype(dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    on_device(device, [&] {
      tally::max_element_into(tally::par.on(as_stream(stream)), as_pointer<const T>(x), tally::rows(rows, length, stride),
                              as_pointer<std::int64_t>(out));
    });
  });
}

void argmin_rows(const std::string& dtype, address x, std::int64_t rows, std::int64_t length, std::int64_t stride,
                 address out, int device, address stream) {
  for_dtype(dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    on_device(device, [&] {
      tally::min_element_into(tally::par.on(as_stream(stream)), as_pointer<const T>(x), tally::rows(rows, length, stride),
                              as_pointer<std::int64_t>(out));
    });
  });
}

}  // namespace tally_python
