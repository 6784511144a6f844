// `tally verify` entries for top_k on float with K <= 8 (the machinery and what every entry
// checks: top_k_check.cuh), and the list of every top_k entry.

#include "top_k_check.cuh"

namespace tally_tool {

std::vector<check_entry> top_k_checks() {
  using namespace top_k_check;
  std::vector<check_entry> v;
  // Each (K, type, comparator) compiles its own kernels (two per kind of candidate, more
  // for K <= 2), and long lists compile slowly: every K on float under less, K = 3 (a
  // list of 4, 3 written) elsewhere, K = 1 for the (key, index) form of int64. The lists
  // of K = 32, of the other types and of a run-time k are in their own files.

  // float: every K; ties (constant, all -inf); NaN first under less, last under greater;
  // the smallest first; a user comparator (pair path); the synchronous form.
  v.push_back(top_k_entry<1, float>("float", pattern::random));
  v.push_back(top_k_entry<2, float>("float", pattern::random));
  v.push_back(top_k_entry<8, float>("float", pattern::random));
  v.push_back(top_k_entry<2, float>("float", pattern::constant));
  v.push_back(top_k_entry<8, float>("float", pattern::neg_inf));
  v.push_back(top_k_entry<2, float>("float", pattern::with_nan, by_order));
  v.push_back(top_k_entry<8, float, tally::less<>, sync>("float", pattern::random));
  v.push_back(top_k_entry<3, float, greater>("float", pattern::random, by_cub, " greater"));
  v.push_back(top_k_entry<3, float, greater>("float", pattern::with_nan, by_order, " greater"));
  v.push_back(top_k_entry<3, float, plain_less>("float", pattern::random, by_cub, " (user a < b)"));
  for (auto part : {top_k_32_checks, top_k_typed_checks, top_k_any_checks}) {
    auto entries = part();
    v.insert(v.end(), entries.begin(), entries.end());
  }
  return v;
}

}  // namespace tally_tool
