// `tally verify` entries for top_k with k at run time (the machinery: top_k_check.cuh).

#include "top_k_check.cuh"

namespace tally_tool {

std::vector<check_entry> top_k_any_checks() {
  using namespace top_k_check;
  std::vector<check_entry> v;
  // One kernel per value type for every k and both comparators: small and large k, ties,
  // NaN, the smallest first, the synchronous form, 8- and 2-byte types.
  v.push_back(top_k_any_entry<float>(8, "float", pattern::random));
  v.push_back(top_k_any_entry<float>(1024, "float", pattern::random));
  v.push_back(top_k_any_entry<float>(100, "float", pattern::constant));
  v.push_back(top_k_any_entry<float>(50, "float", pattern::with_nan, by_order));
  v.push_back(top_k_any_entry<float, greater>(33, "float", pattern::random, by_cub, " greater"));
  v.push_back(top_k_any_entry<float, tally::less<>, sync>(64, "float", pattern::random));
  v.push_back(top_k_any_entry<int>(1000, "int32", pattern::random));
  v.push_back(top_k_any_entry<double>(40, "double", pattern::random));
  v.push_back(top_k_any_entry<__half>(5, "half", pattern::random));
  return v;
}

}  // namespace tally_tool
