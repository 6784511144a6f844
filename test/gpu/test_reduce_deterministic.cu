// deterministic(): the same input, policy and GPU give bitwise identical results, run
// after run. Float and double sums on shared_memory, warp_shuffle and automatic (10 runs
// each of reduce and reduce_into, also with a tuned shape), each within tolerance of CUB;
// and the exact reductions (integer sums, float max/min) that the atomic backend may run
// deterministically.
#include "common.cuh"

namespace {

template <class T, class Policy>
void check_repeatable_sum(const Policy& policy, const tt::dataset<T>& d, const char* label) {
  INFO("type=", tt::type_name<T>(), " policy=", label, " n=", d.n, " pattern=", tt::pattern_name(d.pat));
  const T init = T(0.25);
  const std::vector<T> host = d.host();
  const T expected = tt::cub_reduce(d.ptr, d.n, init, tt::ref_plus<T>{});
  const double tol = tt::sum_rel_tolerance<T>() * tt::abs_sum(host, init) + 1e-30;
  for (tt::run_mode mode : tt::run_modes) {
    const std::string what = std::string("op=plus ") + tt::mode_name(mode);
    std::optional<T> first;
    for (int run = 0; run < 10; ++run) {
      const auto r = tt::run_tally(policy, d.ptr, d.n, init, tally::plus<T>{}, mode, what);
      if (!r) break;
      if (!first) {
        first = r;
        tt::check_close(*r, expected, tol, what + " vs CUB");
      } else {
        INFO("run=", run);
        if (!tt::report(tt::bit_pattern(*r) == tt::bit_pattern(*first),
                        what + ": run differs from the first: " + tt::describe(*r) + " vs " + tt::describe(*first)))
          break;
      }
    }
  }
  // The sync and async forms agree too (same policy, same stream order of work).
  const auto a = tt::run_tally(policy, d.ptr, d.n, init, tally::plus<T>{}, tt::run_mode::sync, "sync");
  const auto b = tt::run_tally(policy, d.ptr, d.n, init, tally::plus<T>{}, tt::run_mode::async, "async");
  if (a && b)
    tt::report(tt::bit_pattern(*a) == tt::bit_pattern(*b),
               "reduce and reduce_into differ: " + tt::describe(*a) + " vs " + tt::describe(*b));
}

template <class T>
void check_deterministic_sums() {
  tt::failure_budget budget;
  for (long long n : tt::listed_sizes({1, 2, 33, 4097, 65537, 1000003, (1LL << 20) + 1, 1LL << 22, (1LL << 24) + 7})) {
    for (tt::pattern p : {tt::pattern::random, tt::pattern::sorted}) {
      const auto d = tt::make_data<T>(n, p);
      tt::for_each_non_atomic_backend([&](auto backend) {
        const auto policy = tally::par.with(backend).deterministic();
        check_repeatable_sum(policy, d, tt::backend_label(backend));
        check_repeatable_sum(policy.template tune<128, 4>(), d, "tune<128, 4>");
      });
      check_repeatable_sum(tally::par.deterministic(), d, "tally::par.deterministic()");
    }
  }
}

}  // namespace

TEST_CASE("deterministic(): float sums are bitwise repeatable") { check_deterministic_sums<float>(); }

TEST_CASE("deterministic(): double sums are bitwise repeatable") { check_deterministic_sums<double>(); }

TEST_CASE_TEMPLATE("deterministic(): exact reductions on every backend, the atomic one included", B, TT_BACKENDS) {
  tt::failure_budget budget;
  const auto policy = tally::par.with(B{}).deterministic();
  for (long long n : tt::listed_sizes({1, 4097, 65537, (1LL << 22) + 1})) {
    INFO("backend=", tt::backend_label(B{}), " n=", n);
    const tt::exact_case c = tt::make_exact_case(n, /*offset=*/0, /*int_init=*/0);
    for (tt::run_mode mode : tt::run_modes) {
      for (int run = 0; run < 3; ++run) tt::check_exact_ops(policy, c, mode);
    }
  }
}
