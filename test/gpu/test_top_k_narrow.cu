// tally::top_k<K> and tally::top_k_into<K> on uint8 and __half (packed keys of 1- and
// 2-byte values; uint8 data has many ties, sorted __half data rounds to long runs of
// equal values): every backend, both forms, tally::less<> (K = 1, 3, 32; K = 2 on
// tally::par's kernels) and tally::greater<> (K = 2, 3), every standard size and pattern, ties, extreme values
// (uint8: 0, 1, 254, 255; __half: +-NaN, +-inf, +-0), misaligned starts; against a
// stable cub::DeviceRadixSort on NaN-free data, the host reference otherwise.
#include "top_k_common.cuh"

TEST_CASE_TEMPLATE("top_k matches CUB's stable radix sort / the host reference: every backend, size and pattern", T,
                   std::uint8_t, __half) {
  tt::top_k_suite<T>(tt::k_plan<tt::k_list<1, 3, 32>, tt::k_list<2>, tt::k_list<2, 3>>{});
}
