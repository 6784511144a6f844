#pragma once
/// @file
/// The anchors' measuring method (shared/anchors/README.md), so that every figure this
/// project reports compares with the anchors:
///
/// - each call is enqueued back to back on one stream, between two CUDA events;
/// - the inputs rotate over as many copies as fill 512 MiB (1 to 1024 copies), so that
///   a small input is not served from L2 on every call;
/// - the figure is the median over 7 loops of the mean time per call.
///
///   device_copies<float> in(n, rotating_copies(n * sizeof(float)));
///   timing_result t = time_calls([&](int k) { launch_something(in.copy(k), n, stream); },
///                                in.count(), stream);
///   printf("%.2f us\n", t.median_us);
///
/// Also here: GPU time per call with the calls queued behind a spin kernel
/// (time_queued_calls: the host's launch cost hidden), the `stream_read` ruler (the floor
/// row of the anchors' tables) and the device-to-device copy ceiling.

#include <tally_support/cuda_check.cuh>
#include <tally_support/device_buffer.cuh>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <utility>
#include <vector>

namespace tally_support {

/// Total bytes the rotating input copies fill, and the most copies (the anchors' values).
inline constexpr std::size_t rotation_budget_bytes = std::size_t(512) << 20;
inline constexpr int max_rotating_copies = 1024;

/// How many copies of an input of `bytes_per_copy` bytes fill the rotation budget:
/// budget / bytes, clamped to [1, 1024]. (A 1 GiB input gets one copy.)
inline int rotating_copies(std::size_t bytes_per_copy, std::size_t budget = rotation_budget_bytes) {
  if (bytes_per_copy == 0) return 1;
  const std::size_t c = budget / bytes_per_copy;
  return int(std::clamp<std::size_t>(c, 1, max_rotating_copies));
}

/// µs per call and bytes per call -> GB/s (10^9 bytes per second).
inline double gbps(double bytes, double us) { return us > 0 ? bytes / (us * 1e3) : 0.0; }

struct timing_options {
  int loops = 7;                 ///< timed loops; the result is the median of their means
  long min_calls_per_loop = 20;  ///< a loop has at least this many calls...
  double min_loop_ms = 2.0;      ///< ...and lasts at least about this long
  long max_calls_per_loop = 1 << 20;
};

struct timing_result {
  double median_us = 0;            ///< median over loops of the mean µs per call: THE figure
  double min_us = 0, max_us = 0;   ///< fastest and slowest loop mean (the spread)
  long calls_per_loop = 0;
  std::vector<double> loop_us;     ///< each loop's mean µs per call
};

namespace detail {

/// RAII pair of CUDA events.
struct event_pair {
  cudaEvent_t start = nullptr, stop = nullptr;
  event_pair() {
    TALLY_SUPPORT_CHECK(cudaEventCreate(&start));
    TALLY_SUPPORT_CHECK(cudaEventCreate(&stop));
  }
  ~event_pair() {
    cudaEventDestroy(start);
    cudaEventDestroy(stop);
  }
  event_pair(const event_pair&) = delete;
  event_pair& operator=(const event_pair&) = delete;
  /// ms from start to stop (both must have completed).
  double elapsed_ms() const {
    float ms = 0;
    TALLY_SUPPORT_CHECK(cudaEventElapsedTime(&ms, start, stop));
    return double(ms);
  }
};

/// Runs `calls` calls between the events and returns the mean µs per call.
/// `next` is the running copy index, so that loops keep rotating where the last one stopped.
template <class Call>
double timed_loop(Call& call, int copies, cudaStream_t stream, long calls, long& next, event_pair& ev) {
  TALLY_SUPPORT_CHECK(cudaEventRecord(ev.start, stream));
  for (long c = 0; c < calls; ++c, ++next) call(int(next % copies));
  TALLY_SUPPORT_CHECK(cudaEventRecord(ev.stop, stream));
  TALLY_SUPPORT_CHECK(cudaEventSynchronize(ev.stop));
  TALLY_SUPPORT_CHECK(cudaGetLastError());  // a failed launch inside the loop invalidates it
  return ev.elapsed_ms() * 1e3 / double(calls);
}

/// time_calls' warm-up and estimate: one pass over all copies (at least 10 calls; it also
/// pays lazy module loading and first-touch costs), then a short loop to estimate the time
/// per call; returns the calls per loop (>= min_calls_per_loop, >= min_loop_ms).
template <class Call>
long warm_up_calls(Call& call, int copies, cudaStream_t stream, const timing_options& options, long& next,
                   event_pair& ev) {
  if (copies < 1) throw std::invalid_argument("tally_support::time_calls: copies < 1");
  if (options.loops < 1) throw std::invalid_argument("tally_support::time_calls: loops < 1");
  for (long w = std::max(copies, 10); w > 0; --w, ++next) call(int(next % copies));
  TALLY_SUPPORT_CHECK(cudaStreamSynchronize(stream));
  TALLY_SUPPORT_CHECK(cudaGetLastError());
  const double estimate_us = timed_loop(call, copies, stream, options.min_calls_per_loop, next, ev);
  long calls = options.min_calls_per_loop;
  if (estimate_us > 0) calls = std::max(calls, long(std::ceil(options.min_loop_ms * 1e3 / estimate_us)));
  return std::min(calls, std::max(options.max_calls_per_loop, options.min_calls_per_loop));
}

/// The median, fastest and slowest of r.loop_us into r.
inline void summarize_loops(timing_result& r) {
  std::vector<double> sorted = r.loop_us;
  std::sort(sorted.begin(), sorted.end());
  const std::size_t m = sorted.size();
  r.median_us = m % 2 ? sorted[m / 2] : 0.5 * (sorted[m / 2 - 1] + sorted[m / 2]);
  r.min_us = sorted.front();
  r.max_us = sorted.back();
}

}  // namespace detail

/// Times `call(copy_index)`, which must enqueue one call on `stream` reading input copy
/// `copy_index` (0 <= copy_index < copies). Synchronous calls (that wait for the stream
/// or copy a result to the host) are timed the same way and so include that cost.
///
/// Warm-up: one pass over all copies (at least 10 calls; it also pays lazy module
/// loading and first-touch costs), then a short loop to estimate the time per call,
/// which sets the calls per loop (>= min_calls_per_loop, >= min_loop_ms).
template <class Call>
timing_result time_calls(Call&& call, int copies, cudaStream_t stream, const timing_options& options = {}) {
  detail::event_pair ev;
  long next = 0;
  timing_result r;
  r.calls_per_loop = detail::warm_up_calls(call, copies, stream, options, next, ev);
  for (int l = 0; l < options.loops; ++l)
    r.loop_us.push_back(detail::timed_loop(call, copies, stream, r.calls_per_loop, next, ev));
  detail::summarize_loops(r);
  return r;
}

/// Two implementations timed as time_calls times one, their loops interleaved (a, b, a,
/// b, ...): a drift of the GPU's clocks or of its memory over the measurement moves both
/// alike, so that their ratio holds where two separate time_calls drifted apart (top_k<2>
/// against reduce moved by 0.1-0.2 between runs of bench_top_k). Returns {a's, b's}.
template <class CallA, class CallB>
std::pair<timing_result, timing_result> time_calls_interleaved(CallA&& a, CallB&& b, int copies, cudaStream_t stream,
                                                               const timing_options& options = {}) {
  detail::event_pair ev;
  long next_a = 0, next_b = 0;
  timing_result ra, rb;
  ra.calls_per_loop = detail::warm_up_calls(a, copies, stream, options, next_a, ev);
  rb.calls_per_loop = detail::warm_up_calls(b, copies, stream, options, next_b, ev);
  for (int l = 0; l < options.loops; ++l) {
    ra.loop_us.push_back(detail::timed_loop(a, copies, stream, ra.calls_per_loop, next_a, ev));
    rb.loop_us.push_back(detail::timed_loop(b, copies, stream, rb.calls_per_loop, next_b, ev));
  }
  detail::summarize_loops(ra);
  detail::summarize_loops(rb);
  return {ra, rb};
}

// --- GPU time per call: calls queued behind a spin kernel --------------------------------
//
// A spin kernel (~3 ms) is enqueued first, then an event, the calls, an event. The calls
// queue up behind the spin, so the GPU runs them back to back and the host's launch
// cost (several µs per launch, which would hide every difference at small n) is not in
// the figure. A loop counts only if the spin was still running once every call was
// enqueued; otherwise it is redone with a spin twice as long (up to max_spin_doublings
// times). The figure is the median of the loops' means.
//
//   const spin_calibration spin = calibrate_spin(stream);
//   queued_timing t = time_queued_calls(call, copies, stream, spin);  // calls per loop from an estimate
//   // or, with a known time per call: time_queued_calls(call, copies, stream, queued_calls_for(us), spin)

namespace detail {

/// Busy-waits `cycles` SM clock cycles: the stream holds everything queued behind it.
/// (A template only so that the header can be included by several translation units.)
template <int = 0>
__global__ void spin_kernel(long long cycles) {
  const long long start = clock64();
  while (clock64() - start < cycles) {
  }
}

}  // namespace detail

struct spin_calibration {
  long long cycles = 0;  ///< spin length in SM clock cycles
  double ms = 0;         ///< its measured duration
};

/// A spin of about `target_ms` on `stream`: a first guess from the peak SM clock, then
/// corrected by the spin's measured time.
inline spin_calibration calibrate_spin(cudaStream_t stream, double target_ms = 3.0) {
  int device = 0, clock_khz = 0;
  TALLY_SUPPORT_CHECK(cudaGetDevice(&device));
  TALLY_SUPPORT_CHECK(cudaDeviceGetAttribute(&clock_khz, cudaDevAttrClockRate, device));
  spin_calibration spin;
  spin.cycles = (long long)(target_ms * (clock_khz > 0 ? clock_khz : 2000000));  // kHz x ms = cycles
  detail::event_pair ev;
  auto measure = [&] {
    TALLY_SUPPORT_CHECK(cudaEventRecord(ev.start, stream));
    detail::spin_kernel<><<<1, 1, 0, stream>>>(spin.cycles);
    TALLY_SUPPORT_CHECK_LAUNCH();
    TALLY_SUPPORT_CHECK(cudaEventRecord(ev.stop, stream));
    TALLY_SUPPORT_CHECK(cudaEventSynchronize(ev.stop));
    spin.ms = ev.elapsed_ms();
  };
  for (int pass = 0; pass < 2; ++pass) measure();  // the first pass also pays module loading
  if (spin.ms > 0 && std::fabs(spin.ms - target_ms) > 0.1 * target_ms) {
    spin.cycles = (long long)(double(spin.cycles) * target_ms / spin.ms);
    spin.cycles = std::clamp<long long>(spin.cycles, 1000000, 100000000);
    measure();
  }
  return spin;
}

struct queued_timing_options {
  int loops = 5;                ///< timed loops; the result is the median of their means
  int max_spin_doublings = 4;   ///< a loop not fully queued is redone with a longer spin, at most this often
  int warmup_calls = 5;
  long calls_max = 100;         ///< calls per loop (queued_calls_for)...
  long calls_min = 10;          ///< ...fewer (not below this) where calls_max would take
  double loop_max_ms = 10.0;    ///< longer than this
};

struct queued_timing {
  double median_us = 0, min_us = 0, max_us = 0;  ///< over the loops' means
  long calls_per_loop = 0;
  int redone_loops = 0;  ///< loops redone with a longer spin
  bool queued = true;    ///< false: some loop was not fully queued even after the last doubling
};

/// calls_max calls per loop; fewer where a loop would last longer than loop_max_ms
/// (there the host's launch cost is far below the GPU time anyway). `estimate_us`: a
/// time per call, e.g. time_calls' median.
inline long queued_calls_for(double estimate_us, const queued_timing_options& options = {}) {
  if (!(estimate_us > 0)) return options.calls_max;
  const long fit = long(options.loop_max_ms * 1e3 / estimate_us);
  return std::clamp(fit, options.calls_min, options.calls_max);
}

/// GPU µs per call of `call(copy_index)` (as for time_calls): a few warm-up calls, then
/// per loop the spin, an event, `calls` calls, an event; the median of the loops' means.
template <class Call>
queued_timing time_queued_calls(Call&& call, int copies, cudaStream_t stream, long calls,
                                const spin_calibration& spin, const queued_timing_options& options = {}) {
  if (copies < 1) throw std::invalid_argument("tally_support::time_queued_calls: copies < 1");
  if (options.loops < 1) throw std::invalid_argument("tally_support::time_queued_calls: loops < 1");
  detail::event_pair ev;
  long next = 0;
  for (int w = 0; w < options.warmup_calls; ++w, ++next) call(int(next % copies));
  TALLY_SUPPORT_CHECK(cudaStreamSynchronize(stream));
  TALLY_SUPPORT_CHECK(cudaGetLastError());

  queued_timing r;
  r.calls_per_loop = calls;
  std::vector<double> loop_us;
  for (int l = 0; l < options.loops; ++l) {
    bool queued = false;
    double us = 0;
    for (int attempt = 0; attempt <= options.max_spin_doublings && !queued; ++attempt) {
      detail::spin_kernel<><<<1, 1, 0, stream>>>(spin.cycles << attempt);
      TALLY_SUPPORT_CHECK_LAUNCH();
      TALLY_SUPPORT_CHECK(cudaEventRecord(ev.start, stream));
      for (long c = 0; c < calls; ++c, ++next) call(int(next % copies));
      TALLY_SUPPORT_CHECK(cudaEventRecord(ev.stop, stream));
      // Still spinning now that every call is enqueued: the calls ran back to back.
      const cudaError_t q = cudaEventQuery(ev.start);
      if (q != cudaErrorNotReady) TALLY_SUPPORT_CHECK(q);
      if (cudaPeekAtLastError() == cudaErrorNotReady) (void)cudaGetLastError();  // "not ready" is no error
      queued = q == cudaErrorNotReady;
      TALLY_SUPPORT_CHECK(cudaEventSynchronize(ev.stop));
      TALLY_SUPPORT_CHECK(cudaGetLastError());  // a failed launch inside the loop invalidates it
      us = ev.elapsed_ms() * 1e3 / double(calls);
      if (!queued && attempt < options.max_spin_doublings) ++r.redone_loops;
    }
    r.queued = r.queued && queued;
    loop_us.push_back(us);
  }
  std::sort(loop_us.begin(), loop_us.end());
  r.median_us = loop_us[loop_us.size() / 2];
  r.min_us = loop_us.front();
  r.max_us = loop_us.back();
  return r;
}

/// time_queued_calls with its calls per loop set by a one-loop time_calls estimate
/// (queued_calls_for): the GPU's time per call of a call one knows nothing about yet.
template <class Call>
queued_timing time_queued_calls(Call&& call, int copies, cudaStream_t stream, const spin_calibration& spin,
                                const queued_timing_options& options = {}) {
  timing_options one_loop;
  one_loop.loops = 1;
  const long calls = queued_calls_for(time_calls(call, copies, stream, one_loop).median_us, options);
  return time_queued_calls(call, copies, stream, calls, spin, options);
}

// --- the floor: stream_read ------------------------------------------------------------

namespace detail {

inline constexpr int stream_read_threads = 256;
inline constexpr std::size_t stream_read_bytes_per_block_step = stream_read_threads * 16;  // one uint4 per thread

/// Reads `bytes` from 16-byte aligned `in` with 16-byte loads (grid-stride), the tail
/// byte by byte, and adds what it read into *sink with one atomic per block: the
/// cheapest kernel that must touch every byte once. (A template only so that the
/// header can be included by several translation units of one program.)
template <int Threads = stream_read_threads>
__global__ void __launch_bounds__(Threads) stream_read_kernel(const uint4* in, std::size_t bytes, unsigned* sink) {
  const std::size_t n_vec = bytes / 16;
  unsigned acc = 0;
  const std::size_t stride = std::size_t(gridDim.x) * blockDim.x;
  for (std::size_t v = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x; v < n_vec; v += stride) {
    const uint4 x = in[v];
    acc += x.x ^ x.y ^ x.z ^ x.w;
  }
  if (blockIdx.x == 0 && threadIdx.x == 0) {
    const unsigned char* tail = reinterpret_cast<const unsigned char*>(in) + n_vec * 16;
    for (std::size_t b = 0; b < bytes % 16; ++b) acc += tail[b];
  }
  for (int offset = 16; offset > 0; offset /= 2) acc += __shfl_xor_sync(0xffffffffu, acc, offset);
  __shared__ unsigned warp_sums[Threads / 32];
  if (threadIdx.x % 32 == 0) warp_sums[threadIdx.x / 32] = acc;
  __syncthreads();
  if (threadIdx.x == 0) {
    unsigned block_sum = 0;
    for (int w = 0; w < Threads / 32; ++w) block_sum += warp_sums[w];
    atomicAdd(sink, block_sum);
  }
}

}  // namespace detail

/// The anchors' ruler: one launch that reads the input once. Grid = min(ceil(bytes /
/// 4096), 4 * SMs) blocks of 256 threads (the anchors' grid for 4-byte items:
/// min(ceil(n / 1024), 4 * SMs)). Its time is the floor of any one-pass read: launch
/// latency at small sizes, HBM bandwidth at large ones.
class stream_read {
 public:
  /// For the current device.
  stream_read() : sink_(1) {
    int device = 0;
    TALLY_SUPPORT_CHECK(cudaGetDevice(&device));
    TALLY_SUPPORT_CHECK(cudaDeviceGetAttribute(&sms_, cudaDevAttrMultiProcessorCount, device));
    sink_.memset(0);
  }

  unsigned grid_for(std::size_t bytes) const {
    const std::size_t per_block = detail::stream_read_bytes_per_block_step;
    const std::size_t want = std::max<std::size_t>(1, (bytes + per_block - 1) / per_block);
    return unsigned(std::min<std::size_t>(want, std::size_t(sms_) * 4));
  }

  /// Enqueues one read of `bytes` at `data` (16-byte aligned) on `stream`.
  void operator()(const void* data, std::size_t bytes, cudaStream_t stream) {
    if (reinterpret_cast<std::uintptr_t>(data) % 16 != 0)
      throw std::invalid_argument("tally_support::stream_read: input is not 16-byte aligned");
    detail::stream_read_kernel<><<<grid_for(bytes), detail::stream_read_threads, 0, stream>>>(
        static_cast<const uint4*>(data), bytes, sink_.data());
    TALLY_SUPPORT_CHECK_LAUNCH();
  }

 private:
  int sms_ = 0;
  device_buffer<unsigned> sink_;  // keeps the loads alive: the kernel's result goes here
};

// --- the ceiling: device-to-device copy ------------------------------------------------

struct copy_ceiling {
  std::size_t bytes = 0;  ///< bytes copied per call
  double us = 0;          ///< median µs per copy
  double gbps = 0;        ///< (read + written bytes) / time
};

/// Times cudaMemcpyAsync device-to-device of `bytes` (1 GiB by default) by the same
/// method; GB/s counts the bytes read plus the bytes written, as the anchors do.
inline copy_ceiling measure_copy_ceiling(cudaStream_t stream, std::size_t bytes = std::size_t(1) << 30,
                                         const timing_options& options = {}) {
  device_buffer<unsigned char> src(bytes), dst(bytes);
  src.memset(0x5a);
  const timing_result t = time_calls(
      [&](int) {
        TALLY_SUPPORT_CHECK(cudaMemcpyAsync(dst.data(), src.data(), bytes, cudaMemcpyDeviceToDevice, stream));
      },
      1, stream, options);
  return {bytes, t.median_us, gbps(2.0 * double(bytes), t.median_us)};
}

}  // namespace tally_support
