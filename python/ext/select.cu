// select (masked copy): tally::copy_if_into with the mask as stencil. The items are moved
// as 1-, 2-, 4- or 8-byte words: the copy does not look at their values, so four kernels
// (each ordered and unordered) serve every dtype.
#include "call.cuh"
#include "ops.hpp"

#include <tally/copy_if.cuh>

#include <stdexcept>

namespace tally_python {
namespace {

struct nonzero {
  __host__ __device__ bool operator()(std::uint8_t m) const { return m != 0; }
};

template <class Word>
void select_words(address x, address mask, std::int64_t n, address out, address count, bool ordered,
                  address stream) {
  const auto policy = tally::par.on(as_stream(stream));
  const Word* first = as_pointer<const Word>(x);
  const auto* stencil = as_pointer<const std::uint8_t>(mask);
  auto* count_out = as_pointer<std::int64_t>(count);
  if (ordered) {
    tally::copy_if_into(policy, first, first + n, stencil, as_pointer<Word>(out), count_out, nonzero{});
  } else {
    tally::copy_if_into(policy.unordered(), first, first + n, stencil, as_pointer<Word>(out), count_out, nonzero{});
  }
}

}  // namespace

void select(int itemsize, address x, address mask, std::int64_t n, address out, address count, bool ordered,
            int device, address stream) {
  on_device(device, [&] {
    switch (itemsize) {
      case 1: return select_words<std::uint8_t>(x, mask, n, out, count, ordered, stream);
      case 2: return select_words<std::uint16_t>(x, mask, n, out, count, ordered, stream);
      case 4: return select_words<std::uint32_t>(x, mask, n, out, count, ordered, stream);
      case 8: return select_words<std::uint64_t>(x, mask, n, out, count, ordered, stream);
      default: throw std::invalid_argument("tally.select: unsupported item size " + std::to_string(itemsize));
    }
  });
}

}  // namespace tally_python
