#pragma once
/// @file
/// Deterministic device-side input generators (the same seed gives the same data on
/// every GPU and every run).
///
///   fill_hash_mod(p, n);                         // int32 `hash(i) % 4`: the anchors' int data
///   fill_uniform(p, n);                          // float/double uniform in [0, 1)
///   fill(p, n, pattern::with_nan, opts);       // any supported type, any pattern (opts: fill_options)
///
/// Supported item types: int8..int64, uint8..uint64, __half, __nv_bfloat16, float, double.

#include <tally_support/cuda_check.cuh>

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cuda/std/limits>

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <type_traits>

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
/// largest/lowest value and with_nan is rejected.
enum class pattern {
  random,    ///< integers: hash(i, seed) % int_modulus; floats: uniform in [0, 1)
  constant,  ///< every item = options.constant
  sorted,    ///< ascending ramp: floats i/n in [0, 1); integers i * int_modulus / n
  reversed,  ///< the ramp descending
  pos_inf,   ///< every item +inf
  neg_inf,   ///< every item -inf
  with_nan,  ///< random, but every nan_every-th item (i % k == k - 1) is a quiet NaN
};

inline const char* pattern_name(pattern p) {
  switch (p) {
    case pattern::random: return "random";
    case pattern::constant: return "constant";
    case pattern::sorted: return "sorted";
    case pattern::reversed: return "reversed";
    case pattern::pos_inf: return "+inf";
    case pattern::neg_inf: return "-inf";
    case pattern::with_nan: return "with_nan";
  }
  return "?";
}

struct fill_options {
  std::uint64_t seed = 0;            ///< 0 reproduces the anchors' data
  double constant = 1.0;             ///< the value of pattern::constant
  std::uint64_t int_modulus = 4;     ///< integer range of random/sorted: small, so sums do not overflow
  std::uint64_t nan_every = 1000;    ///< k of pattern::with_nan
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

template <class T>
__host__ __device__ inline T item_value(std::uint64_t i, std::uint64_t n, pattern p, const fill_options& o) {
  if constexpr (is_float_item_v<T>) {
    constexpr double inf = cuda::std::numeric_limits<double>::infinity();
    const std::uint64_t h = hash(i, o.seed);
    switch (p) {
      case pattern::random: return from_double<T>(std::is_same_v<T, double> ? unit_double(h) : double(unit_float(h)));
      case pattern::constant: return from_double<T>(o.constant);
      case pattern::sorted: return from_double<T>(double(i) / double(n));
      case pattern::reversed: return from_double<T>(double(n - 1 - i) / double(n));
      case pattern::pos_inf: return from_double<T>(inf);
      case pattern::neg_inf: return from_double<T>(-inf);
      case pattern::with_nan:
        if (i % o.nan_every == o.nan_every - 1) return from_double<T>(cuda::std::numeric_limits<double>::quiet_NaN());
        return from_double<T>(std::is_same_v<T, double> ? unit_double(h) : double(unit_float(h)));
    }
    return T{};
  } else {
    // Integers: computed in uint64 and converted (the ranges used fit every type).
    switch (p) {
      case pattern::random: return static_cast<T>(hash(i, o.seed) % o.int_modulus);
      case pattern::constant: return static_cast<T>(o.constant);
      case pattern::sorted: return static_cast<T>(i * o.int_modulus / n);  // n != 0 when called
      case pattern::reversed: return static_cast<T>((n - 1 - i) * o.int_modulus / n);
      case pattern::pos_inf: return cuda::std::numeric_limits<T>::max();
      case pattern::neg_inf: return cuda::std::numeric_limits<T>::lowest();
      case pattern::with_nan: return T{};  // rejected on the host before launch
    }
    return T{};
  }
}

template <class T>
__global__ void fill_kernel(T* out, std::uint64_t n, pattern p, fill_options o) {
  const std::uint64_t stride = std::uint64_t(gridDim.x) * blockDim.x;
  for (std::uint64_t i = std::uint64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride)
    out[i] = item_value<T>(i, n, p, o);
}

}  // namespace detail

/// Writes n items of `p` to device memory `out` on `stream`, then synchronises the stream
/// (so that a generator fault is reported here, not inside a later timing loop).
template <class T>
void fill(T* out, std::size_t n, pattern p, fill_options o = {}, cudaStream_t stream = 0) {
  if (n == 0) return;
  if (!detail::is_float_item_v<T> && p == pattern::with_nan)
    throw std::invalid_argument("tally_support::fill: pattern with_nan needs a floating-point type");
  if (p == pattern::with_nan && o.nan_every == 0) throw std::invalid_argument("tally_support::fill: nan_every is 0");
  if (o.int_modulus == 0) throw std::invalid_argument("tally_support::fill: int_modulus is 0");
  const unsigned block = 256;
  const std::size_t blocks_needed = (n + block - 1) / block;
  const unsigned grid = unsigned(blocks_needed < 65536 ? blocks_needed : 65536);  // grid-stride beyond
  detail::fill_kernel<T><<<grid, block, 0, stream>>>(out, n, p, o);
  TALLY_SUPPORT_CHECK_LAUNCH();
  TALLY_SUPPORT_CHECK(cudaStreamSynchronize(stream));
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
  return detail::item_value<T>(i, n, p, o);
}

}  // namespace tally_support
