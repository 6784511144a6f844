// custom_operator: reduce a range of your own struct with your own operator. The hull of
// a set of intervals: {min of lo, max of hi}. Every backend runs any associative
// operator; an identity (specialising tally::identity_element) lets the atomic backend
// keep the value alone in its compare-and-swap word.
//
// Without a CUDA device it prints "skipped: ..." and returns 77; otherwise it checks its
// results and returns 0 (all correct) or 1.
#include <tally/tally.cuh>

#include <thrust/device_vector.h>
#include <thrust/tabulate.h>

#include <cuda/std/limits>

#include <cstdio>

#include "example_check.hpp"

// example-begin type-and-op
// A trivially copyable value type (8 bytes)...
struct interval {
  float lo;
  float hi;
};

// ...and an operator on it, callable on the device. It must be associative; tally
// also assumes it is commutative (the items are combined in an unspecified order).
struct hull {
  __host__ __device__ interval operator()(const interval& a, const interval& b) const {
    return {a.lo < b.lo ? a.lo : b.lo, a.hi > b.hi ? a.hi : b.hi};
  }
};
// example-end type-and-op

// example-begin identity
// The identity of hull: hull(empty, x) == x for every x. With it, the atomic backend
// keeps the 8-byte value alone in its compare-and-swap word (without it, the value and a
// "holds a value" byte: a 16-byte compare-and-swap, sm_90 and newer).
template <>
struct tally::identity_element<hull, interval> {
  __host__ __device__ static interval value() {
    constexpr float inf = cuda::std::numeric_limits<float>::infinity();
    return {inf, -inf};  // lo above and hi below every number
  }
};
// example-end identity

// example-begin no-identity-op
// Another operator: the total width of the intervals, kept as [0, total]. Associative
// and commutative, but there is no interval w with width_sum(w, x) == x for every x.
struct width_sum {
  __host__ __device__ interval operator()(const interval& a, const interval& b) const {
    return {0.0f, (a.hi - a.lo) + (b.hi - b.lo)};
  }
};
// example-end no-identity-op

namespace {

// Interval i: [i/4 - 3, i/4 + 3] for i = 0 .. n-1 (exact in float).
struct make_interval {
  __host__ __device__ interval operator()(long long i) const { return {float(i) / 4 - 3, float(i) / 4 + 3}; }
};

bool operator==(const interval& a, const interval& b) { return a.lo == b.lo && a.hi == b.hi; }

}  // namespace

int main() {
  if (!have_cuda_device()) return 77;

  const long long n = 1'000'000;
  thrust::device_vector<interval> intervals(n);
  thrust::tabulate(intervals.begin(), intervals.end(), make_interval{});
  const interval expected{-3.0f, float(n - 1) / 4 + 3};

  // example-begin reduce
  const interval* first = thrust::raw_pointer_cast(intervals.data());
  const interval* last = first + intervals.size();
  const interval empty = tally::identity_element<hull, interval>::value();

  // Any backend: the automatic policy, and the atomic one (a compare-and-swap loop on
  // the 8-byte struct).
  interval all = tally::reduce(first, last, empty, hull{});
  interval by_atomic = tally::reduce(tally::par.with(tally::backend::atomic), first, last, empty, hull{});

  // init takes part like one more item: here it widens the hull to include -10.
  interval wider = tally::reduce(first, last, interval{-10.0f, -10.0f}, hull{});
  // example-end reduce
  expect(all == expected, "hull, automatic backend");
  expect(by_atomic == expected, "hull, atomic backend");
  expect(wider == interval{-10.0f, expected.hi}, "hull with an init outside the data");

  // example-begin no-identity
  // width_sum has no identity_element: every backend runs it all the same, the atomic
  // one with a compare-and-swap loop on the value and a "holds a value" byte.
  static_assert(!tally::has_identity_v<width_sum, interval>);
  interval widths = tally::reduce(first, last, interval{0.0f, 0.0f}, width_sum{});
  interval widths_by_atomic =
      tally::reduce(tally::par.with(tally::backend::atomic), first, last, interval{0.0f, 0.0f}, width_sum{});
  // example-end no-identity
  expect(widths.hi == 6.0f * float(n) && widths == widths_by_atomic, "sum of the widths without an identity");

  std::printf("custom_operator: hull of %lld intervals = [%g, %g], total width %g\n", n, all.lo, all.hi, widths.hi);
  return failures == 0 ? 0 : 1;
}
