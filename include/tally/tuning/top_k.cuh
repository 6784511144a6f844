#pragma once
/// @file
/// Launch shapes for top_k under the `automatic` policy (and any policy that does not
/// force a shape with `tune<Threads, Items>()`), by list length and input size.
///
/// top_k has one kernel on every backend (the backends differ in how a block's lists
/// merge, see <tally/top_k.cuh>), so a rule gives only threads per block and items per
/// thread. The list length is K rounded up to a power of two.

#include <tally/policy.cuh>

#include <cstdint>

TALLY_NAMESPACE_BEGIN
namespace tuning {

struct top_k_shape {
  int threads;
  int items_per_thread;
};

constexpr bool operator==(const top_k_shape& a, const top_k_shape& b) {
  return a.threads == b.threads && a.items_per_thread == b.items_per_thread;
}

/// Lists of at most 2 entries (top_k<1>, top_k<2>) take the shapes of the reduce
/// tables' min/max rows for 4-byte items: 512 x 8 up to 2^20 items (enough blocks to fill
/// the GPU from 2^17 on), 1024 x 8 above. Longer lists take 256 x 8: a list of P
/// candidates holds P or 2P registers per thread (4 times that while two lists merge),
/// and at 512 threads per block the compiler may use only 128 registers per thread.
inline constexpr top_k_shape top_k_small_shape(int list_size) {
  return list_size <= 2 ? top_k_shape{512, 8} : top_k_shape{256, 8};
}
inline constexpr top_k_shape top_k_large_shape(int list_size) {
  return list_size <= 2 ? top_k_shape{1024, 8} : top_k_shape{256, 8};
}

constexpr top_k_shape select_top_k(int list_size, std::int64_t n) {
  return n <= (std::int64_t(1) << 20) ? top_k_small_shape(list_size) : top_k_large_shape(list_size);
}

}  // namespace tuning
TALLY_NAMESPACE_END
