// The A/B's calls against the working tree's headers, under the automatic policy.
#define AB_VERSION "new"
#define AB_AUTOMATIC
#include "ab_calls.cuh"
