#pragma once
/// @file
/// tally's version, includable from host-only C++ code.

#define TALLY_VERSION_MAJOR 0
#define TALLY_VERSION_MINOR 1
#define TALLY_VERSION_PATCH 0
/// MAJOR * 10000 + MINOR * 100 + PATCH
#define TALLY_VERSION (TALLY_VERSION_MAJOR * 10000 + TALLY_VERSION_MINOR * 100 + TALLY_VERSION_PATCH)
