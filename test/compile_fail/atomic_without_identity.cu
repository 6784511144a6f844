// Must not compile: the atomic backend needs tally::identity_element for a custom operator.
// expect: the atomic backend needs tally::identity_element
#include <tally/reduce.cuh>
struct product {
  __host__ __device__ float operator()(float a, float b) const { return a * b; }
};
void f(const float* p, float* out) { tally::reduce_into(tally::par.with(tally::backend::atomic), p, p + 10, out, 1.0f, product{}); }
