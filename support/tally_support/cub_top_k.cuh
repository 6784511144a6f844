#pragma once
/// @file
/// CUB's top-k calls, as tests and benchmarks make them (CCCL >= 3.3 for DeviceTopK, 3.5
/// for DeviceBatchedTopK; both absent from the toolkit's CCCL 3.0). Each is the only
/// configuration CCCL 3.5 implements: unsorted and non-deterministic, which must be asked
/// for in the environment, so its results compare with tally's as multisets of values.
/// temp == nullptr sets bytes, as in every CUB two-phase call.
///
///   has_cub_device_top_k       cub_device_top_k(temp, bytes, in, n, k, values, indices, stream)
///   has_cub_batched_top_k      cub_batched_top_k<Length>(temp, bytes, in, rows, k, values, indices, stream)

#include <cuda/std/cstdint>
#include <cstddef>

#include <cub/version.cuh>
#if CCCL_VERSION >= 3003000
#  include <cub/device/device_topk.cuh>
#  include <cuda/iterator>
#  include <cuda/std/execution>
#  include <cuda/stream_ref>
#endif
#if CCCL_VERSION >= 3005000
#  include <cub/device/device_batched_topk.cuh>
#endif

namespace tally_support {

/// Whether cub::DeviceTopK exists (CCCL >= 3.3).
inline constexpr bool has_cub_device_top_k = CCCL_VERSION >= 3003000;
/// Whether cub::DeviceBatchedTopK exists (CCCL >= 3.5).
inline constexpr bool has_cub_batched_top_k = CCCL_VERSION >= 3005000;

#if CCCL_VERSION >= 3003000
/// The environment of CUB's top-k calls on `stream`: unsorted, non-deterministic.
inline auto cub_top_k_env(cudaStream_t stream) {
  auto requirements = ::cuda::execution::require(::cuda::execution::determinism::not_guaranteed,
                                                 ::cuda::execution::output_ordering::unsorted);
  return ::cuda::std::execution::env{::cuda::stream_ref{stream}, requirements};
}

/// cub::DeviceTopK::MaxPairs of [in, in + n) with the indices as the values: the k largest.
template <class T>
cudaError_t cub_device_top_k(void* temp, std::size_t& bytes, const T* in, std::size_t n, int k, T* values,
                             std::int64_t* indices, cudaStream_t stream) {
  return cub::DeviceTopK::MaxPairs(temp, bytes, in, values, ::cuda::counting_iterator<std::int64_t>{0}, indices,
                                   static_cast<std::int64_t>(n), k, cub_top_k_env(stream));
}
#endif

#if CCCL_VERSION >= 3005000
namespace cub_top_k_detail {
/// Row i's first item, or its first output entry: base + i * stride.
template <class P>
struct row_start {
  P base;
  long long stride;
  __host__ __device__ P operator()(long long i) const { return base + i * stride; }
};
/// Every row's values in: the indices within the row.
struct row_indices {
  __host__ __device__ ::cuda::counting_iterator<std::int64_t> operator()(long long) const {
    return ::cuda::counting_iterator<std::int64_t>{0};
  }
};
template <class F>
auto per_row(F f) {
  return ::cuda::transform_iterator{::cuda::counting_iterator<long long>{0}, f};
}
}  // namespace cub_top_k_detail

/// cub::DeviceBatchedTopK::MaxPairs over `rows` contiguous rows of Length items (a
/// compile-time size: CUB 3.5 takes only rows that one block holds): the k largest of
/// each row at values[r * k ..) and their indices within the row at indices[r * k ..).
/// The batched call takes no stream in its environment: it runs on stream 0, which the
/// caller synchronises with its own.
template <int Length, class T>
cudaError_t cub_batched_top_k(void* temp, std::size_t& bytes, const T* in, int rows, int k, T* values,
                              std::int64_t* indices) {
  using namespace cub_top_k_detail;
  const auto requirements = ::cuda::execution::require(::cuda::execution::determinism::not_guaranteed,
                                                       ::cuda::execution::tie_break::unspecified,
                                                       ::cuda::execution::output_ordering::unsorted);
  return cub::DeviceBatchedTopK::MaxPairs(temp, bytes, per_row(row_start<const T*>{in, Length}),
                                          per_row(row_start<T*>{values, k}), per_row(row_indices{}),
                                          per_row(row_start<std::int64_t*>{indices, k}),
                                          ::cuda::args::constant<Length>{}, k, rows, requirements);
}
#endif

}  // namespace tally_support
