// A program that uses tally as a consumer would: built by test/packaging against an
// installed tally (find_package), tally's source tree (add_subdirectory) and the tree
// the vcpkg port installs. It calls every public algorithm once, so a header missing from
// the install or a dependency missing from tally::tally fails the build.
//
// Run: exits 77 (CTest: Skipped) without a CUDA device; otherwise checks every result
// and exits 0 (all correct) or 1.
//
// A new algorithm is one line in `checks` below.

#include <tally/tally.cuh>
#if __has_include(<tally/max_element.cuh>)
#include <tally/max_element.cuh>
#endif

#include <cuda_runtime.h>

#include <climits>
#include <cstdio>
#include <exception>
#include <string>
#include <vector>

int tally_consumer_host_version();  // version_check.cpp: a host-only C++ file

// The versioned inline namespace (detail/config.cuh) is reachable by its macro, and its
// name starts with the version of include/tally/version.hpp (v<major>_<minor>_<patch>;
// under nvcc the architectures follow: checked in main).
static_assert(sizeof(tally::TALLY_VERSION_NAMESPACE::host_policy) > 0, "tally's inline namespace is not TALLY_VERSION_NAMESPACE");
#define TALLY_CONSUMER_STR_(x) #x
#define TALLY_CONSUMER_STR(x) TALLY_CONSUMER_STR_(x)

namespace {

void check_cuda(cudaError_t status, const char* what) {
  if (status != cudaSuccess) {
    std::fprintf(stderr, "%s: %s\n", what, cudaGetErrorString(status));
    throw std::exception();
  }
}

// Input: n ints in [-500, 499] on the device, with the answers computed on the host.
struct fixture {
  static constexpr int n = 100003;  // not a multiple of any block or tile size
  std::vector<int> host;
  int* data = nullptr;
  const int* first = nullptr;
  const int* last = nullptr;
  int* out32 = nullptr;        // one int on the device
  long long* out64 = nullptr;  // one long long on the device
  cudaStream_t stream = nullptr;
  long long sum = 0;
  int max = INT_MIN, min = INT_MAX;
  int bits = 0;  // the OR of every item
  long long max_at = 0, min_at = 0;  // the first position of the largest and the smallest item

  fixture() : host(n) {
    for (int i = 0; i < n; ++i) {
      host[i] = static_cast<int>((i * 7919LL) % 1000) - 500;
      sum += host[i];
      if (host[i] > max) {
        max = host[i];
        max_at = i;
      }
      if (host[i] < min) {
        min = host[i];
        min_at = i;
      }
      bits |= host[i];
    }
    check_cuda(cudaMalloc(&data, n * sizeof(int)), "cudaMalloc");
    check_cuda(cudaMalloc(&out32, sizeof(int)), "cudaMalloc");
    check_cuda(cudaMalloc(&out64, sizeof(long long)), "cudaMalloc");
    check_cuda(cudaMemcpy(data, host.data(), n * sizeof(int), cudaMemcpyHostToDevice), "cudaMemcpy");
    check_cuda(cudaStreamCreate(&stream), "cudaStreamCreate");
    first = data;
    last = data + n;
  }
  ~fixture() {
    cudaStreamDestroy(stream);
    cudaFree(out64);
    cudaFree(out32);
    cudaFree(data);
  }

  // *out64 / *out32 after the work queued on `stream`.
  long long read64() {
    long long value = 0;
    check_cuda(cudaMemcpyAsync(&value, out64, sizeof value, cudaMemcpyDeviceToHost, stream), "cudaMemcpyAsync");
    check_cuda(cudaStreamSynchronize(stream), "cudaStreamSynchronize");
    return value;
  }
  int read32() {
    int value = 0;
    check_cuda(cudaMemcpy(&value, out32, sizeof value, cudaMemcpyDeviceToHost), "cudaMemcpy");
    return value;
  }

  // Every item goes through `update(out32, item)` in a kernel, from *out32 = init; the result.
  template <class Update>
  int atomically(int init, Update update);
};

template <class Update>
__global__ void for_each_item(const int* data, int n, int* out, Update update) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) update(out, data[i]);
}

template <class Update>
int fixture::atomically(int init, Update update) {
  check_cuda(cudaMemcpy(out32, &init, sizeof init, cudaMemcpyHostToDevice), "cudaMemcpy");
  for_each_item<<<64, 256>>>(data, n, out32, update);
  check_cuda(cudaGetLastError(), "for_each_item launch");
  return read32();
}

struct add_item { __device__ void operator()(int* out, int x) const { tally::atomic_add(out, x); } };
struct max_item { __device__ void operator()(int* out, int x) const { tally::atomic_max(out, x); } };
struct min_item { __device__ void operator()(int* out, int x) const { tally::atomic_min(out, x); } };
struct bit_or { __host__ __device__ int operator()(int a, int b) const { return a | b; } };
struct or_item { __device__ void operator()(int* out, int x) const { tally::atomic_update(out, x, bit_or{}); } };

struct check {
  const char* name;
  bool (*run)(fixture&);
};

// One line per algorithm, backend and policy modifier.
const check checks[] = {
    {"reduce", [](fixture& f) { return tally::reduce(f.first, f.last, 0LL) == f.sum; }},
    {"reduce (no init)", [](fixture& f) { return tally::reduce(f.first, f.last) == static_cast<int>(f.sum); }},
    {"reduce maximum", [](fixture& f) { return tally::reduce(tally::par, f.first, f.last, INT_MIN, tally::maximum<int>{}) == f.max; }},
    {"reduce minimum", [](fixture& f) { return tally::reduce(f.first, f.last, INT_MAX, tally::minimum<int>{}) == f.min; }},
    {"reduce custom op", [](fixture& f) { return tally::reduce(tally::par.with(tally::backend::shared_memory), f.first, f.last, 0, bit_or{}) == f.bits; }},
    {"reduce atomic", [](fixture& f) { return tally::reduce(tally::par.with(tally::backend::atomic), f.first, f.last, 0LL) == f.sum; }},
    {"reduce shared_memory", [](fixture& f) { return tally::reduce(tally::par.with(tally::backend::shared_memory), f.first, f.last, 0LL) == f.sum; }},
    {"reduce warp_shuffle", [](fixture& f) { return tally::reduce(tally::par.with(tally::backend::warp_shuffle), f.first, f.last, 0LL) == f.sum; }},
    {"reduce tune deterministic on", [](fixture& f) { return tally::reduce(tally::par.tune<128, 4>().deterministic().on(f.stream), f.first, f.last, 0LL, tally::plus<long long>{}) == f.sum; }},
    {"reduce host", [](fixture& f) { return tally::reduce(tally::host, f.host.data(), f.host.data() + f.n, 0LL) == f.sum; }},
    {"reduce_into", [](fixture& f) { tally::reduce_into(tally::par.on(f.stream), f.first, f.last, f.out64, 0LL); return f.read64() == f.sum; }},
    {"reduce_into op", [](fixture& f) { tally::reduce_into(tally::par.on(f.stream).with(tally::backend::warp_shuffle), f.first, f.last, f.out64, 0LL, tally::maximum<long long>{}); return f.read64() == f.max; }},
    {"atomic_add", [](fixture& f) { return f.atomically(0, add_item{}) == static_cast<int>(f.sum); }},
    {"atomic_max", [](fixture& f) { return f.atomically(INT_MIN, max_item{}) == f.max; }},
    {"atomic_min", [](fixture& f) { return f.atomically(INT_MAX, min_item{}) == f.min; }},
    {"atomic_update", [](fixture& f) { return f.atomically(0, or_item{}) == f.bits; }},
#if __has_include(<tally/max_element.cuh>)  // (until max_element is released)
    {"max_element", [](fixture& f) { return tally::max_element(f.first, f.last) == f.first + f.max_at; }},
    {"min_element", [](fixture& f) { return tally::min_element(tally::par.with(tally::backend::atomic), f.first, f.last) == f.first + f.min_at; }},
    {"minmax_element", [](fixture& f) { const auto r = tally::minmax_element(tally::par, f.first, f.last); return r.first == f.first + f.min_at && r.second == f.first + f.max_at; }},
    {"max_element_into", [](fixture& f) { tally::max_element_into(tally::par.on(f.stream), f.first, f.last, f.out64); return f.read64() == f.max_at; }},
    {"min_element_into", [](fixture& f) { tally::min_element_into(tally::par.on(f.stream), f.first, f.last, f.out64, tally::less<>{}); return f.read64() == f.min_at; }},
#endif
#if __has_include(<tally/top_k.cuh>)
    {"top_k", [](fixture& f) { const auto r = tally::top_k<3>(f.first, f.last); return r.count == 3 && r.indices[0] == f.max_at && r.values[0] == f.max; }},
    {"top_k greater", [](fixture& f) { const auto r = tally::top_k<1>(tally::par.with(tally::backend::shared_memory), f.first, f.last, tally::greater<>{}); return r.indices[0] == f.min_at; }},
#endif
};

}  // namespace

int main() {
  std::printf("tally %d.%d.%d (host-only TU: %d)\n", TALLY_VERSION_MAJOR, TALLY_VERSION_MINOR, TALLY_VERSION_PATCH,
              tally_consumer_host_version());
  if (tally_consumer_host_version() != TALLY_VERSION) return 1;
  {
    const std::string ns = TALLY_CONSUMER_STR(TALLY_VERSION_NAMESPACE);
    const std::string version = "v" + std::to_string(TALLY_VERSION_MAJOR) + "_" + std::to_string(TALLY_VERSION_MINOR) +
                                "_" + std::to_string(TALLY_VERSION_PATCH);
    if (ns.rfind(version, 0) != 0 || ns.find("_SM_") == std::string::npos) {
      std::fprintf(stderr, "tally's inline namespace %s does not start with %s and name the architectures\n", ns.c_str(),
                   version.c_str());
      return 1;
    }
  }

  int devices = 0;
  const cudaError_t status = cudaGetDeviceCount(&devices);
  if (status != cudaSuccess || devices == 0) {
    std::printf("skipped: no CUDA device (%s)\n",
                status != cudaSuccess ? cudaGetErrorString(status) : "cudaGetDeviceCount returned 0 devices");
    return 77;
  }

  int failures = 0;
  try {
    fixture f;
    for (const check& c : checks) {
      bool ok = false;
      try {
        ok = c.run(f);
      } catch (const std::exception& e) {
        std::printf("  exception: %s\n", e.what());
      }
      std::printf("%-32s %s\n", c.name, ok ? "ok" : "FAILED");
      failures += ok ? 0 : 1;
    }
  } catch (const std::exception& e) {
    std::printf("setup failed: %s\n", e.what());
    return 1;
  }
  std::printf("%d of %zu checks failed\n", failures, sizeof checks / sizeof checks[0]);
  return failures == 0 ? 0 : 1;
}
