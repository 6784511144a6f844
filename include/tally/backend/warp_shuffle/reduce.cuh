#pragma once
// The warp_shuffle backend's reduce: the last-block kernel with shuffles inside warps.

#include <tally/backend/warp_shuffle/block_reduce.cuh>
#include <tally/detail/reduce/last_block_kernel.cuh>

TALLY_NAMESPACE_BEGIN
namespace backend_warp_shuffle {

template <int Threads, int ItemsPerThread, class T, class It, class Convert, class Op, class Finish, class Out>
inline constexpr auto reduce_kernel =
    detail::last_block_reduce_kernel<block_reduce, Threads, ItemsPerThread, T, It, Convert, Op, Finish, Out>;

}  // namespace backend_warp_shuffle
TALLY_NAMESPACE_END
