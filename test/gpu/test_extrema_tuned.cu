// tally's extrema under tuned launch shapes (policy.tune<Threads, Items>()), at their tile
// boundaries and with more tiles than the grid has blocks, aligned and misaligned, on
// every backend, every form: int32 ties against CUB's ArgMax / ArgMin (the packed keys
// on atomic and automatic, pairs on the others), float with NaN against the host
// reference.
#include "extrema_common.cuh"

namespace {

template <class Policy>
void check_tuned(const Policy& policy, const char* label) {
  constexpr long long tile = static_cast<long long>(Policy::threads) * Policy::items_per_thread;
  // Up to thousands of tiles: more tiles than the grid has blocks, so blocks loop.
  const long long many = std::min(5000 * tile - 1, (1LL << 24) + 1);
  for (long long n : {1LL, tile - 1, tile, tile + 1, 2 * tile - 1, 2 * tile + 1, 300 * tile + 17, many}) {
    for (int offset : {0, 1}) {
      INFO("policy=", label, " tile=", tile, " n=", n, " offset=", offset);
      const auto ints = tt::make_ties<int>(n, offset);
      const long long int_max = tt::cub_arg<true>(ints.ptr, n), int_min = tt::cub_arg<false>(ints.ptr, n);
      tt::check_all_forms(policy, ints.ptr, n, tally::less<>{}, int_max, int_min, "int32 ties");

      const auto floats = tt::make_data<float>(n, tt::pattern::with_nan, offset);
      const auto host = floats.host();
      const long long float_max = tt::host_arg<true>(host, tt::lib_order_less{});
      const long long float_min = tt::host_arg<false>(host, tt::lib_order_less{});
      tt::check_all_forms(policy, floats.ptr, n, tally::less<>{}, float_max, float_min, "float with NaN");
    }
  }
}

}  // namespace

TEST_CASE_TEMPLATE("extrema: tuned launch shapes at their tile boundaries", B, TT_BACKENDS) {
  tt::failure_budget budget;
  const auto p = tally::par.with(B{});
  check_tuned(p.template tune<32, 1>(), "tune<32, 1>");
  check_tuned(p.template tune<96, 5>(), "tune<96, 5>");  // not a power of two, odd items per thread
  check_tuned(p.template tune<128, 4>(), "tune<128, 4>");
  check_tuned(p.template tune<1024, 16>(), "tune<1024, 16>");
}
