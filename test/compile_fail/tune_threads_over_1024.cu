// Must not compile: a CUDA block has at most 1024 threads.
// expect: Threads must be at most 1024
#include <tally/policy.cuh>
auto policy = tally::par.tune<2048, 4>();
