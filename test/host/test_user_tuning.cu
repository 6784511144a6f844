// A user tuning table (TALLY_USER_TUNING_HEADER, tuning/select.cuh): this translation unit
// is compiled with the define (test/CMakeLists.txt) naming user_tuning/sm89_test_table.cuh.
// Its rules come first for the architecture they name, tally's own tables still serve the
// rest, and the versioned namespace differs from the other translation units' (so the same
// executable holds both selections without a clash).
#include <tally/tuning/select.cuh>

#include <doctest/doctest.h>

#include <string>

#ifndef TALLY_USER_TUNING_HEADER
#error "test_user_tuning.cu must be compiled with TALLY_USER_TUNING_HEADER"
#endif

namespace tt = tally::tuning;

TEST_CASE("tuning: a user table comes first, for its own architecture only") {
  const tt::launch_policy mine = tt::select(89, tt::kernel_class::integer_sum, 4);
  CHECK(mine == tt::launch_policy{tally::backend_id::shared_memory, 64, 2});
  // Other architectures, and classes the user table has no rule for, keep tally's tables.
  CHECK(tt::select(90, tt::kernel_class::integer_sum, 4) == tt::sm90_table().rules[0].policy);
  CHECK(tt::select(80, tt::kernel_class::integer_sum, 4) == tt::sm80_table().rules[0].policy);
  CHECK(tt::select(89, tt::kernel_class::floating_sum, 4) == tt::sm80_table().rules[1].policy);
  // Also at compile time (what a kernel compiled for sm_89 reads).
  static_assert(tt::select(89, tt::kernel_class::integer_sum, 4).threads == 64);
}

TEST_CASE("tuning: a program with a user table has a namespace of its own") {
#define TALLY_TEST_STR_(x) #x
#define TALLY_TEST_STR(x) TALLY_TEST_STR_(x)
  const std::string ns = TALLY_TEST_STR(TALLY_VERSION_NAMESPACE);
  CHECK(ns.size() > 2);
  CHECK(ns.substr(ns.size() - 2) == "_U");
}
