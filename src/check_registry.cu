// The list of algorithms `tally verify` checks. Add a new algorithm here:
// declare `std::vector<check_entry> <algo>_checks();` in check.hpp, define it in
// checks_<algo>.cu, and append its entries below.

#include "check.hpp"

namespace tally_tool {

std::vector<check_entry> all_checks() {
  std::vector<check_entry> all;
  for (auto source : {reduce_checks, extrema_checks, top_k_checks, copy_if_checks, pieces_checks}) {
    auto entries = source();
    all.insert(all.end(), entries.begin(), entries.end());
  }
  return all;
}

}  // namespace tally_tool
