// The working tree's reductions and arg-extrema under forced shapes (ab_variants_reduce.inc).
#define AB_VERSION "new"
#define AB_VARIANTS "ab_variants_reduce.inc"
#include "ab_calls.cuh"
