#pragma once
// From an extremum call to a kernel launch: packed keys where they fit (and the backend
// allows), (value, index) pairs otherwise.

#include <tally/detail/extrema/plan.cuh>
#include <tally/detail/reduce/dispatch.cuh>

TALLY_NAMESPACE_BEGIN
namespace detail {

/// A policy for the pair plans: the atomic backend has no atomic form for pairs, so a
/// policy forcing it runs them with the last-block combine of warp_shuffle (same shape).
template <class Policy>
auto policy_for_pairs(const Policy& policy) {
  if constexpr (std::is_same_v<typename Policy::backend_type, backend::atomic_t>)
    return policy.with(backend::warp_shuffle);
  else
    return policy;
}

/// Writes the index of the best item of [first, first + n) (n when empty) to *out.
/// Max: the largest under comp; else the smallest. Ties: the lowest index.
template <bool Max, class Policy, class It, class Out, class Compare>
void dispatch_extremum(const char* algorithm, const Policy& policy, const device_context& ctx, It first,
                       std::int64_t n, Out out, Compare comp) {
  using V = iter_value_t<It>;
  constexpr auto op_class = tuning::reduce_op_class::extremum;
  using backend_tag = typename Policy::backend_type;
  if constexpr (packs_arg_v<V, Compare> && !std::is_same_v<backend_tag, backend::shared_memory_t> &&
                !std::is_same_v<backend_tag, backend::warp_shuffle_t>) {
    // The largest wins for a max under less and for a min under greater.
    constexpr bool largest_wins = Max == is_default_less_v<Compare, V>;
    if (n <= max_packed_count) {
      dispatch_plan<op_class>(algorithm, policy, ctx, first, n, out,
                              arg_packed_plan<V, largest_wins>{{}, {}, {n}});
      return;
    }
  }
  dispatch_plan<op_class>(algorithm, policy_for_pairs(policy), ctx, first, n, out,
                          arg_pair_plan<V, Compare, Max>{{}, {comp}, {n}});
}

/// Writes the indices of the smallest and the largest item to out[0] and out[1].
template <class Policy, class It, class Out, class Compare>
void dispatch_min_max(const char* algorithm, const Policy& policy, const device_context& ctx, It first,
                      std::int64_t n, Out out, Compare comp) {
  using V = iter_value_t<It>;
  dispatch_plan<tuning::reduce_op_class::other>(algorithm, policy_for_pairs(policy), ctx, first, n, out,
                                                arg_min_max_plan<V, Compare>{{}, {comp}, {n}});
}

}  // namespace detail
TALLY_NAMESPACE_END
