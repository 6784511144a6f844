#pragma once
/// @file
/// CUB's answer on a device input: the one reference layer of the GPU tests (test/gpu/),
/// `tally verify` (src/checks_*.cu) and the benchmarks' inputs (*_cases.cuh). Every call
/// of CUB that checks tally goes through here; the host-side references and comparisons
/// are in compare.hpp.
///
///   reduce        cub_reduce_call(temp, bytes, in, out, n, op, init, stream)   (two-phase)
///                 cub_reduce(in, n, init, op)                        -> the value
///                 ref_plus / ref_max / ref_min                       CUB-style operators
///                                                                    (plain `<`: no NaN rule)
///   arg-extremum  cub_arg_extremum_call<Max>(temp, bytes, in, value_out, index_out, n, stream)
///                 cub_arg_extremum<Max>(in, n)                       -> the first index
///   top-k         cub_sorted_reference<T, LargestFirst>              stable radix sort of
///                                                                    (value, index): the baseline
///                                                                    the benchmarks time
///                 cub_top_indices(keys, n, largest, count)           the reference: the same
///                                                                    sort over order keys,
///                                                                    NaN as the library orders it
///                 cub_stable_order(keys, n, descending)              the permutation of that sort
///                                                                    (device memory)
///   select        cub_select_if_call / cub_select_flagged_if_call    (two-phase)
///                 cub_select(in, n, pred), cub_select_flagged(in, stencil, n, pred)
///                                                                    -> the items and their count
///
/// The two-phase `*_call` functions take CUB's (temp, bytes) pair: temp == nullptr sets
/// bytes; `cub_temp_storage` runs such a call, allocating the storage once. The other
/// functions allocate, run on `stream` (default: the default stream), synchronise and
/// throw std::runtime_error on a CUDA error. CUB compares with plain `<`: where that is
/// not the library's order (NaN, and -0.0 against +0.0 for the arg-extrema), use the host
/// references of compare.hpp, except for cub_top_indices, which sorts by the library's
/// order itself.

#include <tally_support/compare.hpp>
#include <tally_support/cuda_check.cuh>
#include <tally_support/device_buffer.cuh>

#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_reduce.cuh>
#include <cub/device/device_select.cuh>
#include <cuda/std/cstdint>
#include <thrust/execution_policy.h>
#include <thrust/iterator/transform_iterator.h>
#include <thrust/sequence.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <iterator>
#include <limits>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

namespace tally_support {

/// CUB's temporary storage for repeated two-phase calls: the first run() sizes and
/// allocates it, every run() then enqueues the call with it.
class cub_temp_storage {
 public:
  /// call(void* temp, std::size_t& bytes) -> cudaError_t, CUB's two-phase form.
  template <class Call>
  void run(Call&& call) {
    if (!sized_) {
      TALLY_SUPPORT_CHECK(call(nullptr, bytes_));
      storage_ = device_buffer<unsigned char>(bytes_ == 0 ? 1 : bytes_);
      sized_ = true;
    }
    TALLY_SUPPORT_CHECK(call(storage_.data(), bytes_));
  }

 private:
  device_buffer<unsigned char> storage_;
  std::size_t bytes_ = 0;
  bool sized_ = false;
};

namespace detail {

inline unsigned reference_grid(std::uint64_t n) {
  const std::uint64_t blocks = (n + 255) / 256;
  return unsigned(blocks < 1 ? 1 : blocks > 8192 ? 8192 : blocks);
}

/// *p after the work on `stream` (synchronises).
template <class T>
T read_after(const T* p, cudaStream_t stream) {
  TALLY_SUPPORT_CHECK(cudaStreamSynchronize(stream));
  T x;
  TALLY_SUPPORT_CHECK(cudaMemcpy(&x, p, sizeof(T), cudaMemcpyDeviceToHost));
  return x;
}

}  // namespace detail

// --- reduce ---------------------------------------------------------------------------------

/// CUB-style operators for the reference runs: plain `<` (no NaN rule), 16-bit floats
/// added through double.
template <class T>
TALLY_SUPPORT_HD bool plain_less(const T& a, const T& b) {
  if constexpr (is_16bit_float_v<T>) return to_double(a) < to_double(b);
  else return a < b;
}
template <class T>
struct ref_plus {
  TALLY_SUPPORT_HD T operator()(const T& a, const T& b) const {
    if constexpr (is_16bit_float_v<T>) return T(float(to_double(a) + to_double(b)));
    else return static_cast<T>(a + b);
  }
};
template <class T>
struct ref_max {
  TALLY_SUPPORT_HD T operator()(const T& a, const T& b) const { return plain_less(a, b) ? b : a; }
};
template <class T>
struct ref_min {
  TALLY_SUPPORT_HD T operator()(const T& a, const T& b) const { return plain_less(b, a) ? b : a; }
};

/// cub::DeviceReduce::Reduce of [in, in + n) into *out with `op` from `init`.
template <class In, class Out, class Op, class T>
cudaError_t cub_reduce_call(void* temp, std::size_t& bytes, In in, Out out, std::uint64_t n, Op op, T init,
                            cudaStream_t stream = 0) {
  return cub::DeviceReduce::Reduce(temp, bytes, in, out, ::cuda::std::int64_t(n), op, init, stream);
}

/// CUB's reduce of [in, in + n) with `op` from `init` (any op, any init, n >= 0).
template <class In, class T, class Op>
T cub_reduce(In in, std::uint64_t n, T init, Op op, cudaStream_t stream = 0) {
  device_buffer<T> out(1);
  out.memset(0xff);  // CUB must write it
  cub_temp_storage temp;
  temp.run([&](void* t, std::size_t& b) { return cub_reduce_call(t, b, in, out.data(), n, op, init, stream); });
  return detail::read_after(out.data(), stream);
}

// --- arg-extremum ---------------------------------------------------------------------------

/// cub::DeviceReduce::ArgMax (Max) or ArgMin of [in, in + n) into *value_out and
/// *index_out: the form with separate outputs and a 64-bit index (the first extremum).
template <bool Max, class In, class T>
cudaError_t cub_arg_extremum_call(void* temp, std::size_t& bytes, In in, T* value_out, std::int64_t* index_out,
                                  std::uint64_t n, cudaStream_t stream = 0) {
  if constexpr (Max)
    return cub::DeviceReduce::ArgMax(temp, bytes, in, value_out, index_out, ::cuda::std::int64_t(n), stream);
  else
    return cub::DeviceReduce::ArgMin(temp, bytes, in, value_out, index_out, ::cuda::std::int64_t(n), stream);
}

namespace detail {
/// Items narrower than 4 bytes as int (integers) or float (half, bfloat16): exact, so the
/// order and the index of the first extremum stay the same.
template <class V>
struct widen_item {
  using W = std::conditional_t<is_16bit_float_v<V>, float, int>;
  __host__ __device__ W operator()(V x) const { return static_cast<W>(x); }
};
}  // namespace detail

/// CUB's index of the first largest (Max) or first smallest item of [in, in + n), n >= 1.
/// CUB compares with plain `<` / `>`: the reference only for data without NaN.
template <bool Max, class In>
long long cub_arg_extremum(In in, std::uint64_t n, cudaStream_t stream = 0) {
  if (n == 0) throw std::invalid_argument("cub_arg_extremum: an empty range has no extremum");
  using V = typename std::iterator_traits<In>::value_type;
  if constexpr (sizeof(V) < 4) {
    // CUB reduces cub::KeyValuePair<int, V>, whose padding (3 bytes after an int8, 2 after
    // an int16 or half) it copies as whole words between its two kernels; compute-sanitizer's
    // initcheck reports those as reads of uninitialized memory in
    // DeviceReduceSingleTileKernel (CCCL 3.0.1). Widened items make a pair without padding.
    return cub_arg_extremum<Max>(thrust::make_transform_iterator(in, detail::widen_item<V>{}), n, stream);
  } else {
    device_buffer<V> value(1);
    device_buffer<std::int64_t> index(1);
    index.memset(0xff);  // -1: CUB must write it
    cub_temp_storage temp;
    temp.run([&](void* t, std::size_t& b) {
      return cub_arg_extremum_call<Max>(t, b, in, value.data(), index.data(), n, stream);
    });
    return static_cast<long long>(detail::read_after(index.data(), stream));
  }
}

// --- top-k ----------------------------------------------------------------------------------

/// The first `count` items of [in, in + n) in the order top_k gives them (the largest
/// first, or with LargestFirst = false the smallest first), from CUB's stable radix sort
/// of (value, index) pairs: what a CUB user calls for a top-K (CCCL 3.0 has no
/// DeviceTopK), and what the benchmarks time. Buffers for n items are allocated once;
/// `call(in)` enqueues one sort, `read(count, ...)` synchronises and copies the first
/// count entries. 32-bit indices: inputs of fewer than 2^32 items. It sorts floats by
/// their bits (-0.0 == +0.0), NaN included: a reference only for NaN-free data (see
/// cub_top_indices).
template <class T, bool LargestFirst = true>
class cub_sorted_reference {
 public:
  cub_sorted_reference(std::size_t n, cudaStream_t stream)
      : n_(n), stream_(stream), keys_out_(n), index_in_(n), index_out_(n) {
    if (n > std::size_t(std::numeric_limits<std::uint32_t>::max()))
      throw std::invalid_argument("cub_sorted_reference: at most 2^32 - 1 items (32-bit indices)");
    if (n == 0) return;
    thrust::sequence(thrust::cuda::par.on(stream_), index_in_.data(), index_in_.data() + n);
    TALLY_SUPPORT_CHECK(sort(nullptr, temp_bytes_, nullptr));
    temp_ = device_buffer<unsigned char>(temp_bytes_ == 0 ? 1 : temp_bytes_);
    TALLY_SUPPORT_CHECK(cudaStreamSynchronize(stream_));
  }

  /// Enqueues the sort of [in, in + n) on the stream (nothing for n = 0).
  void call(const T* in) {
    if (n_ != 0) TALLY_SUPPORT_CHECK(sort(temp_.data(), temp_bytes_, in));
  }

  /// The first min(count, n) values and indices of the last sort (synchronises).
  void read(std::size_t count, std::vector<T>& values, std::vector<std::int64_t>& indices) const {
    count = std::min(count, n_);
    values.resize(count);
    indices.resize(count);
    std::vector<std::uint32_t> index32(count);
    TALLY_SUPPORT_CHECK(cudaStreamSynchronize(stream_));
    if (count == 0) return;
    TALLY_SUPPORT_CHECK(cudaMemcpy(values.data(), keys_out_.data(), count * sizeof(T), cudaMemcpyDeviceToHost));
    TALLY_SUPPORT_CHECK(
        cudaMemcpy(index32.data(), index_out_.data(), count * sizeof(std::uint32_t), cudaMemcpyDeviceToHost));
    std::copy(index32.begin(), index32.end(), indices.begin());
  }

 private:
  cudaError_t sort(void* temp, std::size_t& bytes, const T* in) {
    const auto n = std::uint32_t(n_);
    if constexpr (LargestFirst)
      return cub::DeviceRadixSort::SortPairsDescending(temp, bytes, in, keys_out_.data(), index_in_.data(),
                                                       index_out_.data(), n, 0, int(sizeof(T) * 8), stream_);
    else
      return cub::DeviceRadixSort::SortPairs(temp, bytes, in, keys_out_.data(), index_in_.data(), index_out_.data(), n,
                                             0, int(sizeof(T) * 8), stream_);
  }

  std::size_t n_;
  cudaStream_t stream_;
  device_buffer<T> keys_out_;
  device_buffer<std::uint32_t> index_in_, index_out_;
  device_buffer<unsigned char> temp_;
  std::size_t temp_bytes_ = 0;
};

namespace detail {

/// An unsigned key whose order is the library's order of the floats: every NaN the
/// greatest (one key), -0.0 the same key as +0.0. Written here, not taken from the
/// library, so that the reference does not share the code it checks.
template <class T>
struct library_order_key {
  using U = std::conditional_t<sizeof(T) == 2, std::uint16_t, std::conditional_t<sizeof(T) == 4, std::uint32_t,
                                                                                  std::uint64_t>>;
  __host__ __device__ U operator()(T x) const {
    if (is_nan(x)) return U(~U(0));
    if (to_double(x) == 0.0) x = T(0.0f);
    U u;
    memcpy(&u, &x, sizeof(T));
    constexpr U sign = U(U(1) << (sizeof(U) * 8 - 1));
    return (u & sign) ? U(~u) : U(u | sign);  // negatives reversed below the positives
  }
};

// A template, so that a header may define it in every translation unit (nvcc ignores
// `inline` on a kernel, with a warning in every build that includes this file).
template <class Index>
__global__ void iota_kernel(Index* out, std::uint64_t n) {
  const std::uint64_t stride = std::uint64_t(gridDim.x) * blockDim.x;
  for (std::uint64_t i = std::uint64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride)
    out[i] = Index(i);
}

template <class Key, class F, class U>
__global__ void order_keys_kernel(const Key* keys, std::uint64_t n, F f, U* out) {
  const std::uint64_t stride = std::uint64_t(gridDim.x) * blockDim.x;
  for (std::uint64_t i = std::uint64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) out[i] = f(keys[i]);
}

}  // namespace detail

/// The positions of keys[0, n) in the order of a stable radix sort of (keys[i], i):
/// ascending, or descending when `descending`; equal keys in index order. Keys: unsigned
/// or signed integers, or floats by their bits (see cub_top_indices for NaN).
template <class Key>
device_buffer<std::int64_t> cub_stable_order(const Key* keys, std::uint64_t n, bool descending,
                                             cudaStream_t stream = 0) {
  device_buffer<std::int64_t> order_out{n == 0 ? 1 : n};
  if (n == 0) return order_out;
  device_buffer<Key> keys_out{n};
  device_buffer<std::int64_t> order_in{n};
  detail::iota_kernel<<<detail::reference_grid(n), 256, 0, stream>>>(order_in.data(), n);
  TALLY_SUPPORT_CHECK_LAUNCH();
  const auto items = ::cuda::std::int64_t(n);
  cub_temp_storage temp;
  temp.run([&](void* t, std::size_t& b) {
    if (descending)
      return cub::DeviceRadixSort::SortPairsDescending(t, b, keys, keys_out.data(), order_in.data(), order_out.data(),
                                                       items, 0, int(sizeof(Key) * 8), stream);
    return cub::DeviceRadixSort::SortPairs(t, b, keys, keys_out.data(), order_in.data(), order_out.data(), items, 0,
                                           int(sizeof(Key) * 8), stream);
  });
  TALLY_SUPPORT_CHECK(cudaStreamSynchronize(stream));
  return order_out;
}

namespace detail {

/// The first min(count, n) entries of cub_stable_order, on the host.
template <class Key>
std::vector<long long> sorted_indices(const Key* keys, std::uint64_t n, bool largest, std::size_t count,
                                      cudaStream_t stream) {
  if (n == 0 || count == 0) return {};
  const device_buffer<std::int64_t> order = cub_stable_order(keys, n, largest, stream);
  std::vector<std::int64_t> first(std::min<std::uint64_t>(count, n));
  TALLY_SUPPORT_CHECK(
      cudaMemcpy(first.data(), order.data(), first.size() * sizeof(std::int64_t), cudaMemcpyDeviceToHost));
  return std::vector<long long>(first.begin(), first.end());
}

}  // namespace detail

/// What top_k gives on [keys, keys + n): the first min(count, n) indices of a stable radix
/// sort of (key, index) pairs, the largest keys first (ascending when !largest), equal
/// keys in index order. Floating-point keys are sorted in the library's order (NaN above
/// every number, -0.0 == +0.0): a reference on every data set.
template <class Key>
std::vector<long long> cub_top_indices(const Key* keys, std::uint64_t n, bool largest, std::size_t count,
                                       cudaStream_t stream = 0) {
  if constexpr (is_float_v<Key>) {
    using U = typename detail::library_order_key<Key>::U;
    if (n == 0) return {};
    device_buffer<U> order_keys{n};
    detail::order_keys_kernel<<<detail::reference_grid(n), 256, 0, stream>>>(keys, n, detail::library_order_key<Key>{},
                                                                             order_keys.data());
    TALLY_SUPPORT_CHECK_LAUNCH();
    return detail::sorted_indices(order_keys.data(), n, largest, count, stream);
  } else {
    return detail::sorted_indices(keys, n, largest, count, stream);
  }
}

// --- select (copy_if) -----------------------------------------------------------------------

/// cub::DeviceSelect::If of [in, in + n) into out and *count.
template <class In, class Out, class Pred>
cudaError_t cub_select_if_call(void* temp, std::size_t& bytes, In in, Out out, std::int64_t* count, std::uint64_t n,
                               Pred pred, cudaStream_t stream = 0) {
  return cub::DeviceSelect::If(temp, bytes, in, out, count, ::cuda::std::int64_t(n), pred, stream);
}

/// cub::DeviceSelect::FlaggedIf: in[i] when pred(stencil[i]) (tally's stencil form).
template <class In, class Stencil, class Out, class Pred>
cudaError_t cub_select_flagged_if_call(void* temp, std::size_t& bytes, In in, Stencil stencil, Out out,
                                       std::int64_t* count, std::uint64_t n, Pred pred, cudaStream_t stream = 0) {
  return cub::DeviceSelect::FlaggedIf(temp, bytes, in, stencil, out, count, ::cuda::std::int64_t(n), pred, stream);
}

/// CUB's selection: the items (device memory, room for n) and how many there are.
template <class T>
struct selection {
  device_buffer<T> items;
  long long count = 0;
};

namespace detail {
template <class T, class Call>
selection<T> run_selection(std::uint64_t n, Call call, cudaStream_t stream) {
  selection<T> s;
  s.items = device_buffer<T>(n == 0 ? 1 : n);
  device_buffer<std::int64_t> count(1);
  count.memset(0xff);  // -1: CUB must write it
  cub_temp_storage temp;
  temp.run([&](void* t, std::size_t& b) { return call(t, b, s.items.data(), count.data()); });
  s.count = static_cast<long long>(read_after(count.data(), stream));
  if (s.count < 0 || std::uint64_t(s.count) > n)
    throw std::runtime_error("CUB selected " + std::to_string(s.count) + " of " + std::to_string(n) + " items");
  return s;
}
}  // namespace detail

/// cub::DeviceSelect::If(in, n, pred): the items x of [in, in + n) with pred(x), in order.
template <class T, class Pred>
selection<T> cub_select(const T* in, std::uint64_t n, Pred pred, cudaStream_t stream = 0) {
  return detail::run_selection<T>(
      n,
      [&](void* t, std::size_t& b, T* out, std::int64_t* count) {
        return cub_select_if_call(t, b, in, out, count, n, pred, stream);
      },
      stream);
}

/// cub::DeviceSelect::FlaggedIf(in, stencil, n, pred): in[i] where pred(stencil[i]), in order.
template <class T, class Stencil, class Pred>
selection<T> cub_select_flagged(const T* in, Stencil stencil, std::uint64_t n, Pred pred, cudaStream_t stream = 0) {
  return detail::run_selection<T>(
      n,
      [&](void* t, std::size_t& b, T* out, std::int64_t* count) {
        return cub_select_flagged_if_call(t, b, in, stencil, out, count, n, pred, stream);
      },
      stream);
}

}  // namespace tally_support
