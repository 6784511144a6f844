// select (masked copy): tally::copy_if_into with the mask as stencil. The items are moved
// as 1-, 2-, 4- or 8-byte words: the copy does not look at their values, so four kernels
// (each ordered and unordered) serve every dtype. The count goes to the calling thread's
// count slot (runtime.cpp), which wait_count polls.
#include "call.cuh"
#include "ops.hpp"

#include <tally/copy_if.cuh>
#include <tally/reduce.cuh>

#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/transform_iterator.h>

#include <stdexcept>

namespace tally_python {
namespace {

struct nonzero {
  __host__ __device__ bool operator()(std::uint8_t m) const { return m != 0; }
};

/// The number of nonzero bytes in the mask's whole 16-byte word i (words from the first
/// 16-byte boundary at or after the mask's start: `aligned`), plus, for word 0, those of
/// the bytes before and after the whole words (fewer than 16 each). The word's load does
/// not depend on the branch, so an unrolled loop of these calls has all its loads in
/// flight at once (a bounds check around each load kept one in flight a thread: 1.6 TB/s).
struct nonzero_bytes_in_word {
  const std::uint8_t* mask;
  const uint4* aligned;  // mask + head, 16-byte aligned
  std::int64_t head;     // bytes before the first whole word
  std::int64_t tail;     // the first byte after the last whole word
  std::int64_t n;

  __device__ std::int64_t operator()(std::int64_t i) const {
    const uint4 w = aligned[i];
    // __vcmpne4: 0xff in every byte that differs from 0, so 8 set bits a nonzero byte.
    std::int64_t count = (__popc(__vcmpne4(w.x, 0u)) + __popc(__vcmpne4(w.y, 0u)) + __popc(__vcmpne4(w.z, 0u)) +
                          __popc(__vcmpne4(w.w, 0u))) >>
                         3;
    if (i == 0) {
      for (std::int64_t j = 0; j < head; ++j) count += mask[j] != 0;
      for (std::int64_t j = tail; j < n; ++j) count += mask[j] != 0;
    }
    return count;
  }
};

template <class Word>
void select_words(address x, address mask, std::int64_t n, address out, std::int64_t* count, bool ordered,
                  address stream) {
  const auto policy = tally::par.on(as_stream(stream));
  const Word* first = as_pointer<const Word>(x);
  const auto* stencil = as_pointer<const std::uint8_t>(mask);
  if (ordered) {
    tally::copy_if_into(policy, first, first + n, stencil, as_pointer<Word>(out), count, nonzero{});
  } else {
    tally::copy_if_into(policy.unordered(), first, first + n, stencil, as_pointer<Word>(out), count, nonzero{});
  }
}

}  // namespace

void select(int itemsize, address x, address mask, std::int64_t n, address out, bool ordered, bool count_first,
            int device, address stream) {
  if (itemsize != 1 && itemsize != 2 && itemsize != 4 && itemsize != 8)
    throw std::invalid_argument("tally.select: unsupported item size " + std::to_string(itemsize));
  std::int64_t* slot = count_slot(device);
  on_device(device, [&] {
    *reinterpret_cast<volatile std::int64_t*>(slot) = -1;  // no count yet (wait_count's sentinel)
    std::int64_t* copy_count = slot;
    // (A mask shorter than two words has no whole word to hang its bytes on.)
    if (count_first && n >= 32) {
      // The count by a reduce over the mask, queued before the copy: the host has it a
      // mask's read after the stream reaches the call, and goes on while the copy runs.
      // The copy's own count goes to the slot's second word, which nobody reads.
      const auto* bytes = as_pointer<const std::uint8_t>(mask);
      const std::int64_t head = static_cast<std::int64_t>((16 - mask % 16) % 16);
      const std::int64_t words = (n - head) / 16;
      const nonzero_bytes_in_word count_word{bytes, reinterpret_cast<const uint4*>(bytes + head), head,
                                             head + 16 * words, n};
      const auto counts = thrust::make_transform_iterator(thrust::counting_iterator<std::int64_t>(0), count_word);
      tally::reduce_into(tally::par.on(as_stream(stream)), counts, counts + words, slot, std::int64_t(0),
                         tally::plus<std::int64_t>{});
      copy_count = slot + 1;
    }
    switch (itemsize) {
      case 1: return select_words<std::uint8_t>(x, mask, n, out, copy_count, ordered, stream);
      case 2: return select_words<std::uint16_t>(x, mask, n, out, copy_count, ordered, stream);
      case 4: return select_words<std::uint32_t>(x, mask, n, out, copy_count, ordered, stream);
      default: return select_words<std::uint64_t>(x, mask, n, out, copy_count, ordered, stream);
    }
  });
}

}  // namespace tally_python
