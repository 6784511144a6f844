// tally::top_k<K> and tally::top_k_into<K> on int32, both forms, under tally::less<> (the
// K largest; K = 1, 3, 32 on every backend, K = 2, 8, 16 on those that share tally::par's
// kernels) and tally::greater<> (the K smallest; K = 1, 2, 3, every backend), every standard
// size (K - 1, K, K + 1 and the top_k tiles included) and pattern (random, wide,
// constant: indices 0..K-1, sorted and reversed: the worst cases of the insertion), many
// ties, the ends of the type (packed keys whose value word is 0 or all ones), misaligned
// starts; against a stable cub::DeviceRadixSort of (value, index) pairs, and the host
// backend against it.
#include "top_k_common.cuh"

TEST_CASE("top_k on int32 matches CUB's stable radix sort: every K, backend, size and pattern") {
  tt::top_k_suite<std::int32_t>(tt::k_plan<tt::k_list<1, 3, 32>, tt::k_list<2, 8, 16>, tt::k_list<1, 2, 3>>{});
}
