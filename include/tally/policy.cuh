#pragma once
/// @file
/// Execution policies: where and how an algorithm runs.
///
/// @code
/// tally::par                                   // CUDA, default stream, automatic backend
/// tally::par.on(stream)                        // the same on a cudaStream_t or cuda::stream_ref
/// tally::par.memory(resource)                  // scratch from a stream-ordered memory resource
/// tally::par.with(tally::backend::atomic)      // force a backend: atomic, shared_memory,
///                                              //   warp_shuffle, automatic
/// tally::par.tune<256, 16>()                   // threads per block, items per thread
/// tally::par.deterministic()                   // bitwise identical results run to run
/// tally::par.unordered()                       // copy_if may reorder its output
/// tally::host                                  // sequential CPU reference, same semantics
/// @endcode
/// Modifiers compose in any order. A policy is a small value: the backend, the tuning
/// and the flags are part of its type, the stream and the memory resource are data.

#include <tally/detail/config.cuh>
#include <tally/detail/runtime/scratch_resource.cuh>

#include <cuda/stream_ref>

#include <type_traits>

TALLY_NAMESPACE_BEGIN

/// The backends, as a value for reporting.
enum class backend_id { automatic, atomic, shared_memory, warp_shuffle, host };

/// A short name for a backend ("atomic", "shared_memory", ...).
inline constexpr const char* backend_name(backend_id id) {
  switch (id) {
    case backend_id::automatic: return "automatic";
    case backend_id::atomic: return "atomic";
    case backend_id::shared_memory: return "shared_memory";
    case backend_id::warp_shuffle: return "warp_shuffle";
    case backend_id::host: return "host";
  }
  return "?";
}

/// Backend tags for `policy.with(...)`.
namespace backend {
/// Chosen per call from the tuning tables (`include/tally/tuning/`).
struct automatic_t { static constexpr backend_id id = backend_id::automatic; };
/// Per-thread accumulation, then device atomics into the result. One launch.
struct atomic_t { static constexpr backend_id id = backend_id::atomic; };
/// A tree in shared memory per block; the last block to finish combines the blocks.
struct shared_memory_t { static constexpr backend_id id = backend_id::shared_memory; };
/// Warp shuffles inside warps, shared memory between warps; last-block combine.
struct warp_shuffle_t { static constexpr backend_id id = backend_id::warp_shuffle; };

inline constexpr automatic_t automatic{};
inline constexpr atomic_t atomic{};
inline constexpr shared_memory_t shared_memory{};
inline constexpr warp_shuffle_t warp_shuffle{};
}  // namespace backend

namespace detail {
template <class B>
inline constexpr bool is_backend_tag_v =
    std::is_same_v<B, backend::automatic_t> || std::is_same_v<B, backend::atomic_t> ||
    std::is_same_v<B, backend::shared_memory_t> || std::is_same_v<B, backend::warp_shuffle_t>;

/// No tuning given: the tuning table decides.
struct default_tuning {
  static constexpr int threads = 0;
  static constexpr int items_per_thread = 0;
};

template <int Threads, int ItemsPerThread>
struct fixed_tuning {
  static constexpr int threads = Threads;
  static constexpr int items_per_thread = ItemsPerThread;
};
}  // namespace detail

/// A CUDA execution policy. Obtain one from `tally::par` and its modifiers.
template <class Backend = backend::automatic_t, class Tuning = detail::default_tuning, bool Deterministic = false,
          bool Unordered = false>
class device_policy {
 public:
  using backend_type = Backend;
  using tuning_type = Tuning;
  /// Threads per block and items per thread set by `tune<>()`, or 0 when not set.
  static constexpr int threads = Tuning::threads;
  static constexpr int items_per_thread = Tuning::items_per_thread;
  static constexpr bool is_deterministic = Deterministic;
  static constexpr bool is_unordered = Unordered;

  constexpr device_policy() = default;
  constexpr explicit device_policy(cudaStream_t stream, detail::scratch_resource resource = {})
      : stream_(stream), resource_(resource) {}

  /// The same policy on `stream`; work is ordered on that stream only.
  constexpr device_policy on(cudaStream_t stream) const { return device_policy(stream, resource_); }
  /// The same policy on `stream` (CCCL's non-owning stream reference).
  device_policy on(cuda::stream_ref stream) const { return device_policy(stream.get(), resource_); }

  /// The same policy taking its scratch memory (counters, per-block partials, copy_if's tile
  /// states) from `resource`, a stream-ordered memory resource (CCCL's `cuda::mr` interface:
  /// RMM's resources, a framework's caching allocator): asked on the call's stream and given
  /// back on it after the call's work, once per call, instead of tally's per-stream cache.
  /// The policy holds a reference: `resource` must outlive the calls made with it.
  template <class Resource>
  device_policy memory(Resource& resource) const {
    return device_policy(stream_, detail::make_scratch_resource(resource));
  }

  /// The same policy forced onto one backend (`tally::backend::atomic`, ...).
  template <class B>
  constexpr device_policy<B, Tuning, Deterministic, Unordered> with(B) const {
    static_assert(detail::is_backend_tag_v<B>, "tally: with() takes tally::backend::atomic, shared_memory, warp_shuffle or automatic");
    return device_policy<B, Tuning, Deterministic, Unordered>(stream_, resource_);
  }

  /// The same policy with a fixed launch shape: Threads per block, ItemsPerThread each.
  template <int Threads, int ItemsPerThread>
  constexpr device_policy<Backend, detail::fixed_tuning<Threads, ItemsPerThread>, Deterministic, Unordered> tune() const {
    static_assert(Threads > 0 && Threads % 32 == 0, "tally: tune<Threads, Items>(): Threads must be a positive multiple of 32 (a whole number of warps)");
    static_assert(Threads <= 1024, "tally: tune<Threads, Items>(): Threads must be at most 1024 (the CUDA block limit)");
    static_assert(ItemsPerThread >= 1, "tally: tune<Threads, Items>(): Items per thread must be at least 1");
    static_assert(ItemsPerThread <= 64, "tally: tune<Threads, Items>(): Items per thread must be at most 64 (they are held in registers)");
    return device_policy<Backend, detail::fixed_tuning<Threads, ItemsPerThread>, Deterministic, Unordered>(stream_,
                                                                                                       resource_);
  }

  /// The same policy, restricted to bitwise reproducible results.
  constexpr device_policy<Backend, Tuning, true, Unordered> deterministic() const {
    return device_policy<Backend, Tuning, true, Unordered>(stream_, resource_);
  }

  /// The same policy, allowed to reorder outputs (copy_if).
  constexpr device_policy<Backend, Tuning, Deterministic, true> unordered() const {
    return device_policy<Backend, Tuning, Deterministic, true>(stream_, resource_);
  }

  /// The stream the work is ordered on.
  constexpr cudaStream_t stream() const { return stream_; }
  /// The caller's memory resource for scratch, if memory() gave one (else empty).
  constexpr const detail::scratch_resource& resource() const { return resource_; }

 private:
  cudaStream_t stream_ = nullptr;
  detail::scratch_resource resource_{};
};

/// The sequential CPU reference: the same semantics, on host iterators.
struct host_policy {};

/// The default CUDA policy: default stream, automatic backend.
inline constexpr device_policy<> par{};
/// The sequential host policy.
inline constexpr host_policy host{};

template <class P>
struct is_device_policy : std::false_type {};
template <class B, class T, bool D, bool U>
struct is_device_policy<device_policy<B, T, D, U>> : std::true_type {};

template <class P>
inline constexpr bool is_device_policy_v = is_device_policy<std::remove_cv_t<std::remove_reference_t<P>>>::value;
template <class P>
inline constexpr bool is_host_policy_v = std::is_same_v<std::remove_cv_t<std::remove_reference_t<P>>, host_policy>;
/// True for every tally policy (device and host).
template <class P>
inline constexpr bool is_execution_policy_v = is_device_policy_v<P> || is_host_policy_v<P>;

TALLY_NAMESPACE_END
