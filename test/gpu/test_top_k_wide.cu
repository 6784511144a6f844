// tally::top_k<K> and tally::top_k_into<K> on the 8-byte types int64 and double (the wide
// candidates: a 64-bit order key and a 64-bit index; all lowest under less<> and all
// highest under greater<> give real keys equal to the empty candidate's): every backend,
// both forms, tally::less<> (K = 1, 3, 32) and tally::greater<> (K = 3), every standard
// size and pattern, ties, extreme values, misaligned starts; against a stable
// cub::DeviceRadixSort on NaN-free data, the host reference otherwise.
#include "top_k_common.cuh"

TEST_CASE_TEMPLATE("top_k matches CUB's stable radix sort / the host reference: every backend, size and pattern", T,
                   std::int64_t, double) {
  tt::top_k_suite<T>(tt::k_plan<tt::k_list<1, 3, 32>, tt::k_list<>, tt::k_list<3>>{});
}
