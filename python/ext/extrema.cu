// argmax / argmin over rows: tally::max_element_into / min_element_into over tally::rows.
#include "call.cuh"
#include "dtypes.cuh"
#include "ops.hpp"

#include <tally/max_element.cuh>

namespace tally_python {
namespace {

template <bool Largest>
void extremum_rows(const std::string& dtype, address x, std::int64_t rows, std::int64_t length, std::int64_t stride,
                   address out, int device, address stream) {
  for_dtype(dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    on_device(device, [&] {
      const auto policy = tally::par.on(as_stream(stream));
      const auto pieces = tally::rows(rows, length, stride);
      if constexpr (Largest) {
        tally::max_element_into(policy, as_pointer<const T>(x), pieces, as_pointer<std::int64_t>(out));
      } else {
        tally::min_element_into(policy, as_pointer<const T>(x), pieces, as_pointer<std::int64_t>(out));
      }
    });
  });
}

}  // namespace

void argmax_rows(const std::string& dtype, address x, std::int64_t rows, std::int64_t length, std::int64_t stride,
                 address out, int device, address stream) {
  extremum_rows<true>(dtype, x, rows, length, stride, out, device, stream);
}

void argmin_rows(const std::string& dtype, address x, std::int64_t rows, std::int64_t length, std::int64_t stride,
                 address out, int device, address stream) {
  extremum_rows<false>(dtype, x, rows, length, stride, out, device, stream);
}

}  // namespace tally_python
