// Many host threads and streams at once: 8 std::threads, each with 4 non-blocking
// streams of its own, call every algorithm over and over for a bounded time
// (TALLY_CONCURRENCY_SECONDS, default 6): reduce_into and reduce (int32 items summed as
// int64), max_element_into, min_element_into, top_k_into<8>, copy_if_into stable and
// unordered, on the four backends (each stream changes backend every round, and
// neighbouring streams run different backends at the same time). Each of the 32
// (thread, stream) slots has data of its own (its own seed, size, init and predicate),
// so that a result that leaked from another stream's call, or scratch (the per-stream
// block's counter, partials or tile states; the synchronous forms' per-thread pinned
// result) that two calls shared, shows as a wrong answer. Every result is compared with
// a host reference computed once per slot; the outputs are poisoned before every round,
// so that a call that wrote nothing fails too.
//
// The threads run two cycles (create the streams, every backend once on each, rounds,
// release the scratch, destroy the streams): a warm-up cycle of min_rounds, then the
// timed one. Memory is measured between the phases, after cudaDeviceSynchronize and
// trimming the device's default stream-ordered pool to 0: the device's memory in use
// (cudaMemGetInfo) and what the pool holds and hands out. tally's device memory comes
// from that pool only, so its figures are tally's alone; the device's also include what
// the driver keeps for itself (the first run of 32 streams at once may grow it, hence
// the warm-up cycle). Checks:
//   the pool hands out and holds nothing at the end of each cycle (every stream's
//     scratch released, nothing else kept);
//   the device's memory in use grows by at most 2 MiB during the timed rounds (calls
//     leak nothing), and returns within 2 MiB of its level before the timed cycle once
//     the streams are gone (nothing stays behind for streams that no longer exist).
// Kernels are loaded (lazy module loading takes device memory) by a warm-up on the main
// thread that runs every call on every slot's data before the first figure.
//
// doctest's macros are not thread safe: the workers collect failures as strings under a
// mutex, and the main thread reports them.
#include "top_k_common.cuh"

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdlib>
#include <memory>
#include <mutex>
#include <numeric>
#include <thread>

namespace concurrency_test {

constexpr int thread_count = 8;
constexpr int streams_per_thread = 4;
constexpr int slot_count = thread_count * streams_per_thread;
constexpr int K = 8;
constexpr std::size_t memory_tolerance = std::size_t(2) << 20;
constexpr int min_rounds = 4;                // every backend at least once on every stream
constexpr int max_failures_per_thread = 20;  // a broken backend fails every round: stop early

/// TALLY_CONCURRENCY_SECONDS, or 6.
double seconds_to_run() {
  const char* s = std::getenv("TALLY_CONCURRENCY_SECONDS");
  if (!s || !*s) return 6.0;
  char* end = nullptr;
  const double v = std::strtod(s, &end);
  return (end && *end == '\0' && v >= 0 && v < 3600) ? v : 6.0;
}

/// x mod m == r (for negative x too).
struct select_mod {
  int m, r;
  __host__ __device__ bool operator()(int x) const { return ((x % m) + m) % m == r; }
};

/// Where the scalar results of one round go (an int64 array on the device).
enum result_slot : int {
  r_sum,
  r_max,
  r_min,
  r_stable_count,
  r_unordered_count,
  r_top_indices,
  r_total = r_top_indices + K
};

/// One (thread, stream) pair: its input, the expected results, its device outputs and
/// host copies of them. Only the thread that owns it touches it after the warm-up.
struct slot {
  int id = 0;
  long long n = 0;
  std::int64_t init = 0;
  select_mod pred{2, 0};
  // The references.
  std::int64_t sum = 0;
  long long max_index = 0, min_index = 0;
  std::vector<long long> top_indices;
  std::vector<int> top_values;
  std::vector<int> selected, selected_sorted;
  // Device memory (cudaMalloc, made on the main thread).
  tt::device_buffer<int> in, stable_out, unordered_out, top_values_out;
  tt::device_buffer<std::int64_t> results;
  // Host copies of the outputs.
  std::vector<std::int64_t> h_results;
  std::vector<int> h_top_values, h_stable, h_unordered;
};

std::unique_ptr<slot> make_slot(int id) {
  auto s = std::make_unique<slot>();
  s->id = id;
  // Sizes from 5 (fewer than K) up to about 470000 (many blocks and tiles).
  s->n = id == 0 ? 5 : 1000 + static_cast<long long>((id * 7919) % 32) * 15013;
  s->init = static_cast<std::int64_t>(id) * 1000003;
  s->pred = select_mod{2 + id % 5, id % (2 + id % 5)};
  std::vector<int> host(static_cast<std::size_t>(s->n));
  for (long long i = 0; i < s->n; ++i)
    host[std::size_t(i)] =
        static_cast<int>(tt::hash(std::uint64_t(i), 0xc0ffee00ULL + std::uint64_t(id)) % 100001) - 50000;

  s->sum = std::accumulate(host.begin(), host.end(), s->init, [](std::int64_t a, int x) { return a + x; });
  s->max_index = std::max_element(host.begin(), host.end()) - host.begin();  // the first largest
  s->min_index = std::min_element(host.begin(), host.end()) - host.begin();  // the first smallest
  s->top_indices = tt::host_top_indices(host, tt::lib_order_less{}, K);
  for (long long i : s->top_indices) s->top_values.push_back(host[std::size_t(i)]);
  std::copy_if(host.begin(), host.end(), std::back_inserter(s->selected), s->pred);
  s->selected_sorted = s->selected;
  std::sort(s->selected_sorted.begin(), s->selected_sorted.end());

  s->in = tt::device_buffer<int>(host);
  s->stable_out = tt::device_buffer<int>(std::size_t(s->n));
  s->unordered_out = tt::device_buffer<int>(std::size_t(s->n));
  s->top_values_out = tt::device_buffer<int>(std::size_t(K));
  s->results = tt::device_buffer<std::int64_t>(std::size_t(r_total));
  s->h_results.resize(r_total);
  s->h_top_values.resize(K);
  s->h_stable.resize(std::size_t(s->n));
  s->h_unordered.resize(std::size_t(s->n));
  return s;
}

/// Failures from any thread, reported later on the main thread.
class failure_log {
 public:
  void add(std::string message) {
    std::lock_guard<std::mutex> lock(mutex_);
    ++count_;
    if (messages_.size() < 64) messages_.push_back(std::move(message));
  }
  long long count() {
    std::lock_guard<std::mutex> lock(mutex_);
    return count_;
  }
  std::vector<std::string> messages() {
    std::lock_guard<std::mutex> lock(mutex_);
    return messages_;
  }

 private:
  std::mutex mutex_;
  long long count_ = 0;
  std::vector<std::string> messages_;
};

/// A CUDA failure inside a worker: thrown, caught by the round, logged.
struct cuda_failure : std::runtime_error {
  using std::runtime_error::runtime_error;
};
void cuda_ok(cudaError_t status, const char* what) {
  if (status != cudaSuccess)
    throw cuda_failure(std::string(what) + " failed: " + cudaGetErrorName(status) + ": " + cudaGetErrorString(status));
}

/// f(tag) for backend number b: 0 atomic, 1 shared_memory, 2 warp_shuffle, 3 automatic.
template <class F>
void with_backend(int b, F&& f) {
  switch (b) {
    case 0: f(tally::backend::atomic_t{}); break;
    case 1: f(tally::backend::shared_memory_t{}); break;
    case 2: f(tally::backend::warp_shuffle_t{}); break;
    default: f(tally::backend::automatic_t{}); break;
  }
}

/// The stable copy_if policy of a backend: the atomic backend is unordered unless the
/// policy is deterministic() (copy_if.cuh).
template <class B>
auto stable_policy(B backend, cudaStream_t stream) {
  if constexpr (std::is_same_v<B, tally::backend::atomic_t>)
    return tally::par.with(backend).deterministic().on(stream);
  else
    return tally::par.with(backend).on(stream);
}

/// Poisons the slot's outputs and queues every asynchronous call on `stream`.
template <class B>
void enqueue(slot& s, B backend, cudaStream_t stream) {
  // 0xA5 bytes: an int64 of 0xA5A5... is no index or count, an int of 0xA5A5A5A5 no item.
  cuda_ok(cudaMemsetAsync(s.results.data(), 0xA5, r_total * sizeof(std::int64_t), stream), "cudaMemsetAsync");
  cuda_ok(cudaMemsetAsync(s.top_values_out.data(), 0xA5, K * sizeof(int), stream), "cudaMemsetAsync");
  cuda_ok(cudaMemsetAsync(s.stable_out.data(), 0xA5, std::size_t(s.n) * sizeof(int), stream), "cudaMemsetAsync");
  cuda_ok(cudaMemsetAsync(s.unordered_out.data(), 0xA5, std::size_t(s.n) * sizeof(int), stream), "cudaMemsetAsync");
  const auto policy = tally::par.with(backend).on(stream);
  const int* first = s.in.data();
  const int* last = first + s.n;
  std::int64_t* r = s.results.data();
  tally::reduce_into(policy, first, last, r + r_sum, s.init, tally::plus<std::int64_t>{});
  tally::max_element_into(policy, first, last, r + r_max);
  tally::min_element_into(policy, first, last, r + r_min);
  tally::top_k_into<K>(policy, first, last, s.top_values_out.data(), r + r_top_indices);
  tally::copy_if_into(stable_policy(backend, stream), first, last, s.stable_out.data(), r + r_stable_count, s.pred);
  tally::copy_if_into(policy.unordered(), first, last, s.unordered_out.data(), r + r_unordered_count, s.pred);
}

/// The synchronous reduce on `stream` (it waits for the calls queued before it), then
/// every output of the round against the references. Returns the number of failures.
template <class B>
int finish_and_check(slot& s, B backend, cudaStream_t stream, const std::string& where, failure_log& log) {
  int failures = 0;
  auto fail = [&](const std::string& what) {
    ++failures;
    log.add(where + " slot=" + std::to_string(s.id) + " n=" + std::to_string(s.n) +
            " backend=" + tt::backend_label(backend) + ": " + what);
  };
  const std::int64_t sync_sum = tally::reduce(tally::par.with(backend).on(stream), s.in.data(), s.in.data() + s.n,
                                              s.init, tally::plus<std::int64_t>{});
  if (sync_sum != s.sum) fail("reduce: " + std::to_string(sync_sum) + ", expected " + std::to_string(s.sum));

  cuda_ok(cudaMemcpyAsync(s.h_results.data(), s.results.data(), r_total * sizeof(std::int64_t), cudaMemcpyDeviceToHost,
                          stream),
          "cudaMemcpyAsync");
  cuda_ok(
      cudaMemcpyAsync(s.h_top_values.data(), s.top_values_out.data(), K * sizeof(int), cudaMemcpyDeviceToHost, stream),
      "cudaMemcpyAsync");
  cuda_ok(cudaMemcpyAsync(s.h_stable.data(), s.stable_out.data(), std::size_t(s.n) * sizeof(int),
                          cudaMemcpyDeviceToHost, stream),
          "cudaMemcpyAsync");
  cuda_ok(cudaMemcpyAsync(s.h_unordered.data(), s.unordered_out.data(), std::size_t(s.n) * sizeof(int),
                          cudaMemcpyDeviceToHost, stream),
          "cudaMemcpyAsync");
  cuda_ok(cudaStreamSynchronize(stream), "cudaStreamSynchronize");

  const std::vector<std::int64_t>& r = s.h_results;
  if (r[r_sum] != s.sum) fail("reduce_into: " + std::to_string(r[r_sum]) + ", expected " + std::to_string(s.sum));
  if (r[r_max] != s.max_index)
    fail("max_element_into: " + std::to_string(r[r_max]) + ", expected " + std::to_string(s.max_index));
  if (r[r_min] != s.min_index)
    fail("min_element_into: " + std::to_string(r[r_min]) + ", expected " + std::to_string(s.min_index));
  const std::size_t top_count = s.top_indices.size();  // min(K, n)
  for (std::size_t i = 0; i < std::size_t(K); ++i) {
    const std::int64_t index = r[r_top_indices + int(i)];
    const int value = s.h_top_values[i];
    if (i < top_count && (index != s.top_indices[i] || value != s.top_values[i])) {
      fail("top_k_into<8> entry " + std::to_string(i) + ": index " + std::to_string(index) + " value " +
           std::to_string(value) + ", expected index " + std::to_string(s.top_indices[i]) + " value " +
           std::to_string(s.top_values[i]));
      break;
    }
    if (i >= top_count && std::uint64_t(index) != 0xA5A5A5A5A5A5A5A5ULL) {
      fail("top_k_into<8> wrote entry " + std::to_string(i) + " past min(K, n) = " + std::to_string(top_count));
      break;
    }
  }
  const long long expected_count = static_cast<long long>(s.selected.size());
  auto check_copy = [&](const char* name, std::int64_t count, std::vector<int>& out, bool sorted) {
    if (count != expected_count) {
      fail(std::string(name) + ": count " + std::to_string(count) + ", expected " + std::to_string(expected_count));
      return;
    }
    if (sorted) std::sort(out.begin(), out.begin() + count);
    const std::vector<int>& want = sorted ? s.selected_sorted : s.selected;
    const auto mismatch = std::mismatch(want.begin(), want.end(), out.begin());
    if (mismatch.first != want.end()) {
      const std::size_t i = std::size_t(mismatch.first - want.begin());
      fail(std::string(name) + ": item " + std::to_string(i) + (sorted ? " (sorted)" : "") + " is " +
           std::to_string(out[i]) + ", expected " + std::to_string(want[i]));
    }
    if (count < s.n && std::uint32_t(out[std::size_t(count)]) != 0xA5A5A5A5u)
      fail(std::string(name) + ": wrote past the count");
  };
  check_copy("copy_if_into (stable)", r[r_stable_count], s.h_stable, false);
  check_copy("copy_if_into (unordered)", r[r_unordered_count], s.h_unordered, true);
  return failures;
}

/// One round of one backend on a thread's streams: queue everything on every stream,
/// then finish and check stream by stream. Exceptions become failures.
int run_round(std::vector<slot*>& slots, const std::vector<cudaStream_t>& streams, int backend_base,
              const std::string& where, failure_log& log) {
  int failures = 0;
  std::vector<bool> queued(slots.size(), false);
  for (std::size_t j = 0; j < slots.size(); ++j) {
    with_backend((backend_base + int(j)) % 4, [&](auto backend) {
      try {
        enqueue(*slots[j], backend, streams[j]);
        queued[j] = true;
      } catch (const std::exception& e) {
        ++failures;
        log.add(where + " slot=" + std::to_string(slots[j]->id) + " backend=" + tt::backend_label(backend) +
                ": queueing threw: " + e.what());
      }
    });
  }
  for (std::size_t j = 0; j < slots.size(); ++j) {
    if (!queued[j]) continue;
    with_backend((backend_base + int(j)) % 4, [&](auto backend) {
      try {
        failures += finish_and_check(*slots[j], backend, streams[j], where, log);
      } catch (const std::exception& e) {
        ++failures;
        log.add(where + " slot=" + std::to_string(slots[j]->id) + " backend=" + tt::backend_label(backend) +
                ": threw: " + e.what());
      }
    });
  }
  return failures;
}

/// The checkpoints between the workers and the main thread: each worker arrives at
/// checkpoint k and waits until the main thread, which waits for all of them, has
/// measured and opens it.
class checkpoints {
 public:
  explicit checkpoints(int workers) : workers_(workers) {}
  void arrive_and_wait(int k) {
    std::unique_lock<std::mutex> lock(mutex_);
    ++arrived_;
    cv_.notify_all();
    cv_.wait(lock, [&] { return opened_ >= k; });
  }
  void wait_for_all(int k) {
    std::unique_lock<std::mutex> lock(mutex_);
    cv_.wait(lock, [&] { return arrived_ >= workers_ * k; });
  }
  void open(int k) {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      opened_ = k;
    }
    cv_.notify_all();
  }

 private:
  std::mutex mutex_;
  std::condition_variable cv_;
  int workers_, arrived_ = 0, opened_ = 0;
};

/// Device memory, after everything finished and the default pool gave back what it
/// holds unused: in use on the device (cudaMemGetInfo), and what the default
/// stream-ordered pool still holds (reserved) and has handed out (used). tally allocates
/// its device memory (the per-stream scratch) from that pool and nowhere else, so the
/// pool's figures are tally's alone; the device's figure also counts what the driver
/// keeps for itself. No doctest macro (it runs while the workers exist: a REQUIRE that
/// left the test case would destroy joinable std::threads): a failure goes to `errors`.
struct memory_level {
  std::size_t in_use = 0, pool_reserved = 0, pool_used = 0;
};

memory_level memory_in_use(std::vector<std::string>& errors) {
  int device = 0;
  cudaMemPool_t pool = nullptr;
  std::size_t free_bytes = 0, total_bytes = 0;
  unsigned long long reserved = 0, used = 0;  // cuuint64_t
  const char* step = "cudaGetDevice";
  cudaError_t status = cudaGetDevice(&device);
  if (status == cudaSuccess) status = (step = "cudaDeviceSynchronize", cudaDeviceSynchronize());
  if (status == cudaSuccess)
    status = (step = "cudaDeviceGetDefaultMemPool", cudaDeviceGetDefaultMemPool(&pool, device));
  if (status == cudaSuccess) status = (step = "cudaMemPoolTrimTo", cudaMemPoolTrimTo(pool, 0));
  if (status == cudaSuccess) status = (step = "cudaMemGetInfo", cudaMemGetInfo(&free_bytes, &total_bytes));
  if (status == cudaSuccess)
    status = (step = "cudaMemPoolGetAttribute", cudaMemPoolGetAttribute(pool, cudaMemPoolAttrReservedMemCurrent, &reserved));
  if (status == cudaSuccess)
    status = (step = "cudaMemPoolGetAttribute", cudaMemPoolGetAttribute(pool, cudaMemPoolAttrUsedMemCurrent, &used));
  if (status != cudaSuccess) {
    errors.push_back(std::string(step) + " failed: " + cudaGetErrorString(status));
    return {};
  }
  return {total_bytes - free_bytes, std::size_t(reserved), std::size_t(used)};
}

std::string signed_mib(std::size_t now, std::size_t before) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%+.2f MiB", (double(now) - double(before)) / double(1 << 20));
  return buf;
}

std::string mib(std::size_t bytes) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.2f MiB", double(bytes) / double(1 << 20));
  return buf;
}

/// The figures of one cycle (threads start, create their streams, run, destroy them).
struct cycle_result {
  memory_level before, streams_warm, after_rounds, after_streams;
  long long rounds_total = 0, rounds_min = 0;
};

/// One cycle: 8 threads, 4 streams each; every backend once on every stream (the scratch
/// reaches full size), then rounds for `seconds` (at least min_rounds), then every
/// stream's scratch released and the stream destroyed. The main thread measures the
/// memory between the phases while the workers wait at a checkpoint.
cycle_result run_cycle(std::vector<std::unique_ptr<slot>>& slots, double seconds, failure_log& log,
                       std::vector<std::string>& memory_errors) {
  cycle_result result;
  result.before = memory_in_use(memory_errors);
  checkpoints gate(thread_count);
  std::vector<long long> rounds(thread_count, 0);
  std::vector<std::thread> workers;
  for (int t = 0; t < thread_count; ++t) {
    workers.emplace_back([&, t] {
      const std::string who = "thread " + std::to_string(t);
      std::vector<cudaStream_t> streams;
      std::vector<slot*> mine;
      int failures = 0;
      try {
        for (int j = 0; j < streams_per_thread; ++j) {
          cudaStream_t s = nullptr;
          cuda_ok(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking), "cudaStreamCreateWithFlags");
          streams.push_back(s);
          mine.push_back(slots[std::size_t(t * streams_per_thread + j)].get());
        }
        // Every backend once on every stream: the scratch blocks reach their full size.
        for (int b = 0; b < 4; ++b) failures += run_round(mine, streams, b + t, who + " first rounds", log);
      } catch (const std::exception& e) {
        ++failures;
        log.add(who + ": setup threw: " + e.what());
      }
      gate.arrive_and_wait(1);

      if (failures == 0 && streams.size() == std::size_t(streams_per_thread)) {
        const auto start = std::chrono::steady_clock::now();
        for (long long round = 0;; ++round) {
          const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
          if (round >= min_rounds && elapsed >= seconds) break;
          failures += run_round(mine, streams, int(round % 4) + t, who + " round " + std::to_string(round), log);
          rounds[std::size_t(t)] = round + 1;
          if (failures >= max_failures_per_thread) {
            log.add(who + ": stopped after " + std::to_string(failures) + " failures");
            break;
          }
        }
      }
      gate.arrive_and_wait(2);

      for (cudaStream_t s : streams) {
        // tally keeps a scratch block per stream until it is released (<tally/memory.cuh>).
        try {
          tally::release_scratch(s);
        } catch (const std::exception& e) {
          log.add(who + ": tally::release_scratch failed: " + e.what());
        }
        const cudaError_t status = cudaStreamSynchronize(s);
        const cudaError_t destroyed = cudaStreamDestroy(s);
        if (status != cudaSuccess || destroyed != cudaSuccess)
          log.add(who + ": cudaStreamSynchronize / cudaStreamDestroy failed: " +
                  cudaGetErrorString(status != cudaSuccess ? status : destroyed));
      }
    });
  }

  gate.wait_for_all(1);
  result.streams_warm = memory_in_use(memory_errors);
  gate.open(1);
  gate.wait_for_all(2);
  result.after_rounds = memory_in_use(memory_errors);
  gate.open(2);
  for (std::thread& w : workers) w.join();
  result.after_streams = memory_in_use(memory_errors);
  result.rounds_total = std::accumulate(rounds.begin(), rounds.end(), 0LL);
  result.rounds_min = *std::min_element(rounds.begin(), rounds.end());
  return result;
}

std::string describe_cycle(const cycle_result& c) {
  return "device memory in use " + signed_mib(c.streams_warm.in_use, c.before.in_use) + " with the streams warm, " +
         signed_mib(c.after_rounds.in_use, c.before.in_use) + " after the rounds, " +
         signed_mib(c.after_streams.in_use, c.before.in_use) +
         " after the streams were destroyed; the default pool holds (reserved/used) " +
         mib(c.streams_warm.pool_reserved) + "/" + mib(c.streams_warm.pool_used) + " with the streams warm, " +
         mib(c.after_rounds.pool_reserved) + "/" + mib(c.after_rounds.pool_used) + " after the rounds, " +
         mib(c.after_streams.pool_reserved) + "/" + mib(c.after_streams.pool_used) + " at the end";
}

}  // namespace concurrency_test

using namespace concurrency_test;

TEST_CASE("8 threads x 4 streams call every algorithm at once: right answers, no cross-talk, no leak") {
  tt::failure_budget budget;
  const double seconds = seconds_to_run();
  std::vector<std::unique_ptr<slot>> slots;
  for (int id = 0; id < slot_count; ++id) slots.push_back(make_slot(id));

  // Warm-up on the main thread: every backend on every slot's data (the same kernels the
  // workers will launch), checked, so that the kernels are loaded before the figures.
  {
    failure_log log;
    cudaStream_t stream = nullptr;
    TT_CUDA(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
    for (auto& s : slots) {
      std::vector<slot*> one{s.get()};
      const std::vector<cudaStream_t> streams{stream};
      for (int b = 0; b < 4; ++b) run_round(one, streams, b, "warm-up", log);
    }
    tally::release_scratch(stream);
    TT_CUDA(cudaStreamSynchronize(stream));
    TT_CUDA(cudaStreamDestroy(stream));
    for (const std::string& m : log.messages()) tt::report(false, m);
    REQUIRE_MESSAGE(log.count() == 0, "the warm-up failed: not starting the threads");
  }

  // Two cycles. The first (min_rounds only) is a warm-up of the driver too: the first time
  // 32 streams on 8 threads run at once, the driver may grow what it keeps per context
  // (it is not tally's: the pool figures below are). The second is the timed one; a leak
  // of tally's shows in both cycles, in the pool, and grows with the rounds.
  std::vector<std::string> memory_errors;
  failure_log log;
  const cycle_result warm = run_cycle(slots, 0.0, log, memory_errors);
  const cycle_result timed = run_cycle(slots, seconds, log, memory_errors);
  for (const std::string& m : memory_errors) CHECK_MESSAGE(false, m);

  MESSAGE(thread_count, " threads x ", streams_per_thread, " streams. Warm-up cycle: ", warm.rounds_total,
          " rounds; device memory in use ", mib(warm.before.in_use), " before it; ", describe_cycle(warm), ".");
  MESSAGE("Timed cycle, ", seconds, " s: ", timed.rounds_total, " rounds of 7 calls per stream; ", describe_cycle(timed),
          "; the device's memory in use ends ", signed_mib(timed.after_streams.in_use, warm.before.in_use),
          " from its level before the first cycle.");

  for (const std::string& m : log.messages()) tt::report(false, m);
  CHECK_MESSAGE(log.count() == 0, log.count(), " failures in the threads (the first 64 are reported above)");
  CHECK_MESSAGE(timed.rounds_min >= min_rounds, "a thread ran only ", timed.rounds_min, " rounds");

  // tally's memory (the pool): nothing handed out once every stream's scratch is
  // released, nothing kept after the trim, in both cycles.
  for (const cycle_result* c : {&warm, &timed}) {
    CHECK_MESSAGE(c->after_streams.pool_used == 0, "the default pool still hands out ",
                  mib(c->after_streams.pool_used), " after every stream's scratch was released");
    CHECK_MESSAGE(c->after_streams.pool_reserved == 0, "the default pool still holds ",
                  mib(c->after_streams.pool_reserved), " after the trim");
  }
  // The device's memory: no growth during the timed rounds, and back to the level before
  // the timed cycle once its streams are gone.
  CHECK_MESSAGE(timed.after_rounds.in_use <= timed.streams_warm.in_use + memory_tolerance, "device memory grew by ",
                signed_mib(timed.after_rounds.in_use, timed.streams_warm.in_use),
                " during the timed rounds (the calls leak device memory)");
  CHECK_MESSAGE(timed.after_streams.in_use <= timed.before.in_use + memory_tolerance, "device memory in use is ",
                signed_mib(timed.after_streams.in_use, timed.before.in_use),
                " above the level before the timed cycle's 32 streams were created, after they were destroyed");
}
