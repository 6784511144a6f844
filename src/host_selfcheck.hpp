#pragma once
// The host backend's self-check: what `tally verify` runs when there is no GPU.

#include <iosfwd>

namespace tally_tool {

/// Checks tally::reduce(tally::host, ...) against std::accumulate and closed forms
/// (several types, sizes and operators, NaN and -0.0 included), prints a table to
/// `out`, and returns 0 when every check passes, 1 otherwise.
int run_host_selfcheck(std::ostream& out, bool markdown = false);

}  // namespace tally_tool
