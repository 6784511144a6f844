// `tally tune`: int32 and float sums (kernel_class integer_sum / floating_sum, 4 bytes).
#include "tune_reduce.cuh"

namespace tally_tool {

std::vector<tune_case> tune_reduce_sum32_cases() {
  namespace rc = tally_support::reduce_cases;
  return {reduce_tune_case<rc::int32_sum>("reduce_sum", "int32", "integer_sum", "int32 sum"),
          reduce_tune_case<rc::float_sum>("reduce_sum", "float", "floating_sum", "float sum")};
}

}  // namespace tally_tool
