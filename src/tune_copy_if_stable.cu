// `tally tune`: stable copy_if on int32 and double.
#include "tune_copy_if.cuh"

namespace tally_tool {

std::vector<tune_case> tune_copy_if_stable_cases() { return tune_copy_if_detail::cases<false>(); }

}  // namespace tally_tool
