// tally::top_k<K> and tally::top_k_into<K> on float, both forms, under tally::less<>
// (K = 1, 3, 32 on every backend, K = 2, 8, 16 on those that share tally::par's kernels)
// and tally::greater<> (K = 1, 2, 3, every backend), every standard size and pattern (random, constant, sorted, reversed,
// all +inf, all -inf, signed zeros, with NaN, all NaN, +-NaN / +-inf / +-0 mixed), many ties, misaligned starts;
// against a stable cub::DeviceRadixSort of (value, index) pairs on NaN-free data, against the host reference in the
// library's order (NaN greatest, -0.0 == +0.0, equal values in index order) otherwise, and the host backend against
// both.
#include "top_k_common.cuh"

TEST_CASE("top_k on float matches CUB's stable radix sort / the host reference: every K, backend, size and pattern") {
  tt::top_k_suite<float>(tt::k_plan<tt::k_list<1, 3, 32>, tt::k_list<2, 8, 16>, tt::k_list<1, 2, 3>>{});
}
