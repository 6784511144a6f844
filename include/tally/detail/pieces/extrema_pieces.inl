#pragma once
// Definitions of tally::max_element_into and min_element_into over pieces (declared in
// <tally/max_element.cuh>): (value, index) pairs with the index local to the piece, the
// lower index winning a tie; an empty piece writes 0, its length.

#include <tally/backend/host/pieces.hpp>
#include <tally/detail/extrema/plan.cuh>
#include <tally/detail/pieces/dispatch.cuh>

TALLY_NAMESPACE_BEGIN
namespace detail {

template <bool Max, class Policy, class It, class Pieces, class IndexOut, class Compare>
void extremum_pieces_into(const char* algorithm, const Policy& policy, It first, const Pieces& pieces,
                          IndexOut out, Compare comp) {
  check_pieces_call(algorithm, first, pieces, out);
  if constexpr (is_host_policy_v<Policy>) {
    backend_host::extremum_pieces<Max>(first, pieces, out, to_tally_op(comp));
  } else {
    if (pieces.count() == 0) return;
    const device_context ctx = current_device(algorithm);
    check_pieces_accessible(algorithm, first, pieces, out, ctx);
    using V = iter_value_t<It>;
    const auto tally_comp = to_tally_op(comp);
    using plan_t = arg_pair_plan<V, std::decay_t<decltype(tally_comp)>, Max>;
    dispatch_pieces<tuning::kernel_class::extremum>(algorithm, policy, ctx, unwrap_iterator(first), pieces,
                                                    unwrap_iterator(out), plan_t{{}, {tally_comp}, {0}});
  }
}

}  // namespace detail

template <class Policy, class It, class Pieces, class IndexOut, class Compare,
          std::enable_if_t<is_execution_policy_v<Policy> && is_pieces_v<Pieces>, int>>
void max_element_into(const Policy& policy, It first, const Pieces& pieces, IndexOut out_index, Compare comp) {
  detail::extremum_pieces_into<true>("tally::max_element_into", policy, first, pieces, out_index, comp);
}

template <class Policy, class It, class Pieces, class IndexOut, class Compare,
          std::enable_if_t<is_execution_policy_v<Policy> && is_pieces_v<Pieces>, int>>
void min_element_into(const Policy& policy, It first, const Pieces& pieces, IndexOut out_index, Compare comp) {
  detail::extremum_pieces_into<false>("tally::min_element_into", policy, first, pieces, out_index, comp);
}

TALLY_NAMESPACE_END
