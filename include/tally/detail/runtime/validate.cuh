#pragma once
// Argument checks made before any work is queued (DESIGN §2): a reversed range, a null
// pointer with a non-empty range, and a host-only pointer given to a device policy.

#include <tally/detail/runtime/cuda_check.cuh>
#include <tally/detail/runtime/device_context.cuh>
#include <tally/detail/type_traits.cuh>

#include <cstdint>
#include <iterator>

TALLY_NAMESPACE_BEGIN
namespace detail {

/// Throws tally::error when a contiguous input is a null pointer and n > 0.
template <class It>
void check_not_null(const char* algorithm, const char* which, It it, std::int64_t n) {
  if constexpr (is_contiguous_iterator_v<It>) {
    if (n > 0 && to_raw_pointer(it) == nullptr)
      throw_error(algorithm, std::string("null pointer given for ") + which + " with a non-empty range");
  }
}

/// The length of [first, last) as a 64-bit count; throws tally::error when last < first,
/// or when first is a null pointer and the range is not empty. Every entry point calls
/// this first, tally::host included: the host backend has no other argument checks, and
/// without the null check it would dereference the null pointer (a crash, not an error).
template <class It>
std::int64_t checked_distance(const char* algorithm, It first, It last) {
  const auto n = static_cast<std::int64_t>(last - first);
  if (n < 0) throw_error(algorithm, "invalid range: last is before first");
  check_not_null(algorithm, "the input", first, n);
  return n;
}

/// Throws tally::error when a contiguous iterator points to pageable host memory that
/// the device cannot read. Other iterators (counting, transform, ...) cannot be checked.
template <class It>
void check_device_accessible(const char* algorithm, const char* which, It it, const device_context& ctx) {
  if constexpr (is_contiguous_iterator_v<It>) {
    if (ctx.pageable_memory_access) return;  // HMM/ATS systems read host memory directly
    cudaPointerAttributes attributes{};
    const cudaError_t status = cudaPointerGetAttributes(&attributes, to_raw_pointer(it));
    if (status != cudaSuccess) {
      (void)cudaGetLastError();
      throw_cuda_error(algorithm, "cannot query the pointer's memory type", status);
    }
    if (attributes.type == cudaMemoryTypeUnregistered)
      throw_error(algorithm, std::string(which) +
                                 " points to pageable host memory, which the device cannot access; use "
                                 "device, managed or pinned memory, or the tally::host policy");
  }
}

}  // namespace detail
TALLY_NAMESPACE_END
