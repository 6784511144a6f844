// tally::max_element / min_element / minmax_element and max_element_into /
// min_element_into on int8 and uint8: every backend, both forms, under tally::less<> and
// tally::greater<>, every standard size and data pattern (with so few values, every
// pattern is full of ties: the first occurrence must win), misaligned starts (ptr + 1,
// ptr + 3); indices against CUB's ArgMax / ArgMin.
#include "extrema_common.cuh"

TEST_CASE_TEMPLATE("extrema match CUB ArgMax / ArgMin: every backend, size and pattern", T, std::int8_t,
                   std::uint8_t) {
  tt::extrema_suite<T>();
}
