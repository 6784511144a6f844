// tally::max_element / min_element / minmax_element and the _into forms with comparators
// other than tally::less<> / tally::greater<> (which never take the packed 64-bit keys:
// (value, index) pairs on every backend, the atomic one included), against CUB's ArgMax /
// ArgMin over a transform iterator that maps each item to the key the comparator orders
// by, and against the host reference and the host backend with the same comparator:
//  - |a| < |b| on int32 (many ties: x and -x are equal) and on float;
//  - an extended __host__ __device__ lambda (a < b) on float;
//  - cuda::std::less<> on int32 (a plain `<` that is not tally's: pairs, not keys);
//  - a struct {float energy; int id;} ordered by energy (ties on energy: the first wins).
#include "extrema_common.cuh"

#include <cuda/std/functional>
#include <thrust/iterator/transform_iterator.h>

// Named namespace, not an anonymous one: tally's kernels have hidden visibility, which
// nvcc warns about (#1407-D) when a template argument has internal linkage.
namespace extrema_custom_test {

struct abs_value {
  __host__ __device__ int operator()(int x) const { return x < 0 ? -x : x; }
  __host__ __device__ float operator()(float x) const { return x < 0 ? -x : x; }
};
struct abs_less {
  template <class T>
  __host__ __device__ bool operator()(const T& a, const T& b) const {
    return abs_value{}(a) < abs_value{}(b);
  }
};
struct identity {
  template <class T>
  __host__ __device__ T operator()(const T& x) const {
    return x;
  }
};

struct particle {
  float energy;
  int id;
  static constexpr const char* type_name = "particle{float energy; int id;}";
};
inline std::string describe_value(const particle& p) {
  return "{energy=" + std::to_string(p.energy) + ", id=" + std::to_string(p.id) + "}";
}
struct by_energy {
  __host__ __device__ bool operator()(const particle& a, const particle& b) const { return a.energy < b.energy; }
};
struct energy_of {
  __host__ __device__ float operator()(const particle& p) const { return p.energy; }
};

}  // namespace extrema_custom_test

using extrema_custom_test::abs_less;
using extrema_custom_test::abs_value;
using extrema_custom_test::by_energy;
using extrema_custom_test::energy_of;
using extrema_custom_test::identity;
using extrema_custom_test::particle;

template <>
struct tally_support::data_traits<particle> {
  __host__ __device__ static particle make(tt::pattern p, long long i, long long n,
                                           const tally_support::fill_options& o) {
    const std::uint64_t h = tt::hash(std::uint64_t(i), o.seed);
    switch (p) {
      case tt::pattern::constant: return {3.0f, int(i)};
      case tt::pattern::sorted: return {float((8 * i) / n), int(i)};
      case tt::pattern::reversed: return {float((8 * (n - 1 - i)) / n), int(i)};
      default: return {float(h % 8) - 4.0f, int(i)};  // 8 energies: many ties
    }
  }
  /// The largest and the lowest energy, alternating: a read outside the range shows.
  __host__ __device__ static particle poison(long long j) { return {(j & 1) ? 1.0e30f : -1.0e30f, -1}; }
};

namespace {

/// Every backend and form with `comp` on [first, first + n), where comp(a, b) is
/// key(a) < key(b): expected indices from CUB over the keys (and the host reference
/// with comp, up to 2^20 items, and the host backend).
template <class T, class Compare, class Key>
void check_custom(const T* first, long long n, Compare comp, Key key, const std::string& label) {
  INFO("comp=", label, " type=", tt::type_name<T>(), " n=", n);
  long long expect_max = 0, expect_min = 0;
  if (n > 0) {
    const auto keys = thrust::make_transform_iterator(first, key);
    expect_max = tt::cub_arg<true>(keys, n);
    expect_min = tt::cub_arg<false>(keys, n);
  }
  if (n <= (1LL << 20)) {
    const std::vector<T> host = tt::device_buffer<T>::download(first, std::size_t(n));
    tt::check_exact(tt::host_arg<true>(host, comp), expect_max, "CUB ArgMax over keys vs host reference");
    tt::check_exact(tt::host_arg<false>(host, comp), expect_min, "CUB ArgMin over keys vs host reference");
    const auto b = host.begin(), e = host.end();
    tt::check_exact(static_cast<long long>(tally::max_element(tally::host, b, e, comp) - b), expect_max,
                    "tally::host max_element");
    tt::check_exact(static_cast<long long>(tally::min_element(tally::host, b, e, comp) - b), expect_min,
                    "tally::host min_element");
  }
  tt::for_each_backend([&](auto backend) {
    tt::check_all_forms(tally::par.with(backend), first, n, comp, expect_max, expect_min,
                        std::string("backend=") + tt::backend_label(backend) + " comp=" + label);
  });
}

std::vector<long long> custom_sizes() {
  std::vector<long long> sizes;
  for (long long n : tt::standard_sizes())
    if (n <= (1LL << 22)) sizes.push_back(n);
  return sizes;
}

}  // namespace

TEST_CASE("extrema: |a| < |b| on int32 and float (pairs on every backend) match CUB over |x|") {
  tt::failure_budget budget;
  for (long long n : custom_sizes()) {
    for (tt::pattern p : {tt::pattern::random, tt::pattern::constant, tt::pattern::sorted, tt::pattern::reversed}) {
      const auto d = tt::make_data<int>(n, p);  // random: -31..31, so x and -x tie
      check_custom(d.ptr, n, abs_less{}, abs_value{}, std::string("abs_less ") + tt::pattern_name(p));
    }
    const auto t = tt::make_ties<int>(n);
    check_custom(t.ptr, n, abs_less{}, abs_value{}, "abs_less ties");
    const auto f = tt::make_data<float>(n, tt::pattern::neg_and_zeros);  // -0.0 and +0.0 are equal under |x|
    check_custom(f.ptr, n, abs_less{}, abs_value{}, "abs_less negatives and +-0");
  }
  for (int offset : {1, 3}) {
    for (long long n : tt::misaligned_sizes()) {
      const auto d = tt::make_data<int>(n, tt::pattern::random, offset);
      check_custom(d.ptr, n, abs_less{}, abs_value{}, "abs_less misaligned " + std::to_string(offset));
    }
  }
}

TEST_CASE("extrema: an extended lambda and cuda::std::less<> (not tally's order: pairs) match CUB") {
  tt::failure_budget budget;
  auto plain_less = [] __host__ __device__(float a, float b) { return a < b; };
  for (long long n : custom_sizes()) {
    for (tt::pattern p : {tt::pattern::random, tt::pattern::sorted, tt::pattern::pos_inf, tt::pattern::neg_inf}) {
      const auto f = tt::make_data<float>(n, p);
      check_custom(f.ptr, n, plain_less, identity{}, std::string("lambda a < b, ") + tt::pattern_name(p));
    }
    const auto t = tt::make_ties<int>(n);
    check_custom(t.ptr, n, cuda::std::less<>{}, identity{}, "cuda::std::less<> ties");
  }
}

TEST_CASE("extrema: a struct ordered by one field matches CUB over that field") {
  tt::failure_budget budget;
  for (long long n : custom_sizes()) {
    for (tt::pattern p : {tt::pattern::random, tt::pattern::constant, tt::pattern::sorted, tt::pattern::reversed}) {
      const auto d = tt::make_data<particle>(n, p);
      check_custom(d.ptr, n, by_energy{}, energy_of{}, std::string("by_energy ") + tt::pattern_name(p));
    }
  }
  for (long long n : tt::misaligned_sizes()) {
    const auto d = tt::make_data<particle>(n, tt::pattern::random, 1);
    check_custom(d.ptr, n, by_energy{}, energy_of{}, "by_energy misaligned 1");
  }
}
