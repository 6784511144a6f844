#pragma once
// Which function objects of CCCL (libcu++ and Thrust) are tally's own under another name:
// `cuda::std::plus`, `cuda::maximum`, `cuda::minimum`, `cuda::std::less`,
// `cuda::std::greater` and Thrust's `plus`, `maximum`, `minimum`, `less`, `greater`.
// functional.cuh maps each to tally's function object of the same family (op_traits,
// comparator_traits, identity_element, to_tally_op), so that they take the same fast
// paths and follow the library's order.
//
// Since CCCL 3.0 Thrust's are the libcu++ ones (`thrust::plus` is `cuda::std::plus`,
// `thrust::maximum` is `cuda::maximum`, ...); before, they were types of their own (some
// derived from libcu++'s). Both are handled without knowing which: a family is told by
// overloads of a function that is only declared (never defined), and declaring the same
// overload twice, once through each name, is a redeclaration, not an error (as a
// partial specialisation through both names would be). The match is exact: a type derived
// from one of these (which may change what it computes) is not recognised.

#include <tally/detail/config.cuh>

// The headers of the function objects alone where CCCL has them (the umbrella headers
// cost a compile time that a one-call translation unit notices).
#if __has_include(<cuda/std/__functional/operations.h>)
#include <cuda/std/__functional/operations.h>  // cuda::std::plus, less, greater
#else
#include <cuda/std/functional>
#endif

// cuda::maximum and cuda::minimum came with CCCL 2.8 (<cuda/functional>).
#if defined(CCCL_VERSION) && CCCL_VERSION >= 2008000
#if __has_include(<cuda/__functional/maximum.h>) && __has_include(<cuda/__functional/minimum.h>)
#include <cuda/__functional/maximum.h>
#include <cuda/__functional/minimum.h>
#else
#include <cuda/functional>
#endif
#define TALLY_CCCL_HAS_CUDA_MAXIMUM 1
#else
#define TALLY_CCCL_HAS_CUDA_MAXIMUM 0
#endif

// Thrust's function objects are libcu++'s since CCCL 3.0; before, types of their own.
#if !defined(CCCL_VERSION) || CCCL_VERSION < 3000000
#include <thrust/functional.h>  // thrust::plus, maximum, minimum, less, greater
#include <thrust/version.h>
#define TALLY_CCCL_THRUST_OWN_FUNCTORS 1
#else
#define TALLY_CCCL_THRUST_OWN_FUNCTORS 0
#endif

TALLY_NAMESPACE_BEGIN
namespace detail {

/// The families of function objects that tally has fast paths for.
enum class op_family { none, plus, minimum, maximum, less, greater };

namespace cccl {

/// What classify() answers: the family and the function object's template argument
/// (void for the transparent form).
template <op_family Family, class Argument>
struct classified {
  static constexpr op_family family = Family;
  using argument = Argument;
};

template <class Op>
struct type_tag {};

// Declarations only, called in decltype (and always qualified: no argument-dependent lookup).
classified<op_family::none, void> classify(...);

template <class U>
classified<op_family::plus, U> classify(type_tag<::cuda::std::plus<U>>);
template <class U>
classified<op_family::less, U> classify(type_tag<::cuda::std::less<U>>);
template <class U>
classified<op_family::greater, U> classify(type_tag<::cuda::std::greater<U>>);
#if TALLY_CCCL_HAS_CUDA_MAXIMUM
template <class U>
classified<op_family::maximum, U> classify(type_tag<::cuda::maximum<U>>);
template <class U>
classified<op_family::minimum, U> classify(type_tag<::cuda::minimum<U>>);
#endif

#if TALLY_CCCL_THRUST_OWN_FUNCTORS
// Thrust's own (before CCCL 3.0; since, they are the declarations above).
template <class U>
classified<op_family::plus, U> classify(type_tag<THRUST_NS_QUALIFIER::plus<U>>);
template <class U>
classified<op_family::less, U> classify(type_tag<THRUST_NS_QUALIFIER::less<U>>);
template <class U>
classified<op_family::greater, U> classify(type_tag<THRUST_NS_QUALIFIER::greater<U>>);
template <class U>
classified<op_family::maximum, U> classify(type_tag<THRUST_NS_QUALIFIER::maximum<U>>);
template <class U>
classified<op_family::minimum, U> classify(type_tag<THRUST_NS_QUALIFIER::minimum<U>>);
#endif

}  // namespace cccl

/// The family of a CCCL function object (op_family::none for every other type, tally's
/// own included) and its template argument.
template <class Op>
using cccl_op_family = decltype(cccl::classify(cccl::type_tag<Op>{}));

/// True for the CCCL function objects that tally recognises.
template <class Op>
inline constexpr bool is_cccl_function_object_v = cccl_op_family<Op>::family != op_family::none;

}  // namespace detail
TALLY_NAMESPACE_END
