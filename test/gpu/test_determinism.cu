// deterministic(): the same input, policy and GPU give bitwise identical results, run
// after run: 100 runs of each call (alternating the synchronous form on the default
// stream and the asynchronous one on a created stream), each compared with memcmp with
// the first run, and the first run with a reference (CUB, or the host where CUB has no
// equivalent), so that a result that is repeatable but wrong fails too.
//   float and double sums on every backend that may be deterministic for them
//     (automatic, shared_memory, warp_shuffle, and a tuned shape; the atomic backend
//     refuses deterministic floating sums at compile time: see
//     test/compile_fail/atomic_deterministic_float_sum.cu), on seeded data over a large
//     dynamic range (magnitudes 2^-60..2^60 for float, 2^-600..2^600 for double, both
//     signs, zeros of both signs), where any change in the order of the additions
//     changes the last bits, and on the suites' ordinary random data;
//   max_element / min_element (float with NaN, float and int32 with many ties), top_k<8>
//     (float with ties and NaN; the values compared bitwise too) and stable copy_if
//     (float with NaN, -0.0 and infinities, two predicates) on all four backends (the
//     atomic one is stable and exact under deterministic());
//   int32 and int64 sums, maxima and minima on all four backends: every run of every
//     backend gives CUB's (exact) result, so the backends also agree with each other.
// TALLY_SANITIZE=1 (set by scripts/sanitize.sh) runs smaller sizes and 5 runs.
#include "copy_if_common.cuh"
#include "top_k_common.cuh"

#include <cstdlib>

namespace determinism_test {

using tt::sanitizing;
int runs() { return sanitizing() ? 5 : 100; }
std::vector<long long> sum_sizes() {
  if (sanitizing()) return {1, 33, 4097, 65537};
  return {1, 33, 4097, 65537, 1000003, (1LL << 24) + 7};
}
std::vector<long long> other_sizes() {
  if (sanitizing()) return {1, 4097, 65537};
  return {1, 33, 4097, 65537, 1000003};
}

/// sign * m * 2^e (rounded to T) with m in [1, 2) and e uniform in [-E, E]; one item in
/// 16 is a zero of either sign.
template <class T>
struct wide_range_items {
  std::uint64_t seed;
  __host__ __device__ T operator()(std::uint64_t i) const {
    constexpr int E = sizeof(T) == 4 ? 60 : 600;
    const std::uint64_t h = tt::hash(i, seed);
    const std::uint64_t g = tt::hash(h);
    const double sign = (h >> 63) ? -1.0 : 1.0;
    if (h % 16 == 0) return T(sign * 0.0);
    const int e = static_cast<int>((h >> 8) % (2 * E + 1)) - E;
    const double m = 1.0 + (sizeof(T) == 4 ? double(tt::unit_float(g)) : tt::unit_double(g));
    return T(sign * ldexp(m, e));
  }
};

template <class T>
tt::dataset<T> make_wide_range(long long n) {
  return tt::make_generated<T>(n, wide_range_items<T>{tt::default_seed});
}

/// The form of run `run`: even runs synchronous (default stream), odd ones asynchronous.
tt::run_mode mode_of(int run) { return run % 2 ? tt::run_mode::async : tt::run_mode::sync; }

template <class T>
bool same_bits(const T& a, const T& b) {
  return std::memcmp(&a, &b, sizeof(T)) == 0;
}

/// runs() sums of d under `policy`: every run bitwise equal to the first, the first
/// within tolerance of CUB.
template <class T, class Policy>
void check_sum_repeats(const Policy& policy, const tt::dataset<T>& d, const std::vector<T>& host,
                       const std::string& label) {
  const T init = T(0.25);
  const T expected = tt::cub_reduce(d.ptr, d.n, init, tt::ref_plus<T>{});
  const double tol = tt::sum_rel_tolerance<T>() * tt::abs_sum(host, init) + 1e-300;
  std::optional<T> first;
  for (int run = 0; run < runs(); ++run) {
    const std::string what = "sum " + label + " " + tt::mode_name(mode_of(run)) + " run " + std::to_string(run);
    const auto r = tt::run_tally(policy, d.ptr, d.n, init, tally::plus<T>{}, mode_of(run), what);
    if (!r) return;
    if (!first) {
      first = r;
      tt::check_close(*r, expected, tol, what + " vs CUB");
    } else if (!same_bits(*r, *first)) {
      tt::report(false, what + ": " + tt::describe(*r) + " differs from run 0: " + tt::describe(*first));
      return;
    }
  }
  tt::report(true, label);
}

/// f(policy, label) for the policies that give deterministic floating sums.
template <class F>
void for_each_float_sum_policy(F&& f) {
  f(tally::par.deterministic(), std::string("tally::par.deterministic()"));
  f(tally::par.with(tally::backend::shared_memory).deterministic(), std::string("backend=shared_memory"));
  f(tally::par.with(tally::backend::warp_shuffle).deterministic(), std::string("backend=warp_shuffle"));
  f(tally::par.with(tally::backend::automatic).deterministic().tune<128, 4>(), std::string("automatic tune<128, 4>"));
}

/// f(policy, label) for every backend under deterministic().
template <class F>
void for_each_deterministic_policy(F&& f) {
  tt::for_each_backend([&](auto backend) {
    f(tally::par.with(backend).deterministic(), std::string("backend=") + tt::backend_label(backend));
  });
}

/// runs() calls of max_element (Max) or min_element: every run the expected index.
template <bool Max, class Policy, class T>
void check_extremum_repeats(const Policy& policy, const tt::dataset<T>& d, long long expected,
                            const std::string& label) {
  for (int run = 0; run < runs(); ++run) {
    const tt::ext_mode mode = run % 2 ? tt::ext_mode::async : tt::ext_mode::sync;
    const std::string what = std::string(tt::ext_name(Max, mode)) + " " + label + " run " + std::to_string(run);
    const auto r = tt::run_extremum<Max>(policy, d.ptr, d.n, tally::less<>{}, mode, what);
    if (!r || !tt::check_exact(*r, expected, what)) return;
  }
}

template <class T>
void check_extrema_on(const tt::dataset<T>& d, const std::string& data_name) {
  INFO("type=", std::string(tt::type_name<T>()), " n=", d.n, " data=", data_name);
  const std::vector<T> host = d.host();
  const long long expect_max = tt::host_arg<true>(host, tt::lib_order_less{});
  const long long expect_min = tt::host_arg<false>(host, tt::lib_order_less{});
  for_each_deterministic_policy([&](const auto& policy, const std::string& label) {
    check_extremum_repeats<true>(policy, d, expect_max, label);
    check_extremum_repeats<false>(policy, d, expect_min, label);
  });
}

template <class T>
void check_top_k_on(const tt::dataset<T>& d, const std::string& data_name) {
  constexpr int K = 8;
  INFO("type=", std::string(tt::type_name<T>()), " n=", d.n, " data=", data_name);
  const std::vector<T> host = d.host();
  tt::top_list<T> expected;
  expected.indices = tt::host_top_indices(host, tt::lib_order_less{}, K);
  for (long long i : expected.indices) expected.values.push_back(host[std::size_t(i)]);
  for_each_deterministic_policy([&](const auto& policy, const std::string& label) {
    std::optional<tt::top_k_output<T>> first;
    for (int run = 0; run < runs(); ++run) {
      const tt::top_k_form form = run % 2 ? tt::top_k_form::async : tt::top_k_form::sync;
      const std::string what = std::string(tt::form_name(form)) + "<8> " + label + " run " + std::to_string(run);
      auto r = tt::run_top_k<K>(policy, d.ptr, d.n, tally::less<>{}, form, what);
      if (!r) return;
      if (!first) {
        if (!tt::check_list(r->indices, r->values, expected, expected.indices.size(), what)) return;
        first = std::move(r);
        continue;
      }
      const bool same =
          r->indices == first->indices && r->values.size() == first->values.size() &&
          (r->values.empty() || std::memcmp(r->values.data(), first->values.data(), r->values.size() * sizeof(T)) == 0);
      if (!tt::report(same, what +
                                ": differs from run 0: " + tt::describe_list(r->indices, r->values, r->values.size()) +
                                " vs " + tt::describe_list(first->indices, first->values, first->values.size())))
        return;
    }
  });
}

}  // namespace determinism_test

using namespace determinism_test;

TEST_CASE_TEMPLATE("deterministic(): floating sums are bitwise equal over 100 runs", T, float, double) {
  tt::failure_budget budget;
  for (long long n : sum_sizes()) {
    for (int data = 0; data < 2; ++data) {
      const tt::dataset<T> d = data == 0 ? make_wide_range<T>(n) : tt::make_data<T>(n, tt::pattern::random);
      const char* data_name = data == 0 ? "wide dynamic range" : "random";
      INFO("type=", std::string(tt::type_name<T>()), " n=", n, " data=", data_name);
      const std::vector<T> host = d.host();
      for_each_float_sum_policy(
          [&](const auto& policy, const std::string& label) { check_sum_repeats(policy, d, host, label); });
    }
  }
}

TEST_CASE_TEMPLATE("deterministic(): integer sums, maxima and minima: every run of every backend gives CUB's result", T,
                   std::int32_t, std::int64_t) {
  tt::failure_budget budget;
  for (long long n : other_sizes()) {
    // pattern::random: sums that do not overflow; pattern::wide (max / min only): the
    // whole range of the type.
    for (tt::pattern p : {tt::pattern::random, tt::pattern::wide}) {
      INFO("type=", std::string(tt::type_name<T>()), " n=", n, " pattern=", std::string(tt::pattern_name(p)));
      const tt::dataset<T> d = tt::make_data<T>(n, p);
      const T sum = tt::cub_reduce(d.ptr, n, T(7), tt::ref_plus<T>{});
      const T max = tt::cub_reduce(d.ptr, n, tt::lowest<T>(), tt::ref_max<T>{});
      const T min = tt::cub_reduce(d.ptr, n, tt::highest<T>(), tt::ref_min<T>{});
      for_each_deterministic_policy([&](const auto& policy, const std::string& label) {
        for (int run = 0; run < runs(); ++run) {
          const tt::run_mode mode = mode_of(run);
          const std::string suffix = " " + label + " " + tt::mode_name(mode) + " run " + std::to_string(run);
          if (p == tt::pattern::random) {
            const auto r = tt::run_tally(policy, d.ptr, n, T(7), tally::plus<T>{}, mode, "sum" + suffix);
            if (!r || !tt::report(same_bits(*r, sum),
                                  "sum" + suffix + ": " + tt::describe(*r) + ", expected " + tt::describe(sum)))
              return;
          }
          const auto hi = tt::run_tally(policy, d.ptr, n, tt::lowest<T>(), tally::maximum<T>{}, mode, "max" + suffix);
          if (!hi || !tt::report(same_bits(*hi, max),
                                 "max" + suffix + ": " + tt::describe(*hi) + ", expected " + tt::describe(max)))
            return;
          const auto lo = tt::run_tally(policy, d.ptr, n, tt::highest<T>(), tally::minimum<T>{}, mode, "min" + suffix);
          if (!lo || !tt::report(same_bits(*lo, min),
                                 "min" + suffix + ": " + tt::describe(*lo) + ", expected " + tt::describe(min)))
            return;
        }
      });
    }
  }
}

TEST_CASE("deterministic(): max_element / min_element give the same index over 100 runs on every backend") {
  tt::failure_budget budget;
  for (long long n : other_sizes()) {
    check_extrema_on(tt::make_data<float>(n, tt::pattern::with_nan), "float with NaN");
    check_extrema_on(tt::make_ties<float>(n), "float ties (-1, 0, 1, 2)");
    check_extrema_on(make_wide_range<float>(n), "float wide dynamic range");
    check_extrema_on(tt::make_ties<std::int32_t>(n), "int32 ties (-1, 0, 1, 2)");
  }
}

TEST_CASE("deterministic(): top_k<8> gives the same indices and value bits over 100 runs on every backend") {
  tt::failure_budget budget;
  for (long long n : other_sizes()) {
    check_top_k_on(tt::make_ties<float>(n), "float ties (-1, 0, 1, 2)");
    check_top_k_on(tt::make_data<float>(n, tt::pattern::with_nan), "float with NaN");
  }
}

TEST_CASE("deterministic(): stable copy_if gives the same output bytes over 100 runs on every backend") {
  tt::failure_budget budget;
  const tt::select_pred<float> preds[] = {{0.5f, tt::float_test::greater}, {0.5f, tt::float_test::not_greater_equal}};
  const char* const pred_names[] = {"x > 0.5", "!(x >= 0.5) (NaN selected)"};
  for (long long n : other_sizes()) {
    const tt::dataset<float> d = tt::make_items<float>(n);
    tt::guarded_output<float> out(n, tt::aligned_lead<float>());
    for (int k = 0; k < 2; ++k) {
      INFO("float n=", n, " select ", std::string(pred_names[k]));
      tt::reference<float> expected = tt::cub_select(d.ptr, n, preds[k]);
      for_each_deterministic_policy([&](const auto& policy, const std::string& label) {
        std::vector<float> first;
        for (int run = 0; run < runs(); ++run) {
          const tt::copy_form form = run % 2 ? tt::copy_form::async : tt::copy_form::sync;
          const std::string what = std::string(tt::copy_form_name(form)) + " " + label + " run " + std::to_string(run);
          const auto count = tt::run_copy_if(policy, d.ptr, n, tt::no_stencil{}, out, preds[k], form, what);
          if (!count) return;
          if (run == 0) {
            if (!tt::check_selected(out.data(), *count, expected, /*stable=*/true, what)) return;
            first = tt::device_buffer<float>::download(out.data(), std::size_t(*count));
            continue;
          }
          const std::vector<float> got = tt::device_buffer<float>::download(out.data(), std::size_t(*count));
          const bool same = got.size() == first.size() &&
                            (got.empty() || std::memcmp(got.data(), first.data(), got.size() * sizeof(float)) == 0);
          if (!tt::report(same, what + ": the output differs from run 0 (count " + std::to_string(got.size()) + " vs " +
                                    std::to_string(first.size()) + ")"))
            return;
        }
      });
    }
  }
}
