// The tuning tables' format (tuning/rules.cuh) as the lookups and `tally tune` rely on it,
// checked on the tables compiled in (tuning/sm90.cuh, which `tally tune` writes, and the
// hand-written ones); and `tally tune`'s choice of rules and the header it writes
// (src/tune_table.hpp).

#include "../../src/tune_table.hpp"

#include <doctest/doctest.h>

#include <tally/tuning/copy_if.cuh>
#include <tally/tuning/reduce.cuh>
#include <tally/tuning/top_k.cuh>

#include <cstdint>
#include <iterator>
#include <string>
#include <tuple>
#include <vector>

namespace tt = tally::tuning;
using tally::backend_id;

namespace {

bool valid_shape(int threads, int items) { return threads >= 32 && threads % 32 == 0 && threads <= 1024 && items >= 1; }

/// Rules of one group (same leading key) must grow in max_log2_n and end with any_n, so
/// that no n falls through to a later group (a wider value size would catch it).
template <class Rule, class Key, std::size_t N>
void check_groups(const Rule (&table)[N], Key key) {
  for (std::size_t i = 0; i < N; ++i) {
    CAPTURE(i);
    int previous = -1;
    bool later_in_group = false;
    for (std::size_t j = 0; j < N; ++j) {
      if (key(table[j]) != key(table[i])) continue;
      if (j < i) previous = table[j].max_log2_n;
      if (j > i) later_in_group = true;
    }
    CHECK(table[i].max_log2_n > previous);
    if (!later_in_group) CHECK(table[i].max_log2_n == tt::any_n);
  }
}

}  // namespace

TEST_CASE("tuning format: every reduce rule is a valid shape on a reduction backend, groups end with any_n") {
  auto key = [](const tt::reduce_rule& r) { return std::make_tuple(int(r.op), r.max_value_bytes); };
  check_groups(tt::reduce_sm90, key);
  check_groups(tt::reduce_sm80, key);
  check_groups(tt::reduce_default, key);
  for (const auto& r : tt::reduce_sm90) {
    CHECK(valid_shape(r.config.threads, r.config.items_per_thread));
    CHECK((r.config.backend == backend_id::atomic || r.config.backend == backend_id::shared_memory ||
           r.config.backend == backend_id::warp_shuffle));
    CHECK(r.max_value_bytes >= 1);
  }
  // `other` matches every class: its rules come after all others, or they would shadow them.
  bool seen_other = false;
  for (const auto& r : tt::reduce_sm90) {
    if (r.op == tt::reduce_op_class::other) seen_other = true;
    else CHECK_FALSE(seen_other);
  }
  CHECK(seen_other);  // operators without a tuned class have a rule
}

TEST_CASE("tuning format: top_k and copy_if rules choose a merge / scan backend and a valid shape") {
  check_groups(tt::top_k_sm90, [](const tt::top_k_rule& r) { return r.max_list_size; });
  check_groups(tt::top_k_default, [](const tt::top_k_rule& r) { return r.max_list_size; });
  for (const auto& r : tt::top_k_sm90) {
    CHECK(valid_shape(r.config.threads, r.config.items_per_thread));
    CHECK((r.config.backend == backend_id::warp_shuffle || r.config.backend == backend_id::shared_memory));
  }
  auto copy_key = [](const tt::copy_if_rule& r) { return std::make_tuple(r.unordered, r.max_value_bytes); };
  check_groups(tt::copy_if_sm90, copy_key);
  check_groups(tt::copy_if_default, copy_key);
  for (const auto& r : tt::copy_if_sm90) {
    CHECK(valid_shape(r.config.threads, r.config.items_per_thread));
    CHECK((r.config.backend == backend_id::warp_shuffle || r.config.backend == backend_id::shared_memory));
  }
  // Every list length up to 32 and every value size has a rule on every architecture.
  for (int arch : {70, 80, 90}) {
    for (int list = 1; list <= 32; list *= 2)
      for (std::int64_t n : {std::int64_t(1), std::int64_t(1) << 20, std::int64_t(1) << 40})
        CHECK(valid_shape(tt::select_top_k(arch, list, n).threads, tt::select_top_k(arch, list, n).items_per_thread));
    for (bool unordered : {false, true})
      for (int bytes : {1, 4, 8, 16, 24, 100})
        CHECK(valid_shape(tt::select_copy_if(arch, unordered, bytes, 1 << 20).threads,
                          tt::select_copy_if(arch, unordered, bytes, 1 << 20).items_per_thread));
  }
  // Large values take fewer items per thread than 4-byte ones (the staging buffer's size).
  CHECK(tt::select_copy_if(70, false, 24, 1 << 20).items_per_thread < tt::select_copy_if(70, false, 4, 1 << 20).items_per_thread);
}

TEST_CASE("tally tune: choose_rules keeps a choice while it is within the tolerance, splits buckets halfway") {
  using tally_tool::choose_rules;
  using tally_tool::tune_config;
  using tally_tool::tune_measurement;
  const tune_config a{"atomic", 256, 4}, b{"atomic", 512, 16}, c{"warp_shuffle", 256, 16};
  std::vector<tune_measurement> ms = {
      // 2^10: a best; 2^12: b 1% faster than a (a kept); 2^14: b 10% faster (switch);
      // 2^16: c best but b within 2%; 2^18: only b and c ran, c best by far.
      {1u << 10, a, 1.0, true},  {1u << 10, b, 1.5, true},  {1u << 10, c, 1.2, true},
      {1u << 12, a, 2.0, true},  {1u << 12, b, 1.98, true}, {1u << 12, c, 3.0, true},
      {1u << 14, a, 3.0, true},  {1u << 14, b, 2.7, true},  {1u << 14, c, 2.9, true},
      {1u << 16, a, 6.0, true},  {1u << 16, b, 5.05, true}, {1u << 16, c, 5.0, true},
      {1u << 18, a, 0.0, false}, {1u << 18, b, 9.0, true},  {1u << 18, c, 7.0, true},
  };
  const auto rules = choose_rules(ms, 0.02);
  REQUIRE(rules.size() == 3);
  CHECK(rules[0].config == a);
  CHECK(rules[0].max_log2_n == 13);  // 2^10 and 2^12, up to halfway to 2^14
  CHECK(rules[1].config == b);
  CHECK(rules[1].max_log2_n == 17);  // 2^14 and 2^16
  CHECK(rules[2].config == c);
  CHECK(rules[2].max_log2_n == tally_tool::tune_any_n);
  CHECK(rules[2].evidence.find("2^18") != std::string::npos);
  // A failed candidate is never chosen, however fast it claims to be.
  const auto only_failed = choose_rules({{1u << 10, a, 0.1, false}, {1u << 10, b, 5.0, true}});
  REQUIRE(only_failed.size() == 1);
  CHECK(only_failed[0].config == b);
  CHECK(choose_rules({}).empty());
}

TEST_CASE("tally tune: a limit on the configurations drops the one that costs least") {
  using tally_tool::choose_rules;
  using tally_tool::configs_of;
  using tally_tool::tune_config;
  using tally_tool::tune_measurement;
  const tune_config a{"atomic", 256, 4}, b{"atomic", 512, 16}, c{"warp_shuffle", 256, 16};
  // a wins 2^10, b 2^12, c 2^14; without c, b is 1% slower at 2^14; without b, a is 50% slower at 2^12.
  const std::vector<tune_measurement> ms = {
      {1u << 10, a, 1.0, true}, {1u << 10, b, 2.0, true},  {1u << 10, c, 2.0, true},
      {1u << 12, a, 3.0, true}, {1u << 12, b, 2.0, true},  {1u << 12, c, 2.5, true},
      {1u << 14, a, 9.0, true}, {1u << 14, b, 4.04, true}, {1u << 14, c, 4.0, true},
  };
  CHECK(configs_of(choose_rules(ms, 0.0, 0)).size() == 3);
  const auto two = choose_rules(ms, 0.0, 2);
  CHECK(configs_of(two) == std::vector<tune_config>{a, b});
  REQUIRE(two.size() == 2);
  CHECK(two[1].max_log2_n == tally_tool::tune_any_n);
  const auto one = choose_rules(ms, 0.0, 1);
  CHECK(configs_of(one) == std::vector<tune_config>{b});  // the least total slowdown alone
}

TEST_CASE("tally tune: the header it writes has the format of tuning/sm90.cuh") {
  using namespace tally_tool;
  const std::string h =
      tuning_header("GPU: test\nsecond line", {{"reduce_rule", "reduce_sm90", {"  {reduce_op_class::other, any_size, any_n, {backend_id::warp_shuffle, 256, 16}},"}},
                                              {"top_k_rule", "top_k_sm90", {}}});
  CHECK(h.rfind("#pragma once\n", 0) == 0);
  CHECK(h.find("/// GPU: test\n/// second line\n") != std::string::npos);
  CHECK(h.find("#include <tally/tuning/rules.cuh>") != std::string::npos);
  CHECK(h.find("inline constexpr reduce_rule reduce_sm90[] = {\n  {reduce_op_class::other") != std::string::npos);
  CHECK(h.find("inline constexpr top_k_rule top_k_sm90[] = {\n};") != std::string::npos);
  CHECK(h.find("TALLY_NAMESPACE_END") != std::string::npos);
  CHECK(config_cpp({"atomic", 512, 16}) == "{backend_id::atomic, 512, 16}");
  CHECK(log2_cpp(62) == "any_n");
  CHECK(log2_cpp(20) == "20");
  CHECK(floor_log2(1) == 0);
  CHECK(floor_log2((1u << 20) + 3) == 20);
}
