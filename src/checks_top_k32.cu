// `tally verify` entries for top_k<32> on float (the machinery: top_k_check.cuh).

#include "top_k_check.cuh"

namespace tally_tool {

std::vector<check_entry> top_k_32_checks() {
  using namespace top_k_check;
  std::vector<check_entry> v;
  v.push_back(top_k_entry<32, float>("float", pattern::random));
  v.push_back(top_k_entry<32, float>("float", pattern::constant));
  v.push_back(top_k_entry<32, float>("float", pattern::with_nan, by_order));
  return v;
}

}  // namespace tally_tool
