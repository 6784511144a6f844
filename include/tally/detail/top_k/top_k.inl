#pragma once
// Definitions of top_k and top_k_into (declared in <tally/top_k.cuh>).

#include <tally/backend/host/top_k.hpp>
#include <tally/detail/runtime/scratch.cuh>
#include <tally/detail/pieces/dispatch.cuh>
#include <tally/detail/top_k/dispatch.cuh>
#include <tally/detail/top_k/pieces_dispatch.cuh>
#include <tally/detail/top_k/select_dispatch.cuh>
#include <tally/detail/runtime/validate.cuh>

#include <algorithm>
#include <limits>
#include <string>

TALLY_NAMESPACE_BEGIN
namespace detail {

template <int K>
constexpr void check_top_k_size() {
  static_assert(K >= 1 && K <= max_top_k, "tally: top_k<K> needs 1 <= K <= tally::max_top_k (32)");
}

template <int K>
int top_k_count(std::int64_t n) {
  return static_cast<int>(n < K ? n : K);
}

}  // namespace detail

template <int K, class Policy, class It, class Compare, std::enable_if_t<is_execution_policy_v<Policy>, int>>
top_k_result<detail::iter_value_t<It>, K> top_k(const Policy& policy, It first, It last, Compare comp) {
  detail::check_top_k_size<K>();
  constexpr const char* algorithm = "tally::top_k";
  using T = detail::iter_value_t<It>;
  top_k_result<T, K> result;
  const std::int64_t n = detail::checked_distance(algorithm, first, last);
  if constexpr (is_host_policy_v<Policy>) {
    result.count =
        backend_host::top_k<K>(first, last, result.values.data(), result.indices.data(), detail::to_tally_op(comp));
  } else {
    detail::check_not_null(algorithm, "the input", first, n);
    if (n == 0) return result;
    const detail::device_context ctx = detail::current_device(algorithm);
    detail::check_device_accessible(algorithm, "the input", first, ctx);
    // The kernel writes straight into pinned host memory: the indices, then the values.
    constexpr std::size_t values_offset = (K * sizeof(std::int64_t) + alignof(T) - 1) / alignof(T) * alignof(T);
    auto* buffer = static_cast<unsigned char*>(detail::pinned_result_buffer(algorithm, values_offset + K * sizeof(T)));
    auto* indices = reinterpret_cast<std::int64_t*>(buffer);
    auto* values = reinterpret_cast<T*>(buffer + values_offset);
    detail::dispatch_top_k<K>(algorithm, policy, ctx, detail::unwrap_iterator(first), n, values, indices,
                              detail::to_tally_op(comp));
    detail::check(cudaStreamSynchronize(policy.stream()), algorithm, "the selection failed");
    result.count = detail::top_k_count<K>(n);
    std::copy(indices, indices + result.count, result.indices.begin());
    std::copy(values, values + result.count, result.values.begin());
  }
  return result;
}

template <int K, class Policy, class It, class ValueOut, class IndexOut, class Compare,
          std::enable_if_t<is_execution_policy_v<Policy>, int>>
void top_k_into(const Policy& policy, It first, It last, ValueOut values, IndexOut indices, Compare comp) {
  detail::check_top_k_size<K>();
  constexpr const char* algorithm = "tally::top_k_into";
  const std::int64_t n = detail::checked_distance(algorithm, first, last);
  const int count = detail::top_k_count<K>(n);
  if constexpr (is_host_policy_v<Policy>) {
    const top_k_result<detail::iter_value_t<It>, K> result = tally::top_k<K>(policy, first, last, comp);
    for (int i = 0; i < result.count; ++i) {
      values[i] = result.values[i];
      indices[i] = result.indices[i];
    }
  } else {
    detail::check_not_null(algorithm, "the input", first, n);
    detail::check_not_null(algorithm, "the values output", values, count);
    detail::check_not_null(algorithm, "the indices output", indices, count);
    if (n == 0) return;  // nothing to write
    const detail::device_context ctx = detail::current_device(algorithm);
    detail::check_device_accessible(algorithm, "the input", first, ctx);
    detail::check_device_accessible(algorithm, "the values output", values, ctx);
    detail::check_device_accessible(algorithm, "the indices output", indices, ctx);
    detail::dispatch_top_k<K>(algorithm, policy, ctx, detail::unwrap_iterator(first), n,
                              detail::unwrap_iterator(values), detail::unwrap_iterator(indices), detail::to_tally_op(comp));
  }
}

template <class Policy, class It, class Compare, std::enable_if_t<is_execution_policy_v<Policy>, int>>
top_k_values<detail::iter_value_t<It>> top_k(const Policy& policy, It first, It last, std::int64_t k, Compare comp) {
  constexpr const char* algorithm = "tally::top_k";
  using T = detail::iter_value_t<It>;
  top_k_values<T> result;
  const std::int64_t n = detail::checked_distance(algorithm, first, last);
  if (k < 1) detail::throw_error(algorithm, "k must be at least 1 (got " + std::to_string(k) + ")");
  if constexpr (is_host_policy_v<Policy>) {
    backend_host::top_k(first, last, k, result.values, result.indices, detail::to_tally_op(comp));
  } else {
    detail::check_not_null(algorithm, "the input", first, n);
    if (n == 0) return result;
    const std::int64_t count = k < n ? k : n;
    const detail::device_context ctx = detail::current_device(algorithm);
    detail::check_device_accessible(algorithm, "the input", first, ctx);
    // The kernel writes straight into pinned host memory: the indices, then the values.
    const std::size_t values_offset = detail::align_up(std::size_t(count) * sizeof(std::int64_t), alignof(T));
    auto* buffer = static_cast<unsigned char*>(detail::pinned_result_buffer(algorithm, values_offset + count * sizeof(T)));
    auto* indices = reinterpret_cast<std::int64_t*>(buffer);
    auto* values = reinterpret_cast<T*>(buffer + values_offset);
    detail::dispatch_top_k_select(algorithm, policy, ctx, detail::unwrap_iterator(first), n, count, values, indices,
                                  detail::to_tally_op(comp));
    detail::check(cudaStreamSynchronize(policy.stream()), algorithm, "the selection failed");
    result.indices.assign(indices, indices + count);
    result.values.assign(values, values + count);
  }
  return result;
}

template <class Policy, class It, class ValueOut, class IndexOut, class Compare,
          std::enable_if_t<is_execution_policy_v<Policy>, int>>
void top_k_into(const Policy& policy, It first, It last, std::int64_t k, ValueOut values, IndexOut indices,
                Compare comp) {
  constexpr const char* algorithm = "tally::top_k_into";
  const std::int64_t n = detail::checked_distance(algorithm, first, last);
  if (k < 1) detail::throw_error(algorithm, "k must be at least 1 (got " + std::to_string(k) + ")");
  const std::int64_t count = k < n ? k : n;
  if constexpr (is_host_policy_v<Policy>) {
    const auto result = tally::top_k(policy, first, last, k, comp);
    for (std::int64_t i = 0; i < count; ++i) {
      values[i] = result.values[static_cast<std::size_t>(i)];
      indices[i] = result.indices[static_cast<std::size_t>(i)];
    }
  } else {
    detail::check_not_null(algorithm, "the input", first, n);
    detail::check_not_null(algorithm, "the values output", values, count);
    detail::check_not_null(algorithm, "the indices output", indices, count);
    if (n == 0) return;  // nothing to write
    const detail::device_context ctx = detail::current_device(algorithm);
    detail::check_device_accessible(algorithm, "the input", first, ctx);
    detail::check_device_accessible(algorithm, "the values output", values, ctx);
    detail::check_device_accessible(algorithm, "the indices output", indices, ctx);
    detail::dispatch_top_k_select(algorithm, policy, ctx, detail::unwrap_iterator(first), n, count,
                                  detail::unwrap_iterator(values), detail::unwrap_iterator(indices),
                                  detail::to_tally_op(comp));
  }
}

template <class Policy, class It, class Pieces, class ValueOut, class IndexOut, class Compare,
          std::enable_if_t<is_execution_policy_v<Policy> && is_pieces_v<Pieces>, int>>
void top_k_into(const Policy& policy, It first, const Pieces& pieces, std::int64_t k, ValueOut values,
                IndexOut indices, Compare comp) {
  static_assert(max_top_k_pieces == detail::pieces_top_k_max_k, "one limit");
  constexpr const char* algorithm = "tally::top_k_into";
  if (k < 1) detail::throw_error(algorithm, "k must be at least 1 (got " + std::to_string(k) + ")");
  detail::check_pieces(algorithm, pieces);
  const std::int64_t count = pieces.count();
  if (count > 0 && k > std::numeric_limits<std::int64_t>::max() / count)
    detail::throw_error(algorithm, "the number of pieces x k does not fit in 64 bits");
  const std::int64_t extent = detail::pieces_extent(pieces);
  detail::check_not_null(algorithm, "the input", first, extent < 0 ? count : extent);
  detail::check_not_null(algorithm, "the values output", values, count * k);
  detail::check_not_null(algorithm, "the indices output", indices, count * k);
  if constexpr (is_host_policy_v<Policy>) {
    backend_host::top_k_pieces(first, pieces, k, values, indices, detail::to_tally_op(comp));
  } else {
    if (k > max_top_k_pieces)
      detail::throw_error(algorithm, "k over pieces is at most tally::max_top_k_pieces (2048) on the device (got " +
                                         std::to_string(k) + ")");
    if (count == 0) return;
    const detail::device_context ctx = detail::current_device(algorithm);
    if (extent != 0) detail::check_device_accessible(algorithm, "the input", first, ctx);
    detail::check_device_accessible(algorithm, "the values output", values, ctx);
    detail::check_device_accessible(algorithm, "the indices output", indices, ctx);
    if constexpr (!std::is_same_v<Pieces, rows_t>) {
      detail::check_device_accessible(algorithm, "the segments' begin offsets", pieces.begin_offsets, ctx);
      detail::check_device_accessible(algorithm, "the segments' end offsets", pieces.end_offsets, ctx);
    }
    detail::dispatch_top_k_pieces(algorithm, policy, ctx, detail::unwrap_iterator(first), pieces, k,
                                  detail::unwrap_iterator(values), detail::unwrap_iterator(indices),
                                  detail::to_tally_op(comp));
  }
}

TALLY_NAMESPACE_END
