#pragma once
// The shared_memory backend's reduce: the last-block kernel with a shared-memory tree.

#include <tally/backend/shared_memory/block_reduce.cuh>
#include <tally/detail/reduce/last_block_kernel.cuh>

TALLY_NAMESPACE_BEGIN
namespace backend_shared_memory {

template <int Threads, int ItemsPerThread, class T, class It, class Convert, class Op, class Finish, class Out>
inline constexpr auto reduce_kernel =
    detail::last_block_reduce_kernel<block_reduce, Threads, ItemsPerThread, T, It, Convert, Op, Finish, Out>;

}  // namespace backend_shared_memory
TALLY_NAMESPACE_END
