// tally::reduce / reduce_into on float and double: every backend, both forms, every
// standard size and data pattern (random, constant, sorted, reversed, all +inf, all -inf,
// with NaN, signed zeros), misaligned starts; sums against CUB within tolerance,
// maximum/minimum exact against CUB and the host reference in the library's order.
#include "common.cuh"

TEST_CASE_TEMPLATE("reduce matches CUB: every backend, size and pattern", T, float, double) {
  tt::reduce_suite<T>();
}
