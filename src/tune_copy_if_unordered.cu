// `tally tune`: copy_if under unordered() on int32 and double.
#include "tune_copy_if.cuh"

namespace tally_tool {

std::vector<tune_case> tune_copy_if_unordered_cases() { return tune_copy_if_detail::cases<true>(); }

}  // namespace tally_tool
