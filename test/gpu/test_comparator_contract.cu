// A comparator that is not a strict weak order (docs/reliability.md, "Bad input"):
// max_element, min_element, minmax_element and top_k on the device return a result and
// never hang, on every backend, whatever the comparator answers. Which items are picked
// is unspecified, so the test checks what is promised: each returned position is inside
// the range, top_k gives min(K, n) indices with the items found at them as values (bit
// for bit: NaN included), and distinct indices on every backend: the warp_shuffle and
// atomic merges only ever swap entries, and the shared_memory merge by ranks makes its
// ranks a permutation whatever the comparator answers (its first version let them
// collide, which repeated an index and, under racecheck, was a shared-memory race). A hang
// fails through CTest's timeout.
//
// Comparators: always true; `<=`; a plain `<` on floats with NaN in the data; an answer
// that is a hash of both arguments (neither antisymmetric nor transitive).
// Runs under compute-sanitizer too (scripts/sanitize.sh): an out-of-range index in a
// sorting or merge network shows there even when it lands in valid memory.
#include "common.cuh"

namespace comparator_contract {

struct always_true {
  template <class T>
  __host__ __device__ bool operator()(const T&, const T&) const { return true; }
};
struct less_equal {
  template <class T>
  __host__ __device__ bool operator()(const T& a, const T& b) const { return a <= b; }
};
struct plain_less {  // no NaN rule: every comparison with a NaN is false
  template <class T>
  __host__ __device__ bool operator()(const T& a, const T& b) const { return a < b; }
};
struct coin_flip {
  template <class T>
  __host__ __device__ bool operator()(const T& a, const T& b) const {
    std::uint64_t x = 0, y = 0;
    memcpy(&x, &a, sizeof(T));
    memcpy(&y, &b, sizeof(T));
    return (tt::hash(x * 0x9E3779B97F4A7C15ULL + y, 17) & 1) != 0;
  }
};

template <class T>
bool same_bits(const T& a, const T& b) {
  return std::memcmp(&a, &b, sizeof(T)) == 0;
}

/// Positions must lie in [0, n); top_k's indices distinct, with their items as values.
template <class T, class Policy, class Compare>
void check_calls(const Policy& policy, const tt::dataset<T>& d, const std::vector<T>& host, Compare comp,
                 const std::string& comp_name) {
  const long long n = d.n;
  const T* first = d.ptr;
  const T* last = first + n;
  const std::string type = tt::type_name<T>();
  INFO("comparator=", comp_name, " n=", n, " type=", type);
  auto inside = [&](const T* it) { return n == 0 ? it == last : (it >= first && it < last); };

  CHECK(inside(tally::max_element(policy, first, last, comp)));
  CHECK(inside(tally::min_element(policy, first, last, comp)));
  const auto both = tally::minmax_element(policy, first, last, comp);
  CHECK(inside(both.first));
  CHECK(inside(both.second));

  auto check_top = [&](const auto& top, int k) {
    const long long want = std::min<long long>(k, n);
    REQUIRE(top.count == want);
    std::vector<std::int64_t> seen(top.indices.begin(), top.indices.begin() + top.count);
    for (int i = 0; i < top.count; ++i) {
      const std::int64_t index = top.indices[std::size_t(i)];
      REQUIRE_MESSAGE((index >= 0 && index < n), "top_k<", k, "> entry ", i, ": index ", index);
      CHECK_MESSAGE(same_bits(top.values[std::size_t(i)], host[std::size_t(index)]), "top_k<", k, "> entry ", i,
                    ": the value is not the item at its index");
    }
    std::sort(seen.begin(), seen.end());
    const bool distinct = std::adjacent_find(seen.begin(), seen.end()) == seen.end();
    CHECK_MESSAGE(distinct, "top_k<", k, "> repeats an index");
  };
  check_top(tally::top_k<4>(policy, first, last, comp), 4);
  // K = 32 (the wide networks) on the automatic backend only, and with the two comparators
  // that break the most (the hash, and `<` with NaN in the data): every backend times every
  // comparator would make this the slowest file of the suite to compile (each K = 32
  // instantiation costs about 7 s of CI's compile time).
  if constexpr (std::is_same_v<typename Policy::backend_type, tally::backend::automatic_t> &&
                (std::is_same_v<Compare, coin_flip> || std::is_same_v<Compare, plain_less>))
    check_top(tally::top_k<32>(policy, first, last, comp), 32);
}

template <class T>
void run_all() {
  for (long long n : tt::listed_sizes({0, 1, 2, 5, 33, 1000, 4097, 65537, 100003})) {
    for (tt::pattern p : {tt::pattern::random, tt::pattern::constant}) {
      const tt::dataset<T> d = tt::make_data<T>(n, p);
      const std::vector<T> host = d.host();
      tt::for_each_backend([&](auto backend) {
        const auto policy = tally::par.with(backend);
        const std::string where = std::string("backend=") + tt::backend_label(backend) + " pattern=" + tt::pattern_name(p);
        INFO(where);
        check_calls(policy, d, host, always_true{}, "always true");
        check_calls(policy, d, host, less_equal{}, "<=");
        check_calls(policy, d, host, coin_flip{}, "coin flip");
      });
    }
    if constexpr (std::is_floating_point_v<T>) {
      const tt::dataset<T> d = tt::make_data<T>(n, tt::pattern::with_nan);
      const std::vector<T> host = d.host();
      tt::for_each_backend([&](auto backend) {
        const std::string where = std::string("backend=") + tt::backend_label(backend) + " pattern=with_nan";
        INFO(where);
        check_calls(tally::par.with(backend), d, host, plain_less{}, "plain < with NaN");
      });
    }
  }
}

}  // namespace comparator_contract

TEST_CASE("a comparator that is not a strict weak order: a result inside the range on every backend, no hang") {
  comparator_contract::run_all<int>();
  comparator_contract::run_all<float>();
}
