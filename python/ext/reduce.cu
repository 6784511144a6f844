// sum / max / min over rows (a flat input is one row): tally::reduce_into over tally::rows.
#include "call.cuh"
#include "dtypes.cuh"
#include "ops.hpp"

#include <tally/functional.cuh>
#include <tally/reduce.cuh>

#include <limits>
#include <type_traits>

namespace tally_python {
namespace {

// The accumulator of a sum (torch's rule): float for the 16-bit floats, the type itself
// for float and double, uint64 for uint64, int64 for every other integer.
template <class T>
using sum_type_t = std::conditional_t<
    std::is_same_v<T, __half> || std::is_same_v<T, __nv_bfloat16>, float,
    std::conditional_t<std::is_floating_point_v<T>, T,
                       std::conditional_t<std::is_same_v<T, std::uint64_t>, std::uint64_t, std::int64_t>>>;

// The stored result of a sum: the 16-bit floats keep their type.
template <class T>
using sum_out_t = std::conditional_t<std::is_same_v<sum_type_t<T>, float>, T, sum_type_t<T>>;

template <class T, class Out, class Acc, class Op>
void reduce_rows(address x, std::int64_t rows, std::int64_t length, std::int64_t stride, address out, int device,
                 address stream, Acc init, Op op) {
  on_device(device, [&] {
    tally::reduce_into(tally::par.on(as_stream(stream)), as_pointer<const T>(x), tally::rows(rows, length, stride),
                       as_pointer<Out>(out), init, op);
  });
}

// max or min (Op = tally::maximum / tally::minimum) in the input's type, from the op's
// identity (-inf / NaN for floats: the library's order).
template <template <class> class Op>
void fold_rows(const std::string& dtype, address x, std::int64_t rows, std::int64_t length, std::int64_t stride,
               address out, int device, address stream) {
  for_dtype(dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    reduce_rows<T, T>(x, rows, length, stride, out, device, stream, tally::identity_element<Op<T>, T>::value(),
                      Op<T>{});
  });
}

}  // namespace

std::string sum_dtype(const std::string& dtype) {
  std::string result;
  for_dtype(dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    using Out = sum_out_t<T>;
    result = std::is_same_v<Out, T>              ? dtype
             : std::is_same_v<Out, std::int64_t> ? "int64"
                                                 : "uint64";
  });
  return result;
}

void sum_rows(const std::string& dtype, address x, std::int64_t rows, std::int64_t length, std::int64_t stride,
              address out, int device, address stream) {
  for_dtype(dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    using Acc = sum_type_t<T>;
    reduce_rows<T, sum_out_t<T>>(x, rows, length, stride, out, device, stream, Acc(0), tally::plus<Acc>{});
  });
}

void max_rows(const std::string& dtype, address x, std::int64_t rows, std::int64_t length, std::int64_t stride,
              address out, int device, address stream) {
  fold_rows<tally::maximum>(dtype, x, rows, length, stride, out, device, stream);
}

void min_rows(const std::string& dtype, address x, std::int64_t rows, std::int64_t length, std::int64_t stride,
              address out, int device, address stream) {
  fold_rows<tally::minimum>(dtype, x, rows, length, stride, out, device, stream);
}

}  // namespace tally_python
