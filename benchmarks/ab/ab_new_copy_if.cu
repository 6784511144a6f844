// The working tree's copy_if under forced shapes (ab_variants_copy_if.inc).
#define AB_VERSION "new"
#define AB_VARIANTS "ab_variants_copy_if.inc"
#include "ab_calls.cuh"
