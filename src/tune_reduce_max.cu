// `tally tune`: float and double max (kernel_class::min_max; min takes the same rules).
#include "tune_reduce.cuh"

#include <limits>

namespace tally_tool {
namespace {

struct double_max {
  using T = double;
  static constexpr const char* name = "double_max";
  static constexpr double rel_tol = 0;  // exact
  static T init() { return -std::numeric_limits<double>::infinity(); }
  static tally::maximum<T> tally_op() { return {}; }
  static void fill(T* p, std::size_t n) { tally_support::fill_uniform(p, n); }
  static cudaError_t cub(void* tmp, std::size_t& bytes, const T* in, T* out, std::size_t n, cudaStream_t s) {
    return cub::DeviceReduce::Max(tmp, bytes, in, out, n, s);
  }
};

}  // namespace

std::vector<tune_case> tune_reduce_max_cases() {
  namespace rc = tally_support::reduce_cases;
  return {reduce_tune_case<rc::float_max>("reduce_max", "float", "min_max", "float max"),
          reduce_tune_case<double_max>("reduce_max", "double", "min_max", "double max")};
}

}  // namespace tally_tool
