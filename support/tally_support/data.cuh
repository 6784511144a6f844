#pragma once
/// @file
/// The one input generator of the tests, `tally verify` and the benchmarks: deterministic
/// device-side data (the same seed gives the same items on every GPU and every run).
///
///   fill_hash_mod(p, n);                        // int32 `hash(i) % 4`: the anchors' int data
///   fill_uniform(p, n);                         // float/double uniform in [0, 1): the anchors' float data
///   fill(p, n, pattern::with_nan, opts);        // any supported type, any pattern (opts: fill_options)
///   auto d = make_dataset<T>(n, pattern::sorted, opts, offset);
///                                               // an owned allocation: n items `offset` items after
///                                               // its aligned start, poison items around them
///   auto g = make_generated<T>(n, gen, offset); // the same with item i = gen(i) (a device functor)
///
/// Supported item types: int8..int64, uint8..uint64, __half, __nv_bfloat16, float, double,
/// and any type that specialises `data_traits` (the extension point: how item i of a
/// pattern is made and what poison lies around the range; see test/gpu/test_reduce_custom.cu).
///
/// The benchmarks' data is the default fill_options (seed 0): `hash(i) % 4` and the top
/// 24 (float) or 53 (double) bits of `hash(i)` as [0, 1). Changing how these are computed
/// changes every performance comparison: keep them bit-identical. The GPU tests use other
/// options (test/gpu/common.cuh, test_options: signed ranges, constant 3, NaN scattered).

#include <tally_support/cuda_check.cuh>
#include <tally_support/device_buffer.cuh>

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cuda/std/limits>

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

namespace tally_support {

/// splitmix64's finaliser: a cheap, well-mixed 64-bit hash (every input bit affects
/// every output bit). `hash(i)` for item i is the anchors' generator.
__host__ __device__ inline std::uint64_t hash(std::uint64_t x) {
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

/// The hash of item i under a seed; seed 0 is `hash(i)` itself.
__host__ __device__ inline std::uint64_t hash(std::uint64_t i, std::uint64_t seed) {
  return seed == 0 ? hash(i) : hash(i ^ hash(seed));
}

/// A double in [0, 1) from the top 53 bits of a hash.
__host__ __device__ inline double unit_double(std::uint64_t h) { return double(h >> 11) * 0x1.0p-53; }
/// A float in [0, 1) from the top 24 bits of a hash (exact in float, never rounds up to 1).
__host__ __device__ inline float unit_float(std::uint64_t h) { return float(h >> 40) * 0x1.0p-24f; }

/// What fill() writes. Integers have no inf/NaN: for them pos_inf/neg_inf mean the
/// largest/lowest value; with_nan, neg_and_zeros and pos_and_zeros are rejected, and
/// wide is for integers only.
enum class pattern {
  random,         ///< integers: int_low + hash(i, seed) % int_modulus; floats: uniform in [float_low, float_high)
  wide,           ///< integers: the hash's low bits, random over the whole type
  constant,       ///< every item = options.constant
  sorted,         ///< ascending ramp over random's range
  reversed,       ///< the ramp descending
  pos_inf,        ///< every item +inf
  neg_inf,        ///< every item -inf
  with_nan,       ///< random, with NaN items (where: nan_every, nan_scattered)
  neg_and_zeros,  ///< floats: -0.0, +0.0 and negative numbers in [-1.25, -0.25) (the maximum is a zero)
  pos_and_zeros,  ///< floats: +0.0, -0.0 and positive numbers in [0.25, 1.25) (the minimum is a zero)
};

/// The pattern's name (`tally verify` matches --data against it).
inline const char* pattern_name(pattern p) {
  switch (p) {
    case pattern::random: return "random";
    case pattern::wide: return "wide";
    case pattern::constant: return "constant";
    case pattern::sorted: return "sorted";
    case pattern::reversed: return "reversed";
    case pattern::pos_inf: return "+inf";
    case pattern::neg_inf: return "-inf";
    case pattern::with_nan: return "with_nan";
    case pattern::neg_and_zeros: return "neg_and_zeros";
    case pattern::pos_and_zeros: return "pos_and_zeros";
  }
  return "?";
}

/// Whether `p` has NaN or zeros of both signs: data on which CUB's plain `<` is not the
/// library's order (reference.cuh).
inline bool has_nan_or_signed_zeros(pattern p) {
  return p == pattern::with_nan || p == pattern::neg_and_zeros || p == pattern::pos_and_zeros;
}

/// The defaults are the anchors' data (the benchmarks': keep them).
struct fill_options {
  std::uint64_t seed = 0;          ///< 0 reproduces the anchors' data
  double constant = 1.0;           ///< the value of pattern::constant
  std::uint64_t int_modulus = 4;   ///< integer range of random/sorted: [int_low, int_low + int_modulus)
  long long int_low = 0;
  double float_low = 0.0;          ///< float range of random/sorted: [float_low, float_high)
  double float_high = 1.0;
  std::uint64_t nan_every = 1000;  ///< with_nan: item i is NaN when i % nan_every == nan_every - 1 ...
  bool nan_scattered = false;      ///< ... or, when set, when hash(i, seed) % nan_every == 0, and item n / 2
};

namespace detail {

template <class T>
inline constexpr bool is_cuda_half_v = std::is_same_v<T, __half> || std::is_same_v<T, __nv_bfloat16>;
template <class T>
inline constexpr bool is_float_item_v = std::is_floating_point_v<T> || is_cuda_half_v<T>;

/// double -> T; the 16-bit float types convert through float (which keeps inf and NaN).
template <class T>
__host__ __device__ inline T from_double(double x) {
  if constexpr (is_cuda_half_v<T>) return T(float(x));
  else return static_cast<T>(x);
}

/// floor(i * m / n) for i < n, without overflowing 64 bits.
__host__ __device__ inline std::uint64_t ramp(std::uint64_t i, std::uint64_t n, std::uint64_t m) {
  if (m == 0 || i <= ~std::uint64_t(0) / m) return i * m / n;
  const std::uint64_t r = static_cast<std::uint64_t>(double(i) / double(n) * double(m));
  return r < m ? r : m - 1;
}

}  // namespace detail

/// How item i of n of a pattern is made, and the poison items fill_guarded() writes around
/// the range of a dataset (a read outside it changes a sum, a max or a min). Specialise it for an item
/// type of your own (test/gpu/test_reduce_custom.cu): `make(pattern, i, n, options)` and
/// `poison(j)`, both __host__ __device__.
template <class T, class Enable = void>
struct data_traits;

template <class T>
struct data_traits<T, std::enable_if_t<std::is_integral_v<T>>> {
  __host__ __device__ static T make(pattern p, std::uint64_t i, std::uint64_t n, const fill_options& o) {
    // Computed in uint64 and converted: the value modulo 2^bits, as the signed sum would give.
    const std::uint64_t low = static_cast<std::uint64_t>(o.int_low);
    switch (p) {
      case pattern::random: return static_cast<T>(low + hash(i, o.seed) % o.int_modulus);
      case pattern::wide: {
        const std::uint64_t h = hash(i, o.seed);
        T v;
        memcpy(&v, &h, sizeof(T));
        return v;
      }
      case pattern::constant: return static_cast<T>(o.constant);
      case pattern::sorted: return static_cast<T>(low + detail::ramp(i, n, o.int_modulus));  // n != 0 when called
      case pattern::reversed: return static_cast<T>(low + detail::ramp(n - 1 - i, n, o.int_modulus));
      case pattern::pos_inf: return cuda::std::numeric_limits<T>::max();
      case pattern::neg_inf: return cuda::std::numeric_limits<T>::lowest();
      default: return T{};  // the float-only patterns: rejected on the host before launch
    }
  }
  /// The greatest and the lowest value, alternating.
  __host__ __device__ static T poison(std::uint64_t j) {
    return (j & 1) ? cuda::std::numeric_limits<T>::max() : cuda::std::numeric_limits<T>::lowest();
  }
};

template <class T>
struct data_traits<T, std::enable_if_t<detail::is_float_item_v<T>>> {
  __host__ __device__ static T make(pattern p, std::uint64_t i, std::uint64_t n, const fill_options& o) {
    constexpr double inf = cuda::std::numeric_limits<double>::infinity();
    const std::uint64_t h = hash(i, o.seed);
    // [0, 1): 53 bits for double, 24 (exact in float) otherwise; then the range. The
    // anchors' [0, 1) is 0 + 1 * u: exactly u.
    const double u = std::is_same_v<T, double> ? unit_double(h) : double(unit_float(h));
    const double random = o.float_low + (o.float_high - o.float_low) * u;
    auto ramp = [&](std::uint64_t k) { return o.float_low + (o.float_high - o.float_low) * (double(k) / double(n)); };
    switch (p) {
      case pattern::random:
      case pattern::wide: return detail::from_double<T>(random);  // (wide: rejected on the host)
      case pattern::constant: return detail::from_double<T>(o.constant);
      case pattern::sorted: return detail::from_double<T>(ramp(i));
      case pattern::reversed: return detail::from_double<T>(ramp(n - 1 - i));
      case pattern::pos_inf: return detail::from_double<T>(inf);
      case pattern::neg_inf: return detail::from_double<T>(-inf);
      case pattern::with_nan: {
        const bool nan = o.nan_scattered ? (h % o.nan_every == 0 || i == n / 2) : (i % o.nan_every == o.nan_every - 1);
        return detail::from_double<T>(nan ? cuda::std::numeric_limits<double>::quiet_NaN() : random);
      }
      case pattern::neg_and_zeros:
        return detail::from_double<T>(i % 3 == 0 ? -0.0 : i % 3 == 1 ? 0.0 : -(0.25 + double(unit_float(h))));
      case pattern::pos_and_zeros:
        return detail::from_double<T>(i % 3 == 0 ? 0.0 : i % 3 == 1 ? -0.0 : 0.25 + double(unit_float(h)));
    }
    return T{};
  }
  /// NaN and -inf, alternating.
  __host__ __device__ static T poison(std::uint64_t j) {
    return detail::from_double<T>((j & 1) ? cuda::std::numeric_limits<double>::quiet_NaN()
                                          : -cuda::std::numeric_limits<double>::infinity());
  }
};

/// Item i of a pattern as a functor: what fill() and make_dataset() write.
template <class T>
struct pattern_items {
  pattern p;
  std::uint64_t n;
  fill_options o;
  __host__ __device__ T operator()(std::uint64_t i) const { return data_traits<T>::make(p, i, n, o); }
};

/// data_traits<T>::poison as a functor: the poison make_generated() writes by default.
template <class T>
struct traits_poison {
  __host__ __device__ T operator()(std::uint64_t j) const { return data_traits<T>::poison(j); }
};

namespace detail {

/// base[j] = gen(j - offset) for j in [offset, offset + n), poison(j) around it, up to total.
template <class T, class Gen, class Poison>
__global__ void fill_kernel(T* base, std::uint64_t total, std::uint64_t offset, std::uint64_t n, Gen gen,
                            Poison poison) {
  const std::uint64_t stride = std::uint64_t(gridDim.x) * blockDim.x;
  for (std::uint64_t j = std::uint64_t(blockIdx.x) * blockDim.x + threadIdx.x; j < total; j += stride)
    base[j] = (j >= offset && j - offset < n) ? gen(j - offset) : poison(j);
}

template <class T>
void check_pattern(pattern p, const fill_options& o) {
  constexpr bool is_float = is_float_item_v<T>;
  if (!is_float && (p == pattern::with_nan || p == pattern::neg_and_zeros || p == pattern::pos_and_zeros))
    throw std::invalid_argument(std::string("tally_support::fill: pattern ") + pattern_name(p) +
                                " needs a floating-point type");
  if (is_float && p == pattern::wide) throw std::invalid_argument("tally_support::fill: pattern wide is for integers");
  if (p == pattern::with_nan && o.nan_every == 0) throw std::invalid_argument("tally_support::fill: nan_every is 0");
  if (o.int_modulus == 0) throw std::invalid_argument("tally_support::fill: int_modulus is 0");
}

}  // namespace detail

/// Writes [0, total) of `base` on `stream`: gen(i) at base[offset + i] for i < n, and
/// poison(j) at every other j; then synchronises the stream (so that a generator fault
/// is reported here, not inside a later timing loop).
template <class T, class Gen, class Poison = traits_poison<T>>
void fill_guarded(T* base, std::size_t total, std::size_t offset, std::size_t n, Gen gen, Poison poison = {},
                  cudaStream_t stream = 0) {
  if (total == 0) return;
  const unsigned block = 256;
  const std::size_t blocks_needed = (total + block - 1) / block;
  const unsigned grid = unsigned(blocks_needed < 65536 ? blocks_needed : 65536);  // grid-stride beyond
  detail::fill_kernel<T><<<grid, block, 0, stream>>>(base, total, offset, n, gen, poison);
  TALLY_SUPPORT_CHECK_LAUNCH();
  TALLY_SUPPORT_CHECK(cudaStreamSynchronize(stream));
}

/// Writes n items of `p` to device memory `out` on `stream`, then synchronises the stream.
template <class T>
void fill(T* out, std::size_t n, pattern p, fill_options o = {}, cudaStream_t stream = 0) {
  if (n == 0) return;
  detail::check_pattern<T>(p, o);
  fill_guarded(out, n, 0, n, pattern_items<T>{p, n, o}, traits_poison<T>{}, stream);  // (no guards: total == n)
}

/// The anchors' int data: `hash(i) % modulus` (modulus 4 by default).
template <class T = int>
void fill_hash_mod(T* out, std::size_t n, std::uint64_t modulus = 4, std::uint64_t seed = 0, cudaStream_t stream = 0) {
  fill_options o;
  o.seed = seed;
  o.int_modulus = modulus;
  fill(out, n, pattern::random, o, stream);
}

/// The anchors' float data: uniform in [0, 1) (float, double, __half or __nv_bfloat16).
template <class T>
void fill_uniform(T* out, std::size_t n, std::uint64_t seed = 0, cudaStream_t stream = 0) {
  static_assert(detail::is_float_item_v<T>, "fill_uniform is for floating-point types");
  fill_options o;
  o.seed = seed;
  fill(out, n, pattern::random, o, stream);
}

/// The same items as fill(), computed on the host (for host-side references of small inputs).
template <class T>
T host_item(std::uint64_t i, std::uint64_t n, pattern p, const fill_options& o = {}) {
  return data_traits<T>::make(p, i, n, o);
}

/// n items in device memory at `ptr`, `offset` items after the start of an allocation
/// (cudaMalloc's alignment: 256 bytes), with poison items before them and `guard_items`
/// after. Never a null pointer, even for n = 0.
template <class T>
struct dataset {
  static constexpr std::size_t guard_items = 16;
  device_buffer<T> storage;
  T* ptr = nullptr;
  long long n = 0;
  pattern pat = pattern::random;  ///< (make_generated: random)
  int offset = 0;

  /// A copy of the n items on the host.
  std::vector<T> host() const {
    std::vector<T> v(static_cast<std::size_t>(n));
    if (n > 0) TALLY_SUPPORT_CHECK(cudaMemcpy(v.data(), ptr, v.size() * sizeof(T), cudaMemcpyDeviceToHost));
    return v;
  }
};

/// n items of gen(i) (a __host__ __device__ functor of a std::uint64_t), as a dataset;
/// poison(j) (default: data_traits<T>::poison) around them.
template <class T, class Gen, class Poison = traits_poison<T>>
dataset<T> make_generated(long long n, Gen gen, int offset = 0, Poison poison = {}) {
  if (n < 0 || offset < 0) throw std::invalid_argument("tally_support::make_generated: negative size or offset");
  dataset<T> d;
  const std::size_t total = std::size_t(n) + std::size_t(offset) + dataset<T>::guard_items;
  d.storage = device_buffer<T>(total);
  d.ptr = d.storage.data() + offset;
  d.n = n;
  d.offset = offset;
  fill_guarded(d.storage.data(), total, std::size_t(offset), std::size_t(n), gen, poison);
  return d;
}

/// n items of pattern `p`, as a dataset.
template <class T>
dataset<T> make_dataset(long long n, pattern p, const fill_options& o = {}, int offset = 0) {
  detail::check_pattern<T>(p, o);
  dataset<T> d = make_generated<T>(n, pattern_items<T>{p, std::uint64_t(n < 0 ? 0 : n), o}, offset);
  d.pat = p;
  return d;
}

}  // namespace tally_support
