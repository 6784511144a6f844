#pragma once
/// @file
/// The A/B of two versions of tally in one process (benchmarks/ab/README.md): the calls
/// that ab_calls.cuh compiles against each version, as plain function pointers, so that
/// one program can check them against each other and time them interleaved.

#include <cuda_runtime.h>

#include <cstdint>
#include <vector>

namespace tally_ab {

/// Where a call writes: `out` holds n items (copy_if) or K values / one reduction result,
/// `index` K indices (top_k) or one (max_element), `count` copy_if's count.
struct buffers {
  void* out;
  std::int64_t* index;
  std::int64_t* count;
};

/// Enqueues one call over in[0, n) on `stream`.
using call_fn = void (*)(const void* in, std::int64_t n, const buffers& b, cudaStream_t stream);

/// One call of one case: `impl` is "auto" for the automatic policy, or the forced shape
/// of a variant ("ws 128x4": warp_shuffle, 128 threads, 4 items per thread).
struct entry {
  const char* version;  ///< "old" (the baseline), "new" (the working tree) or a variant's name
  const char* case_name;
  const char* impl;
  call_fn fn;
};

/// Every call of the program: each translation unit adds its table at start-up.
inline std::vector<entry>& registry() {
  static std::vector<entry> entries;
  return entries;
}

struct registrar {
  registrar(const entry* first, int count) { registry().insert(registry().end(), first, first + count); }
};

}  // namespace tally_ab
