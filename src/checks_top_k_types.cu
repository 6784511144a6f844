// `tally verify` entries for top_k<K> on int32, int64, double and half (the machinery:
// top_k_check.cuh).

#include "top_k_check.cuh"

namespace tally_tool {

std::vector<check_entry> top_k_typed_checks() {
  using namespace top_k_check;
  std::vector<check_entry> v;
  // int32: hash(i) % 4 (all ties: the first three 3s), constant, all INT_MAX / INT_MIN;
  // a user comparator with ties between different values.
  v.push_back(top_k_entry<3, int>("int32", pattern::random));
  v.push_back(top_k_entry<3, int>("int32", pattern::constant));
  v.push_back(top_k_entry<3, int>("int32", pattern::pos_inf));
  v.push_back(top_k_entry<3, int>("int32", pattern::neg_inf));
  v.push_back(top_k_entry<3, int, mod3_less>("int32", pattern::random, by_host, " (user x % 3 <)"));

  // 8-byte values (the (key, index) form) and half (2-byte keys).
  v.push_back(top_k_entry<1, std::int64_t>("int64", pattern::random));
  v.push_back(top_k_entry<3, double>("double", pattern::random));
  v.push_back(top_k_entry<3, double>("double", pattern::constant));
  v.push_back(top_k_entry<3, double>("double", pattern::with_nan, by_order));
  v.push_back(top_k_entry<3, double, tally::less<>, sync>("double", pattern::random));
  v.push_back(top_k_entry<3, __half>("half", pattern::random));
  v.push_back(top_k_entry<3, __half>("half", pattern::with_nan, by_order));
  v.push_back(top_k_entry<3, __half, tally::less<>, sync>("half", pattern::random));
  return v;
}

}  // namespace tally_tool
