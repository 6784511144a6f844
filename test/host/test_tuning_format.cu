// `tally tune`'s choice of one policy per class and the header it writes (src/tune_table.hpp,
// src/tune_compiled.cuh), checked against the format of tuning/policy.cuh and the shape of
// tuning/sm90.cuh. No GPU needed.

#include "../../src/tune_compiled.cuh"
#include "../../src/tune_table.hpp"

#include <doctest/doctest.h>

#include <tally/tuning/select.cuh>

#include <string>
#include <vector>

namespace tt = tally::tuning;
using tally::backend_id;
using tally_tool::tune_config;
using tally_tool::tune_measurement;

namespace {

std::size_t count(const std::string& haystack, const std::string& needle) {
  std::size_t n = 0;
  for (std::size_t at = haystack.find(needle); at != std::string::npos; at = haystack.find(needle, at + 1)) ++n;
  return n;
}

/// A row (a function rather than nested braces: GCC 12 warns -Wmaybe-uninitialized on
/// initializer lists of nested aggregates holding strings).
tally_tool::tune_row row(const char* kind, int bytes, int list, const char* backend, int threads, int items,
                         const char* comment) {
  tally_tool::tune_row r;
  r.kind = kind;
  r.max_value_bytes = bytes;
  r.max_list_size = list;
  r.config = tune_config{backend, threads, items};
  r.comment = comment;
  return r;
}

}  // namespace

TEST_CASE("tuning (tally tune): the tool's names of kernel_class follow the enum") {
  const auto& names = tally_tool::kernel_class_names();
  REQUIRE(names.size() == std::size_t(int(tt::kernel_class::extremum_small) + 1));
  CHECK(tally_tool::kernel_class_name(tt::kernel_class::integer_sum) == "integer_sum");
  CHECK(tally_tool::kernel_class_name(tt::kernel_class::floating_sum) == "floating_sum");
  CHECK(tally_tool::kernel_class_name(tt::kernel_class::min_max) == "min_max");
  CHECK(tally_tool::kernel_class_name(tt::kernel_class::other) == "other");
  CHECK(tally_tool::kernel_class_name(tt::kernel_class::extremum) == "extremum");
  CHECK(tally_tool::kernel_class_name(tt::kernel_class::top2) == "top2");
  CHECK(tally_tool::kernel_class_name(tt::kernel_class::top_k) == "top_k");
  CHECK(tally_tool::kernel_class_name(tt::kernel_class::copy_if) == "copy_if");
  CHECK(tally_tool::kernel_class_name(tt::kernel_class::copy_if_unordered) == "copy_if_unordered");
  CHECK(tally_tool::kernel_class_name(tt::kernel_class::top_k_small) == "top_k_small");
  CHECK(tally_tool::kernel_class_name(tt::kernel_class::top2_small) == "top2_small");
  CHECK(tally_tool::kernel_class_name(tt::kernel_class::copy_if_small) == "copy_if_small");
  CHECK(tally_tool::kernel_class_name(tt::kernel_class::copy_if_unordered_small) == "copy_if_unordered_small");
  CHECK(tally_tool::kernel_class_name(tt::kernel_class::extremum_small) == "extremum_small");
  CHECK(tally_tool::tune_any_size == tt::any_size);
  CHECK(tally_tool::rule_key("integer_sum", 4, tally_tool::tune_any_size) == "kernel_class::integer_sum, 4, any_size");
  CHECK(tally_tool::rule_key("top_k", tally_tool::tune_any_size, 8) == "kernel_class::top_k, any_size, 8");
  CHECK(tally_tool::config_cpp({"atomic", 512, 16}) == "{backend_id::atomic, 512, 16}");
}

TEST_CASE("tuning (tally tune): choose_policy takes the smallest worst ratio to the fastest, over every size") {
  using tally_tool::choose_policy;
  const tune_config a{"atomic", 256, 4}, b{"atomic", 512, 16}, c{"warp_shuffle", 256, 16};
  // a: fastest at 2^10 and 2^12, 1.50x at 2^14 (worst 1.50); b: 1.20x at 2^10 (worst 1.20);
  // c: the fastest at 2^14 but 2x at 2^10 (worst 2.00). b has the smallest worst ratio,
  // though it is the fastest nowhere.
  const std::vector<tune_measurement> ms = {
      {1u << 10, a, 1.0, true}, {1u << 10, b, 1.2, true}, {1u << 10, c, 2.0, true},
      {1u << 12, a, 2.0, true}, {1u << 12, b, 2.2, true}, {1u << 12, c, 3.0, true},
      {1u << 14, a, 6.0, true}, {1u << 14, b, 4.4, true}, {1u << 14, c, 4.0, true},
  };
  const auto choice = choose_policy(ms);
  REQUIRE(choice.chosen);
  CHECK(choice.config == b);
  CHECK(choice.worst_ratio == doctest::Approx(1.2));
  CHECK(choice.worst_n == (1u << 10));
  REQUIRE(choice.sizes.size() == 3);
  CHECK(choice.sizes[0].fastest == a);
  CHECK(choice.sizes[0].chosen_us == doctest::Approx(1.2));
  CHECK(choice.sizes[2].fastest == c);
  CHECK(choice.sizes[2].ratio == doctest::Approx(1.1));
  CHECK(choice.ratio_sum == doctest::Approx(1.2 + 1.1 + 1.1));
  CHECK(choice.evidence == "2^10 1.20 us, 2^12 2.20 us, 2^14 4.40 us; worst 1.20x the fastest (2^10)");

  // The fastest everywhere: ratio 1 at every size.
  const auto alone = choose_policy({{1u << 10, a, 1.0, true}, {1u << 10, b, 2.0, true}});
  REQUIRE(alone.chosen);
  CHECK(alone.config == a);
  CHECK(alone.worst_ratio == doctest::Approx(1.0));
  CHECK(alone.evidence == "2^10 1.00 us; the fastest at every size");
  CHECK_FALSE(choose_policy({}).chosen);
}

TEST_CASE("tuning (tally tune): choose_policy breaks ties on the sum of ratios, never takes a failed candidate") {
  using tally_tool::choose_policy;
  const tune_config a{"atomic", 256, 4}, b{"atomic", 512, 16}, c{"warp_shuffle", 256, 16}, f{"shared_memory", 128, 8};
  // Ratios to the fastest: a 1.25, 1.25, 1 (sum 3.5); b 1.25, 1, 1 (sum 3.25); c 1, 2, 1.25.
  // a and b tie at 1.25x worst: b, with the smaller sum.
  std::vector<tune_measurement> ms = {
      {1u << 10, a, 1.25, true}, {1u << 10, b, 1.25, true}, {1u << 10, c, 1.0, true},
      {1u << 12, a, 2.5, true},  {1u << 12, b, 2.0, true},  {1u << 12, c, 4.0, true},
      {1u << 14, a, 4.0, true},  {1u << 14, b, 4.0, true},  {1u << 14, c, 5.0, true},
  };
  const auto tie = choose_policy(ms);
  REQUIRE(tie.chosen);
  CHECK(tie.config == b);
  CHECK(tie.worst_ratio == doctest::Approx(1.25));
  CHECK(tie.ratio_sum == doctest::Approx(3.25));

  // f is the fastest wherever it ran right, but it failed at 2^12: never chosen (its
  // kernel would run there too). The fastest at 2^12 is then b: a 2.5, 1.25, 4 (sum
  // 7.75); b 2.5, 1, 4 (sum 7.5); c 2, 2, 5.
  ms.push_back({1u << 10, f, 0.5, true});
  ms.push_back({1u << 12, f, 0.0, false});
  ms.push_back({1u << 14, f, 1.0, true});
  const auto choice = choose_policy(ms);
  REQUIRE(choice.chosen);
  CHECK(choice.config == b);
  CHECK(choice.worst_ratio == doctest::Approx(4.0));
  CHECK(choice.worst_n == (1u << 14));
  CHECK(choice.sizes[1].fastest == b);

  // A size where nothing ran is left out; a candidate missing at a size where others ran
  // cannot be chosen.
  const auto partial = choose_policy({{1u << 10, a, 1.0, true},
                                      {1u << 12, a, 2.0, true},
                                      {1u << 10, b, 1.5, true},
                                      {1u << 16, a, 0.0, false},
                                      {1u << 16, b, 0.0, false}});
  REQUIRE(partial.chosen);
  CHECK(partial.config == a);
  CHECK(partial.sizes.size() == 2);
  // Nothing succeeded at every size: no choice (the compiled rule is kept).
  CHECK_FALSE(choose_policy({{1u << 10, a, 1.0, true}, {1u << 12, b, 1.0, true}}).chosen);
  CHECK_FALSE(choose_policy({{1u << 10, a, 0.0, false}}).chosen);
}

TEST_CASE("tuning (tally tune): the compiled table read back as rows is the table select() reads") {
  for (int arch : {70, 80, 86, 90, 100}) {
    CAPTURE(arch);
    const tt::rule_table table = tally_tool::compiled_table(arch);
    const auto rows = tally_tool::rows_of(table, "kept");
    REQUIRE(int(rows.size()) == table.size);
    for (int i = 0; i < table.size; ++i) {
      CHECK(rows[std::size_t(i)].kind == tally_tool::kernel_class_name(table.rules[i].kind));
      CHECK(rows[std::size_t(i)].max_value_bytes == table.rules[i].max_value_bytes);
      CHECK(rows[std::size_t(i)].max_list_size == table.rules[i].max_list_size);
      CHECK(rows[std::size_t(i)].config.backend == tally::backend_name(table.rules[i].policy.backend));
      CHECK(rows[std::size_t(i)].config.threads == table.rules[i].policy.threads);
      CHECK(rows[std::size_t(i)].config.items == table.rules[i].policy.items_per_thread);
    }
    // Unchanged by a merge with nothing tuned: the order is already the classes' order.
    const auto merged = tally_tool::merge_rows(rows, {});
    REQUIRE(merged.size() == rows.size());
    for (std::size_t i = 0; i < rows.size(); ++i) CHECK(merged[i].key() == rows[i].key());
  }
  CHECK(tally_tool::compiled_table_name(90) == "sm90_table");
  CHECK(tally_tool::compiled_table_name(120) == "sm90_table");
  CHECK(tally_tool::compiled_table_name(89) == "sm80_table");
  CHECK(tally_tool::compiled_table_name(75) == "generic_table");
}

TEST_CASE("tuning (tally tune): a tuned row replaces the compiled row of its key, or is placed in its class") {
  using tally_tool::tune_row;
  const int any = tally_tool::tune_any_size;
  const std::vector<tune_row> compiled = {
      row("integer_sum", 8, any, "atomic", 512, 16, "kept"),
      row("min_max", 8, any, "atomic", 512, 8, "kept"),
      row("top_k", any, 2, "warp_shuffle", 1024, 8, "kept"),
      row("top_k", any, 32, "shared_memory", 512, 4, "kept"),
  };
  const std::vector<tune_row> tuned = {
      row("copy_if_unordered", 4, any, "shared_memory", 128, 16, "int32 unordered"),
      row("integer_sum", 4, any, "atomic", 1024, 8, "int32 sum"),
      row("top_k", any, 8, "warp_shuffle", 512, 16, "top_k<8>"),
      row("top_k", any, 32, "warp_shuffle", 256, 8, "top_k<32>"),
  };
  const auto rows = tally_tool::merge_rows(compiled, tuned);
  std::vector<std::string> keys, comments;
  for (const auto& r : rows) keys.push_back(r.key()), comments.push_back(r.comment);
  CHECK(keys == std::vector<std::string>{
                    "kernel_class::integer_sum, 4, any_size",  // before the 8-byte rule, or shadowed by it
                    "kernel_class::integer_sum, 8, any_size",
                    "kernel_class::min_max, 8, any_size",
                    "kernel_class::top_k, any_size, 2",
                    "kernel_class::top_k, any_size, 8",
                    "kernel_class::top_k, any_size, 32",
                    "kernel_class::copy_if_unordered, 4, any_size",
                });
  CHECK(comments == std::vector<std::string>{"int32 sum", "kept", "kept", "kept", "top_k<8>", "top_k<32>",
                                             "int32 unordered"});
  CHECK(rows[5].config == tune_config{"warp_shuffle", 256, 8});
}

TEST_CASE("tuning (tally tune): the header it writes has the shape of tuning/sm90.cuh") {
  using tally_tool::tune_row;
  const int any = tally_tool::tune_any_size;
  const std::vector<tune_row> rows = {
      row("integer_sum", 4, any, "atomic", 512, 16, "int32 sum: 2^10 1.61 us, 2^28 340.05 us; worst 1.04x the fastest (2^10)"),
      row("other", any, any, "warp_shuffle", 512, 16, ""),
      row("top_k", any, 8, "warp_shuffle", 512, 16, "kept from sm90_table (not searched in this run)"),
      row("copy_if_unordered", 8, any, "shared_memory", 128, 16, "double"),
  };
  const std::string h = tally_tool::tuning_header("GPU: test\n\nsecond line", 90, rows);
  CHECK(h.rfind("#pragma once\n/// @file\n/// sm_90: ", 0) == 0);
  CHECK(h.find("/// GPU: test\n///\n/// second line\n") != std::string::npos);
  CHECK(h.find("#include <tally/tuning/policy.cuh>\n") != std::string::npos);
  CHECK(h.find("TALLY_NAMESPACE_BEGIN\nnamespace tuning {\n") != std::string::npos);
  CHECK(h.find("TALLY_HOST_DEVICE constexpr rule_table sm90_table() {\n  constexpr rule rules[] = {\n") !=
        std::string::npos);
  CHECK(h.find("  };\n  return make_table(rules);\n}\n") != std::string::npos);
  CHECK(h.find("}  // namespace tuning\nTALLY_NAMESPACE_END\n") != std::string::npos);
  CHECK(h.find("must be installed by hand") == std::string::npos);  // select.cuh reads sm90_table
  // The rows, in sm90.cuh's aligned columns, each comment after its rule.
  CHECK(h.find("\n  {kernel_class::integer_sum,       4, any_size, {backend_id::atomic,        512, 16}},"
               "  // int32 sum: 2^10 1.61 us, 2^28 340.05 us; worst 1.04x the fastest (2^10)\n") != std::string::npos);
  CHECK(h.find("\n  {kernel_class::other,      any_size, any_size, {backend_id::warp_shuffle,  512, 16}},\n") !=
        std::string::npos);
  CHECK(h.find("\n  {kernel_class::top_k,      any_size, 8,        {backend_id::warp_shuffle,  512, 16}},  // kept") !=
        std::string::npos);
  CHECK(h.find("\n  {kernel_class::copy_if_unordered, 8, any_size, {backend_id::shared_memory, 128, 16}},  // double\n") !=
        std::string::npos);
  CHECK(count(h, "{kernel_class::") == rows.size());

  // Another architecture: its own function, and the note that select.cuh does not read it.
  const std::string h89 = tally_tool::tuning_header("GPU: test", 89, rows);
  CHECK(h89.find("constexpr rule_table sm89_table() {") != std::string::npos);
  CHECK(h89.find("must be installed by hand") != std::string::npos);
}

TEST_CASE("tuning (tally tune): the header written from the compiled sm_90 table holds its rules") {
  // What a run that searches nothing would write: every rule of sm90_table, in its order.
  const auto rows = tally_tool::merge_rows(tally_tool::rows_of(tt::sm90_table(), "kept"), {});
  const std::string h = tally_tool::tuning_header("GPU: test", 90, rows);
  CHECK(count(h, "{kernel_class::") == std::size_t(tt::sm90_table().size));
  std::size_t at = 0;
  for (int i = 0; i < tt::sm90_table().size; ++i) {
    const tt::rule& r = tt::sm90_table().rules[i];
    const std::string kind = "{kernel_class::" + tally_tool::kernel_class_name(r.kind) + ",";
    // A small-input rule's size limit follows its policy: "{backend_id::atomic, 256, 8}, 20},".
    const std::string limit = r.max_items_log2 < 63 ? ", " + std::to_string(r.max_items_log2) : std::string();
    const std::string shape =
        std::to_string(r.policy.threads) + ", " + std::to_string(r.policy.items_per_thread) + "}" + limit + "},";
    CAPTURE(i);
    const std::size_t found = h.find(kind, at);
    REQUIRE(found != std::string::npos);
    const std::size_t eol = h.find('\n', found);
    const std::string line = h.substr(found, eol - found);
    CHECK(line.find(std::string("backend_id::") + tally::backend_name(r.policy.backend)) != std::string::npos);
    CHECK(line.find(shape) != std::string::npos);
    at = eol;
  }
}

TEST_CASE("tuning (tally tune --user-table): the header defines user_table(arch) for one architecture") {
  using tally_tool::tune_row;
  const int any = tally_tool::tune_any_size;
  const std::vector<tune_row> rows = {row("integer_sum", 4, any, "shared_memory", 256, 8, "int32 sum")};
  const std::string h = tally_tool::user_tuning_header("GPU: test", 89, rows);
  CHECK(h.rfind("#pragma once\n/// @file\n", 0) == 0);
  CHECK(h.find("TALLY_USER_TUNING_HEADER") != std::string::npos);  // says how to use it
  CHECK(h.find("TALLY_HOST_DEVICE constexpr rule_table user_table(int arch) {\n"
               "  if (arch != 89) return rule_table{};\n  constexpr rule rules[] = {\n") != std::string::npos);
  CHECK(h.find("{kernel_class::integer_sum,") != std::string::npos);
  CHECK(h.find("}  // namespace tuning\nTALLY_NAMESPACE_END\n") != std::string::npos);
}
