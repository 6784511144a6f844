// Tuning-table lookups and the automatic policy's resolution (no GPU needed).

#include <doctest/doctest.h>

#include <tally/reduce.cuh>

#include <cstdint>
#include <iterator>

using tally::backend_id;
using tally::tuning::reduce_config;
using tally::tuning::reduce_op_class;
using tally::tuning::select_reduce;

TEST_CASE("reduce table: sm_90 lookups follow the rules of tuning/sm90.cuh in order") {
  // For every rule: an n inside its bucket and above the previous rule's bucket (of the
  // same class and value size) selects exactly it.
  using tally::tuning::reduce_sm90;
  for (std::size_t i = 0; i < std::size(reduce_sm90); ++i) {
    const auto& rule = reduce_sm90[i];
    if (rule.op == reduce_op_class::other) continue;
    int lower = -1;  // the bucket below: the previous rule of this class and size
    for (std::size_t j = 0; j < i; ++j)
      if (reduce_sm90[j].op == rule.op && reduce_sm90[j].max_value_bytes == rule.max_value_bytes)
        lower = reduce_sm90[j].max_log2_n;
    const std::int64_t n = lower < 0 ? 1 : (std::int64_t(1) << lower) + 1;
    CAPTURE(i);
    CAPTURE(n);
    CHECK(select_reduce(90, rule.op, rule.max_value_bytes, n) == rule.config);
    if (rule.max_log2_n < tally::tuning::any_n)
      CHECK(select_reduce(90, rule.op, rule.max_value_bytes, std::int64_t(1) << rule.max_log2_n) == rule.config);
  }
  // Sums and max on the sm_90 table run on the atomic backend wherever it was fastest; at
  // least the large sizes of 4-byte sums do (one atomic per block, no second pass).
  CHECK(select_reduce(90, reduce_op_class::integer_sum, 4, std::int64_t(1) << 28).threads >= 256);
}

TEST_CASE("reduce table: max_element and top_k<2> take the min/max rules where a table has none of theirs") {
  using tally::tuning::reduce_rule;
  using tally::tuning::detail::find_rule;
  constexpr reduce_rule table[] = {
      {reduce_op_class::min_max, 4, 12, {backend_id::atomic, 256, 4}},
      {reduce_op_class::min_max, 4, tally::tuning::any_n, {backend_id::atomic, 512, 8}},
      {reduce_op_class::top2, 4, tally::tuning::any_n, {backend_id::warp_shuffle, 128, 8}},
      {reduce_op_class::other, tally::tuning::any_size, tally::tuning::any_n, {backend_id::warp_shuffle, 256, 16}},
  };
  // extremum has no rule: the min_max ones.
  CHECK(find_rule(table, reduce_op_class::extremum, 4, 1000)->config == reduce_config{backend_id::atomic, 256, 4});
  CHECK(find_rule(table, reduce_op_class::extremum, 4, 1 << 20)->config == reduce_config{backend_id::atomic, 512, 8});
  // top2 has its own.
  CHECK(find_rule(table, reduce_op_class::top2, 4, 1000)->config == reduce_config{backend_id::warp_shuffle, 128, 8});
  // 8-byte values: no rule of either class covers them, `other` does.
  CHECK(find_rule(table, reduce_op_class::extremum, 8, 1000)->config ==
        reduce_config{backend_id::warp_shuffle, 256, 16});
  // The fallback class is min_max only for the two classes that ran on its rules.
  CHECK(tally::tuning::fallback_class(reduce_op_class::integer_sum) == reduce_op_class::integer_sum);
  CHECK(tally::tuning::fallback_class(reduce_op_class::top2) == reduce_op_class::min_max);
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
  static_assert(config.threads % 32 == 0 && config.threads <= 1024 && config.items_per_thread >= 1,
                "a launch shape, known at compile time");
  // Large sums run on the atomic backend on sm_90 (one atomic per block, no last-block pass).
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
  // Every configuration the sm_90 table can choose for 4-byte integer sums is in the set,
  // and nothing from rules of other classes or wider values that cannot apply.
  for (std::int64_t n = 1; n <= (std::int64_t(1) << 40); n *= 2) {
    const reduce_config chosen = select_reduce(90, reduce_op_class::integer_sum, 4, n);
    bool found = false;
    for (int i = 0; i < set::value.size; ++i) found = found || set::value.items[i] == chosen;
    CAPTURE(n);
    CHECK(found);
  }
  int applicable = 0;  // distinct configs of rules for integer_sum (or other) that admit 4-byte values, any table
  for (const auto& rule : tally::tuning::reduce_sm90)
    applicable += (rule.op == reduce_op_class::integer_sum || rule.op == reduce_op_class::other) ? 1 : 0;
  CHECK(set::value.size <= applicable + int(std::size(tally::tuning::reduce_sm80)) + 2);
  using deterministic_float = tally::detail::automatic_reduce_candidates<reduce_op_class::floating_sum, 4, false, 0, 0>;
  for (int i = 0; i < deterministic_float::value.size; ++i)
    CHECK(deterministic_float::value.items[i].backend != backend_id::atomic);
  using tuned = tally::detail::automatic_reduce_candidates<reduce_op_class::min_max, 4, true, 128, 8>;
  for (int i = 0; i < tuned::value.size; ++i) {
    CHECK(tuned::value.items[i].threads == 128);
    CHECK(tuned::value.items[i].items_per_thread == 8);
  }
}
