// Must not compile: threads per block must be a whole number of warps.
// expect: Threads must be a positive multiple of 32
#include <tally/policy.cuh>
auto policy = tally::par.tune<100, 4>();
