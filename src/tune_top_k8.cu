// `tally tune`: top_k<8> on float (the top_k rules for lists of up to 8 entries).
#include "tune_top_k.cuh"

namespace tally_tool {

std::vector<tune_case> tune_top_k8_cases() { return {tune_top_k_detail::top_k_case<8>()}; }

}  // namespace tally_tool
