#pragma once
// `tally verify --fuzz SECONDS`: differential fuzzing against CUB and the host reference.

#include "check.hpp"

#include <cstdint>

namespace tally_tool {

/// Runs random checks for `seconds` (see fuzz.cu); `seed` 0 draws one from the clock.
/// Prints every failure with the seed that replays it; returns the exit code.
int run_fuzz(double seconds, std::uint64_t seed, const verify_options& base);

/// Replays one drawn case exactly (the seed a failure printed); returns the exit code.
int run_fuzz_case(std::uint64_t case_seed, const verify_options& base);

}  // namespace tally_tool
