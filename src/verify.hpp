#pragma once
// `tally verify`: check tally against CUB on the GPU (or, without one, the host backend
// against closed forms) and report time and bandwidth next to CUB's.

#include <iosfwd>

namespace tally_tool {

/// Runs `tally verify` with the arguments after the subcommand. Returns the exit code:
/// 0 all checks passed, 1 a check failed (or CUDA failed), 2 bad command line.
int verify_main(int argc, char** argv);

/// The help text of `tally verify`.
void print_verify_help(std::ostream& out);

}  // namespace tally_tool
