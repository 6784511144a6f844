// tally::max_element / min_element / minmax_element and max_element_into /
// min_element_into on float and double: every backend, both forms, under tally::less<>
// and tally::greater<>, every standard size and data pattern (random, constant, sorted,
// reversed, all +inf, all -inf, with NaN, signed zeros, many ties), misaligned starts;
// indices against CUB's ArgMax / ArgMin on NaN-free data, against the host reference in
// the library's order (NaN greatest, -0.0 == +0.0, first index wins) otherwise.
#include "extrema_common.cuh"

TEST_CASE_TEMPLATE("extrema match CUB ArgMax / ArgMin: every backend, size and pattern", T, float, double) {
  tt::extrema_suite<T>();
}
