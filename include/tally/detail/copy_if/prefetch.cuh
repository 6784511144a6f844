#pragma once
// prefetch_l2_bytes: one thread asks L2 for a range of global memory ahead of the loads
// that will read it (sm_90's bulk prefetch: one instruction for the range; earlier
// architectures: nothing). The stable copy_if asks for its next tile while it counts,
// publishes and looks back for the tiles it holds: without it a block had no read in
// flight from one tile's arrival to the next tile's loads.

#include <tally/detail/config.cuh>

#include <cstddef>
#include <cstdint>

TALLY_NAMESPACE_BEGIN
namespace detail {

/// Prefetches the 16-byte-aligned whole words of [p, p + bytes) into L2 (the bulk
/// prefetch takes aligned ranges of whole 16-byte words; nothing outside the range is
/// asked for). A hint: no effect on results.
__device__ TALLY_FORCEINLINE void prefetch_l2_bytes(const void* p, std::size_t bytes) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  const std::uintptr_t begin = (reinterpret_cast<std::uintptr_t>(p) + 15) & ~std::uintptr_t(15);
  const std::uintptr_t end = (reinterpret_cast<std::uintptr_t>(p) + bytes) & ~std::uintptr_t(15);
  if (end <= begin) return;
  asm volatile("cp.async.bulk.prefetch.L2.global [%0], %1;" ::"l"(begin), "r"(static_cast<unsigned int>(end - begin))
               : "memory");
#else
  (void)p;
  (void)bytes;
#endif
}

}  // namespace detail
TALLY_NAMESPACE_END
