// Errors that only a GPU can produce (docs/reliability.md, "Bad input"):
//
//  - Out of device memory: with almost all of the device's memory taken by a ballast
//    allocation, a stable copy_if whose tile states need gigabytes (2^40 counting items)
//    throws tally::cuda_error with cudaErrorMemoryAllocation, names the call, writes
//    neither the output nor the count and leaves no CUDA error behind; calls whose
//    scratch is already cached keep working while the memory is full, and everything
//    works once the ballast is gone.
//  - A user functor that traps (__trap()) or reads an address that isn't mapped: the
//    kernel faults and the context is lost for good (a sticky error), so each case runs
//    in a child process: this executable again, with TALLY_DEVICE_ERROR_CHILD naming
//    the case and the skipped "child process" test case selected. The child reports
//    what it saw on stdout; the parent checks that the synchronous call threw
//    tally::cuda_error naming itself with a fault code, that an _into call's fault is
//    reported by cudaStreamSynchronize and then by the next tally call (named after
//    that call), that every later device call throws the same code instead of crashing
//    or hanging (the child runs under `timeout`), and that tally::host still works.
//
// Never run under compute-sanitizer (scripts/sanitize.sh): the faults are on purpose.
#include "common.cuh"

#include <thrust/iterator/counting_iterator.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <numeric>
#include <sstream>

#include <sys/wait.h>
#include <unistd.h>

namespace device_errors {

// --- functors that fault on the device ----------------------------------------------

/// a + b on the host; a trap on the device.
struct trapping_plus {
  __host__ __device__ int operator()(int a, int b) const {
#ifdef __CUDA_ARCH__
    __trap();
#endif
    return a + b;
  }
};

/// a < b on the host; a trap on the device.
struct trapping_less {
  __host__ __device__ bool operator()(int a, int b) const {
#ifdef __CUDA_ARCH__
    __trap();
#endif
    return a < b;
  }
};

/// x is odd on the host; a trap on the device.
struct trapping_is_odd {
  __host__ __device__ bool operator()(int x) const {
#ifdef __CUDA_ARCH__
    __trap();
#endif
    return (x & 1) != 0;
  }
};

/// a < b, but on the device it first reads through `bad`, an address nothing is mapped at.
struct bad_read_less {
  const int* bad;
  __host__ __device__ bool operator()(int a, int b) const {
#ifdef __CUDA_ARCH__
    a += *bad;
#endif
    return a < b;
  }
};

/// x < 0: selects nothing from a counting range (so that a call that should have failed
/// writes nothing even when it runs).
struct is_negative {
  __host__ __device__ bool operator()(long long x) const { return x < 0; }
};

struct is_odd {
  __host__ __device__ bool operator()(long long x) const { return (x & 1) != 0; }
};

constexpr const char* child_variable = "TALLY_DEVICE_ERROR_CHILD";
constexpr int child_n = 100000;

/// The child's data: i * 7919 % child_n, on the host and the device.
std::vector<int> child_host_data() {
  std::vector<int> host(child_n);
  for (int i = 0; i < child_n; ++i) host[std::size_t(i)] = int((long long)i * 7919 % child_n);
  return host;
}

/// One report line of the child: "<key>: <cuda error name>|<what>".
void say(const char* key, const std::string& text) {
  std::printf("@%s: %s\n", key, text.c_str());
  std::fflush(stdout);
}

/// Runs `call`; reports the tally::cuda_error it throws as "<code name>|<what>", or
/// "none" / "other|<what>".
template <class F>
void report_call(const char* key, F&& call) {
  try {
    call();
    say(key, "none");
  } catch (const tally::cuda_error& e) {
    say(key, std::string(cudaGetErrorName(e.code())) + "|" + e.what());
  } catch (const std::exception& e) {
    say(key, std::string("other|") + e.what());
  }
}

/// The child process's part: one faulting call, then what the process can still do.
void run_child(const std::string& which) {
  const std::vector<int> host = child_host_data();
  tt::device_buffer<int> data(host);
  tt::device_buffer<int> out{std::size_t(child_n)};
  const int* first = data.data();
  const int* last = first + child_n;

  if (which == "reduce_into-trap") {
    // Asynchronous: the call returns; the fault shows at the next synchronisation.
    cudaStream_t stream = nullptr;
    if (cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking) != cudaSuccess) {
      say("first", "setup failed");
      std::_Exit(3);
    }
    tt::device_buffer<int> result{std::size_t(1)};
    report_call("queued", [&] { tally::reduce_into(tally::par.on(stream), first, last, result.data(), 0, trapping_plus{}); });
    const cudaError_t synced = cudaStreamSynchronize(stream);
    say("first", std::string(cudaGetErrorName(synced)) + "|cudaStreamSynchronize");
    report_call("next", [&] { (void)tally::min_element(tally::par, first, last); });
  } else {
    report_call("first", [&] {
      if (which == "reduce-trap") (void)tally::reduce(tally::par, first, last, 0, trapping_plus{});
      else if (which == "max_element-bad-read")
        (void)tally::max_element(tally::par, first, last, bad_read_less{reinterpret_cast<const int*>(std::uintptr_t(16))});
      else if (which == "top_k-trap") (void)tally::top_k<4>(tally::par, first, last, trapping_less{});
      else if (which == "copy_if-trap") (void)tally::copy_if(tally::par, first, last, out.data(), trapping_is_odd{});
      else throw std::runtime_error("unknown case " + which);
    });
  }
  // The context is gone: every device call fails with the sticky error, none hangs.
  report_call("later-reduce", [&] { (void)tally::reduce(tally::par, first, last, 0); });
  report_call("later-copy_if", [&] { (void)tally::copy_if(tally::par, first, last, out.data(), trapping_is_odd{}); });
  // The host policy doesn't need the GPU.
  say("host", std::to_string(tally::reduce(tally::host, host.begin(), host.end(), 0LL)));
  // No destructors, no test main epilogue: they would call CUDA on a lost context.
  std::_Exit(0);
}

/// Runs this executable as the child for `which`; returns its "@key: value" lines.
struct child_result {
  int status = -1;  // the exit status, or -1 when it did not exit normally
  std::string output;
  std::map<std::string, std::string> lines;
};

child_result run_child_process(const std::string& which) {
  char exe[4096] = {};
  const ssize_t len = readlink("/proc/self/exe", exe, sizeof exe - 1);
  REQUIRE_MESSAGE(len > 0, "readlink(/proc/self/exe) failed: ", std::strerror(errno));
  // `timeout`: a hang is a failure (124), not a stuck test run.
  const std::string command = std::string(child_variable) + "=" + which + " timeout 120 '" + exe +
                              "' --no-skip '--test-case=device errors: child process' 2>&1";
  FILE* pipe = popen(command.c_str(), "r");
  REQUIRE_MESSAGE(pipe != nullptr, "popen failed: ", std::strerror(errno));
  child_result result;
  char buffer[4096];
  while (std::fgets(buffer, sizeof buffer, pipe)) {
    std::string line = buffer;
    result.output += line;
    if (!line.empty() && line.back() == '\n') line.pop_back();
    if (line.size() > 1 && line[0] == '@') {
      const std::size_t colon = line.find(": ");
      if (colon != std::string::npos) result.lines[line.substr(1, colon - 1)] = line.substr(colon + 2);
    }
  }
  const int status = pclose(pipe);
  result.status = (status != -1 && WIFEXITED(status)) ? WEXITSTATUS(status) : -1;
  return result;
}

/// "<code name>|<what>" split.
std::pair<std::string, std::string> split_report(const std::string& s) {
  const std::size_t bar = s.find('|');
  if (bar == std::string::npos) return {s, ""};
  return {s.substr(0, bar), s.substr(bar + 1)};
}

/// The codes CUDA gives a kernel that faulted (all sticky).
bool is_fault_code(const std::string& name) {
  for (const char* code : {"cudaErrorLaunchFailure", "cudaErrorIllegalInstruction", "cudaErrorIllegalAddress",
                           "cudaErrorMisalignedAddress", "cudaErrorInvalidPc", "cudaErrorHardwareStackError",
                           "cudaErrorAssert"})
    if (name == code) return true;
  return false;
}

bool starts_with(const std::string& s, const std::string& prefix) { return s.rfind(prefix, 0) == 0; }

}  // namespace device_errors

using namespace device_errors;

TEST_CASE("device errors: child process" * doctest::skip()) {
  // Selected by the parent test below (with --no-skip); does nothing otherwise.
  const char* which = std::getenv(child_variable);
  if (which && *which) run_child(which);
}

TEST_CASE("device errors: a faulting user functor is tally::cuda_error naming the call; later calls fail the same way, none hangs") {
  struct expectation {
    const char* which;
    const char* algorithm;  // the call that must report the fault
    const char* code;       // the exact code, or nullptr for any fault code
  };
  const expectation cases[] = {
      {"reduce-trap", "tally::reduce", nullptr},
      {"max_element-bad-read", "tally::max_element", "cudaErrorIllegalAddress"},
      {"top_k-trap", "tally::top_k", nullptr},
      {"copy_if-trap", "tally::copy_if", nullptr},
      {"reduce_into-trap", "tally::min_element", nullptr},  // the next call after the _into form
  };
  const std::vector<int> host = child_host_data();
  const long long host_sum = std::accumulate(host.begin(), host.end(), 0LL);
  for (const expectation& c : cases) {
    const std::string which = c.which;
    CAPTURE(which);
    const child_result r = run_child_process(which);
    const std::string output = r.output;
    CAPTURE(output);
    CHECK_MESSAGE(r.status == 0, "the child exited with ", r.status, " (124: it hung; -1: it crashed)");
    REQUIRE(r.lines.count("first"));
    const std::pair<std::string, std::string> first = split_report(r.lines.at("first"));
    const std::string code = first.first, what = first.second;
    CHECK_MESSAGE(is_fault_code(code), "the fault was reported as ", r.lines.at("first"));
    if (c.code) CHECK(code == c.code);
    if (which == "reduce_into-trap") {
      CHECK(r.lines.at("queued") == "none");  // the _into form returned normally
      REQUIRE(r.lines.count("next"));
      const std::pair<std::string, std::string> next = split_report(r.lines.at("next"));
      CHECK(next.first == code);
      CHECK(starts_with(next.second, std::string(c.algorithm) + ": "));
    } else {
      CHECK(starts_with(what, std::string(c.algorithm) + ": "));
    }
    const std::pair<const char*, const char*> later_calls[] = {{"later-reduce", "tally::reduce"},
                                                               {"later-copy_if", "tally::copy_if"}};
    for (const auto& later : later_calls) {
      const std::string key = later.first;
      REQUIRE(r.lines.count(key));
      const std::pair<std::string, std::string> report = split_report(r.lines.at(key));
      CHECK_MESSAGE(report.first == code, key, ": ", r.lines.at(key));
      CHECK(starts_with(report.second, std::string(later.second) + ": "));
    }
    REQUIRE(r.lines.count("host"));
    CHECK(r.lines.at("host") == std::to_string(host_sum));
    MESSAGE(which, ": ", r.lines.at("first"));
  }
}

TEST_CASE("device errors: out of device memory is tally::cuda_error naming the call; nothing written, later calls work") {
  cudaStream_t stream = nullptr;
  TT_CUDA(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));

  // Real data and a call that caches this stream's scratch before the memory runs out.
  const long long n = 1 << 20;
  std::vector<int> host(static_cast<std::size_t>(n));
  for (long long i = 0; i < n; ++i) host[std::size_t(i)] = int(tt::hash(std::uint64_t(i), 77) % 2001) - 1000;
  const long long host_sum = std::accumulate(host.begin(), host.end(), 0LL);
  tt::device_buffer<int> data(host);
  const auto policy = tally::par.on(stream);
  CHECK(tally::reduce(policy, data.data(), data.data() + n, 0LL) == host_sum);

  // The ballast: all free memory but 256 MiB (less while cudaMalloc refuses).
  TT_CUDA(cudaDeviceSynchronize());
  cudaMemPool_t pool = nullptr;
  int device = 0;
  TT_CUDA(cudaGetDevice(&device));
  TT_CUDA(cudaDeviceGetDefaultMemPool(&pool, device));
  TT_CUDA(cudaMemPoolTrimTo(pool, 0));
  std::size_t free_bytes = 0, total_bytes = 0;
  TT_CUDA(cudaMemGetInfo(&free_bytes, &total_bytes));
  const std::size_t keep = std::size_t(256) << 20;
  void* ballast = nullptr;
  for (std::size_t size = free_bytes > keep ? free_bytes - keep : 0; size > keep && !ballast; size -= keep) {
    if (cudaMalloc(&ballast, size) != cudaSuccess) {
      ballast = nullptr;
      (void)cudaGetLastError();
    }
  }
  REQUIRE_MESSAGE(ballast != nullptr, "could not take the device's memory for the test");

  // 2^40 items: their tile states alone are gigabytes. The predicate selects nothing, so
  // even a call that wrongly ran would write no item.
  const thrust::counting_iterator<long long> first(0);
  const long long huge = 1LL << 40;
  tt::device_buffer<long long> out{std::size_t(16)};
  tt::device_buffer<long long> count{std::size_t(1)};
  TT_CUDA(cudaMemset(out.data(), 0x5A, 16 * sizeof(long long)));
  TT_CUDA(cudaMemset(count.data(), 0x5A, sizeof(long long)));
  auto expect_out_of_memory = [&](const char* algorithm, auto&& call) {
    const std::string name = algorithm;
    CAPTURE(name);
    try {
      call();
      TT_CUDA(cudaStreamSynchronize(stream));
      FAIL("no error: the scratch for 2^40 items was allocated");
    } catch (const tally::cuda_error& e) {
      const std::string what = e.what();
      CAPTURE(what);
      CHECK(e.code() == cudaErrorMemoryAllocation);
      CHECK(starts_with(what, name + ": cannot allocate "));
    }
    CHECK(cudaGetLastError() == cudaSuccess);  // nothing left behind for the next CUDA call
  };
  expect_out_of_memory("tally::copy_if_into",
                       [&] { tally::copy_if_into(policy, first, first + huge, out.data(), count.data(), is_negative{}); });
  expect_out_of_memory("tally::copy_if", [&] { (void)tally::copy_if(policy, first, first + huge, out.data(), is_negative{}); });

  // Nothing written.
  std::vector<long long> out_after(16);
  long long count_after = 0;
  TT_CUDA(cudaMemcpy(out_after.data(), out.data(), 16 * sizeof(long long), cudaMemcpyDeviceToHost));
  TT_CUDA(cudaMemcpy(&count_after, count.data(), sizeof(long long), cudaMemcpyDeviceToHost));
  CHECK(count_after == 0x5A5A5A5A5A5A5A5ALL);
  CHECK(std::all_of(out_after.begin(), out_after.end(), [](long long x) { return x == 0x5A5A5A5A5A5A5A5ALL; }));

  // While the memory is still taken: the stream's cached scratch serves calls that fit it.
  CHECK(tally::reduce(policy, data.data(), data.data() + n, 0LL) == host_sum);
  const int* max_it = tally::max_element(policy, data.data(), data.data() + n);
  CHECK(max_it - data.data() == std::max_element(host.begin(), host.end()) - host.begin());

  // Memory back: the same algorithm on a size that fits works, on this stream and another.
  TT_CUDA(cudaFree(ballast));
  const long long small = 3000017;
  tt::device_buffer<long long> selected{std::size_t(small)};
  for (cudaStream_t s : {stream, cudaStream_t(nullptr)}) {
    long long* end = tally::copy_if(tally::par.on(s), first, first + small, selected.data(), is_odd{});
    REQUIRE(end - selected.data() == small / 2);
    std::vector<long long> back(std::size_t(small / 2));
    TT_CUDA(cudaMemcpy(back.data(), selected.data(), back.size() * sizeof(long long), cudaMemcpyDeviceToHost));
    bool right = true;
    for (std::size_t i = 0; i < back.size() && right; ++i) right = back[i] == 2 * (long long)i + 1;
    CHECK_MESSAGE(right, "copy_if after the out-of-memory error gave wrong items");
  }
  tally::release_scratch(stream);
  TT_CUDA(cudaStreamSynchronize(stream));
  TT_CUDA(cudaStreamDestroy(stream));
}
