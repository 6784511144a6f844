// tally::max_element / min_element / minmax_element and max_element_into /
// min_element_into on uint32 and int64: every backend, both forms, under tally::less<>
// and tally::greater<>, every standard size and data pattern (wide: the whole range of
// the type, so the order keys' sign handling shows), misaligned starts; indices against
// CUB's ArgMax / ArgMin. int64 never packs into one 64-bit key: it runs as (value, index)
// pairs on every backend.
#include "extrema_common.cuh"

TEST_CASE_TEMPLATE("extrema match CUB ArgMax / ArgMin: every backend, size and pattern", T, std::uint32_t,
                   std::int64_t) {
  tt::extrema_suite<T>();
}
