// tally::reduce / reduce_into on 8- and 16-bit integers: every backend, both forms, every
// standard size and data pattern, misaligned starts (ptr + 1, ptr + 3), against CUB.
// Sums wrap modulo 2^bits (the accumulator is the type of init), as CUB's do.
#include "common.cuh"

TEST_CASE_TEMPLATE("reduce matches CUB: every backend, size and pattern", T, std::int8_t, std::int16_t, std::uint8_t,
                   std::uint16_t) {
  tt::reduce_suite<T>();
}
