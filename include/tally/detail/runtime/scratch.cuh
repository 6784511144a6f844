#pragma once
// Scratch memory for single-launch algorithms, cached per (device, stream).
//
// A single-pass kernel needs a little global memory: a counter of finished blocks, a
// slot for the atomic backend's accumulator (or list) and one partial per block. Asking
// the stream-ordered allocator for it (and zeroing it) on every call would add two API
// calls and a memset node per call, which at small sizes costs as much as the
// reduction itself. Instead every (device, stream) pair owns one block, allocated with
// cudaMallocAsync on that stream and zeroed once; kernels leave the counter and the
// slot at zero when they finish, so the next call on that stream finds them ready.
//
// Why this is safe: work on one stream runs in order, so two kernels never use the
// same block at once. Streams are told apart by cudaStreamGetId, which is unique for
// the process's lifetime (a new stream at a recycled address gets a new id), and the
// per-thread default stream has an id of its own per thread. The lease holds a lock
// from lookup to launch, so a block can't be replaced (grown) between another thread's
// lookup and its launch; a replaced block is freed with cudaFreeAsync on its stream,
// after the work already queued there.
//
// copy_if keeps one status word per tile there instead of per-block partials; the words
// carry an epoch (a call counter of the block) so that they need no clearing between
// calls (scratch_use::tile_status below).
//
// The blocks are small (O(grid) for the reductions, O(n / 4096) words for copy_if) and
// live until the process ends, or until tally::release_scratch(stream) frees a stream's
// (a program that creates and destroys many streams calls it before cudaStreamDestroy).
//
// A policy with a memory resource (policy.memory(r), scratch_resource.cuh) bypasses the
// cache: each launch asks the resource for its scratch on the call's stream, clears it,
// and gives it back on the stream once the launch is queued (stream order makes that
// safe), as it does while a stream is being captured into a graph.

#include <tally/detail/runtime/cuda_check.cuh>
#include <tally/detail/runtime/device_context.cuh>
#include <tally/detail/runtime/scratch_resource.cuh>

#include <cstddef>
#include <cstring>
#include <exception>
#include <mutex>
#include <string>
#include <unordered_map>

TALLY_NAMESPACE_BEGIN
namespace detail {

/// Bytes before the per-block partials: the counter (offset 0) and the atomic slot (256).
inline constexpr std::size_t scratch_header_bytes = 512;
inline constexpr std::size_t scratch_slot_offset = 256;
/// The slot: the atomic backend's accumulator (16 bytes), or its top_k list (one 8-byte
/// word per entry, 32 at most), or copy_if's counters.
inline constexpr std::size_t scratch_slot_bytes = scratch_header_bytes - scratch_slot_offset;

/// Where a call's work and scratch memory go: its stream, and the caller's memory resource
/// (empty: tally's per-stream cache).
struct call_stream {
  cudaStream_t stream = nullptr;
  scratch_resource resource{};
};

/// The call_stream of a device policy.
template <class Policy>
call_stream call_stream_of(const Policy& policy) {
  return {policy.stream(), policy.resource()};
}

/// Alignment of scratch memory asked of a caller's resource (cudaMallocAsync gives 256 too).
inline constexpr std::size_t scratch_alignment = 256;

/// Device memory of `bytes` bytes on `where.stream`: from the caller's resource, or from
/// cudaMallocAsync. Throws tally::cuda_error naming `algorithm` when it can't.
inline void* allocate_on(const char* algorithm, const call_stream& where, std::size_t bytes) {
  void* memory = nullptr;
  if (where.resource) {
    try {
      memory = where.resource.allocate(where.resource.object, bytes, scratch_alignment, where.stream);
    } catch (const std::exception& e) {
      throw cuda_error(std::string(algorithm) + ": the memory resource could not allocate " + std::to_string(bytes) +
                           " bytes of scratch memory (" + e.what() + ")",
                       cudaErrorMemoryAllocation);
    }
    if (!memory)
      throw_cuda_error(algorithm, "the memory resource returned no memory for the scratch",
                       cudaErrorMemoryAllocation);
    return memory;
  }
  const cudaError_t allocated = cudaMallocAsync(&memory, bytes, where.stream);
  if (allocated != cudaSuccess) {  // say how much: a request beyond the device's memory reads as such
    const std::string what = "cannot allocate " + std::to_string(bytes) + " bytes of scratch memory";
    check(allocated, algorithm, what.c_str());
  }
  return memory;
}

/// Gives back memory of allocate_on, in stream order (after the work queued on the stream).
inline void free_on(const call_stream& where, void* memory, std::size_t bytes) noexcept {
  if (!memory) return;
  if (where.resource) {
    try {
      where.resource.deallocate(where.resource.object, memory, bytes, scratch_alignment, where.stream);
    } catch (...) {  // a destructor's path: nothing to report it to
    }
  } else {
    (void)cudaFreeAsync(memory, where.stream);
  }
}

struct scratch_view {
  unsigned int* counter;  // finished-block counter; zero between calls
  void* slot;             // scratch_slot_bytes, zero between calls
  void* partials;         // one partial per block (left as written)
};

class scratch_registry {
 public:
  struct entry {
    void* memory = nullptr;
    std::size_t capacity = 0;
    // The generation of copy_if's tile status words, or of the pieces' slot counters, in
    // the partials (grid/look_back.cuh, detail/pieces/kernel.cuh): 0 when they can't be
    // trusted (never cleared, or other partials written since).
    unsigned int status_epoch = 0;
    // Which kind of epoch words the partials hold (scratch_use) and their layout (the
    // pieces' slot stride): words of another kind or layout are cleared before use.
    int status_kind = 0;
    std::size_t status_layout = 0;
  };
  std::mutex mutex;
  std::unordered_map<unsigned long long, entry> entries[max_cached_devices];
};

inline scratch_registry& the_scratch_registry() {
  // Never destroyed: no CUDA call may run during static destruction.
  static scratch_registry* registry = new scratch_registry;
  return *registry;
}

/// What a launch keeps in the partials: per-block values (left as written), or copy_if's
/// tile status words, which carry a generation number (an epoch) so that a call need not
/// clear the words of the call before: words of an older epoch read as "nothing yet".
/// piece_slots: the pieces' slots (detail/pieces/kernel.cuh), each a counter word that
/// the kernel leaves at zero and a partial, at a fixed stride (scratch_lease's `layout`):
/// cleared like tile status words (when something else wrote there), their epoch unused.
/// piece_atomic_slots: the same slots where the chunks fold into one atomic word per piece
/// (pieces_slot_mode), which must read zero, where piece_slots leave partials: a use of
/// its own, so that the slots are cleared between the two.
/// long_segments: the segments' list of long ones (detail/pieces/long_segments.cuh), zero
/// between calls, cleared the same way. top_k_lists: top_k over pieces split across
/// blocks (detail/top_k/pieces_kernel.cuh): a counter per piece that the kernel leaves at
/// zero, then the blocks' lists, cleared the same way.
enum class scratch_use { partials, tile_status, piece_slots, piece_atomic_slots, long_segments, top_k_lists };

/// The largest epoch; the call after it clears the words and starts again at 1.
inline constexpr unsigned int max_status_epoch = 0xffff;

/// The largest block the registry asks for (half the address space). Capacities grow by
/// doubling from 4096, and one doubling past this would wrap to zero and never end (a
/// hang). No device has that much memory, so a larger request (an absurd n, or a size
/// whose computation overflowed) is reported as out of memory before any CUDA call.
inline constexpr std::size_t max_scratch_bytes = std::size_t(1) << (8 * sizeof(std::size_t) - 1);

/// Scratch for one launch on `stream`, held (with the registry's lock) until the launch is queued.
///
/// While the stream is being captured into a CUDA graph the cache is not used: the
/// graph gets scratch of its own (allocation, memset and free nodes on the capturing
/// stream), so that replays of the graph, wherever they run, share nothing with
/// direct calls. Nor is it with a caller's memory resource: each launch gets its own.
class scratch_lease {
 public:
  ///
  /// scratch_use::tile_status: status_epoch() is this launch's epoch (1..max_status_epoch);
  /// the words are cleared on the stream first when their epoch can't be trusted (new
  /// memory is born cleared, other partials were written since, or the epoch wraps).
  scratch_lease(const char* algorithm, const device_context& ctx, const call_stream& where, std::size_t partial_bytes,
                scratch_use use = scratch_use::partials, std::size_t layout = 0)
      : where_(where) {
    const cudaStream_t stream = where.stream;
    if (partial_bytes > max_scratch_bytes - scratch_header_bytes)
      throw_cuda_error(algorithm, "cannot allocate scratch memory: the request is larger than any device's memory",
                       cudaErrorMemoryAllocation);
    const std::size_t needed = scratch_header_bytes + partial_bytes;
    // Asked first: cudaStreamGetId is refused on a capturing stream, and a refused call
    // would invalidate the user's capture.
    cudaStreamCaptureStatus capture = cudaStreamCaptureStatusNone;
    check(cudaStreamIsCapturing(stream, &capture), algorithm, "invalid stream");
    if (capture == cudaStreamCaptureStatusActive || where.resource) {
      owned_ = allocate_zeroed(algorithm, where, needed);
      owned_bytes_ = needed;
      set_view(owned_);
      status_epoch_ = 1;  // every replay (every call) allocates and clears its own
      return;
    }
    unsigned long long stream_id = 0;
    check(cudaStreamGetId(stream, &stream_id), algorithm, "invalid stream");
    lock_ = std::unique_lock<std::mutex>(the_scratch_registry().mutex);
    if (ctx.device < 0 || ctx.device >= max_cached_devices)
      throw_error(algorithm, "device ordinal beyond the scratch cache's limit");
    auto& entry = the_scratch_registry().entries[ctx.device][stream_id];
    bool cleared = false;
    if (entry.capacity < needed) {
      std::size_t capacity = entry.capacity ? entry.capacity : 4096;
      while (capacity < needed) capacity *= 2;
      void* memory = allocate_zeroed(algorithm, where, capacity);
      if (entry.memory) (void)cudaFreeAsync(entry.memory, stream);  // after the work queued before it
      entry.memory = memory;
      entry.capacity = capacity;
      cleared = true;
    }
    set_view(entry.memory);
    if (use == scratch_use::partials) {
      // Partials may look like status words of any epoch. A launch that writes none (the
      // atomic backend's reductions, unordered copy_if) leaves the words as they are.
      if (partial_bytes != 0) entry.status_epoch = 0;
    } else {
      const bool same_kind = entry.status_kind == int(use) && entry.status_layout == layout;
      if (cleared) {
        entry.status_epoch = 0;  // all zero: epoch 1 finds only "nothing yet"
      } else if (entry.status_epoch == 0 || entry.status_epoch >= max_status_epoch || !same_kind) {
        // Words of unknown epoch (other partials, another kind of epoch words or another
        // layout of them, or an epoch about to wrap): clear all the partials, in stream
        // order, not only this launch's words, so that a later launch with more tiles
        // finds no stale word either.
        check(cudaMemsetAsync(view_.partials, 0, entry.capacity - scratch_header_bytes, stream), algorithm,
              "cannot clear the tile states");
        entry.status_epoch = 0;
      }
      entry.status_kind = int(use);
      entry.status_layout = layout;
      status_epoch_ = ++entry.status_epoch;
    }
  }
  ~scratch_lease() { free_on(where_, owned_, owned_bytes_); }  // after the launch just queued
  scratch_lease(const scratch_lease&) = delete;
  scratch_lease& operator=(const scratch_lease&) = delete;

  const scratch_view& view() const { return view_; }
  /// The epoch of this launch's tile status words (scratch_use::tile_status only).
  unsigned int status_epoch() const { return status_epoch_; }

 private:
  static void* allocate_zeroed(const char* algorithm, const call_stream& where, std::size_t bytes) {
    void* memory = allocate_on(algorithm, where, bytes);
    const cudaError_t status = cudaMemsetAsync(memory, 0, bytes, where.stream);
    if (status != cudaSuccess) {
      free_on(where, memory, bytes);
      check(status, algorithm, "cannot clear scratch memory");
    }
    return memory;
  }
  void set_view(void* memory) {
    auto* base = static_cast<unsigned char*>(memory);
    view_ = scratch_view{reinterpret_cast<unsigned int*>(base), base + scratch_slot_offset, base + scratch_header_bytes};
  }

  call_stream where_;
  void* owned_ = nullptr;
  std::size_t owned_bytes_ = 0;
  std::unique_lock<std::mutex> lock_;
  scratch_view view_{};
  unsigned int status_epoch_ = 0;
};

/// Frees the block cached for `stream` on the stream's device, in stream order (after the
/// work queued there); the next call on the stream allocates a new one. See
/// tally::release_scratch.
inline void release_stream_scratch(cudaStream_t stream) {
  // The stream's device, not the current one: a stream made on device 1 and released
  // while device 0 is current must still find its block (the default streams answer
  // with the current device).
  int device = 0;
  check(cudaStreamGetDevice(stream, &device), "tally::release_scratch", "invalid stream");
  unsigned long long stream_id = 0;
  check(cudaStreamGetId(stream, &stream_id), "tally::release_scratch", "invalid stream");
  if (device < 0 || device >= max_cached_devices) return;
  std::lock_guard<std::mutex> lock(the_scratch_registry().mutex);
  auto& entries = the_scratch_registry().entries[device];
  const auto it = entries.find(stream_id);
  if (it == entries.end()) return;
  if (it->second.memory)
    check(cudaFreeAsync(it->second.memory, stream), "tally::release_scratch", "cannot free scratch memory");
  entries.erase(it);
}

/// Frees every cached block on every device, with cudaFree (which waits for the work on
/// the device first): the streams they were made on may be gone. See tally::release_scratch.
inline void release_all_scratch() {
  std::lock_guard<std::mutex> lock(the_scratch_registry().mutex);
  int current = 0;
  check(cudaGetDevice(&current), "tally::release_scratch", "cannot get the current device");
  for (int device = 0; device < max_cached_devices; ++device) {
    auto& entries = the_scratch_registry().entries[device];
    if (entries.empty()) continue;
    check(cudaSetDevice(device), "tally::release_scratch", "cannot select the device");
    for (auto& [id, entry] : entries)
      if (entry.memory) check(cudaFree(entry.memory), "tally::release_scratch", "cannot free scratch memory");
    entries.clear();
  }
  check(cudaSetDevice(current), "tally::release_scratch", "cannot select the device");
}

/// A per-thread pinned, device-mapped host buffer for the synchronous entry points: the
/// kernel writes the result straight into host memory, so returning it costs no copy.
/// Per thread, because the caller waits for its own stream and reads it right after.
inline void* pinned_result_buffer(const char* algorithm, std::size_t bytes) {
  struct buffer {
    void* memory = nullptr;
    std::size_t capacity = 0;
    ~buffer() {
      if (memory) (void)cudaFreeHost(memory);
    }
  };
  thread_local buffer local;
  if (local.capacity < bytes) {
    std::size_t capacity = 256;
    while (capacity < bytes) capacity *= 2;
    void* memory = nullptr;
    check(cudaHostAlloc(&memory, capacity, cudaHostAllocMapped | cudaHostAllocPortable), algorithm,
          "cannot allocate pinned host memory for the result");
    if (local.memory) (void)cudaFreeHost(local.memory);
    local.memory = memory;
    local.capacity = capacity;
  }
  return local.memory;
}

}  // namespace detail
TALLY_NAMESPACE_END
