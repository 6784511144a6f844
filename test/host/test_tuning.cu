// Tuning-table lookups and the automatic policy's resolution (no GPU needed).

#include <doctest/doctest.h>

#include <tally/reduce.cuh>

using tally::backend_id;
using tally::tuning::reduce_config;
using tally::tuning::reduce_op_class;
using tally::tuning::select_reduce;

TEST_CASE("reduce table: sm_90 picks atomic with the shapes of the H100 sweep") {
  for (auto op : {reduce_op_class::integer_sum, reduce_op_class::floating_sum}) {
    CAPTURE(static_cast<int>(op));
    CHECK(select_reduce(90, op, 4, 1 << 10) == reduce_config{backend_id::atomic, 256, 4});
    CHECK(select_reduce(90, op, 4, 1 << 12) == reduce_config{backend_id::atomic, 256, 16});
    CHECK(select_reduce(90, op, 4, 1 << 19) == reduce_config{backend_id::atomic, 256, 16});
    CHECK(select_reduce(90, op, 4, (1 << 19) + 1) == reduce_config{backend_id::atomic, 512, 16});
    CHECK(select_reduce(90, op, 1, 1 << 28) == reduce_config{backend_id::atomic, 512, 16});
  }
  CHECK(select_reduce(90, reduce_op_class::min_max, 4, 1 << 20) == reduce_config{backend_id::atomic, 512, 8});
  CHECK(select_reduce(90, reduce_op_class::min_max, 4, (1 << 20) + 1) == reduce_config{backend_id::atomic, 1024, 8});
  for (auto op : {reduce_op_class::integer_sum, reduce_op_class::floating_sum, reduce_op_class::min_max}) {
    CAPTURE(static_cast<int>(op));
    CHECK(select_reduce(90, op, 8, 1000) == reduce_config{backend_id::atomic, 256, 4});
    CHECK(select_reduce(90, op, 8, 1 << 16) == reduce_config{backend_id::atomic, 512, 8});
    CHECK(select_reduce(90, op, 8, 1 << 20) == reduce_config{backend_id::atomic, 512, 16});
    CHECK(select_reduce(90, op, 8, std::int64_t(1) << 40) == reduce_config{backend_id::atomic, 512, 8});
  }
}

TEST_CASE("reduce table: other operators and wide values take warp_shuffle") {
  CHECK(select_reduce(90, reduce_op_class::other, 8, 1000).backend == backend_id::warp_shuffle);
  CHECK(select_reduce(90, reduce_op_class::integer_sum, 16, 1000).backend == backend_id::warp_shuffle);
  CHECK(select_reduce(90, reduce_op_class::min_max, 24, std::int64_t(1) << 30).backend == backend_id::warp_shuffle);
}

TEST_CASE("reduce table: sm_80, newer and older architectures") {
  CHECK(select_reduce(80, reduce_op_class::integer_sum, 4, 1 << 20).backend == backend_id::atomic);
  CHECK(select_reduce(86, reduce_op_class::floating_sum, 4, 1 << 20).backend == backend_id::atomic);
  CHECK(select_reduce(100, reduce_op_class::integer_sum, 4, 1 << 20).backend == backend_id::atomic);  // sm_90 table
  // Architectures before sm_80 fall to the default table.
  const reduce_config old = select_reduce(70, reduce_op_class::integer_sum, 4, 1 << 20);
  CHECK(old == reduce_config{backend_id::warp_shuffle, 256, 16});
}

TEST_CASE("reduce table: the lookup is usable at compile time") {
  constexpr reduce_config config = select_reduce(90, reduce_op_class::integer_sum, 4, 1 << 24);
  static_assert(config.threads == 512 && config.items_per_thread == 16, "sm_90 large-n shape");
  CHECK(config.backend == backend_id::atomic);
}

namespace {
struct custom_op {
  __host__ __device__ float operator()(float a, float b) const { return a * b; }
};
}  // namespace

TEST_CASE("automatic: operator classes and the atomic substitutions") {
  using tally::detail::atomic_reduce_allowed_v;
  using tally::detail::reduce_op_class_of;
  CHECK(reduce_op_class_of<tally::plus<int>, int>() == reduce_op_class::integer_sum);
  CHECK(reduce_op_class_of<tally::plus<>, unsigned char>() == reduce_op_class::integer_sum);
  CHECK(reduce_op_class_of<tally::plus<float>, float>() == reduce_op_class::floating_sum);
  CHECK(reduce_op_class_of<tally::plus<__half>, __half>() == reduce_op_class::floating_sum);
  CHECK(reduce_op_class_of<tally::maximum<double>, double>() == reduce_op_class::min_max);
  CHECK(reduce_op_class_of<tally::minimum<>, long long>() == reduce_op_class::min_max);
  CHECK(reduce_op_class_of<custom_op, float>() == reduce_op_class::other);
  CHECK(custom_op{}(2.f, 3.f) == 6.f);

  // deterministic(): float sums leave the atomic backend; exact operators keep it.
  CHECK(atomic_reduce_allowed_v<tally::plus<float>, float, false>);
  CHECK_FALSE(atomic_reduce_allowed_v<tally::plus<float>, float, true>);
  CHECK_FALSE(atomic_reduce_allowed_v<tally::plus<double>, double, true>);
  CHECK(atomic_reduce_allowed_v<tally::plus<int>, int, true>);
  CHECK(atomic_reduce_allowed_v<tally::maximum<float>, float, true>);
  // No identity for a custom operator: never atomic.
  CHECK_FALSE(atomic_reduce_allowed_v<custom_op, float, false>);

  using tally::detail::adjust_config;
  const reduce_config atomic{backend_id::atomic, 256, 16};
  CHECK(adjust_config<false, 0, 0>(atomic) == reduce_config{backend_id::warp_shuffle, 256, 16});
  CHECK(adjust_config<true, 0, 0>(atomic) == atomic);
  CHECK(adjust_config<true, 128, 4>(atomic) == reduce_config{backend_id::atomic, 128, 4});
}

TEST_CASE("automatic: only the configurations the tables can select are compiled") {
  using set = tally::detail::automatic_reduce_candidates<reduce_op_class::integer_sum, 4, true, 0, 0>;
  // sm_90: atomic 256x4, 256x16 and 512x16; sm_80: atomic 256x16; default and fallback:
  // warp_shuffle 256x16.
  CHECK(set::value.size == 4);
  using deterministic_float = tally::detail::automatic_reduce_candidates<reduce_op_class::floating_sum, 4, false, 0, 0>;
  for (int i = 0; i < deterministic_float::value.size; ++i)
    CHECK(deterministic_float::value.items[i].backend != backend_id::atomic);
  using tuned = tally::detail::automatic_reduce_candidates<reduce_op_class::min_max, 4, true, 128, 8>;
  for (int i = 0; i < tuned::value.size; ++i) {
    CHECK(tuned::value.items[i].threads == 128);
    CHECK(tuned::value.items[i].items_per_thread == 8);
  }
}
