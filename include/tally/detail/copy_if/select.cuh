#pragma once
// Which items copy_if selects: `by_value` asks pred(item), `by_stencil` asks
// pred(stencil[i]). The kernels call select(item, index) once per item.

#include <tally/detail/config.cuh>

#include <cstdint>

TALLY_NAMESPACE_BEGIN
namespace detail {

template <class Pred>
struct by_value {
  Pred pred;
  template <class T>
  __device__ TALLY_FORCEINLINE bool operator()(const T& item, std::int64_t) const {
    return static_cast<bool>(pred(item));
  }
};

template <class StencilIt, class Pred>
struct by_stencil {
  StencilIt stencil;
  Pred pred;
  template <class T>
  __device__ TALLY_FORCEINLINE bool operator()(const T&, std::int64_t index) const {
    return static_cast<bool>(pred(stencil[index]));
  }
};

}  // namespace detail
TALLY_NAMESPACE_END
