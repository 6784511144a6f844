#pragma once
// Definitions of tally::reduce and tally::reduce_into (declared in <tally/reduce.cuh>).

TALLY_NAMESPACE_BEGIN

template <class Policy, class It, class T, class BinaryOp, std::enable_if_t<is_execution_policy_v<Policy>, int>>
T reduce(const Policy& policy, It first, It last, T init, BinaryOp op) {
  constexpr const char* algorithm = "tally::reduce";
  if constexpr (is_host_policy_v<Policy>) {
    (void)detail::checked_distance(algorithm, first, last);
    return backend_host::reduce(first, last, init, detail::to_tally_op(op));
  } else {
    const std::int64_t n = detail::checked_distance(algorithm, first, last);
    detail::check_not_null(algorithm, "the input", first, n);
    if (n == 0) return init;
    const detail::device_context ctx = detail::current_device(algorithm);
    detail::check_device_accessible(algorithm, "the input", first, ctx);
    // The kernel writes the result straight into pinned host memory: no copy to wait for.
    T* result = static_cast<T*>(detail::pinned_result_buffer(algorithm, sizeof(T)));
    detail::dispatch_reduce(algorithm, policy, ctx, detail::unwrap_iterator(first), n, result, init,
                            detail::to_tally_op(op));
    detail::check(cudaStreamSynchronize(policy.stream()), algorithm, "the reduction failed");
    return *result;
  }
}

template <class Policy, class It, class OutIt, class T, class BinaryOp,
          std::enable_if_t<is_execution_policy_v<Policy>, int>>
void reduce_into(const Policy& policy, It first, It last, OutIt out, T init, BinaryOp op) {
  constexpr const char* algorithm = "tally::reduce_into";
  if constexpr (is_host_policy_v<Policy>) {
    (void)detail::checked_distance(algorithm, first, last);
    *out = backend_host::reduce(first, last, init, detail::to_tally_op(op));
  } else {
    const std::int64_t n = detail::checked_distance(algorithm, first, last);
    detail::check_not_null(algorithm, "the input", first, n);
    detail::check_not_null(algorithm, "the output", out, 1);
    const detail::device_context ctx = detail::current_device(algorithm);
    if (n > 0) detail::check_device_accessible(algorithm, "the input", first, ctx);
    detail::check_device_accessible(algorithm, "the output", out, ctx);
    detail::dispatch_reduce(algorithm, policy, ctx, detail::unwrap_iterator(first), n, detail::unwrap_iterator(out),
                            init, detail::to_tally_op(op));
  }
}

TALLY_NAMESPACE_END
