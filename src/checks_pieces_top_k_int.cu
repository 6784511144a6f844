// `tally verify` entries for top_k with a run-time k over rows and segments of int32 (the
// machinery: pieces_check.cuh).

#include "pieces_check.cuh"

namespace tally_tool {

std::vector<check_entry> pieces_top_k_int_checks() {
  using namespace pieces_check;
  using ts::pattern;
  std::vector<check_entry> v;
  for (piece_kind kind : {piece_kind::rows, piece_kind::segments}) {
    const char* top = kind == piece_kind::rows ? "top_k_into(k = 50) over rows" : "top_k_into(k = 50) over segments";
    v.push_back(pieces_entry<piece_op::top_k, int>(top, "int32", pattern::random, kind));
  }
  return v;
}

}  // namespace tally_tool
