// Ranges of more than 2^32 items (64-bit counts and indices) through fancy iterators
// with closed-form answers, on every backend, every form:
//   counting_iterator<long long>(0), n = 2^32 + 5: max n - 1, min 0
//   transform (i * 7919 + 12345) % 1000003 as int, n = 2^32 + 5: each value occurs
//     about 4295 times; the first occurrence of 1000002 and of 0 win (closed form, and
//     CUB's ArgMax / ArgMin on the same iterator). The values are 4-byte ints, which
//     would pack into one 64-bit key, but not with more than 2^32 indices: pairs.
//   the same with spikes at 2^32 + 3 (INT_MAX) and 2^32 + 1 (INT_MIN): indices that a
//     32-bit index would wrap to 3 and 1; also under tally::greater<> (max and min swap)
//   n = 2^32 exactly, the largest count that packs: spikes at the last two indices
//     (2^32 - 1 packs to a low word of 0) and the residues' ties.
#include "extrema_common.cuh"

#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/transform_iterator.h>

namespace huge_extrema_test {

constexpr long long modulus = 1000003;  // prime
constexpr long long step = 7919;        // prime, so i -> i * step is a bijection mod modulus
constexpr long long shift = 12345;

/// (i * step + shift) % modulus: a permutation of 0..modulus-1 in every period.
struct residue {
  __host__ __device__ int operator()(long long i) const { return int((i * step + shift) % modulus); }
};
/// residue, but INT_MAX at at_max and INT_MIN at at_min.
struct spiked_residue {
  long long at_max, at_min;
  __host__ __device__ int operator()(long long i) const {
    if (i == at_max) return INT_MAX;
    if (i == at_min) return INT_MIN;
    return residue{}(i);
  }
};

/// x^e mod modulus.
inline long long pow_mod(long long x, long long e) {
  long long r = 1;
  x %= modulus;
  for (; e > 0; e >>= 1, x = x * x % modulus)
    if (e & 1) r = r * x % modulus;
  return r;
}
/// The first i >= 0 with residue{}(i) == v (v < modulus): (v - shift) / step mod modulus.
inline long long first_index_of(long long v) {
  const long long inverse = pow_mod(step, modulus - 2);  // Fermat: modulus is prime
  return ((v - shift) % modulus + modulus) % modulus * inverse % modulus;
}

}  // namespace huge_extrema_test

using huge_extrema_test::first_index_of;
using huge_extrema_test::modulus;
using huge_extrema_test::residue;
using huge_extrema_test::spiked_residue;

TEST_CASE("extrema: the closed forms of the huge tests hold on the host") {
  for (long long v : {0LL, 1LL, modulus - 1, 777LL}) {
    const long long i = first_index_of(v);
    CHECK(residue{}(i) == v);
    for (long long j = 0; j < i; ++j) REQUIRE(residue{}(j) != v);
  }
}

TEST_CASE_TEMPLATE("extrema over more than 2^32 items", B, TT_BACKENDS) {
  tt::failure_budget budget;
  const auto policy = tally::par.with(B{});
  const std::string b = std::string("backend=") + tt::backend_label(B{});
  const thrust::counting_iterator<long long> count(0);
  const long long n = (1LL << 32) + 5;

  {
    INFO("n=2^32+5 counting_iterator<long long>");
    tt::check_all_forms(policy, count, n, tally::less<>{}, n - 1, 0LL, b + " counting");
  }
  {
    INFO("n=2^32+5 transform (i * 7919 + 12345) % 1000003 as int (ties every 1000003 items)");
    const auto values = thrust::make_transform_iterator(count, residue{});
    const long long expect_max = first_index_of(modulus - 1), expect_min = first_index_of(0);
    tt::check_all_forms(policy, values, n, tally::less<>{}, expect_max, expect_min, b + " residues");
  }
  {
    INFO("n=2^32+5 residues with INT_MAX at 2^32+3 and INT_MIN at 2^32+1");
    const long long at_max = (1LL << 32) + 3, at_min = (1LL << 32) + 1;
    const auto values = thrust::make_transform_iterator(count, spiked_residue{at_max, at_min});
    tt::check_all_forms(policy, values, n, tally::less<>{}, at_max, at_min, b + " spikes");
    tt::check_all_forms(policy, values, n, tally::greater<>{}, at_min, at_max, b + " spikes comp=greater<>");
  }
  {
    INFO("n=2^32 (the largest packed count): INT_MAX at 2^32-1, INT_MIN at 2^32-2");
    const long long n32 = 1LL << 32;
    const auto values = thrust::make_transform_iterator(count, spiked_residue{n32 - 1, n32 - 2});
    tt::check_all_forms(policy, values, n32, tally::less<>{}, n32 - 1, n32 - 2, b + " spikes at the end");
    const auto ties = thrust::make_transform_iterator(count, residue{});
    tt::check_all_forms(policy, ties, n32, tally::less<>{}, first_index_of(modulus - 1), first_index_of(0),
                        b + " residues");
  }
}

TEST_CASE("extrema over more than 2^32 items: CUB agrees with the closed forms") {
  const thrust::counting_iterator<long long> count(0);
  const long long n = (1LL << 32) + 5;
  const auto values = thrust::make_transform_iterator(count, residue{});
  CHECK(tt::cub_arg<true>(values, n) == first_index_of(modulus - 1));
  CHECK(tt::cub_arg<false>(values, n) == first_index_of(0));
  const auto spikes = thrust::make_transform_iterator(count, spiked_residue{(1LL << 32) + 3, (1LL << 32) + 1});
  CHECK(tt::cub_arg<true>(spikes, n) == (1LL << 32) + 3);
  CHECK(tt::cub_arg<false>(spikes, n) == (1LL << 32) + 1);
}
