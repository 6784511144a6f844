// Every algorithm on more than 2^31 items held in real device memory (cudaMalloc), not
// produced by fancy iterators: n = 2^31 + 17 items of uint8 (2 GiB) and of int32
// (8 GiB). The *_huge suites reach 64-bit counts through counting and transform
// iterators, which compute each item from its index; a raw pointer takes other paths
// (16-byte vector loads, aligned heads, byte offsets past 2^31 and 2^33), and only
// real memory shows a 32-bit byte offset, a wrapped pointer or a tile past the end.
//
// The data is made on the device from a hash of (i mod 65521): residues hashed into
// [2, 201] (uint8) or [-10^6, 10^6] (int32), so that every sum, count and selected item
// has a closed form over one period of 65521 items (prime: a shift by 2^31 or 2^32
// items lands on another residue). Planted on top, at indices where the hashed value
// would not be selected by the copy_if predicate (so that the selection keeps its
// closed form):
//   the maximum (255 / INT_MAX) at about 2^31 + 5 and a second copy at about 2^31 + 9;
//   the runner-up (254 / INT_MAX - 2) at about 7 and at about 2^31 + 2;
//   the minimum (1 / INT_MIN) at about n - 3 and n - 1.
// Checked on every backend, in both forms:
//   reduce / reduce_into: the sum (as int64: init std::int64_t{0}), the maximum and the
//     minimum, against the closed forms (and the sum against cub::DeviceReduce);
//   max_element(_into), min_element(_into), minmax_element: the first planted copy
//     (and CUB's ArgMax / ArgMin agree);
//   top_k(_into)<2> and <4>: both maxima, then both runners-up, in index order;
//   copy_if(_into) of x % 7 == 0 (about 1/7 of the items): the count in closed form,
//     nothing written outside [0, count), and the items: item j of a stable output is
//     the value of the (j mod c)-th selected residue (c per period), every item checked
//     on the device; an unordered output by its multiset fingerprint (the count and
//     the sum of a 64-bit hash of each item, mod 2^64).
// A case whose memory the device does not have free is skipped with a message.
#include "copy_if_common.cuh"
#include "top_k_common.cuh"

namespace huge_memory_test {

constexpr long long n_huge = (1LL << 31) + 17;
constexpr long long period = 65521;  // prime
constexpr std::uint64_t seed = 0x2031beefULL;

template <class T>
struct fill_spec;
template <>
struct fill_spec<std::uint8_t> {
  static constexpr std::uint8_t hi = 255, second = 254, lo = 1;
  /// [2, 201]: below the runner-up, above the minimum.
  __host__ __device__ static std::uint8_t base(long long r) {
    return static_cast<std::uint8_t>(2 + tt::hash(std::uint64_t(r), seed) % 200);
  }
};
template <>
struct fill_spec<std::int32_t> {
  static constexpr std::int32_t hi = INT_MAX, second = INT_MAX - 2, lo = INT_MIN;
  /// [-10^6, 10^6].
  __host__ __device__ static std::int32_t base(long long r) {
    return static_cast<std::int32_t>(static_cast<long long>(tt::hash(std::uint64_t(r), seed) % 2000001) - 1000000);
  }
};

/// The copy_if predicate (on uint8 after promotion to int; C++'s % keeps the sign, so
/// negative multiples of 7 are selected too).
struct multiple_of_7 {
  template <class T>
  __host__ __device__ bool operator()(const T& x) const {
    return static_cast<int>(x) % 7 == 0;
  }
};

/// Where the planted values are.
struct plants {
  long long max1, max2, second1, second2, min1, min2;
};

/// Item i of the data.
template <class T>
__host__ __device__ T value_at(long long i, const plants& p) {
  if (i == p.max1 || i == p.max2) return fill_spec<T>::hi;
  if (i == p.second1 || i == p.second2) return fill_spec<T>::second;
  if (i == p.min1 || i == p.min2) return fill_spec<T>::lo;
  return fill_spec<T>::base(i % period);
}

template <class T>
bool base_selected(long long i) {
  return multiple_of_7{}(fill_spec<T>::base(i % period));
}

/// The planted indices for n items: from `anchor` on (2^31 for the real data), each at
/// the first (or, for the minima, last) free index whose hashed value is not selected.
template <class T>
plants plant(long long n, long long anchor) {
  std::vector<long long> taken;
  auto usable = [&](long long i) {
    return !base_selected<T>(i) && std::find(taken.begin(), taken.end(), i) == taken.end();
  };
  auto up = [&](long long i) {
    while (!usable(i)) ++i;
    taken.push_back(i);
    return i;
  };
  auto down = [&](long long i) {
    while (!usable(i)) --i;
    taken.push_back(i);
    return i;
  };
  plants p{};
  p.min2 = down(n - 1);
  p.min1 = down(p.min2 - 2);
  p.second1 = up(7);
  p.second2 = up(anchor + 2);
  p.max1 = up(anchor + 5);
  p.max2 = up(p.max1 + 4);
  return p;
}

std::uint64_t fingerprint_of(long long x) { return tt::hash(static_cast<std::uint64_t>(x)); }

/// The closed forms for n items.
template <class T>
struct expected_results {
  plants where{};
  std::int64_t sum = 0;
  long long max_index = 0, min_index = 0;
  tt::top_list<T> top;                // the 4 best under tally::less<>
  long long count = 0;                // selected by multiple_of_7
  std::vector<T> selected_in_period;  // the values of the selected residues, in order
  std::uint64_t fingerprint = 0;      // sum of fingerprint_of over the selected items
};

template <class T>
expected_results<T> expect(long long n, long long anchor) {
  expected_results<T> e;
  e.where = plant<T>(n, anchor);
  const plants& p = e.where;
  const long long q = n / period, rem = n % period;
  std::int64_t period_sum = 0, rem_sum = 0;
  std::uint64_t period_fp = 0, rem_fp = 0;
  long long rem_count = 0;
  for (long long r = 0; r < period; ++r) {
    const T v = fill_spec<T>::base(r);
    period_sum += v;
    if (r < rem) rem_sum += v;
    if (multiple_of_7{}(v)) {
      e.selected_in_period.push_back(v);
      period_fp += fingerprint_of(v);
      if (r < rem) {
        rem_fp += fingerprint_of(v);
        ++rem_count;
      }
    }
  }
  e.sum = q * period_sum + rem_sum;
  for (long long i : {p.max1, p.max2, p.second1, p.second2, p.min1, p.min2})
    e.sum += std::int64_t(value_at<T>(i, p)) - std::int64_t(fill_spec<T>::base(i % period));
  // The planted values and the values they replace are not selected: the selection is
  // the hashed data's.
  e.count = q * static_cast<long long>(e.selected_in_period.size()) + rem_count;
  e.fingerprint = std::uint64_t(q) * period_fp + rem_fp;  // mod 2^64
  e.max_index = std::min(p.max1, p.max2);
  e.min_index = std::min(p.min1, p.min2);
  e.top.indices = {std::min(p.max1, p.max2), std::max(p.max1, p.max2), std::min(p.second1, p.second2),
                   std::max(p.second1, p.second2)};
  e.top.values = {fill_spec<T>::hi, fill_spec<T>::hi, fill_spec<T>::second, fill_spec<T>::second};
  return e;
}

template <class T>
__global__ void fill_kernel(T* out, long long n, plants p) {
  const long long stride = static_cast<long long>(gridDim.x) * blockDim.x;
  for (long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride)
    out[i] = value_at<T>(i, p);
}

/// Counts (into tt::stats_area()) the items j of a stable output that are not
/// selected[j % c].
template <class T>
__global__ void check_stable_kernel(const T* out, long long count, const T* selected, long long c,
                                    unsigned long long* stats) {
  const long long stride = static_cast<long long>(gridDim.x) * blockDim.x;
  unsigned long long bad = 0, first = ~0ull;
  for (long long j = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x; j < count; j += stride) {
    if (out[j] != selected[j % c]) {
      ++bad;
      if (first == ~0ull) first = static_cast<unsigned long long>(j);
    }
  }
  if (bad) {
    atomicAdd(&stats[0], bad);
    atomicMin(&stats[1], first);
  }
}

template <class T>
__global__ void fingerprint_kernel(const T* out, long long count, unsigned long long* sum) {
  const long long stride = static_cast<long long>(gridDim.x) * blockDim.x;
  unsigned long long local = 0;
  for (long long j = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x; j < count; j += stride)
    local += tt::hash(static_cast<std::uint64_t>(static_cast<long long>(out[j])));
  atomicAdd(sum, local);  // wraps mod 2^64, as the host's sum does
}

template <class T>
std::uint64_t device_fingerprint(const T* out, long long count) {
  tt::device_buffer<unsigned long long> sum(1);
  TT_CUDA(cudaMemset(sum.data(), 0, sizeof(unsigned long long)));
  fingerprint_kernel<T><<<tt::grid_for(count), 256>>>(out, count, sum.data());
  TT_CUDA(cudaGetLastError());
  TT_CUDA(cudaDeviceSynchronize());
  return sum.download()[0];
}

/// cub::DeviceReduce::Reduce with a 64-bit count and an int64 accumulator
/// (tally_support::cub_reduce).
template <class T>
std::int64_t cub_sum64(const T* in, long long n) {
  return tally_support::cub_reduce(in, std::uint64_t(n), std::int64_t(0), tt::ref_plus<std::int64_t>{});
}

/// Whether copy_if under P keeps the input order (dispatch.cuh's rule: unordered(), or
/// the atomic backend unless deterministic()).
template <class P>
inline constexpr bool stable_policy_v =
    !P::is_unordered && !(std::is_same_v<typename P::backend_type, tally::backend::atomic_t> && !P::is_deterministic);

std::string mib(std::size_t bytes) { return std::to_string(bytes >> 20) + " MiB"; }

}  // namespace huge_memory_test

using namespace huge_memory_test;

TEST_CASE_TEMPLATE("huge real memory: the closed forms hold on the host", T, std::uint8_t, std::int32_t) {
  // The planted values are not selected, and lie in order above / below the hashed range.
  CHECK(!multiple_of_7{}(fill_spec<T>::hi));
  CHECK(!multiple_of_7{}(fill_spec<T>::second));
  CHECK(!multiple_of_7{}(fill_spec<T>::lo));
  long long out_of_range = 0;
  for (long long r = 0; r < period; ++r) {
    const T v = fill_spec<T>::base(r);
    if (!(v < fill_spec<T>::second && v > fill_spec<T>::lo)) ++out_of_range;
  }
  CHECK(out_of_range == 0);
  // The real plants: the maxima past 2^31, all inside the range, none selected.
  const expected_results<T> big = expect<T>(n_huge, 1LL << 31);
  const plants& p = big.where;
  for (long long i : {p.max1, p.max2, p.second1, p.second2, p.min1, p.min2}) {
    CHECK(i >= 0);
    CHECK(i < n_huge);
    CHECK(!multiple_of_7{}(value_at<T>(i, p)));
  }
  CHECK(p.max1 > (1LL << 31));
  CHECK(p.second2 > (1LL << 31));
  CHECK(big.count > (1LL << 28));
  MESSAGE("type=", std::string(tt::type_name<T>()), " n=2^31+17: max at ", p.max1, " and ", p.max2, ", runner-up at ",
          p.second1, " and ", p.second2, ", min at ", p.min1, " and ", p.min2, "; ", big.count, " selected, sum ",
          big.sum);

  // Brute force over a smaller n (three periods and a part) with the same formulas.
  const long long n = 3 * period + 1234;
  const expected_results<T> e = expect<T>(n, n / 2);
  std::int64_t sum = 0;
  long long count = 0, first_max = -1, first_min = -1, mismatched = 0;
  std::uint64_t fp = 0;
  const long long c = static_cast<long long>(e.selected_in_period.size());
  REQUIRE(c > 0);
  std::vector<T> host(static_cast<std::size_t>(n));
  for (long long i = 0; i < n; ++i) {
    const T v = value_at<T>(i, e.where);
    host[std::size_t(i)] = v;
    sum += v;
    if (v == fill_spec<T>::hi && first_max < 0) first_max = i;
    if (v == fill_spec<T>::lo && first_min < 0) first_min = i;
    if (multiple_of_7{}(v)) {
      if (v != e.selected_in_period[std::size_t(count % c)]) ++mismatched;
      fp += fingerprint_of(v);
      ++count;
    }
  }
  CHECK(sum == e.sum);
  CHECK(count == e.count);
  CHECK(fp == e.fingerprint);
  CHECK(mismatched == 0);
  CHECK(first_max == e.max_index);
  CHECK(first_min == e.min_index);
  CHECK(tt::host_top_indices(host, tt::lib_order_less{}, 4) == e.top.indices);
}

TEST_CASE_TEMPLATE("huge real memory: every algorithm on 2^31 + 17 items in device memory", T, std::uint8_t,
                   std::int32_t) {
  tt::failure_budget budget;
  const long long n = n_huge;
  const expected_results<T> e = expect<T>(n, 1LL << 31);
  // Room after the selected items: a call that writes a few items too many stays inside
  // the allocation, where the guard check sees it.
  const long long slack = 1 << 16;
  const std::size_t input_bytes = std::size_t(n) * sizeof(T);
  const std::size_t output_bytes = std::size_t(e.count + slack + 128) * sizeof(T);
  std::size_t free_bytes = 0, total_bytes = 0;
  TT_CUDA(cudaMemGetInfo(&free_bytes, &total_bytes));
  const std::size_t needed = input_bytes + output_bytes + (std::size_t(1) << 30);  // + 1 GiB for CUB and scratch
  if (free_bytes < needed) {
    MESSAGE("skipped: type=", std::string(tt::type_name<T>()), " needs about ", mib(needed), " of device memory, ",
            mib(free_bytes), " free of ", mib(total_bytes));
    return;
  }
  INFO("type=", std::string(tt::type_name<T>()), " n=2^31+17 in device memory (", mib(input_bytes), ")");

  tt::device_buffer<T> input{std::size_t(n)};
  const T* p = input.data();
  fill_kernel<T><<<tt::grid_for(n), 256>>>(input.data(), n, e.where);
  TT_CUDA(cudaGetLastError());
  TT_CUDA(cudaDeviceSynchronize());

  // The references on the same memory: CUB agrees with the closed forms (the fill is
  // what the host thinks it is).
  tt::check_exact(cub_sum64(p, n), e.sum, "CUB's sum vs the closed form");
  tt::check_exact(tt::cub_arg<true>(p, n), e.max_index, "CUB's ArgMax vs the planted maximum");
  tt::check_exact(tt::cub_arg<false>(p, n), e.min_index, "CUB's ArgMin vs the planted minimum");

  // (Blocks, not SUBCASEs: a SUBCASE would run the allocation and the fill again.)
  {
    INFO("reduce");
    tt::for_each_backend([&](auto backend) {
      const auto policy = tally::par.with(backend);
      for (tt::run_mode mode : tt::run_modes) {
        std::string what = tt::run_label("plus<int64>", backend, mode);
        if (auto r = tt::run_tally(policy, p, n, std::int64_t(0), tally::plus<std::int64_t>{}, mode, what))
          tt::check_exact(*r, e.sum, what);
        what = tt::run_label("max", backend, mode);
        if (auto r = tt::run_tally(policy, p, n, tt::lowest<T>(), tally::maximum<T>{}, mode, what))
          tt::check_exact(*r, fill_spec<T>::hi, what);
        what = tt::run_label("min", backend, mode);
        if (auto r = tt::run_tally(policy, p, n, tt::highest<T>(), tally::minimum<T>{}, mode, what))
          tt::check_exact(*r, fill_spec<T>::lo, what);
      }
    });
  }

  {
    INFO("max_element, min_element, minmax_element");
    tt::for_each_backend([&](auto backend) {
      tt::check_all_forms(tally::par.with(backend), p, n, tally::less<>{}, e.max_index, e.min_index,
                          std::string("backend=") + tt::backend_label(backend));
    });
  }

  {
    INFO("top_k<2>, top_k<4>");
    tt::for_each_top_k_policy([&](const auto& policy, const std::string& label) {
      tt::check_top_k_forms<2>(policy, p, n, tally::less<>{}, e.top, label);
      tt::check_top_k_forms<4>(policy, p, n, tally::less<>{}, e.top, label);
    });
  }

  {
    INFO("copy_if");
    REQUIRE(e.count + slack < n);
    tt::guarded_output<T> out(e.count + slack, tt::aligned_lead<T>());
    const long long c = static_cast<long long>(e.selected_in_period.size());
    const tt::device_buffer<T> selected(e.selected_in_period);
    auto run = [&](const auto& policy, const std::string& label) {
      constexpr bool stable = stable_policy_v<std::decay_t<decltype(policy)>>;
      for (tt::copy_form form : tt::copy_forms) {
        const std::string what = std::string(tt::copy_form_name(form)) + " " + label + " x % 7 == 0";
        // run_copy_if also checks that no byte outside the first `count` items changed.
        const auto count = tt::run_copy_if(policy, p, n, tt::no_stencil{}, out, multiple_of_7{}, form, what);
        if (!count || !tt::report(*count == e.count,
                                  what + ": count " + std::to_string(*count) + ", expected " + std::to_string(e.count)))
          continue;
        if (stable) {
          tt::clear_stats();
          check_stable_kernel<T>
              <<<tt::grid_for(e.count), 256>>>(out.data(), e.count, selected.data(), c, tt::stats_area());
          TT_CUDA(cudaGetLastError());
          const auto s = tt::read_stats();
          const long long j = static_cast<long long>(s.second);
          tt::report(s.first == 0,
                     what + ": " + std::to_string(s.first) +
                         " output items differ from the closed form; the first: item " + std::to_string(j) + " is " +
                         (s.first ? tt::describe(tt::item_at(out.data(), j)) : std::string("-")) + ", expected " +
                         (s.first ? tt::describe(e.selected_in_period[std::size_t(j % c)]) : std::string("-")));
        } else {
          const std::uint64_t fp = device_fingerprint(out.data(), e.count);
          tt::report(fp == e.fingerprint, what + ": the output is not the selected multiset (fingerprint " +
                                              std::to_string(fp) + ", expected " + std::to_string(e.fingerprint) + ")");
        }
      }
    };
    run(tally::par, "tally::par (stable)");
    run(tally::par.with(tally::backend::warp_shuffle), "par.with(warp_shuffle) (stable)");
    run(tally::par.with(tally::backend::shared_memory), "par.with(shared_memory) (stable)");
    run(tally::par.with(tally::backend::atomic).deterministic(), "par.with(atomic).deterministic() (stable)");
    run(tally::par.unordered(), "par.unordered()");
    run(tally::par.with(tally::backend::atomic), "par.with(atomic) (unordered)");
    run(tally::par.with(tally::backend::shared_memory).unordered(), "par.with(shared_memory).unordered()");
  }
}
