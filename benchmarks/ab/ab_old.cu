// The A/B's calls against the baseline's headers: built with the baseline's include
// directory first on the path and -Dtally=tally_old (benchmarks/ab/README.md).
#define AB_VERSION "old"
#define AB_AUTOMATIC
#include "ab_calls.cuh"
