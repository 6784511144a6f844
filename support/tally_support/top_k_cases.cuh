#pragma once
/// @file
/// What the top_k benchmark (bench_top_k) and the `tally verify` top_k entries compare
/// tally::top_k with:
///
/// - `cub_sorted_reference<T>` (reference.cuh): the reference. CUB's stable radix sort
///   of (value, index) pairs, descending (the largest first) or ascending (the smallest
///   first); its first K entries are what top_k must give, equal values in index order
///   (the sort is stable). It knows nothing of NaN (CUB sorts NaNs by their bits; tally
///   puts them above every number): reference.cuh's cub_top_indices sorts in the
///   library's order.
/// - `cub_top_k_reduce<K, WithIndex>`: the best a CUB user does for a small K with CCCL
///   3.0 (which has no DeviceTopK): cub::DeviceReduce::Reduce over a transform iterator
///   that turns item i into a one-entry list, with an operator that merges two sorted
///   K-lists (top_list, merge_top_lists). With WithIndex = false the lists hold values
///   only: the anchors' `cub_top2_reduce_f32` (shared/anchors/README.md) for K = 2.
/// - the cases of bench_top_k (float and int32 data, the largest first) and their input
///   (`top_k_input`: extrema_input's rotating copies and CUB ArgMax, plus the sorted
///   reference and the buffers of the rows).
///
///   top_k_input_slot inputs;
///   auto& s = inputs.get<top_k_cases::float_top_k>(n, stream);
///   tally::top_k_into<8>(policy, s.in.copy(k), s.in.copy(k) + n, s.values_out.data(), s.indices_out.data());
///   s.reference_values[0..s.reference_count), s.reference_indices[...]

#include <tally_support/cuda_check.cuh>
#include <tally_support/device_buffer.cuh>
#include <tally_support/extrema_cases.cuh>
#include <tally_support/reference.cuh>

#include <tally_support/cub_top_k.cuh>

#include <cub/device/device_reduce.cuh>
#include <cuda/std/cstdint>
#include <cuda/std/limits>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/transform_iterator.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <memory>
#include <numeric>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

// `#pragma unroll` in __host__ __device__ code, for the device compilation only (the host
// compiler would warn about an unknown pragma).
#if defined(__CUDA_ARCH__)
#define TALLY_SUPPORT_UNROLL _Pragma("unroll")
#else
#define TALLY_SUPPORT_UNROLL
#endif

namespace tally_support {

// --- a CUB user's top-K: DeviceReduce::Reduce with a list-merging operator --------------

/// The best K (value, index) pairs of part of the input, best first (the largest value;
/// among equal values the lower index). Empty entries: the lowest value with index
/// INT64_MAX (worse than every real item).
template <class T, int K, bool WithIndex>
struct top_list;
template <class T, int K>
struct top_list<T, K, true> {
  T value[K];
  std::int64_t index[K];
};
/// Values only (the anchors' top-2 reduction).
template <class T, int K>
struct top_list<T, K, false> {
  T value[K];
};

namespace detail {

template <class T>
__host__ __device__ constexpr T lowest_value() {
  if constexpr (::cuda::std::numeric_limits<T>::has_infinity)
    return -::cuda::std::numeric_limits<T>::infinity();
  else
    return ::cuda::std::numeric_limits<T>::lowest();
}

template <class T, int K, bool WithIndex>
__host__ __device__ top_list<T, K, WithIndex> empty_top_list() {
  top_list<T, K, WithIndex> l;
  for (int i = 0; i < K; ++i) {
    l.value[i] = lowest_value<T>();
    if constexpr (WithIndex) l.index[i] = ::cuda::std::numeric_limits<std::int64_t>::max();
  }
  return l;
}

}  // namespace detail

/// Item i -> the list holding only (in[i], i).
template <class T, int K, bool WithIndex>
struct to_top_list {
  const T* in;
  __host__ __device__ top_list<T, K, WithIndex> operator()(std::int64_t i) const {
    top_list<T, K, WithIndex> l = detail::empty_top_list<T, K, WithIndex>();
    l.value[0] = in[i];
    if constexpr (WithIndex) l.index[0] = i;
    return l;
  }
};

/// The best K of two sorted lists, sorted: entry i is the better of a[i] and b[K-1-i]
/// (a bitonic sequence holding the best K of the union), then a bitonic sort. Every
/// index is a compile-time constant once unrolled (the lists stay in registers).
template <class T, int K, bool WithIndex>
struct merge_top_lists {
  static_assert(K >= 1 && (K & (K - 1)) == 0, "merge_top_lists: K must be a power of two");
  using list = top_list<T, K, WithIndex>;

  __host__ __device__ static bool better(const list& a, int i, const list& b, int j) {
    if constexpr (WithIndex)
      return a.value[i] > b.value[j] || (a.value[i] == b.value[j] && a.index[i] < b.index[j]);
    else
      return a.value[i] > b.value[j];
  }
  __host__ __device__ static void take(list& to, int i, const list& from, int j) {
    to.value[i] = from.value[j];
    if constexpr (WithIndex) to.index[i] = from.index[j];
  }

  __host__ __device__ list operator()(const list& a, const list& b) const {
    list r;
    TALLY_SUPPORT_UNROLL
    for (int i = 0; i < K; ++i) {
      if (better(b, K - 1 - i, a, i))
        take(r, i, b, K - 1 - i);
      else
        take(r, i, a, i);
    }
    TALLY_SUPPORT_UNROLL
    for (int stride = K / 2; stride > 0; stride /= 2) {
      TALLY_SUPPORT_UNROLL
      for (int i = 0; i < K; ++i) {
        if ((i & stride) == 0 && better(r, i + stride, r, i)) {
          list t;
          take(t, 0, r, i);
          take(r, i, r, i + stride);
          take(r, i + stride, t, 0);
        }
      }
    }
    return r;
  }
};

/// cub::DeviceReduce::Reduce of [in, in + n) into *out with merge_top_lists (the two-phase
/// temporary-storage call: temp == nullptr sets bytes).
template <int K, bool WithIndex, class T>
cudaError_t cub_top_k_reduce(void* temp, std::size_t& bytes, const T* in, top_list<T, K, WithIndex>* out, std::size_t n,
                             cudaStream_t stream) {
  auto items =
      thrust::make_transform_iterator(thrust::counting_iterator<std::int64_t>(0), to_top_list<T, K, WithIndex>{in});
  return cub::DeviceReduce::Reduce(temp, bytes, items, out, ::cuda::std::int64_t(n), merge_top_lists<T, K, WithIndex>{},
                                   detail::empty_top_list<T, K, WithIndex>(), stream);
}

// --- the cases of bench_top_k ---------------------------------------------------------

namespace top_k_cases {

/// The largest first (tally::less), float data uniform in [0, 1) (extrema_cases'
/// float_argmax: its CUB ArgMax, max_element_into and value-only reduce rows).
struct float_top_k : extrema_cases::float_argmax {
  static constexpr const char* name = "float_top_k";
  static constexpr const char* description =
      "float top_k (the largest first), data uniform in [0, 1) (24-bit values: ties from 2^24 items on)";
};

/// The largest first, int32 data hash(i) % 4: the top K are 3s, the lowest indices first.
struct int32_top_k : extrema_cases::int32_argmax {
  static constexpr const char* name = "int32_top_k";
  static constexpr const char* description =
      "int32 top_k (the largest first), data hash(i) % 4 (all ties: the first K 3s win)";
};

/// Data that defeats a threshold drawn from samples (issue 21: no slower than 2x uniform
/// data): every later item beats the earlier ones. float_top_k's ramp over [0, 1),
/// ascending (equal neighbours from 2^24 items on).
struct float_top_k_ascending : float_top_k {
  static constexpr const char* name = "float_top_k_ascending";
  static constexpr const char* description = "float top_k (the largest first), data an ascending ramp over [0, 1)";
  static void fill(T* p, std::size_t n) { tally_support::fill(p, n, pattern::sorted); }
};

/// Every item equal (1.0): the top K are the first K indices, ties all the way.
struct float_top_k_constant : float_top_k {
  static constexpr const char* name = "float_top_k_constant";
  static constexpr const char* description = "float top_k (the largest first), every item 1.0 (the first K win)";
  static void fill(T* p, std::size_t n) { tally_support::fill(p, n, pattern::constant); }
};

/// The case names, in table order (the values --cases accepts).
inline std::vector<std::string> names() {
  return {float_top_k::name, int32_top_k::name, float_top_k_ascending::name, float_top_k_constant::name};
}

/// Calls f(Case{}) for each case whose name is in `wanted`, in table order.
template <class Names, class F>
void for_each_wanted(const Names& wanted, F&& f) {
  auto is_wanted = [&](const char* name) { return std::find(wanted.begin(), wanted.end(), name) != wanted.end(); };
  if (is_wanted(float_top_k::name)) f(float_top_k{});
  if (is_wanted(int32_top_k::name)) f(int32_top_k{});
  if (is_wanted(float_top_k_ascending::name)) f(float_top_k_ascending{});
  if (is_wanted(float_top_k_constant::name)) f(float_top_k_constant{});
}

}  // namespace top_k_cases

/// The largest K the benchmark's rows ask for (the reference holds this many entries).
inline constexpr int bench_max_k = 1024;


/// One (case, n) of bench_top_k: extrema_input's copies, CUB ArgMax and its result
/// (checked there: not all zeros, the last copy as the first), plus the reference (the
/// first min(32, n) entries of CUB's descending sort of copy 0, checked against CUB's
/// ArgMax and, up to 2^20 items, against a host sort), the CUB top-K reductions'
/// temporary storage and output, and outputs for tally's values and indices.
template <class Case>
struct top_k_input : extrema_input<Case> {
  using T = typename Case::T;
  using extrema_input<Case>::in;
  using extrema_input<Case>::stream;

  cub_sorted_reference<T> sort;
  std::vector<T> reference_values;  ///< the best min(32, n), best first
  std::vector<std::int64_t> reference_indices;
  device_buffer<T> values_out{bench_max_k};  ///< tally's values
  device_buffer<std::int64_t> indices_out{bench_max_k};
  device_buffer<unsigned char> list_out{sizeof(top_list<T, 8, true>)};  ///< the CUB top-K reductions' result
  device_buffer<unsigned char> reduce_temp;
  std::size_t reduce_temp_bytes = 0;
  device_buffer<unsigned char> top_k_temp;  ///< cub::DeviceTopK's, for every k up to bench_max_k
  std::size_t top_k_temp_bytes = 0;

  top_k_input(std::size_t n, cudaStream_t s) : extrema_input<Case>(n, s), sort(n, s) {
    sort.call(in.copy(0));
    sort.read(bench_max_k, reference_values, reference_indices);
    if (reference_indices.empty() || reference_indices[0] != this->reference_index)
      throw std::runtime_error(std::string(Case::name) + ": CUB's sort and CUB's ArgMax disagree on the best item");
    if (n <= (std::size_t(1) << 20)) check_against_host_sort();
    reserve_reduce<2, true>();
    reserve_reduce<2, false>();
    reserve_reduce<8, true>();
    reduce_temp = device_buffer<unsigned char>(reduce_temp_bytes == 0 ? 1 : reduce_temp_bytes);
#if CCCL_VERSION >= 3003000
    for (int k : {8, 32, 256, bench_max_k}) {
      std::size_t bytes = 0;
      TALLY_SUPPORT_CHECK(cub_device_top_k<T>(nullptr, bytes, in.copy(0), n, int(std::min<std::size_t>(k, n)),
                                              values_out.data(), indices_out.data(), stream));
      top_k_temp_bytes = std::max(top_k_temp_bytes, bytes);
    }
    top_k_temp = device_buffer<unsigned char>(top_k_temp_bytes == 0 ? 1 : top_k_temp_bytes);
#endif
  }

  /// Enqueues cub::DeviceTopK::MaxPairs of copy c (k largest) into values_out / indices_out.
  void cub_top_k_call(int c, int k) {
#if CCCL_VERSION >= 3003000
    std::size_t bytes = top_k_temp_bytes;
    TALLY_SUPPORT_CHECK(cub_device_top_k<T>(top_k_temp.data(), bytes, in.copy(c), in.size(), k, values_out.data(),
                                            indices_out.data(), stream));
#else
    (void)c;
    (void)k;
    throw std::logic_error("cub::DeviceTopK needs CCCL >= 3.3");
#endif
  }

  /// Enqueues CUB's top-K reduction of copy k into list_out.
  template <int K, bool WithIndex>
  void cub_reduce_call(int k) {
    std::size_t bytes = reduce_temp_bytes;
    const cudaError_t e =
        cub_top_k_reduce<K, WithIndex>(reduce_temp.data(), bytes, in.copy(k), list<K, WithIndex>(), in.size(), stream);
    TALLY_SUPPORT_CHECK(e);
  }
  /// The list of the last CUB top-K reduction (synchronises).
  template <int K, bool WithIndex>
  top_list<T, K, WithIndex> cub_reduce_result() const {
    top_list<T, K, WithIndex> l;
    TALLY_SUPPORT_CHECK(cudaStreamSynchronize(stream));
    TALLY_SUPPORT_CHECK(cudaMemcpy(&l, list_out.data(), sizeof l, cudaMemcpyDeviceToHost));
    return l;
  }

 private:
  template <int K, bool WithIndex>
  top_list<T, K, WithIndex>* list() {
    static_assert(sizeof(top_list<T, K, WithIndex>) <= sizeof(top_list<T, 8, true>), "list_out is too small");
    return reinterpret_cast<top_list<T, K, WithIndex>*>(list_out.data());
  }

  template <int K, bool WithIndex>
  void reserve_reduce() {
    std::size_t bytes = 0;
    const cudaError_t e =
        cub_top_k_reduce<K, WithIndex>(nullptr, bytes, in.copy(0), list<K, WithIndex>(), in.size(), stream);
    TALLY_SUPPORT_CHECK(e);
    reduce_temp_bytes = std::max(reduce_temp_bytes, bytes);
  }

  /// The reference again, by std::stable_sort on the host (the data has no NaN).
  void check_against_host_sort() {
    const std::size_t n = in.size();
    std::vector<T> host(n);
    TALLY_SUPPORT_CHECK(cudaMemcpy(host.data(), in.copy(0), n * sizeof(T), cudaMemcpyDeviceToHost));
    std::vector<std::int64_t> order(n);
    std::iota(order.begin(), order.end(), std::int64_t(0));
    const std::size_t count = reference_indices.size();
    std::stable_sort(order.begin(), order.end(), [&](std::int64_t a, std::int64_t b) { return host[a] > host[b]; });
    for (std::size_t i = 0; i < count; ++i)
      if (order[i] != reference_indices[i] || !(host[order[i]] == reference_values[i]))
        throw std::runtime_error(std::string(Case::name) + ": CUB's sort differs from a host sort at entry " +
                                 std::to_string(i));
  }
};

/// Holds the input of one (case, n) at a time: asking for another frees the previous
/// one first.
class top_k_input_slot {
 public:
  template <class Case>
  top_k_input<Case>& get(std::size_t n, cudaStream_t stream) {
    const std::string key = std::string(Case::name) + "/" + std::to_string(n);
    if (key != key_) {
      reset();  // free the previous input before allocating the next one
      input_ = std::make_unique<top_k_input<Case>>(n, stream);
      key_ = key;
    }
    return static_cast<top_k_input<Case>&>(*input_);
  }
  void reset() {
    input_.reset();
    key_.clear();
  }

 private:
  std::unique_ptr<extrema_input_base> input_;
  std::string key_;
};

}  // namespace tally_support

#undef TALLY_SUPPORT_UNROLL
