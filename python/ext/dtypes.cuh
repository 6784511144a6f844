#pragma once
// The element types the Python module serves, by the names its Python layer passes
// ("float32", "int8", ...), and the one switch that turns a name into a C++ type.
// Each kernel translation unit calls for_dtype() with a generic lambda, so that the
// types it instantiates are listed once, here (top_k's generated units take them by
// position: dtype_at<I>).

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <tuple>
#include <utility>

namespace tally_python {

template <class T>
struct type_tag {
  using type = T;
};

/// The served types, and their names in the same order.
using dtypes = std::tuple<float, double, __half, __nv_bfloat16, std::int8_t, std::int16_t, std::int32_t, std::int64_t,
                          std::uint8_t, std::uint16_t, std::uint32_t, std::uint64_t>;
inline constexpr const char* dtype_names[] = {"float32", "float64", "float16", "bfloat16", "int8",   "int16",
                                              "int32",   "int64",   "uint8",   "uint16",   "uint32", "uint64"};
inline constexpr std::size_t dtype_count = std::tuple_size_v<dtypes>;
static_assert(std::size(dtype_names) == dtype_count, "one name a type");

/// The I-th served type.
template <std::size_t I>
using dtype_at = std::tuple_element_t<I, dtypes>;

namespace detail {
template <class F, std::size_t... I>
void for_dtype(const std::string& dtype, F& f, std::index_sequence<I...>) {
  const bool served = ((dtype == dtype_names[I] ? (f(type_tag<dtype_at<I>>{}), true) : false) || ...);
  if (!served) throw std::invalid_argument("tally: unsupported dtype " + dtype);
}
}  // namespace detail

/// Calls f(type_tag<T>{}) for the C++ type named `dtype`; std::invalid_argument (a Python
/// ValueError) for a name that is not served.
template <class F>
void for_dtype(const std::string& dtype, F&& f) {
  detail::for_dtype(dtype, f, std::make_index_sequence<dtype_count>{});
}

}  // namespace tally_python
