#pragma once
// The host backend's reduce: the sequential reference, op(...op(op(init, x0), x1)..., xn-1).

#include <tally/detail/config.cuh>

TALLY_NAMESPACE_BEGIN
namespace backend_host {

template <class It, class T, class Op>
T reduce(It first, It last, T init, Op op) {
  for (; first != last; ++first) init = op(init, static_cast<T>(*first));
  return init;
}

}  // namespace backend_host
TALLY_NAMESPACE_END
