// tally::max_element / min_element / minmax_element and max_element_into /
// min_element_into on int16 and int32: every backend, both forms, under tally::less<> and
// tally::greater<>, every standard size and data pattern (random, wide, constant, sorted,
// reversed, many ties), misaligned starts (ptr + 1, ptr + 3); indices against CUB's
// ArgMax / ArgMin.
#include "extrema_common.cuh"

TEST_CASE_TEMPLATE("extrema match CUB ArgMax / ArgMin: every backend, size and pattern", T, std::int16_t,
                   std::int32_t) {
  tt::extrema_suite<T>();
}
