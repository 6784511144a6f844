// `tally tune`: int64 and double sums (kernel_class integer_sum / floating_sum, 8 bytes).
#include "tune_reduce.cuh"

#include <cstdint>

namespace tally_tool {
namespace {

struct int64_sum : tally_support::reduce_cases::sum_case<std::int64_t> {
  static constexpr const char* name = "int64_sum";
  static constexpr double rel_tol = 0;  // exact
  static void fill(T* p, std::size_t n) { tally_support::fill_hash_mod(p, n); }
};

}  // namespace

std::vector<tune_case> tune_reduce_sum64_cases() {
  namespace rc = tally_support::reduce_cases;
  return {reduce_tune_case<int64_sum>("reduce_sum", "int64", "integer_sum", "int64 sum"),
          reduce_tune_case<rc::double_sum>("reduce_sum", "double", "floating_sum", "double sum")};
}

}  // namespace tally_tool
