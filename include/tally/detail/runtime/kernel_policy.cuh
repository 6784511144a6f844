#pragma once
// One kernel per call site and architecture: how a kernel and its launch agree on the
// kernel's policy (backend, threads per block, items per thread).
//
// A kernel template takes a Selector, a type whose `for_arch(arch)` is a constexpr
// function of the compute capability. In device code the kernel reads its policy with
// TALLY_COMPILED_ARCH (the architecture being compiled), so each -arch compiles one shape
// and one backend, and nothing else of any table is instantiated. On the host,
// kernel_shape() reads the architecture the kernel was actually compiled for from the
// runtime (cudaFuncAttributes::ptxVersion: the virtual architecture, which is also
// __CUDA_ARCH__ / 10 in that code, e.g. 80 for compute_80 PTX JIT-compiled on an sm_90
// GPU) and evaluates the same function, so the launch always has the kernel's own shape.

#include <tally/detail/runtime/cuda_check.cuh>
#include <tally/detail/runtime/device_context.cuh>
#include <tally/tuning/select.cuh>

#include <atomic>
#include <cstdint>
#include <mutex>

#if defined(__CUDA_ARCH__)
#define TALLY_COMPILED_ARCH (__CUDA_ARCH__ / 10)
#else
#define TALLY_COMPILED_ARCH 0  // the host pass: no kernel body is compiled for it
#endif

TALLY_NAMESPACE_BEGIN
namespace detail {

/// The policy of one call site: the table's choice for (Kind, ValueBytes, ListSize), with
/// what the caller's policy forces put in. AtomicAllowed false (a deterministic()
/// floating-point sum) turns a table's `atomic` into warp_shuffle; a backend forced by
/// with() is taken as it is. A small-input class (tuning::is_small_class) that an
/// architecture's tables have no rule for compiles its class's own policy there and is
/// never launched (max_items < 0).
template <tuning::kernel_class Kind, int ValueBytes, int ListSize, backend_id Forced, int ForcedThreads,
          int ForcedItems, bool AtomicAllowed = true>
struct selector {
  static constexpr tuning::kernel_class kind = Kind;
  /// False where the result must not depend on the order of atomics (deterministic() on
  /// an inexact plan): the automatic backend then avoids the atomic one.
  static constexpr bool atomic_allowed = AtomicAllowed;
  TALLY_HOST_DEVICE static constexpr tuning::rule rule_for(int arch) {
    tuning::rule r = tuning::select_rule(arch, Kind, ValueBytes, ListSize);
    if (tuning::is_small_class(Kind) && !tuning::is_valid(r.policy)) {
      r = tuning::select_rule(arch, tuning::large_class_of(Kind), ValueBytes, ListSize);
      r.max_items_log2 = -1;
    }
    return r;
  }
  TALLY_HOST_DEVICE static constexpr tuning::launch_policy for_arch(int arch) {
    tuning::launch_policy p = rule_for(arch).policy;
    if (Forced != backend_id::automatic) p.backend = Forced;
    else if (!AtomicAllowed && p.backend == backend_id::atomic) p.backend = backend_id::warp_shuffle;
    if (ForcedThreads > 0) {
      p.threads = ForcedThreads;
      p.items_per_thread = ForcedItems;
    }
    return p;
  }
  /// The most items this kernel runs for: a small-input class's limit, -1 where it has
  /// none (never launched), and every size for the other classes.
  TALLY_HOST_DEVICE static constexpr std::int64_t max_items(int arch) {
    if (!tuning::is_small_class(Kind)) return INT64_MAX;
    const int log2 = rule_for(arch).max_items_log2;
    return log2 < 0 ? -1 : log2 >= 63 ? INT64_MAX : (std::int64_t(1) << log2);
  }
};

/// The selector of a call under `Policy` (a device_policy).
template <tuning::kernel_class Kind, int ValueBytes, int ListSize, class Policy, bool AtomicAllowed = true>
using selector_for = selector<Kind, ValueBytes, ListSize, Policy::backend_type::id, Policy::threads,
                              Policy::items_per_thread, AtomicAllowed>;

/// Whether a call site under `Policy` has a small-input kernel beside its class's: the
/// class has a small-input class and the caller did not fix the shape with tune<>().
template <tuning::kernel_class Kind, class Policy>
inline constexpr bool has_small_kernel_v = tuning::small_class_of(Kind) != Kind && Policy::threads == 0;

/// The policy a kernel compiled from Selector has in the code being compiled.
template <class Selector>
__host__ __device__ constexpr tuning::launch_policy compiled_policy() {
  return Selector::for_arch(TALLY_COMPILED_ARCH);
}

/// Whether the kernel compiled from Selector for the architecture being compiled is ever
/// launched: not a small-input kernel that the architecture's tables have no rule for
/// (max_items < 0). Such a kernel is compiled with an empty body, so that a call site pays
/// for the second kernel only where the table has one.
template <class Selector>
__host__ __device__ constexpr bool kernel_launches() {
  return Selector::max_items(TALLY_COMPILED_ARCH) >= 0;
}

/// What the host knows of a kernel on a device, read once per (kernel, device).
struct kernel_shape {
  int arch;                       ///< the kernel's compiled architecture (ptxVersion)
  tuning::launch_policy policy;   ///< Selector::for_arch(arch)
  int blocks_per_sm;              ///< resident blocks of policy.threads threads per SM
  std::int64_t max_items;         ///< Selector::max_items(arch): run for n <= max_items only
};

template <class Selector, auto Kernel>
kernel_shape shape_of(const char* algorithm, const device_context& ctx) {
  struct cached {
    std::atomic<bool> ready{false};
    kernel_shape shape{};
  };
  static cached cache[max_cached_devices];
  const bool cacheable = ctx.device >= 0 && ctx.device < max_cached_devices;
  if (cacheable && cache[ctx.device].ready.load(std::memory_order_acquire)) return cache[ctx.device].shape;
  cudaFuncAttributes attributes{};
  check(cudaFuncGetAttributes(&attributes, Kernel), algorithm, "cannot read the kernel's attributes");
  kernel_shape shape{};
  shape.arch = attributes.ptxVersion;
  shape.policy = Selector::for_arch(shape.arch);
  if (shape.policy.threads <= 0)
    throw_error(algorithm, "no tuning rule covers this call on this architecture (a bug in a tuning table)");
  check(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&shape.blocks_per_sm, Kernel, shape.policy.threads, 0),
        algorithm, "cannot compute the kernel's occupancy");
  // Every class as many blocks an SM as fit; top_k<1>/<2> ran one block an SM until
  // 2026-11-29 (docs/performance.md#top2-occupancy).
  if (shape.blocks_per_sm < 1) shape.blocks_per_sm = 1;
  shape.max_items = Selector::max_items(shape.arch);
  if (cacheable) {
    static std::mutex mutex;
    std::lock_guard<std::mutex> lock(mutex);
    if (!cache[ctx.device].ready.load(std::memory_order_relaxed)) {
      cache[ctx.device].shape = shape;
      cache[ctx.device].ready.store(true, std::memory_order_release);
    }
  }
  return shape;
}

}  // namespace detail
TALLY_NAMESPACE_END
