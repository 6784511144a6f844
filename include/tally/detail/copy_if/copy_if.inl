#pragma once
// Definitions of copy_if and copy_if_into (declared in <tally/copy_if.cuh>).

#include <tally/backend/host/copy_if.hpp>
#include <tally/detail/copy_if/dispatch.cuh>
#include <tally/detail/copy_if/select.cuh>
#include <tally/detail/runtime/scratch.cuh>
#include <tally/detail/runtime/validate.cuh>

TALLY_NAMESPACE_BEGIN
namespace detail {

/// The host backend's selection: the same two kinds as the device's, called on the host.
template <class Pred>
struct host_by_value {
  Pred pred;
  template <class T>
  bool operator()(const T& item, std::int64_t) const {
    return static_cast<bool>(pred(item));
  }
};
template <class StencilIt, class Pred>
struct host_by_stencil {
  StencilIt stencil;
  Pred pred;
  template <class T>
  bool operator()(const T&, std::int64_t index) const {
    return static_cast<bool>(pred(stencil[index]));
  }
};

/// Checks the arguments and runs copy_if; `count` is where the device writes the number
/// selected. StencilIt is no_stencil when there is none.
struct no_stencil {};

/// Wait: the synchronous form (count unused; the number comes back), else the
/// asynchronous one. A template argument, so that each form compiles only its own kernel.
template <bool Wait, class Policy, class It, class StencilIt, class OutIt, class CountOut, class Pred>
std::int64_t copy_if_impl(const char* algorithm, const Policy& policy, It first, It last, StencilIt stencil,
                          OutIt result, CountOut count, Pred pred) {
  constexpr bool wait = Wait;
  constexpr bool has_stencil = !std::is_same_v<StencilIt, no_stencil>;
  const std::int64_t n = checked_distance(algorithm, first, last);
  if constexpr (is_host_policy_v<Policy>) {
    std::int64_t copied;
    if constexpr (has_stencil) copied = backend_host::copy_if(first, last, result, host_by_stencil<StencilIt, Pred>{stencil, pred});
    else copied = backend_host::copy_if(first, last, result, host_by_value<Pred>{pred});
    if constexpr (!wait) *count = copied;
    return copied;
  } else {
    check_not_null(algorithm, "the input", first, n);
    if constexpr (has_stencil) check_not_null(algorithm, "the stencil", stencil, n);
    check_not_null(algorithm, "the output", result, n);
    if constexpr (!wait) check_not_null(algorithm, "the count output", count, 1);  // before any CUDA call
    if (wait && n == 0) return 0;
    const device_context ctx = current_device(algorithm);
    if (n > 0) {
      check_device_accessible(algorithm, "the input", first, ctx);
      if constexpr (has_stencil) check_device_accessible(algorithm, "the stencil", stencil, ctx);
      check_device_accessible(algorithm, "the output", result, ctx);
    }
    auto run = [&](auto count_out) {
      if constexpr (has_stencil)
        dispatch_copy_if(algorithm, policy, ctx, unwrap_iterator(first), n,
                         by_stencil<unwrapped_iterator_t<StencilIt>, Pred>{unwrap_iterator(stencil), pred},
                         unwrap_iterator(result),
                         count_out);
      else
        dispatch_copy_if(algorithm, policy, ctx, unwrap_iterator(first), n, by_value<Pred>{pred}, unwrap_iterator(result),
                         count_out);
    };
    if constexpr (!wait) {
      check_device_accessible(algorithm, "the count output", count, ctx);
      run(count);
      return 0;
    } else {
      auto* copied = static_cast<std::int64_t*>(pinned_result_buffer(algorithm, sizeof(std::int64_t)));
      run(copied);
      check(cudaStreamSynchronize(policy.stream()), algorithm, "the copy failed");
      return *copied;
    }
  }
}

}  // namespace detail

template <class Policy, class It, class OutIt, class Pred, std::enable_if_t<is_execution_policy_v<Policy>, int>>
OutIt copy_if(const Policy& policy, It first, It last, OutIt result, Pred pred) {
  return result + detail::copy_if_impl<true>("tally::copy_if", policy, first, last, detail::no_stencil{}, result,
                                       static_cast<std::int64_t*>(nullptr), pred);
}

template <class Policy, class It, class StencilIt, class OutIt, class Pred,
          std::enable_if_t<is_execution_policy_v<Policy>, int>>
OutIt copy_if(const Policy& policy, It first, It last, StencilIt stencil, OutIt result, Pred pred) {
  return result + detail::copy_if_impl<true>("tally::copy_if", policy, first, last, stencil, result,
                                       static_cast<std::int64_t*>(nullptr), pred);
}

template <class Policy, class It, class OutIt, class CountOut, class Pred,
          std::enable_if_t<is_execution_policy_v<Policy>, int>>
void copy_if_into(const Policy& policy, It first, It last, OutIt result, CountOut count, Pred pred) {
  detail::copy_if_impl<false>("tally::copy_if_into", policy, first, last, detail::no_stencil{}, result, count, pred);
}

template <class Policy, class It, class StencilIt, class OutIt, class CountOut, class Pred,
          std::enable_if_t<is_execution_policy_v<Policy>, int>>
void copy_if_into(const Policy& policy, It first, It last, StencilIt stencil, OutIt result, CountOut count,
                  Pred pred) {
  detail::copy_if_impl<false>("tally::copy_if_into", policy, first, last, stencil, result, count, pred);
}

TALLY_NAMESPACE_END
