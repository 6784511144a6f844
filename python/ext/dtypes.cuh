#pragma once
// The element types the Python module serves, by the names its Python layer passes
// ("float32", "int8", ...), and the one switch that turns a name into a C++ type.
// Each kernel translation unit calls for_dtype() with a generic lambda, so that the
// types it instantiates are listed once, here.

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cstdint>
#include <stdexcept>
#include <string>

namespace tally_python {

template <class T>
struct type_tag {
  using type = T;
};

/// Calls f(type_tag<T>{}) for the C++ type named `dtype`; std::invalid_argument (a Python
/// ValueError) for a name that is not served.
template <class F>
void for_dtype(const std::string& dtype, F&& f) {
  if (dtype == "float32") return f(type_tag<float>{});
  if (dtype == "float64") return f(type_tag<double>{});
  if (dtype == "float16") return f(type_tag<__half>{});
  if (dtype == "bfloat16") return f(type_tag<__nv_bfloat16>{});
  if (dtype == "int8") return f(type_tag<std::int8_t>{});
  if (dtype == "int16") return f(type_tag<std::int16_t>{});
  if (dtype == "int32") return f(type_tag<std::int32_t>{});
  if (dtype == "int64") return f(type_tag<std::int64_t>{});
  if (dtype == "uint8") return f(type_tag<std::uint8_t>{});
  if (dtype == "uint16") return f(type_tag<std::uint16_t>{});
  if (dtype == "uint32") return f(type_tag<std::uint32_t>{});
  if (dtype == "uint64") return f(type_tag<std::uint64_t>{});
  throw std::invalid_argument("tally: unsupported dtype " + dtype);
}

}  // namespace tally_python
