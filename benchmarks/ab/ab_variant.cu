// The A/B's calls against a third version's headers, under the automatic policy: built by
// `scripts/ab.sh --variant NAME=DIR` with DIR's include directory first on the path,
// -Dtally=tally_NAME and -DAB_VARIANT_NAME=NAME (benchmarks/ab/README.md). Its rows are
// "NAME auto", beside "new auto": e.g. the working tree's headers with another tuning rule,
// or an earlier commit, timed in the same rounds as the baseline and the working tree.
#ifndef AB_VARIANT_NAME
#error "ab_variant.cu is built by scripts/ab.sh --variant NAME=DIR (AB_VARIANT_NAME is its NAME)"
#endif
#define AB_STRINGIFY_(x) #x
#define AB_STRINGIFY(x) AB_STRINGIFY_(x)
#define AB_VERSION AB_STRINGIFY(AB_VARIANT_NAME)
#define AB_AUTOMATIC
#include "ab_calls.cuh"
