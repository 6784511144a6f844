// CCCL interop without a GPU: CCCL's and Thrust's function objects (cuda::std::plus,
// cuda::maximum, cuda::minimum, cuda::std::less, cuda::std::greater, thrust::plus, ...)
// are recognised as tally's own (the traits the fast paths are chosen by, the identity
// the atomic backend needs, to_tally_op), which of them are one type under two names,
// what is not recognised; contiguous iterators (thrust::device_vector's, cuda::std::span's,
// std::vector's) and their raw pointers; and tally::host with the CCCL function objects.
#include <tally/tally.cuh>

// The test names Thrust's function objects on purpose (users still write them); CCCL 3.5
// deprecates them in favour of cuda::std::'s, which the host compiler would warn about.
#if defined(__GNUC__)
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
#endif

#include <doctest/doctest.h>

#include <thrust/device_vector.h>
#include <thrust/functional.h>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/reverse_iterator.h>
#include <thrust/version.h>

#include <cuda/functional>
#include <cuda/std/functional>
#include <cuda/std/span>

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <array>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <functional>
#include <limits>
#include <string>
#include <type_traits>
#include <vector>

namespace cccl_interop_test {

using tally::detail::comparator_traits;
using tally::detail::op_traits;
using tally::detail::tally_op_t;

// --- function objects: recognised as tally's own, on every arithmetic type ------------

template <class Op, class T>
constexpr bool is_plus = op_traits<Op, T>::is_plus && !op_traits<Op, T>::is_minimum && !op_traits<Op, T>::is_maximum;
template <class Op, class T>
constexpr bool is_max = op_traits<Op, T>::is_maximum && !op_traits<Op, T>::is_plus && !op_traits<Op, T>::is_minimum;
template <class Op, class T>
constexpr bool is_min = op_traits<Op, T>::is_minimum && !op_traits<Op, T>::is_plus && !op_traits<Op, T>::is_maximum;
template <class Op, class T>
constexpr bool is_none = !op_traits<Op, T>::is_plus && !op_traits<Op, T>::is_minimum && !op_traits<Op, T>::is_maximum;

/// Every recognised operator on T, transparent and typed: the family's op_traits, the
/// same identity as tally's, the native-reduction fast path, and to_tally_op's type.
template <class T>
constexpr bool operators_recognised() {
  static_assert(is_plus<cuda::std::plus<>, T> && is_plus<cuda::std::plus<T>, T>);
  static_assert(is_plus<thrust::plus<>, T> && is_plus<thrust::plus<T>, T>);
  static_assert(is_max<cuda::maximum<>, T> && is_max<cuda::maximum<T>, T>);
  static_assert(is_min<cuda::minimum<>, T> && is_min<cuda::minimum<T>, T>);
  static_assert(is_max<thrust::maximum<>, T> && is_max<thrust::maximum<T>, T>);
  static_assert(is_min<thrust::minimum<>, T> && is_min<thrust::minimum<T>, T>);

  static_assert(tally::has_identity_v<cuda::std::plus<>, T> && tally::has_identity_v<thrust::plus<T>, T>);
  static_assert(tally::has_identity_v<cuda::maximum<T>, T> && tally::has_identity_v<thrust::minimum<>, T>);
  static_assert(tally::detail::is_native_reduction_v<cuda::std::plus<T>, T>);
  static_assert(tally::detail::is_native_reduction_v<cuda::maximum<>, T>);
  static_assert(tally::detail::is_native_reduction_v<thrust::minimum<T>, T>);
  static_assert(tally::detail::is_exact_reduction_v<cuda::maximum<T>, T>);
  static_assert(tally::detail::is_exact_reduction_v<cuda::std::plus<T>, T> == std::is_integral_v<T>);

  static_assert(std::is_same_v<tally_op_t<cuda::std::plus<T>>, tally::plus<T>>);
  static_assert(std::is_same_v<tally_op_t<cuda::std::plus<>>, tally::plus<>>);
  static_assert(std::is_same_v<tally_op_t<cuda::maximum<T>>, tally::maximum<T>>);
  static_assert(std::is_same_v<tally_op_t<thrust::minimum<>>, tally::minimum<>>);
  static_assert(std::is_same_v<tally_op_t<cuda::std::less<T>>, tally::less<T>>);
  static_assert(std::is_same_v<tally_op_t<thrust::greater<>>, tally::greater<>>);
  static_assert(std::is_same_v<decltype(tally::detail::to_tally_op(cuda::maximum<T>{})), tally::maximum<T>>);

  static_assert(comparator_traits<cuda::std::less<>, T>::is_less && comparator_traits<cuda::std::less<T>, T>::is_less);
  static_assert(comparator_traits<thrust::less<>, T>::is_less && comparator_traits<thrust::less<T>, T>::is_less);
  static_assert(comparator_traits<cuda::std::greater<>, T>::is_greater &&
                comparator_traits<cuda::std::greater<T>, T>::is_greater);
  static_assert(comparator_traits<thrust::greater<>, T>::is_greater &&
                comparator_traits<thrust::greater<T>, T>::is_greater);
  static_assert(!comparator_traits<cuda::std::less<>, T>::is_greater);
  static_assert(!comparator_traits<cuda::std::greater<T>, T>::is_less);
  // tally's own, as before.
  static_assert(comparator_traits<tally::less<>, T>::is_less && comparator_traits<tally::less<T>, T>::is_less);
  static_assert(comparator_traits<tally::greater<>, T>::is_greater &&
                comparator_traits<tally::greater<T>, T>::is_greater);
  return true;
}
static_assert(operators_recognised<std::int8_t>());
static_assert(operators_recognised<std::uint8_t>());
static_assert(operators_recognised<std::int16_t>());
static_assert(operators_recognised<std::int32_t>());
static_assert(operators_recognised<std::uint32_t>());
static_assert(operators_recognised<std::int64_t>());
static_assert(operators_recognised<unsigned long long>());
static_assert(operators_recognised<float>());
static_assert(operators_recognised<double>());
static_assert(operators_recognised<__half>());
static_assert(operators_recognised<__nv_bfloat16>());

// A typed operator recognises its own type only, as tally's do.
static_assert(is_none<cuda::std::plus<int>, float>);
static_assert(is_none<cuda::maximum<float>, double>);
static_assert(!comparator_traits<cuda::std::less<int>, float>::is_less);
static_assert(!tally::has_identity_v<cuda::std::plus<int>, float>);

// Not recognised: other CCCL function objects, the standard library's, comparators as
// reduction operators, and a type derived from a recognised one (it may compute something else).
struct derived_plus : cuda::std::plus<int> {};
struct derived_less : cuda::std::less<> {};
static_assert(is_none<cuda::std::minus<>, int> && is_none<cuda::std::multiplies<int>, int>);
static_assert(is_none<std::plus<int>, int> && !comparator_traits<std::less<int>, int>::is_less);
static_assert(is_none<cuda::std::less<>, int> && is_none<cuda::std::greater<>, int>);
static_assert(is_none<derived_plus, int> && !comparator_traits<derived_less, int>::is_less);
static_assert(!comparator_traits<cuda::std::less_equal<>, int>::is_less);
static_assert(!tally::has_identity_v<cuda::std::minus<>, int>);
static_assert(!tally::has_identity_v<cuda::std::less<>, int>);
static_assert(!tally::has_identity_v<derived_plus, int>);
static_assert(std::is_same_v<tally_op_t<derived_plus>, derived_plus>);
static_assert(std::is_same_v<tally_op_t<cuda::std::minus<>>, cuda::std::minus<>>);

// Since CCCL 3.0 Thrust's function objects are the libcu++ ones under another name (one
// type, one set of kernels); before, they were types of their own, recognised as well.
#if THRUST_VERSION >= 300000
static_assert(std::is_same_v<thrust::plus<int>, cuda::std::plus<int>>);
static_assert(std::is_same_v<thrust::plus<>, cuda::std::plus<>>);
static_assert(std::is_same_v<thrust::maximum<float>, cuda::maximum<float>>);
static_assert(std::is_same_v<thrust::minimum<>, cuda::minimum<>>);
static_assert(std::is_same_v<thrust::less<float>, cuda::std::less<float>>);
static_assert(std::is_same_v<thrust::greater<>, cuda::std::greater<>>);
#endif

// The identities are tally's.
TEST_CASE("cccl interop: identity_element of CCCL's function objects is tally's") {
  CHECK(tally::identity_element<cuda::std::plus<>, int>::value() == 0);
  CHECK(tally::identity_element<thrust::plus<double>, double>::value() == 0.0);
  CHECK(tally::identity_element<cuda::maximum<int>, int>::value() == std::numeric_limits<int>::lowest());
  CHECK(tally::identity_element<cuda::minimum<>, std::uint16_t>::value() == 65535);
  CHECK(tally::identity_element<thrust::maximum<>, float>::value() == -std::numeric_limits<float>::infinity());
  CHECK(std::isnan(tally::identity_element<cuda::minimum<float>, float>::value()));  // NaN is the greatest
  const __half h = tally::identity_element<cuda::maximum<>, __half>::value();
  CHECK(std::isinf(__half2float(h)));
  CHECK(__half2float(h) < 0.0f);
}

// --- iterators --------------------------------------------------------------------------

using tally::detail::is_contiguous_iterator_v;
using tally::detail::unwrapped_iterator_t;

using dv_iterator = thrust::device_vector<float>::iterator;
using dv_const_iterator = thrust::device_vector<float>::const_iterator;

static_assert(is_contiguous_iterator_v<float*> && is_contiguous_iterator_v<const int*>);
static_assert(is_contiguous_iterator_v<thrust::device_ptr<float>>);
static_assert(is_contiguous_iterator_v<dv_iterator> && is_contiguous_iterator_v<dv_const_iterator>);
static_assert(is_contiguous_iterator_v<std::vector<int>::iterator>);
static_assert(is_contiguous_iterator_v<std::vector<int>::const_iterator>);
static_assert(is_contiguous_iterator_v<std::array<int, 4>::iterator>);
// Whatever Thrust calls contiguous (cuda::std::span's iterator is since CCCL 3.0).
static_assert(is_contiguous_iterator_v<cuda::std::span<float>::iterator> ==
              thrust::is_contiguous_iterator_v<cuda::std::span<float>::iterator>);
// Read item by item.
static_assert(!is_contiguous_iterator_v<thrust::counting_iterator<int>>);
static_assert(!is_contiguous_iterator_v<thrust::reverse_iterator<dv_iterator>>);
static_assert(!is_contiguous_iterator_v<std::vector<bool>::iterator>);

// What a kernel is instantiated with: the raw pointer for every contiguous iterator.
static_assert(std::is_same_v<unwrapped_iterator_t<dv_iterator>, float*>);
static_assert(std::is_same_v<unwrapped_iterator_t<dv_const_iterator>, const float*>);
static_assert(std::is_same_v<unwrapped_iterator_t<thrust::device_ptr<const int>>, const int*>);
static_assert(std::is_same_v<unwrapped_iterator_t<std::vector<int>::iterator>, int*>);
static_assert(std::is_same_v<unwrapped_iterator_t<float*>, float*>);
static_assert(std::is_same_v<unwrapped_iterator_t<thrust::counting_iterator<int>>, thrust::counting_iterator<int>>);

TEST_CASE("cccl interop: the raw pointer behind a contiguous iterator") {
  std::vector<int> v(8);
  CHECK(tally::detail::to_raw_pointer(v.begin()) == v.data());
  CHECK(tally::detail::to_raw_pointer(v.cbegin() + 3) == v.data() + 3);
  CHECK(tally::detail::unwrap_iterator(v.begin() + 5) == v.data() + 5);

  // A device_vector's iterator is a device_ptr inside: the pointer is taken without
  // reading the memory (these addresses are never dereferenced).
  float storage[4] = {};
  const dv_iterator it{thrust::device_ptr<float>(storage + 2)};
  CHECK(tally::detail::to_raw_pointer(it) == storage + 2);
  CHECK(tally::detail::to_raw_pointer(dv_const_iterator{it} + 1) == storage + 3);
  const thrust::device_vector<float> empty;  // no allocation, no device needed
  CHECK(tally::detail::to_raw_pointer(empty.begin()) == thrust::raw_pointer_cast(empty.data()));

  if constexpr (thrust::is_contiguous_iterator_v<cuda::std::span<int>::iterator>) {
    const cuda::std::span<int> s(v.data() + 1, 6);
    CHECK(tally::detail::to_raw_pointer(s.begin()) == v.data() + 1);
    CHECK(tally::detail::to_raw_pointer(s.end()) == v.data() + 7);
  }

  // thrust::counting_iterator stays what it is.
  const thrust::counting_iterator<int> c(3);
  CHECK(*tally::detail::unwrap_iterator(c) == 3);
}

TEST_CASE("cccl interop: a std::vector iterator given to a device policy is refused with tally::error") {
  // The check a device entry point makes before any work (detail/runtime/validate.cuh): a host
  // std::vector's iterator is contiguous, its pointer pageable host memory. Without a
  // device CUDA cannot say where the pointer points (tally::cuda_error); with one it is
  // refused as pageable memory (tally::error), unless the GPU reads pageable memory
  // (HMM/ATS), where the call is valid. Never a crash, never a dereference on the device.
  std::vector<int> v(64, 1);
  tally::detail::device_context ctx;
  ctx.pageable_memory_access = false;
  bool threw = false;
  try {
    tally::detail::check_device_accessible("tally::reduce", "the input", v.begin(), ctx);
  } catch (const tally::error& e) {  // tally::cuda_error is a tally::error
    threw = true;
    const std::string what = e.what();
    CAPTURE(what);
    CHECK(what.rfind("tally::reduce: ", 0) == 0);
  }
  CHECK(threw);
  (void)cudaGetLastError();

  // A null iterator with a non-empty range is the null-pointer error, as for a raw pointer.
  const thrust::device_vector<int> empty;
  CHECK_THROWS_AS(tally::detail::check_not_null("tally::reduce", "the input", empty.begin(), 5), tally::error);
  CHECK_NOTHROW(tally::detail::check_not_null("tally::reduce", "the input", empty.begin(), 0));
}

// --- tally::host with CCCL's function objects ------------------------------------------

constexpr float inf_f = std::numeric_limits<float>::infinity();
const float nan_f = std::numeric_limits<float>::quiet_NaN();

bool same_float(float a, float b) {
  if (std::isnan(a) || std::isnan(b)) return std::isnan(a) && std::isnan(b);
  return std::memcmp(&a, &b, sizeof a) == 0 || (a == 0.0f && b == 0.0f);
}

TEST_CASE("cccl interop: tally::host reduce with CCCL's function objects gives tally's result") {
  std::vector<int> ints;
  std::vector<float> floats;
  for (int i = 0; i < 1000; ++i) {
    ints.push_back((i * 37) % 101 - 50);
    floats.push_back(float((i * 53) % 97) * 0.25f - 12.0f);
  }
  const auto hi = tally::host;
  const int sum = tally::reduce(hi, ints.begin(), ints.end(), 7, tally::plus<int>{});
  CHECK(tally::reduce(hi, ints.begin(), ints.end(), 7, cuda::std::plus<int>{}) == sum);
  CHECK(tally::reduce(hi, ints.begin(), ints.end(), 7, cuda::std::plus<>{}) == sum);
  CHECK(tally::reduce(hi, ints.begin(), ints.end(), 7, thrust::plus<int>{}) == sum);
  CHECK(tally::reduce(hi, ints.data(), ints.data() + ints.size(), 7, thrust::plus<>{}) == sum);

  const float fsum = tally::reduce(hi, floats.begin(), floats.end(), 0.5f, tally::plus<float>{});
  CHECK(same_float(tally::reduce(hi, floats.begin(), floats.end(), 0.5f, cuda::std::plus<float>{}), fsum));

  const int imax = tally::reduce(hi, ints.begin(), ints.end(), -1000, tally::maximum<int>{});
  const int imin = tally::reduce(hi, ints.begin(), ints.end(), 1000, tally::minimum<int>{});
  CHECK(imax == 50);
  CHECK(imin == -50);
  CHECK(tally::reduce(hi, ints.begin(), ints.end(), -1000, cuda::maximum<int>{}) == imax);
  CHECK(tally::reduce(hi, ints.begin(), ints.end(), -1000, thrust::maximum<>{}) == imax);
  CHECK(tally::reduce(hi, ints.begin(), ints.end(), 1000, cuda::minimum<>{}) == imin);
  CHECK(tally::reduce(hi, ints.begin(), ints.end(), 1000, thrust::minimum<int>{}) == imin);

  // Floats without NaN: CCCL's plain `<` and the library's order agree.
  const float fmax = tally::reduce(hi, floats.begin(), floats.end(), -inf_f, tally::maximum<float>{});
  CHECK(same_float(tally::reduce(hi, floats.begin(), floats.end(), -inf_f, cuda::maximum<float>{}), fmax));
  CHECK(*tally::max_element(hi, floats.begin(), floats.end(), cuda::std::less<>{}) == fmax);
  CHECK(tally::max_element(hi, floats.begin(), floats.end(), cuda::std::less<float>{}) ==
        tally::max_element(hi, floats.begin(), floats.end()));
  CHECK(tally::min_element(hi, floats.begin(), floats.end(), thrust::less<>{}) ==
        tally::min_element(hi, floats.begin(), floats.end()));
  CHECK(tally::max_element(hi, floats.begin(), floats.end(), cuda::std::greater<>{}) ==
        tally::max_element(hi, floats.begin(), floats.end(), tally::greater<>{}));

  const auto top = tally::top_k<4>(hi, ints.begin(), ints.end(), cuda::std::less<>{});
  const auto top_ref = tally::top_k<4>(hi, ints.begin(), ints.end());
  CHECK(top.count == 4);
  CHECK(top.values == top_ref.values);
  CHECK(top.indices == top_ref.indices);
}

// The library's float order (NaN greatest, -0.0 == +0.0) applies to CCCL's max, min, less
// and greater as to tally's: tally computes them as its own (detail::to_tally_op). This
// needs the entry points (reduce.inl, extrema.inl, top_k.inl) to call to_tally_op on the
// operator before they pass it on; until they do, tally::host calls CCCL's `<` as it is
// and these checks fail: may_fail keeps them from failing the suite meanwhile.
TEST_CASE("cccl interop: tally::host orders NaN as tally does under CCCL's function objects" * doctest::may_fail()) {
  // NaN in the middle: under a plain `<` where a NaN lands decides the result.
  const std::vector<float> f = {1.0f, -2.0f, nan_f, 3.0f, -0.0f, nan_f, 0.0f, -inf_f};
  const auto hi = tally::host;
  CHECK(tally::max_element(hi, f.begin(), f.end(), cuda::std::less<>{}) - f.begin() == 2);  // the first NaN
  CHECK(tally::max_element(hi, f.begin(), f.end(), cuda::std::less<float>{}) - f.begin() == 2);
  CHECK(tally::max_element(hi, f.begin(), f.end(), thrust::less<>{}) ==
        tally::max_element(hi, f.begin(), f.end(), tally::less<>{}));
  CHECK(tally::min_element(hi, f.begin(), f.end(), cuda::std::greater<>{}) - f.begin() == 2);
  CHECK(tally::min_element(hi, f.begin(), f.end(), cuda::std::less<>{}) - f.begin() == 7);  // -inf

  CHECK(std::isnan(tally::reduce(hi, f.begin(), f.end(), -inf_f, cuda::maximum<float>{})));
  CHECK(std::isnan(tally::reduce(hi, f.begin(), f.end(), -inf_f, thrust::maximum<>{})));
  CHECK(tally::reduce(hi, f.begin(), f.end(), inf_f, cuda::minimum<float>{}) == -inf_f);
  CHECK(tally::reduce(hi, f.begin() + 3, f.begin() + 7, nan_f, cuda::minimum<>{}) == -0.0f);  // a NaN init loses

  const auto top = tally::top_k<4>(hi, f.begin(), f.end(), cuda::std::less<>{});
  const auto ref = tally::top_k<4>(hi, f.begin(), f.end(), tally::less<>{});
  REQUIRE(top.count == 4);
  for (int i = 0; i < 4; ++i) {
    CAPTURE(i);
    CHECK(top.indices[i] == ref.indices[i]);
    CHECK(same_float(top.values[i], ref.values[i]));
  }
  CHECK(top.indices[0] == 2);
  CHECK(top.indices[1] == 5);
}

}  // namespace cccl_interop_test

TEST_CASE("cccl: the build compiled against the CCCL it was configured for") {
  MESSAGE("CCCL_VERSION " << CCCL_VERSION << ", THRUST_VERSION " << THRUST_VERSION);
#ifdef TALLY_EXPECT_CCCL_VERSION
  // scripts/ci-compat.sh configures with CCCL 3.5 first: its headers, not the toolkit's.
  CHECK(CCCL_VERSION == TALLY_EXPECT_CCCL_VERSION);
#endif
  CHECK(CCCL_VERSION >= 3000000);
}
