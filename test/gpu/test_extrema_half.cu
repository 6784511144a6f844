// tally::max_element / min_element / minmax_element and max_element_into /
// min_element_into on __half and __nv_bfloat16: every backend, both forms, under
// tally::less<> and tally::greater<>, every standard size and data pattern (sorted data
// rounds to long runs of equal values: the first of each run must win), misaligned
// starts; indices against CUB's ArgMax / ArgMin on NaN-free data, against the host
// reference in the library's order otherwise.
#include "extrema_common.cuh"

TEST_CASE_TEMPLATE("extrema match CUB ArgMax / ArgMin: every backend, size and pattern", T, __half,
                   __nv_bfloat16) {
  tt::extrema_suite<T>();
}
