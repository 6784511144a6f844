// Must not compile: atomic float sums depend on the order of the atomics.
// expect: cannot give deterministic\(\) results
#include <tally/reduce.cuh>
void f(const float* p, float* out) {
  tally::reduce_into(tally::par.with(tally::backend::atomic).deterministic(), p, p + 10, out, 0.0f);
}
