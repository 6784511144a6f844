// The working tree's top_k under forced shapes (ab_variants_top_k.inc).
#define AB_VERSION "new"
#define AB_VARIANTS "ab_variants_top_k.inc"
#include "ab_calls.cuh"
