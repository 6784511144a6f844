// tally::copy_if and tally::copy_if_into on integers against cub::DeviceSelect::If:
//   int32: every policy (tally::par, warp_shuffle, shared_memory, unordered(), atomic,
//          tune<128, 4>, shared_memory + unordered()),
//   uint8, uint16 and int64: tally::par and par.unordered() (a thread's groups of 4 items
//          loaded as one 4-, 8- and two 16-byte words),
// both forms (guards around the output and the count: nothing outside the first count
// items is written), selectivities 0%, ~1%, ~50%, ~99%, 100% on hashed data (level(x) <
// bound), every copy_if size (tiles of 512, 1024, 2048 items and their neighbours, 32 and
// 33 tiles, powers of two up to 2^24 + 1, random sizes) and misaligned inputs and outputs.
// Stable policies must give CUB's output item for item; unordered ones the same multiset.
#include "copy_if_common.cuh"

TEST_CASE("copy_if on int32 matches CUB DeviceSelect::If: every policy, form, selectivity and size") {
  tt::copy_if_suite<std::int32_t>(tt::all_policies{}, (1LL << 24) + 1);
}

TEST_CASE("copy_if on uint8 matches CUB DeviceSelect::If: tally::par and par.unordered()") {
  tt::copy_if_suite<std::uint8_t>(tt::two_policies{}, (1LL << 24) + 1);
}

TEST_CASE("copy_if on uint16 matches CUB DeviceSelect::If: tally::par and par.unordered()") {
  tt::copy_if_suite<std::uint16_t>(tt::two_policies{}, (1LL << 24) + 1);
}

TEST_CASE("copy_if on int64 matches CUB DeviceSelect::If: tally::par and par.unordered()") {
  tt::copy_if_suite<std::int64_t>(tt::two_policies{}, (1LL << 24) + 1);
}
