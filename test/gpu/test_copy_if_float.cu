// tally::copy_if and tally::copy_if_into on floating-point items against
// cub::DeviceSelect::If:
//   float: every policy (tally::par, warp_shuffle, shared_memory, unordered(), atomic,
//          tune<128, 4>, shared_memory + unordered()),
//   double: tally::par and par.unordered(),
// on data in [0, 1) with NaN, -0.0, +inf and -inf mixed in, under x > +inf (0%), x < 0.01,
// x > 0.5, !(x >= 0.5) (NaN selected), x < 0.99 and !(x >= NaN) (100%); both forms
// (guards around the output and the count), every copy_if size up to 2^24 + 1, misaligned
// inputs and outputs. Items compare by their bits (a copy keeps -0.0 and the NaN; any NaN
// matches any NaN). Stable policies must give CUB's output item for item; unordered ones
// the same multiset.
#include "copy_if_common.cuh"

TEST_CASE("copy_if on float (with NaN, +-0, +-inf) matches CUB DeviceSelect::If: every policy, form and size") {
  tt::copy_if_suite<float>(tt::all_policies{}, (1LL << 24) + 1);
}

TEST_CASE("copy_if on double (with NaN, +-0, +-inf) matches CUB DeviceSelect::If: tally::par and par.unordered()") {
  tt::copy_if_suite<double>(tt::two_policies{}, (1LL << 24) + 1);
}
