// The tuning tables and their selection (tuning/policy.cuh, tuning/select.cuh) and what a
// call site makes of the selection (detail::selector, the reductions' kernel classes).
// No GPU needed.

#include <doctest/doctest.h>

#include <tally/reduce.cuh>
#include <tally/top_k.cuh>
#include <tally/tuning/select.cuh>

#include <string>

namespace tt = tally::tuning;
using tally::backend_id;
using tt::kernel_class;

namespace {

constexpr kernel_class all_classes[] = {
    kernel_class::integer_sum, kernel_class::floating_sum, kernel_class::min_max,
    kernel_class::other,       kernel_class::extremum,     kernel_class::top2,
    kernel_class::top_k,       kernel_class::copy_if,      kernel_class::copy_if_unordered,
    kernel_class::top_k_small, kernel_class::top2_small, kernel_class::copy_if_small,
    kernel_class::copy_if_unordered_small, kernel_class::integer_sum_small, kernel_class::floating_sum_small,
    kernel_class::min_max_small, kernel_class::extremum_small,
};
constexpr int all_archs[] = {70, 75, 80, 86, 89, 90, 100, 120};
constexpr int value_sizes[] = {1, 2, 4, 8, 16, 24};
constexpr int list_sizes[] = {1, 2, 4, 8, 16, 32};

struct named_table {
  const char* name;
  tt::rule_table table;
};
const named_table shipped[] = {
    {"sm90_table", tt::sm90_table()}, {"sm80_table", tt::sm80_table()}, {"generic_table", tt::generic_table()}};

/// The policy of the first rule of `table` that applies (find_rule), or no_policy.
tt::launch_policy rule_of(const tt::rule_table& table, kernel_class kind, int value_bytes, int list_size = 1) {
  const int i = tt::find_rule(table, kind, value_bytes, list_size);
  return i >= 0 ? table.rules[i].policy : tt::no_policy();
}

}  // namespace

TEST_CASE("tuning tables: every shipped rule has a valid launch policy") {
  for (const auto& t : shipped) {
    CAPTURE(std::string(t.name));
    CHECK(t.table.size >= 1);
    CHECK(t.table.size <= tt::rule_table::capacity);
    for (int i = 0; i < t.table.size; ++i) {
      const tt::rule& r = t.table.rules[i];
      CAPTURE(i);
      CHECK(r.policy.threads >= 32);
      CHECK(r.policy.threads % 32 == 0);
      CHECK(r.policy.threads <= 1024);
      CHECK(r.policy.items_per_thread >= 1);
      CHECK(r.policy.items_per_thread <= 64);  // tune<T, I>()'s limit
      CHECK(r.policy.backend != backend_id::automatic);
      CHECK(r.policy.backend != backend_id::host);
      CHECK(r.max_value_bytes >= 1);
      CHECK(r.max_list_size >= 1);
      CHECK(int(r.kind) >= 0);
      CHECK(int(r.kind) <= int(kernel_class::extremum_small));
      // A small-input rule limits the sizes it runs for; the others admit every size.
      if (tt::is_small_class(r.kind)) {
        CHECK(r.max_items_log2 >= 10);
        CHECK(r.max_items_log2 < 63);
      } else {
        CHECK(r.max_items_log2 == 63);
      }
    }
  }
}

TEST_CASE("tuning tables: no rule is shadowed by an earlier one of its class") {
  // find_rule takes the first rule that admits a call: a rule whose limits an earlier rule
  // of the same class already covers is never read (a table in the wrong order).
  for (const auto& t : shipped) {
    CAPTURE(std::string(t.name));
    for (int i = 0; i < t.table.size; ++i)
      for (int j = 0; j < i; ++j) {
        const tt::rule &a = t.table.rules[j], &b = t.table.rules[i];
        CAPTURE(i);
        CAPTURE(j);
        CHECK_FALSE((a.kind == b.kind && b.max_value_bytes <= a.max_value_bytes && b.max_list_size <= a.max_list_size));
      }
  }
}

TEST_CASE("tuning tables: the generic table alone covers every class, value size and list size") {
  for (kernel_class kind : all_classes)
    if (!tt::is_small_class(kind) || kind == kernel_class::top_k_small)  // the others are optional
    for (int bytes : value_sizes)
      for (int list : list_sizes) {
        CAPTURE(int(kind));
        CAPTURE(bytes);
        CAPTURE(list);
        CHECK(tt::find_rule(tt::generic_table(), kind, bytes, list) >= 0);
      }
}

TEST_CASE("tuning select: every architecture has a policy for every class, value size and list size") {
  for (int arch : all_archs)
    for (kernel_class kind : all_classes)
      for (int bytes : value_sizes)
        for (int list : list_sizes) {
          if (tt::is_small_class(kind) && kind != kernel_class::top_k_small) continue;  // optional (next test)
          const tt::launch_policy p = tt::select(arch, kind, bytes, list);
          CAPTURE(arch);
          CAPTURE(int(kind));
          CAPTURE(bytes);
          CAPTURE(list);
          CHECK_FALSE(p == tt::no_policy());
          CHECK(p.threads > 0);
          CHECK(p.items_per_thread > 0);
          CHECK(p.backend != backend_id::automatic);
        }
}

TEST_CASE("tuning select: a small-input kernel runs up to its rule's size, or never without a rule") {
  using tally::detail::selector;
  for (int arch : all_archs)
    for (kernel_class kind : all_classes) {
      if (!tt::is_small_class(kind)) continue;
      for (int bytes : value_sizes) {
        CAPTURE(arch);
        CAPTURE(int(kind));
        CAPTURE(bytes);
        const tt::rule r = tt::select_rule(arch, kind, bytes, 8);
        const tt::launch_policy large = tt::select(arch, tt::large_class_of(kind), bytes, 8);
        auto check_one = [&](auto sel) {
          using S = decltype(sel);
          if (tt::is_valid(r.policy)) {
            CHECK(S::for_arch(arch) == r.policy);
            CHECK(S::max_items(arch) == (std::int64_t(1) << r.max_items_log2));
          } else {  // compiled as the class's own kernel, never launched
            CHECK(S::for_arch(arch) == large);
            CHECK(S::max_items(arch) == -1);
          }
        };
        // The selectors of the small classes at this value size (list 8).
        if (bytes == 4) {
          if (kind == kernel_class::top2_small) check_one(selector<kernel_class::top2_small, 4, 8, backend_id::automatic, 0, 0>{});
          if (kind == kernel_class::copy_if_small) check_one(selector<kernel_class::copy_if_small, 4, 8, backend_id::automatic, 0, 0>{});
          if (kind == kernel_class::copy_if_unordered_small)
            check_one(selector<kernel_class::copy_if_unordered_small, 4, 8, backend_id::automatic, 0, 0>{});
          if (kind == kernel_class::top_k_small) check_one(selector<kernel_class::top_k_small, 4, 8, backend_id::automatic, 0, 0>{});
          if (kind == kernel_class::integer_sum_small)
            check_one(selector<kernel_class::integer_sum_small, 4, 8, backend_id::automatic, 0, 0>{});
          if (kind == kernel_class::floating_sum_small)
            check_one(selector<kernel_class::floating_sum_small, 4, 8, backend_id::automatic, 0, 0>{});
          if (kind == kernel_class::min_max_small) check_one(selector<kernel_class::min_max_small, 4, 8, backend_id::automatic, 0, 0>{});
          if (kind == kernel_class::extremum_small) check_one(selector<kernel_class::extremum_small, 4, 8, backend_id::automatic, 0, 0>{});
        }
        if (bytes == 8) {
          if (kind == kernel_class::floating_sum_small)
            check_one(selector<kernel_class::floating_sum_small, 8, 8, backend_id::automatic, 0, 0>{});
          if (kind == kernel_class::extremum_small) check_one(selector<kernel_class::extremum_small, 8, 8, backend_id::automatic, 0, 0>{});
        }
        if (bytes == 8) {
          if (kind == kernel_class::top2_small) check_one(selector<kernel_class::top2_small, 8, 8, backend_id::automatic, 0, 0>{});
          if (kind == kernel_class::copy_if_small) check_one(selector<kernel_class::copy_if_small, 8, 8, backend_id::automatic, 0, 0>{});
        }
      }
    }
  // The other classes have no size limit.
  CHECK(selector<kernel_class::top_k, 4, 8, backend_id::automatic, 0, 0>::max_items(90) == INT64_MAX);
  // sm_90 has the measured small-input rules (tuning/sm90.cuh); sm_80 has none for top2.
  CHECK(selector<kernel_class::top2_small, 4, 1, backend_id::automatic, 0, 0>::max_items(90) > 0);
  CHECK(selector<kernel_class::top2_small, 4, 1, backend_id::automatic, 0, 0>::max_items(80) == -1);
  // sm_90's reductions of 4-byte values have a small-input kernel of one tile (its limit is
  // at most its tile, so that it reads its input in one round: detail/reduce/kernel.cuh).
  for (kernel_class kind : {kernel_class::integer_sum_small, kernel_class::floating_sum_small,
                            kernel_class::min_max_small, kernel_class::extremum_small}) {
    CAPTURE(int(kind));
    const tt::rule r = tt::select_rule(90, kind, 4, 1);
    REQUIRE(tt::is_valid(r.policy));
    CHECK((std::int64_t(1) << r.max_items_log2) <= std::int64_t(r.policy.threads) * r.policy.items_per_thread);
  }
}

TEST_CASE("tuning select: each architecture reads its table, then the generic one") {
  for (kernel_class kind : all_classes)
    for (int bytes : value_sizes)
      for (int list : list_sizes) {
        CAPTURE(int(kind));
        CAPTURE(bytes);
        CAPTURE(list);
        auto expect = [&](const tt::rule_table& first) {
          const tt::launch_policy p = rule_of(first, kind, bytes, list);
          return p == tt::no_policy() ? rule_of(tt::generic_table(), kind, bytes, list) : p;
        };
        for (int arch : {90, 100, 120}) CHECK(tt::select(arch, kind, bytes, list) == expect(tt::sm90_table()));
        for (int arch : {80, 86, 89}) CHECK(tt::select(arch, kind, bytes, list) == expect(tt::sm80_table()));
        for (int arch : {70, 75}) CHECK(tt::select(arch, kind, bytes, list) == rule_of(tt::generic_table(), kind, bytes, list));
      }
  // Named cases: sm_86 takes sm80's integer sum, sm_100 sm90's, sm_75 the generic one;
  // sm80_table has no copy_if rule (the generic one's), sm90_table has one.
  CHECK(tt::select(86, kernel_class::integer_sum, 4) == rule_of(tt::sm80_table(), kernel_class::integer_sum, 4));
  CHECK(tt::select(100, kernel_class::integer_sum, 4) == rule_of(tt::sm90_table(), kernel_class::integer_sum, 4));
  CHECK(tt::select(75, kernel_class::integer_sum, 4) == rule_of(tt::generic_table(), kernel_class::integer_sum, 4));
  CHECK(tt::find_rule(tt::sm80_table(), kernel_class::copy_if, 4, 1) < 0);
  CHECK(tt::select(80, kernel_class::copy_if, 4) == rule_of(tt::generic_table(), kernel_class::copy_if, 4));
  CHECK(tt::find_rule(tt::sm90_table(), kernel_class::copy_if, 4, 1) >= 0);
  CHECK(tt::select(90, kernel_class::copy_if, 4) == rule_of(tt::sm90_table(), kernel_class::copy_if, 4));
  // Values wider than any sm_90 rule of the class: the generic table.
  CHECK(tt::find_rule(tt::sm90_table(), kernel_class::integer_sum, 16, 1) < 0);
  CHECK(tt::select(90, kernel_class::integer_sum, 16) == rule_of(tt::generic_table(), kernel_class::integer_sum, 16));
}

TEST_CASE("tuning select: usable in a constant expression (device code reads it at compile time)") {
  constexpr tt::launch_policy p = tt::select(90, kernel_class::integer_sum, 4);
  static_assert(p.threads > 0 && p.threads % 32 == 0 && p.threads <= 1024 && p.items_per_thread >= 1,
                "a launch shape, known at compile time");
  static_assert(p.backend != backend_id::automatic, "a backend, known at compile time");
  constexpr tt::rule_table sm90 = tt::sm90_table();
  constexpr int i = tt::find_rule(sm90, kernel_class::integer_sum, 4, 1);
  static_assert(i >= 0 && sm90.rules[i].policy == p, "select reads the sm_90 table's rule");
  static_assert(!(tt::select(70, kernel_class::top_k, 4, 32) == tt::no_policy()), "top_k lists of 32 on sm_70");
  static_assert(tt::select(70, kernel_class::copy_if, 8) == tt::generic_table().rules[tt::find_rule(
                                                                tt::generic_table(), kernel_class::copy_if, 8, 1)]
                                                               .policy,
                "sm_70 reads the generic table");
  CHECK(p.threads > 0);
}

TEST_CASE("tuning select: a table with no rule for a call gives no_policy") {
  constexpr tt::rule rules[] = {{kernel_class::integer_sum, 4, tt::any_size, {backend_id::atomic, 256, 8}}};
  constexpr tt::rule_table table = tt::make_table(rules);
  static_assert(table.size == 1, "make_table keeps the rules");
  CHECK(tt::find_rule(table, kernel_class::integer_sum, 4, 1) == 0);
  CHECK(tt::find_rule(table, kernel_class::integer_sum, 8, 1) == -1);
  CHECK(tt::find_rule(table, kernel_class::floating_sum, 4, 1) == -1);
  CHECK(tt::no_policy().threads == 0);
}

TEST_CASE("tuning call sites: the reductions' kernel classes and what a policy forces") {
  using tally::detail::reduce_class_of;
  CHECK(reduce_class_of<tally::plus<int>, int>() == kernel_class::integer_sum);
  CHECK(reduce_class_of<tally::plus<>, unsigned char>() == kernel_class::integer_sum);
  CHECK(reduce_class_of<tally::plus<float>, float>() == kernel_class::floating_sum);
  CHECK(reduce_class_of<tally::plus<double>, double>() == kernel_class::floating_sum);
  CHECK(reduce_class_of<tally::maximum<double>, double>() == kernel_class::min_max);
  CHECK(reduce_class_of<tally::minimum<>, long long>() == kernel_class::min_max);

  // top_k<K> reads the rule of its list size: K rounded up to a power of two.
  CHECK(tally::detail::top_k_list_size(8) == 8);
  CHECK(tally::detail::top_k_list_size(5) == 8);
  CHECK(tally::detail::top_k_list_size(32) == 32);
  CHECK(tally::detail::top_k_list_size(17) == 32);

  using tally::detail::selector;
  constexpr auto automatic = backend_id::automatic;
  // Nothing forced: the table's policy.
  using plain = selector<kernel_class::integer_sum, 4, 1, automatic, 0, 0>;
  CHECK(plain::for_arch(90) == tt::select(90, kernel_class::integer_sum, 4));
  CHECK(plain::for_arch(70) == tt::select(70, kernel_class::integer_sum, 4));
  // with(backend): the table's shape on that backend.
  using forced = selector<kernel_class::integer_sum, 4, 1, backend_id::shared_memory, 0, 0>;
  CHECK(forced::for_arch(90).backend == backend_id::shared_memory);
  CHECK(forced::for_arch(90).threads == tt::select(90, kernel_class::integer_sum, 4).threads);
  // tune<T, I>(): that shape.
  using shaped = selector<kernel_class::integer_sum, 4, 1, automatic, 128, 4>;
  CHECK(shaped::for_arch(90).threads == 128);
  CHECK(shaped::for_arch(90).items_per_thread == 4);
  CHECK(shaped::for_arch(90).backend == tt::select(90, kernel_class::integer_sum, 4).backend);
  // Atomics not allowed (a deterministic() float sum): a table's atomic becomes warp_shuffle.
  using deterministic = selector<kernel_class::floating_sum, 4, 1, automatic, 0, 0, false>;
  for (int arch : all_archs) {
    CAPTURE(arch);
    CHECK(deterministic::for_arch(arch).backend != backend_id::atomic);
    if (tt::select(arch, kernel_class::floating_sum, 4).backend == backend_id::atomic)
      CHECK(deterministic::for_arch(arch).backend == backend_id::warp_shuffle);
  }
}
