// The nanobind module tally._tally: binds the kernels of ops.hpp. Arguments are plain
// integers (device addresses, counts, the stream); python/src/tally/_ops.py is the Python side that
// checks arrays and allocates the outputs. The GIL is released while a call queues its
// work: nothing here touches Python objects.
#include "ops.hpp"

#include <nanobind/nanobind.h>
#include <nanobind/stl/string.h>

#include <tally/version.hpp>

#include <string>

namespace nb = nanobind;
using namespace nb::literals;

NB_MODULE(_tally, m) {
  m.doc() = "tally's CUDA kernels over device addresses (use the functions of the tally package)";
  m.attr("__version__") = std::to_string(TALLY_VERSION_MAJOR) + "." + std::to_string(TALLY_VERSION_MINOR) + "." +
                          std::to_string(TALLY_VERSION_PATCH);
  m.attr("max_top_k_rows") = 2048;  // tally::max_top_k_pieces

  m.def("sum_dtype", &tally_python::sum_dtype, "dtype"_a);
  const auto release = nb::call_guard<nb::gil_scoped_release>();
  m.def("sum_rows", &tally_python::sum_rows, "dtype"_a, "x"_a, "rows"_a, "length"_a, "stride"_a, "out"_a, "device"_a,
        "stream"_a, release);
  m.def("max_rows", &tally_python::max_rows, "dtype"_a, "x"_a, "rows"_a, "length"_a, "stride"_a, "out"_a, "device"_a,
        "stream"_a, release);
  m.def("min_rows", &tally_python::min_rows, "dtype"_a, "x"_a, "rows"_a, "length"_a, "stride"_a, "out"_a, "device"_a,
        "stream"_a, release);
  m.def("argmax_rows", &tally_python::argmax_rows, "dtype"_a, "x"_a, "rows"_a, "length"_a, "stride"_a, "out"_a,
        "device"_a, "stream"_a, release);
  m.def("argmin_rows", &tally_python::argmin_rows, "dtype"_a, "x"_a, "rows"_a, "length"_a, "stride"_a, "out"_a,
        "device"_a, "stream"_a, release);
  m.def("top_k_rows", &tally_python::top_k_rows, "dtype"_a, "x"_a, "rows"_a, "length"_a, "stride"_a, "k"_a,
        "largest"_a, "values"_a, "indices"_a, "device"_a, "stream"_a, release);
  m.def("top_k_flat", &tally_python::top_k_flat, "dtype"_a, "x"_a, "n"_a, "k"_a, "largest"_a, "values"_a,
        "indices"_a, "device"_a, "stream"_a, release);
  m.def("select", &tally_python::select, "itemsize"_a, "x"_a, "mask"_a, "n"_a, "out"_a, "ordered"_a,
        "count_first"_a, "device"_a, "stream"_a, release);
  m.def("device_of", &tally_python::device_of, "pointer"_a);
  m.def("wait_count", &tally_python::wait_count, "device"_a, "stream"_a, release);
  m.def("synchronize", &tally_python::synchronize, "device"_a, "stream"_a, release);
}
