#pragma once
// The host backend's self-check: what `tally verify` runs when there is no GPU.

#include <iosfwd>

namespace tally_tool {

/// Checks tally::reduce(tally::host, ...) against std::accumulate and closed forms
/// (several types, sizes and operators, NaN and -0.0 included), prints a table to
/// `out`, and returns 0 when every check passes, 1 otherwise; the numbers of checks and
/// of failures also go to *checks and *failed when given.
int run_host_selfcheck(std::ostream& out, bool markdown = false, int* checks = nullptr, int* failed = nullptr);

}  // namespace tally_tool
