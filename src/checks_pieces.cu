// `tally verify` entries for sums and arg-maxes over rows and segments (the machinery and
// what every entry checks: pieces_check.cuh), and the list of every entry over pieces.

#include "pieces_check.cuh"

namespace tally_tool {

std::vector<check_entry> pieces_checks() {
  using namespace pieces_check;
  using ts::pattern;
  std::vector<check_entry> v;
  for (piece_kind kind : {piece_kind::rows, piece_kind::segments}) {
    const bool rows = kind == piece_kind::rows;
    const char* sum = rows ? "reduce_into sum over rows" : "reduce_into sum over segments";
    const char* argmax = rows ? "max_element_into over rows" : "max_element_into over segments";
    v.push_back(pieces_entry<piece_op::sum, float>(sum, "float", pattern::random, kind));
    v.push_back(pieces_entry<piece_op::sum, int>(sum, "int32", pattern::random, kind));
    v.push_back(pieces_entry<piece_op::argmax, float>(argmax, "float", pattern::random, kind));
    v.push_back(pieces_entry<piece_op::argmax, float>(argmax, "float", pattern::with_nan, kind));
    v.push_back(pieces_entry<piece_op::argmax, int>(argmax, "int32", pattern::random, kind));
  }
  const std::vector<check_entry> top = pieces_top_k_checks();
  v.insert(v.end(), top.begin(), top.end());
  return v;
}

}  // namespace tally_tool
