// tally::reduce / reduce_into on 32- and 64-bit integers: every backend, both forms, every
// standard size and data pattern, misaligned starts, against CUB. Signed sums use data
// that cannot overflow; unsigned sums of random bit patterns wrap as CUB's do.
#include "common.cuh"

TEST_CASE_TEMPLATE("reduce matches CUB: every backend, size and pattern", T, std::int32_t, std::int64_t, std::uint32_t,
                   std::uint64_t) {
  tt::reduce_suite<T>();
}
