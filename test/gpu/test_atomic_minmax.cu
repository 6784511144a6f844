// tally::atomic_max / atomic_min for every arithmetic type, from 64 x 256 threads into one
// address and into 5 neighbouring addresses, against the host maximum / minimum of the
// same data in the library's order: for floats NaN is greater than every number (a NaN
// wins a max and loses a min, stored or given), -0.0 == +0.0, infinities included.
#include "common.cuh"

namespace atomic_minmax_test {

template <class T>
__global__ void minmax_kernel(const T* data, int n, T* max_slots, T* min_slots, int num_slots) {
  const int i = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
  if (i < n) {
    tally::atomic_max(&max_slots[i % num_slots], data[i]);
    tally::atomic_min(&min_slots[i % num_slots], data[i]);
  }
}

/// A named data set with the slots' starting values.
template <class T>
struct scenario {
  std::string name;
  std::vector<T> data;
  T max_start;
  T min_start;
};

template <class T>
std::vector<scenario<T>> scenarios() {
  const int n = tt::atomic_n;
  std::vector<scenario<T>> list;
  auto make = [&](const std::string& name, auto value_of, T max_start, T min_start) {
    scenario<T> s{name, std::vector<T>(n), max_start, min_start};
    for (int i = 0; i < n; ++i) s.data[i] = value_of(i, tt::hash(std::uint64_t(i), 4711));
    list.push_back(std::move(s));
  };
  const T lo = tt::lowest<T>(), hi = tt::highest<T>();
  if constexpr (std::is_integral_v<T>) {
    make("random bits", [](int, std::uint64_t h) { T v; std::memcpy(&v, &h, sizeof(T)); return v; }, lo, hi);
    make("ascending", [&](int i, std::uint64_t) { return static_cast<T>(tt::int_range<T>::lo + i % 100); }, lo, hi);
    make("descending", [&](int i, std::uint64_t) { return static_cast<T>(tt::int_range<T>::lo + 100 - i % 100); }, lo, hi);
    make("all equal", [](int, std::uint64_t) { return T(3); }, lo, hi);
    make("starts beyond the data", [](int, std::uint64_t h) { return static_cast<T>(10 + h % 50); }, T(100), T(5));
  } else {
    const double nan = std::numeric_limits<double>::quiet_NaN();
    const double inf = std::numeric_limits<double>::infinity();
    auto rnd = [](std::uint64_t h) { return std::ldexp(double(h >> 40), -24) * 200.0 - 100.0; };  // [-100, 100)
    auto f = [](double x) { return tt::from_double<T>(x); };
    make("random", [&](int, std::uint64_t h) { return f(rnd(h)); }, lo, hi);
    make("random with NaN", [&](int i, std::uint64_t h) { return f(i % 997 == 5 ? nan : rnd(h)); }, lo, hi);
    make("all NaN", [&](int, std::uint64_t) { return f(nan); }, lo, hi);
    make("negatives and +-0", [&](int i, std::uint64_t h) { return f(i % 3 == 0 ? -0.0 : i % 3 == 1 ? 0.0 : -1 - std::fabs(rnd(h))); },
         lo, hi);
    make("positives and +-0", [&](int i, std::uint64_t h) { return f(i % 3 == 0 ? 0.0 : i % 3 == 1 ? -0.0 : 1 + std::fabs(rnd(h))); },
         lo, hi);
    make("only -0.0 and +0.0", [&](int i, std::uint64_t) { return f(i % 2 ? -0.0 : 0.0); }, lo, hi);
    make("+inf, -inf and numbers", [&](int i, std::uint64_t h) { return f(i % 101 == 0 ? inf : i % 103 == 1 ? -inf : rnd(h)); },
         lo, hi);
    make("all +inf", [&](int, std::uint64_t) { return f(inf); }, lo, hi);
    make("all -inf", [&](int, std::uint64_t) { return f(-inf); }, lo, hi);
    make("NaN stored first", [&](int, std::uint64_t h) { return f(rnd(h)); }, f(nan), f(nan));
    make("starts beyond the data", [&](int, std::uint64_t h) { return f(std::fabs(rnd(h)) / 2); }, f(1000), f(-1000));
  }
  return list;
}

}  // namespace atomic_minmax_test

using namespace atomic_minmax_test;

TEST_CASE_TEMPLATE("atomic_max / atomic_min match the host maximum / minimum", T, std::int8_t, std::int16_t,
                   std::int32_t, std::int64_t, std::uint8_t, std::uint16_t, std::uint32_t, std::uint64_t, __half,
                   __nv_bfloat16, float, double) {
  tt::failure_budget budget;
  for (const scenario<T>& s : scenarios<T>()) {
    tt::device_buffer<T> data(s.data);
    for (int num_slots : {1, 5}) {
      INFO("type=", tt::type_name<T>(), " data=", s.name, " slots=", num_slots);
      tt::guarded_slots<T> max_slots(num_slots, s.max_start), min_slots(num_slots, s.min_start);
      minmax_kernel<T><<<tt::atomic_blocks, tt::atomic_threads>>>(data.data(), int(s.data.size()), max_slots.slots(),
                                                                  min_slots.slots(), num_slots);
      TT_CUDA(cudaGetLastError());
      const std::vector<T> got_max = max_slots.result("atomic_max"), got_min = min_slots.result("atomic_min");
      for (int k = 0; k < num_slots; ++k) {
        std::vector<T> mine;
        for (std::size_t i = k; i < s.data.size(); i += num_slots) mine.push_back(s.data[i]);
        tt::check_exact(got_max[k], tt::host_max(mine, s.max_start), "atomic_max slot " + std::to_string(k));
        tt::check_exact(got_min[k], tt::host_min(mine, s.min_start), "atomic_min slot " + std::to_string(k));
      }
    }
  }
}
