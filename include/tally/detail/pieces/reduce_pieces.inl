#pragma once
// Definition of tally::reduce_into over pieces (declared in <tally/reduce.cuh>).

#include <tally/backend/host/pieces.hpp>
#include <tally/detail/pieces/dispatch.cuh>
#include <tally/detail/reduce/dispatch.cuh>

TALLY_NAMESPACE_BEGIN

template <class Policy, class It, class Pieces, class OutIt, class T, class BinaryOp,
          std::enable_if_t<is_execution_policy_v<Policy> && is_pieces_v<Pieces>, int>>
void reduce_into(const Policy& policy, It first, const Pieces& pieces, OutIt out, T init, BinaryOp op) {
  constexpr const char* algorithm = "tally::reduce_into";
  detail::check_pieces_call(algorithm, first, pieces, out);
  if constexpr (is_host_policy_v<Policy>) {
    backend_host::reduce_pieces(first, pieces, out, init, detail::to_tally_op(op));
  } else {
    if (pieces.count() == 0) return;
    const detail::device_context ctx = detail::current_device(algorithm);
    detail::check_pieces_accessible(algorithm, first, pieces, out, ctx);
    const auto tally_op = detail::to_tally_op(op);
    detail::dispatch_pieces<detail::reduce_class_of<std::decay_t<decltype(tally_op)>, T>()>(
        algorithm, policy, ctx, detail::unwrap_iterator(first), pieces, detail::unwrap_iterator(out),
        detail::make_reduce_plan(init, tally_op));
  }
}

TALLY_NAMESPACE_END
