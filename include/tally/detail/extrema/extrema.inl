#pragma once
// Definitions of the extrema (declared in <tally/max_element.cuh>).

#include <tally/detail/runtime/scratch.cuh>
#include <tally/detail/runtime/validate.cuh>

TALLY_NAMESPACE_BEGIN
namespace detail {

/// The synchronous extremum: index of the best item, read from pinned host memory.
template <bool Max, class Policy, class It, class Compare>
It extremum(const char* algorithm, const Policy& policy, It first, It last, Compare comp) {
  if constexpr (is_host_policy_v<Policy>) {
    const std::int64_t n = checked_distance(algorithm, first, last);
    return n == 0 ? last : first + backend_host::extremum_index<Max>(first, last, to_tally_op(comp));
  } else {
    const std::int64_t n = checked_distance(algorithm, first, last);
    check_not_null(algorithm, "the input", first, n);
    if (n == 0) return last;
    const device_context ctx = current_device(algorithm);
    check_device_accessible(algorithm, "the input", first, ctx);
    auto* index = static_cast<std::int64_t*>(pinned_result_buffer(algorithm, sizeof(std::int64_t)));
    dispatch_extremum<Max>(algorithm, policy, ctx, unwrap_iterator(first), n, index, to_tally_op(comp));
    check(cudaStreamSynchronize(policy.stream()), algorithm, "the search failed");
    return first + *index;
  }
}

template <bool Max, class Policy, class It, class IndexOut, class Compare>
void extremum_into(const char* algorithm, const Policy& policy, It first, It last, IndexOut out, Compare comp) {
  const std::int64_t n = checked_distance(algorithm, first, last);
  if constexpr (is_host_policy_v<Policy>) {
    *out = n == 0 ? n : backend_host::extremum_index<Max>(first, last, to_tally_op(comp));
  } else {
    check_not_null(algorithm, "the input", first, n);
    check_not_null(algorithm, "the output", out, 1);
    const device_context ctx = current_device(algorithm);
    if (n > 0) check_device_accessible(algorithm, "the input", first, ctx);
    check_device_accessible(algorithm, "the output", out, ctx);
    dispatch_extremum<Max>(algorithm, policy, ctx, unwrap_iterator(first), n, unwrap_iterator(out),
                           to_tally_op(comp));
  }
}

}  // namespace detail

template <class Policy, class It, class Compare, std::enable_if_t<is_execution_policy_v<Policy>, int>>
It max_element(const Policy& policy, It first, It last, Compare comp) {
  return detail::extremum<true>("tally::max_element", policy, first, last, comp);
}

template <class Policy, class It, class Compare, std::enable_if_t<is_execution_policy_v<Policy>, int>>
It min_element(const Policy& policy, It first, It last, Compare comp) {
  return detail::extremum<false>("tally::min_element", policy, first, last, comp);
}

template <class Policy, class It, class IndexOut, class Compare, std::enable_if_t<is_execution_policy_v<Policy>, int>>
void max_element_into(const Policy& policy, It first, It last, IndexOut out_index, Compare comp) {
  detail::extremum_into<true>("tally::max_element_into", policy, first, last, out_index, comp);
}

template <class Policy, class It, class IndexOut, class Compare, std::enable_if_t<is_execution_policy_v<Policy>, int>>
void min_element_into(const Policy& policy, It first, It last, IndexOut out_index, Compare comp) {
  detail::extremum_into<false>("tally::min_element_into", policy, first, last, out_index, comp);
}

template <class Policy, class It, class Compare, std::enable_if_t<is_execution_policy_v<Policy>, int>>
std::pair<It, It> minmax_element(const Policy& policy, It first, It last, Compare comp) {
  constexpr const char* algorithm = "tally::minmax_element";
  const std::int64_t n = detail::checked_distance(algorithm, first, last);
  if constexpr (is_host_policy_v<Policy>) {
    if (n == 0) return {last, last};
    return {first + backend_host::extremum_index<false>(first, last, detail::to_tally_op(comp)),
            first + backend_host::extremum_index<true>(first, last, detail::to_tally_op(comp))};
  } else {
    detail::check_not_null(algorithm, "the input", first, n);
    if (n == 0) return {last, last};
    const detail::device_context ctx = detail::current_device(algorithm);
    detail::check_device_accessible(algorithm, "the input", first, ctx);
    auto* indices = static_cast<std::int64_t*>(detail::pinned_result_buffer(algorithm, 2 * sizeof(std::int64_t)));
    detail::dispatch_min_max(algorithm, policy, ctx, detail::unwrap_iterator(first), n, indices,
                             detail::to_tally_op(comp));
    detail::check(cudaStreamSynchronize(policy.stream()), algorithm, "the search failed");
    return {first + indices[0], first + indices[1]};
  }
}

TALLY_NAMESPACE_END
