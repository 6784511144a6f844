// tally::reduce / reduce_into on a custom struct {float x; int count;} with custom
// operators, against CUB with the same operator:
//  - stats_sum (componentwise sum) has a tally::identity_element, so every backend,
//    the atomic one included (a CAS loop on the 8-byte struct), runs it;
//  - stats_max_count (max of x, sum of count) has none: every backend runs it too, the
//    atomic one with a CAS loop on the struct and a "holds a value" byte beside it
//    (grid/slot.cuh's flagged mode: a 16-byte CAS on sm_90).
// The x values are small integers, so every partial sum is exact: results compare exactly.
#include "common.cuh"

struct stats {
  float x;
  int count;
  static constexpr const char* type_name = "stats{float x; int count;}";
};
inline bool operator==(const stats& a, const stats& b) { return a.x == b.x && a.count == b.count; }
inline std::string describe_value(const stats& s) {
  return "{x=" + std::to_string(s.x) + ", count=" + std::to_string(s.count) + "}";
}

struct stats_sum {
  __host__ __device__ stats operator()(const stats& a, const stats& b) const { return {a.x + b.x, a.count + b.count}; }
};
struct stats_max_count {
  __host__ __device__ stats operator()(const stats& a, const stats& b) const {
    return {a.x < b.x ? b.x : a.x, a.count + b.count};
  }
};

template <>
struct tally::identity_element<stats_sum, stats> {
  __host__ __device__ static stats value() { return {0.0f, 0}; }
};

template <>
struct tally_support::data_traits<stats> {
  __host__ __device__ static stats make(tt::pattern p, long long i, long long n,
                                        const tally_support::fill_options& o) {
    const std::uint64_t h = tt::hash(std::uint64_t(i), o.seed);
    switch (p) {
      case tt::pattern::constant: return {3.0f, 1};
      case tt::pattern::sorted: return {float((4 * i) / n), int(i % 3)};
      case tt::pattern::reversed: return {float((4 * (n - 1 - i)) / n), int(i % 3)};
      default: return {float(h % 4), int((h >> 8) % 5) - 2};
    }
  }
  __host__ __device__ static stats poison(long long) { return {1.0e6f, 1 << 20}; }
};

namespace {

void check_stats(const tt::dataset<stats>& d) {
  INFO("type=stats n=", d.n, " pattern=", tt::pattern_name(d.pat), " offset=", d.offset);
  // An integral init: every partial sum of x is an integer below 2^24, exact in float in
  // any order (with 0.5 the last bit would depend on the order of the additions).
  const stats init{1.0f, 7};
  const stats expected_sum = tt::cub_reduce(d.ptr, d.n, init, stats_sum{});
  const stats expected_max = tt::cub_reduce(d.ptr, d.n, init, stats_max_count{});

  // An independent check of the reference on the host.
  const std::vector<stats> host = d.host();
  stats host_sum = init;
  for (const stats& s : host) host_sum = stats_sum{}(host_sum, s);
  tt::check_exact(expected_sum, host_sum, "CUB vs host fold");

  tt::for_each_backend([&](auto backend) {
    for (tt::run_mode mode : tt::run_modes) {
      const std::string what = tt::run_label("stats_sum", backend, mode);
      if (auto r = tt::run_tally(tally::par.with(backend), d.ptr, d.n, init, stats_sum{}, mode, what))
        tt::check_exact(*r, expected_sum, what);
    }
  });
  tt::for_each_backend([&](auto backend) {
    for (tt::run_mode mode : tt::run_modes) {
      const std::string what = tt::run_label("stats_max_count", backend, mode);
      if (auto r = tt::run_tally(tally::par.with(backend), d.ptr, d.n, init, stats_max_count{}, mode, what))
        tt::check_exact(*r, expected_max, what);
    }
  });
}

}  // namespace

TEST_CASE("reduce: custom struct and operators match CUB on every backend") {
  tt::failure_budget budget;
  static_assert(tally::has_identity_v<stats_sum, stats>);
  static_assert(!tally::has_identity_v<stats_max_count, stats>);
  for (long long n : tt::standard_sizes()) {
    if (n > (1LL << 22)) continue;  // keeps x sums below 2^24: exact in float
    for (tt::pattern p : {tt::pattern::random, tt::pattern::constant, tt::pattern::sorted, tt::pattern::reversed})
      check_stats(tt::make_data<stats>(n, p));
  }
  for (long long n : tt::misaligned_sizes()) check_stats(tt::make_data<stats>(n, tt::pattern::random, 1));
}
