// `tally verify` entries for top_k with a run-time k over rows and segments: float here,
// then int32 from checks_pieces_top_k_int.cu (the machinery: pieces_check.cuh). Each value type
// compiles its own kernels for every backend: in one file the two were the tool build's
// long pole.

#include "pieces_check.cuh"

namespace tally_tool {

std::vector<check_entry> pieces_top_k_checks() {
  using namespace pieces_check;
  using ts::pattern;
  std::vector<check_entry> v;
  for (piece_kind kind : {piece_kind::rows, piece_kind::segments}) {
    const char* top = kind == piece_kind::rows ? "top_k_into(k = 50) over rows" : "top_k_into(k = 50) over segments";
    v.push_back(pieces_entry<piece_op::top_k, float>(top, "float", pattern::random, kind));
    v.push_back(pieces_entry<piece_op::top_k, float>(top, "float", pattern::with_nan, kind));
  }
  const std::vector<check_entry> int32 = pieces_top_k_int_checks();
  v.insert(v.end(), int32.begin(), int32.end());
  return v;
}

}  // namespace tally_tool
