#pragma once
/// @file
/// What the copy_if benchmark (bench_copy_if) and the `tally verify` copy_if entries
/// compare tally::copy_if with, and how they check a result:
///
/// - `select_by_hash`: the benchmark's predicate, `mix32(bits of x) < threshold`: a
///   chosen fraction of the items (when their values are many and distinct), at
///   positions that look random, at the cost of a few integer instructions per item.
/// - the reference, CUB's selection (cub::DeviceSelect::If, stable like tally's default),
///   is reference.cuh's `cub_select_if_call` / `cub_select_flagged_if_call`.
/// - `first_difference`, `first_not_filled`: device-side compares (bit patterns) of
///   two outputs, and of an output's tail with the 0xff bytes it was filled with.
/// - `bit_sorter<T>`: CUB's radix sort of the items' bit patterns, ascending, so that
///   two unordered outputs can be compared as multisets (sorted, then element by
///   element).
/// - the cases of bench_copy_if (int32 and float data at 5%, 50% and 95% selectivity,
///   and the anchors' int32 `x >= 2`) and their input (`copy_if_input`: rotating copies,
///   CUB's temporary storage allocated once, CUB's selection of copy 0 as the reference,
///   itself checked, and one output buffer for the rows).
///
///   copy_if_input_slot inputs;
///   auto& s = inputs.get<copy_if_cases::float_50>(n, stream);
///   tally::copy_if_into(policy, s.in.copy(k), s.in.copy(k) + n, s.out.data(), s.count_out.data(), s.pred);
///   s.reference (device, s.reference_count items), s.reference_count

#include <tally_support/cuda_check.cuh>
#include <tally_support/data.cuh>
#include <tally_support/device_buffer.cuh>
#include <tally_support/reference.cuh>
#include <tally_support/timing.cuh>

#include <cub/device/device_radix_sort.cuh>
#include <cuda/std/cstdint>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <limits>
#include <memory>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

namespace tally_support {

// --- the predicate --------------------------------------------------------------------

/// MurmurHash3's 32-bit finaliser: every input bit affects every output bit.
__host__ __device__ inline std::uint32_t mix32(std::uint32_t h) {
  h ^= h >> 16;
  h *= 0x85ebca6bu;
  h ^= h >> 13;
  h *= 0xc2b2ae35u;
  h ^= h >> 16;
  return h;
}

/// The threshold of select_by_hash that selects `fraction` (0..1) of 2^32 hash values.
inline std::uint32_t hash_threshold(double fraction) {
  const double t = std::floor(fraction * 4294967296.0);
  if (t <= 0) return 0;
  if (t >= 4294967295.0) return 0xffffffffu;
  return std::uint32_t(t);
}

/// Selects x when mix32 of its 32-bit pattern is below `threshold`: about threshold / 2^32
/// of the items whose values are many and distinct, wherever they are.
struct select_by_hash {
  std::uint32_t threshold;
  template <class T>
  __host__ __device__ bool operator()(const T& x) const {
    static_assert(sizeof(T) == 4, "select_by_hash: 4-byte items");
    std::uint32_t bits;
    std::memcpy(&bits, &x, sizeof bits);
    return mix32(bits) < threshold;
  }
};

/// The anchors' predicate: x >= bar.
struct select_at_least {
  int bar;
  __host__ __device__ bool operator()(int x) const { return x >= bar; }
};

// --- device-side compares ---------------------------------------------------------------

/// The unsigned integer type of T's size (the bit pattern compared and sorted).
template <class T>
using bits_of = std::conditional_t<sizeof(T) == 1, std::uint8_t,
                                   std::conditional_t<sizeof(T) == 2, std::uint16_t,
                                                      std::conditional_t<sizeof(T) == 4, std::uint32_t, std::uint64_t>>>;

namespace detail {

/// *first = the lowest i < n where a[i] != b[i] (b null: where a[i] != fill). *first
/// starts at n.
template <class W>
__global__ void first_difference_kernel(const W* a, const W* b, W fill, std::uint64_t n, unsigned long long* first) {
  const std::uint64_t stride = std::uint64_t(gridDim.x) * blockDim.x;
  for (std::uint64_t i = std::uint64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) {
    const W want = b ? b[i] : fill;
    if (a[i] != want) atomicMin(first, static_cast<unsigned long long>(i));
  }
}

template <class W>
std::uint64_t first_difference_bits(const W* a, const W* b, W fill, std::uint64_t n, cudaStream_t stream) {
  if (n == 0) return 0;
  device_buffer<unsigned long long> first(1);
  const unsigned long long start = n;
  TALLY_SUPPORT_CHECK(cudaMemcpyAsync(first.data(), &start, sizeof start, cudaMemcpyHostToDevice, stream));
  const std::uint64_t blocks = std::min<std::uint64_t>((n + 255) / 256, 65536);
  first_difference_kernel<W><<<unsigned(blocks), 256, 0, stream>>>(a, b, fill, n, first.data());
  TALLY_SUPPORT_CHECK_LAUNCH();
  unsigned long long result = 0;
  TALLY_SUPPORT_CHECK(cudaMemcpyAsync(&result, first.data(), sizeof result, cudaMemcpyDeviceToHost, stream));
  TALLY_SUPPORT_CHECK(cudaStreamSynchronize(stream));
  return result;
}

}  // namespace detail

/// The first i < n at which a[i] and b[i] (device memory) differ in their bits, or n when
/// they are the same (synchronises the stream).
template <class T>
std::uint64_t first_difference(const T* a, const T* b, std::uint64_t n, cudaStream_t stream) {
  using W = bits_of<T>;
  static_assert(sizeof(W) == sizeof(T), "first_difference: items of 1, 2, 4 or 8 bytes");
  return detail::first_difference_bits<W>(reinterpret_cast<const W*>(a), reinterpret_cast<const W*>(b), W(0), n,
                                          stream);
}

/// The first i < n at which a[i] (device memory) is not all 0xff bytes, or n (synchronises).
template <class T>
std::uint64_t first_not_filled(const T* a, std::uint64_t n, cudaStream_t stream) {
  using W = bits_of<T>;
  static_assert(sizeof(W) == sizeof(T), "first_not_filled: items of 1, 2, 4 or 8 bytes");
  return detail::first_difference_bits<W>(reinterpret_cast<const W*>(a), nullptr, W(~W(0)), n, stream);
}

/// Sorts the bit patterns of items of T (device memory), ascending, with CUB's radix sort:
/// two outputs hold the same multiset of items when their sorted patterns are equal.
/// Fewer than 2^32 items per sort; temporary storage grows as needed.
template <class T>
class bit_sorter {
 public:
  using W = bits_of<T>;
  static_assert(sizeof(W) == sizeof(T), "bit_sorter: items of 1, 2, 4 or 8 bytes");

  explicit bit_sorter(cudaStream_t stream) : stream_(stream) {}

  /// Sorts in[0 .. count) into out[0 .. count) on the stream (not synchronised).
  void sort(const T* in, std::uint64_t count, W* out) {
    if (count == 0) return;
    if (count > std::numeric_limits<std::uint32_t>::max())
      throw std::invalid_argument("bit_sorter: at most 2^32 - 1 items");
    const auto keys_in = reinterpret_cast<const W*>(in);
    std::size_t bytes = 0;
    TALLY_SUPPORT_CHECK(cub::DeviceRadixSort::SortKeys(nullptr, bytes, keys_in, out, std::uint32_t(count), 0,
                                                       int(sizeof(W) * 8), stream_));
    if (bytes > temp_.size()) temp_ = device_buffer<unsigned char>(bytes);
    TALLY_SUPPORT_CHECK(cub::DeviceRadixSort::SortKeys(temp_.data(), bytes, keys_in, out, std::uint32_t(count), 0,
                                                       int(sizeof(W) * 8), stream_));
  }

 private:
  cudaStream_t stream_;
  device_buffer<unsigned char> temp_;
};

/// Compares a row's output with the reference: `got_count` items at `got` against
/// `want_count` at `want` (device memory). `stable`: element by element; otherwise as
/// multisets (both sorted by `sorter` into `sorted_got`, the reference already sorted in
/// `sorted_want`). Also requires that the `tail` items after the output's end still hold
/// the 0xff bytes they were filled with. Returns "" when they match, else the first
/// difference. Synchronises the stream.
template <class T>
std::string compare_selection(const T* got, std::int64_t got_count, const T* want, std::int64_t want_count,
                              bool stable, bit_sorter<T>* sorter, bits_of<T>* sorted_got,
                              const bits_of<T>* sorted_want, std::uint64_t tail, cudaStream_t stream) {
  if (got_count != want_count)
    return "count " + std::to_string(got_count) + ", CUB selects " + std::to_string(want_count);
  const auto count = std::uint64_t(want_count);
  if (stable) {
    const std::uint64_t at = first_difference(got, want, count, stream);
    if (at != count) return "item " + std::to_string(at) + " differs from CUB's (of " + std::to_string(count) + ")";
  } else {
    sorter->sort(got, count, sorted_got);
    const std::uint64_t at = first_difference(sorted_got, sorted_want, count, stream);
    if (at != count)
      return "not the same items as CUB's: the sorted outputs differ at " + std::to_string(at) + " (of " +
             std::to_string(count) + ")";
  }
  const std::uint64_t at = first_not_filled(got + count, tail, stream);
  if (at != tail) return "wrote item " + std::to_string(count + at) + ", after the end of its output";
  return "";
}

// --- the cases of bench_copy_if -----------------------------------------------------------

namespace copy_if_cases {

/// A case of Item data whose values are many and distinct, selected by select_by_hash
/// at Percent percent.
template <class Item, int Percent>
struct hashed_case {
  using T = Item;
  using pred_type = select_by_hash;
  static constexpr double fraction = Percent / 100.0;
  static pred_type pred() { return {hash_threshold(fraction)}; }
};

/// int32 data hash(i) % 2^31 (the anchors' generator with a wide modulus: the anchors'
/// hash(i) % 4 has four values, too few to select 5% of the items by value).
template <int Percent>
struct int32_case : hashed_case<int, Percent> {
  static void fill(int* p, std::size_t n, cudaStream_t s) { fill_hash_mod(p, n, std::uint64_t(1) << 31, 0, s); }
};
/// float data uniform in [0, 1) (the anchors' float data).
template <int Percent>
struct float_case : hashed_case<float, Percent> {
  static void fill(float* p, std::size_t n, cudaStream_t s) { fill_uniform(p, n, 0, s); }
};

struct int32_5 : int32_case<5> {
  static constexpr const char* name = "int32_5pct";
  static constexpr const char* description = "int32 data hash(i) % 2^31, 5% selected (mix32(x) < 0.05 x 2^32)";
};
struct int32_50 : int32_case<50> {
  static constexpr const char* name = "int32_50pct";
  static constexpr const char* description = "int32 data hash(i) % 2^31, 50% selected (mix32(x) < 0.50 x 2^32)";
};
struct int32_95 : int32_case<95> {
  static constexpr const char* name = "int32_95pct";
  static constexpr const char* description = "int32 data hash(i) % 2^31, 95% selected (mix32(x) < 0.95 x 2^32)";
};
struct float_5 : float_case<5> {
  static constexpr const char* name = "float_5pct";
  static constexpr const char* description = "float data uniform in [0, 1), 5% selected (mix32(bits) < 0.05 x 2^32)";
};
struct float_50 : float_case<50> {
  static constexpr const char* name = "float_50pct";
  static constexpr const char* description = "float data uniform in [0, 1), 50% selected (mix32(bits) < 0.50 x 2^32)";
};
struct float_95 : float_case<95> {
  static constexpr const char* name = "float_95pct";
  static constexpr const char* description = "float data uniform in [0, 1), 95% selected (mix32(bits) < 0.95 x 2^32)";
};
/// The anchors' own case (shared/anchors/README.md, cub_select_if_i32 and
/// thrust_copy_if_i32): int32 data hash(i) % 4, selected when x >= 2 (half of them).
struct int32_anchors {
  using T = int;
  using pred_type = select_at_least;
  static constexpr double fraction = 0.5;
  static pred_type pred() { return {2}; }
  static void fill(int* p, std::size_t n, cudaStream_t s) { fill_hash_mod(p, n, 4, 0, s); }
  static constexpr const char* name = "int32_anchors";
  static constexpr const char* description =
      "int32 data hash(i) % 4, selected when x >= 2 (50%; the anchors' cub_select_if_i32 and thrust_copy_if_i32)";
};

/// Selects where a byte of a mask is nonzero (a stencil's predicate).
struct nonzero_byte {
  __host__ __device__ bool operator()(std::uint8_t m) const { return m != 0; }
};
/// A byte mask as the stencil, as Python's tally.select and torch.masked_select take one:
/// Word data hash(i) % 2^(bits - 1), selected where mask[i] (hash(i) % 2 under another
/// seed, 0 or 1) is nonzero: half of the items, wherever they are. The reference is CUB's
/// DeviceSelect::FlaggedIf.
template <class Word>
struct mask50_case {
  using T = Word;
  using pred_type = nonzero_byte;
  using stencil_type = std::uint8_t;
  static constexpr double fraction = 0.5;
  static pred_type pred() { return {}; }
  static void fill(T* p, std::size_t n, cudaStream_t s) {
    fill_hash_mod(p, n, std::uint64_t(1) << (8 * sizeof(T) - 1), 0, s);
  }
  static void fill_stencil(std::uint8_t* p, std::size_t n, cudaStream_t s) { fill_hash_mod(p, n, 2, 1, s); }
};
struct int32_mask50 : mask50_case<int> {
  static constexpr const char* name = "int32_mask50";
  static constexpr const char* description =
      "int32 data hash(i) % 2^31, selected where a byte mask (hash(i) % 2, 0 or 1) is nonzero (50%; the stencil "
      "form, Python's select; the CUB row is DeviceSelect::FlaggedIf)";
};
/// Python's select of 2-byte dtypes (float16, bfloat16, int16), moved as 2-byte words.
struct uint16_mask50 : mask50_case<std::uint16_t> {
  static constexpr const char* name = "uint16_mask50";
  static constexpr const char* description =
      "uint16 data hash(i) % 2^15, selected where a byte mask (hash(i) % 2, 0 or 1) is nonzero (50%; Python's "
      "select of 2-byte dtypes; the CUB row is DeviceSelect::FlaggedIf)";
};
/// Python's select of 1-byte dtypes (int8, uint8, bool), moved as bytes.
struct uint8_mask50 : mask50_case<std::uint8_t> {
  static constexpr const char* name = "uint8_mask50";
  static constexpr const char* description =
      "uint8 data hash(i) % 2^7, selected where a byte mask (hash(i) % 2, 0 or 1) is nonzero (50%; Python's "
      "select of 1-byte dtypes; the CUB row is DeviceSelect::FlaggedIf)";
};

/// The case names, in table order (the values --cases accepts).
inline std::vector<std::string> names() {
  return {int32_5::name, int32_50::name, int32_95::name, float_5::name,
          float_50::name, float_95::name, int32_anchors::name, int32_mask50::name,
          uint16_mask50::name, uint8_mask50::name};
}

/// Calls f(Case{}) for each case whose name is in `wanted`, in table order.
template <class Names, class F>
void for_each_wanted(const Names& wanted, F&& f) {
  auto is_wanted = [&](const char* name) { return std::find(wanted.begin(), wanted.end(), name) != wanted.end(); };
  if (is_wanted(int32_5::name)) f(int32_5{});
  if (is_wanted(int32_50::name)) f(int32_50{});
  if (is_wanted(int32_95::name)) f(int32_95{});
  if (is_wanted(float_5::name)) f(float_5{});
  if (is_wanted(float_50::name)) f(float_50{});
  if (is_wanted(float_95::name)) f(float_95{});
  if (is_wanted(int32_anchors::name)) f(int32_anchors{});
  if (is_wanted(int32_mask50::name)) f(int32_mask50{});
  if (is_wanted(uint16_mask50::name)) f(uint16_mask50{});
  if (is_wanted(uint8_mask50::name)) f(uint8_mask50{});
}

/// Whether a case selects by a stencil (Case::stencil_type), and the stencil's item type
/// (a byte where there is none: an empty stencil buffer).
template <class Case, class = void>
struct stencil_of {
  static constexpr bool present = false;
  using type = std::uint8_t;
};
template <class Case>
struct stencil_of<Case, std::void_t<typename Case::stencil_type>> {
  static constexpr bool present = true;
  using type = typename Case::stencil_type;
};

}  // namespace copy_if_cases

/// Items after the n of an output that are checked to be left alone.
inline constexpr std::size_t copy_if_guard_items = 64;

struct copy_if_input_base {
  virtual ~copy_if_input_base() = default;
};

/// One (case, n) of bench_copy_if: the input in as many copies as the timing method
/// rotates over, CUB's temporary storage (allocated once), the reference (CUB's
/// selection of copy 0, and its count), one output of n + copy_if_guard_items items and
/// one 64-bit count for the rows, and the reference's sorted bit patterns for the
/// unordered rows (made on first use).
///
/// The reference is checked when the input is made: CUB selects the same items from the
/// last copy as from the first, at least one item, about Case::fraction of them (from
/// 2^14 items on: within 0.02), and up to 2^20 items exactly what a loop on the host
/// selects with the same predicate. A failed check throws std::runtime_error.
template <class Case>
struct copy_if_input : copy_if_input_base {
  using T = typename Case::T;
  using pred_type = typename Case::pred_type;
  using W = bits_of<T>;
  static constexpr bool has_stencil = copy_if_cases::stencil_of<Case>::present;
  using S = typename copy_if_cases::stencil_of<Case>::type;

  cudaStream_t stream;
  pred_type pred = Case::pred();
  device_copies<T> in;
  device_copies<S> stencil;  ///< as many copies as `in` (empty for a case without a stencil)
  device_buffer<T> reference;  ///< CUB's selection of copy 0 (reference_count items)
  std::int64_t reference_count = -1;
  device_buffer<T> out;                         ///< every row's output: n + copy_if_guard_items items
  device_buffer<std::int64_t> count_out{1};     ///< every _into row's count (and CUB's)
  device_buffer<unsigned char> cub_temp;
  std::size_t cub_temp_bytes = 0;

  copy_if_input(std::size_t n, cudaStream_t s)
      : stream(s),
        in(n, rotating_copies(n * (sizeof(T) + (has_stencil ? sizeof(S) : 0)))),
        stencil(has_stencil ? n : 0, in.count()),
        reference(n),
        out(n + copy_if_guard_items),
        sorter_(s) {
    Case::fill(in.copy(0), n, stream);
    in.replicate_first(stream);
    if constexpr (has_stencil) {
      Case::fill_stencil(stencil.copy(0), n, stream);
      stencil.replicate_first(stream);
    }
    with_stencil(0, [&](auto... mask) {
      TALLY_SUPPORT_CHECK(cub_call_of(nullptr, cub_temp_bytes, in.copy(0), mask..., reference.data()));
    });
    cub_temp = device_buffer<unsigned char>(cub_temp_bytes == 0 ? 1 : cub_temp_bytes);

    reference_count = cub_into(0, reference.data());
    const std::string who = std::string(Case::name) + " n=" + std::to_string(n) + ": ";
    if (reference_count <= 0 || std::uint64_t(reference_count) > n)
      throw std::runtime_error(who + "CUB selects " + std::to_string(reference_count) + " items: input not filled?");
    const double fraction = double(reference_count) / double(n);
    if (n >= (std::size_t(1) << 14) && std::fabs(fraction - Case::fraction) > 0.02)
      throw std::runtime_error(who + "CUB selects " + std::to_string(fraction) + " of the items, the case expects " +
                               std::to_string(Case::fraction));
    // The last copy gives the same selection (every copy holds the same data).
    fill_out();
    const std::int64_t last_count = cub_into(in.count() - 1, out.data());
    if (last_count != reference_count ||
        first_difference(out.data(), reference.data(), std::uint64_t(reference_count), stream) !=
            std::uint64_t(reference_count))
      throw std::runtime_error(who + "CUB's selection from the last input copy differs from the first");
    if (n <= (std::size_t(1) << 20)) check_against_host(n, who);
  }

  /// f(stencil copy k) for a case with a stencil, else f(): the stencil argument of a
  /// copy_if call, where there is one.
  ///   s.with_stencil(k, [&](auto... mask) { tally::copy_if_into(p, first, last, mask..., out, count, pred); });
  template <class F>
  decltype(auto) with_stencil(int k, F&& f) {
    if constexpr (has_stencil) return f(static_cast<const S*>(stencil.copy(k)));
    else return f();
  }

  /// Enqueues CUB's selection of copy k into `to` and its count into count_out.
  void cub_call(int k, T* to) {
    with_stencil(k, [&](auto... mask) {
      TALLY_SUPPORT_CHECK(cub_call_of(cub_temp.data(), cub_temp_bytes, in.copy(k), mask..., to));
    });
  }

  /// Fills the output with 0xff bytes (on the stream): a row that writes too little or
  /// too much cannot pass by accident.
  void fill_out() { TALLY_SUPPORT_CHECK(cudaMemsetAsync(out.data(), 0xff, out.bytes(), stream)); }
  void fill_count() { TALLY_SUPPORT_CHECK(cudaMemsetAsync(count_out.data(), 0xff, sizeof(std::int64_t), stream)); }

  /// The count a row wrote to count_out (synchronises).
  std::int64_t read_count() {
    std::int64_t c = -1;
    TALLY_SUPPORT_CHECK(cudaMemcpyAsync(&c, count_out.data(), sizeof c, cudaMemcpyDeviceToHost, stream));
    TALLY_SUPPORT_CHECK(cudaStreamSynchronize(stream));
    return c;
  }

  /// Compares what a row left in `out` (got_count items) with the reference: in order
  /// (stable) or as a multiset; nothing written after them. "" when it matches.
  std::string compare_output(std::int64_t got_count, bool stable) {
    if (!stable) sort_reference();
    if (!stable && got_count == reference_count && sorted_got_.size() < std::size_t(reference_count))
      sorted_got_ = device_buffer<W>(std::size_t(reference_count));
    const std::uint64_t end = got_count >= 0 && std::uint64_t(got_count) <= in.size() ? std::uint64_t(got_count) : 0;
    const std::uint64_t tail = in.size() + copy_if_guard_items - end;
    return compare_selection<T>(out.data(), got_count, reference.data(), reference_count, stable, &sorter_,
                                sorted_got_.data(), sorted_reference_.data(), tail, stream);
  }

 private:
  /// cub::DeviceSelect::If, or FlaggedIf with a stencil, of in[0 .. n) into `to` and count_out.
  cudaError_t cub_call_of(void* temp, std::size_t& bytes, const T* first, T* to) {
    return cub_select_if_call(temp, bytes, first, to, count_out.data(), in.size(), pred, stream);
  }
  cudaError_t cub_call_of(void* temp, std::size_t& bytes, const T* first, const S* mask, T* to) {
    return cub_select_flagged_if_call(temp, bytes, first, mask, to, count_out.data(), in.size(), pred, stream);
  }

  /// CUB's selection of copy k into `to`; returns its count (synchronises).
  std::int64_t cub_into(int k, T* to) {
    fill_count();
    cub_call(k, to);
    return read_count();
  }

  void sort_reference() {
    if (sorted_ready_) return;
    sorted_reference_ = device_buffer<W>(std::size_t(reference_count));
    sorter_.sort(reference.data(), std::uint64_t(reference_count), sorted_reference_.data());
    TALLY_SUPPORT_CHECK(cudaStreamSynchronize(stream));
    sorted_ready_ = true;
  }

  /// CUB's selection against a loop on the host with the same predicate.
  void check_against_host(std::size_t n, const std::string& who) {
    std::vector<T> host(n), selected;
    std::vector<S> mask(has_stencil ? n : 0);
    TALLY_SUPPORT_CHECK(cudaMemcpyAsync(host.data(), in.copy(0), n * sizeof(T), cudaMemcpyDeviceToHost, stream));
    if constexpr (has_stencil)
      TALLY_SUPPORT_CHECK(cudaMemcpyAsync(mask.data(), stencil.copy(0), n * sizeof(S), cudaMemcpyDeviceToHost, stream));
    std::vector<T> cub(static_cast<std::size_t>(reference_count));
    TALLY_SUPPORT_CHECK(
        cudaMemcpyAsync(cub.data(), reference.data(), cub.size() * sizeof(T), cudaMemcpyDeviceToHost, stream));
    TALLY_SUPPORT_CHECK(cudaStreamSynchronize(stream));
    for (std::size_t i = 0; i < n; ++i) {
      bool keep;
      if constexpr (has_stencil) keep = pred(mask[i]);
      else keep = pred(host[i]);
      if (keep) selected.push_back(host[i]);
    }
    if (selected.size() != cub.size())
      throw std::runtime_error(who + "CUB selects " + std::to_string(cub.size()) + " items, the host " +
                               std::to_string(selected.size()));
    for (std::size_t i = 0; i < cub.size(); ++i)
      if (std::memcmp(&selected[i], &cub[i], sizeof(T)) != 0)
        throw std::runtime_error(who + "CUB's item " + std::to_string(i) + " differs from the host's");
  }

  bit_sorter<T> sorter_;
  device_buffer<W> sorted_reference_, sorted_got_;
  bool sorted_ready_ = false;
};

/// Holds the input of one (case, n) at a time: asking for another frees the previous
/// one first.
class copy_if_input_slot {
 public:
  template <class Case>
  copy_if_input<Case>& get(std::size_t n, cudaStream_t stream) {
    const std::string key = std::string(Case::name) + "/" + std::to_string(n);
    if (key != key_) {
      reset();  // free the previous input before allocating the next one
      input_ = std::make_unique<copy_if_input<Case>>(n, stream);
      key_ = key;
    }
    return static_cast<copy_if_input<Case>&>(*input_);
  }
  void reset() {
    input_.reset();
    key_.clear();
  }

 private:
  std::unique_ptr<copy_if_input_base> input_;
  std::string key_;
};

}  // namespace tally_support
