// Must not compile: each thread needs at least one item.
// expect: Items per thread must be at least 1
#include <tally/policy.cuh>
auto policy = tally::par.tune<256, 0>();
