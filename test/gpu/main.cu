// The doctest main linked into every GPU test executable (test/gpu/test_*.cu).
//
// Without a usable CUDA device it prints "skipped: no CUDA device (<reason>)" and returns
// 77, which CTest reports as Skipped (SKIP_RETURN_CODE 77), never as Passed. With one, it
// prints the device's name and runs the tests.
//
// doctest's query options (--help, --version, --count, --list-test-cases, ...) run
// without a device, so that test discovery works on a machine without a GPU.
#define DOCTEST_CONFIG_IMPLEMENT
#include <doctest/doctest.h>

#include <tally/memory.cuh>

#include <cuda_runtime_api.h>

#include <cstdio>
#include <cstring>
#include <exception>
#include <string>

namespace {

// True for doctest options that only print information and run no test.
bool is_query_option(const char* arg) {
  std::string a(arg);
  const std::size_t eq = a.find('=');
  if (eq != std::string::npos) a.resize(eq);
  // doctest accepts -opt, --opt and the same with a "dt-" prefix.
  std::size_t start = a.find_first_not_of('-');
  if (start == std::string::npos) return false;
  a = a.substr(start);
  if (a.rfind("dt-", 0) == 0) a = a.substr(3);
  static const char* const queries[] = {"?",     "h",  "help", "v",  "version", "c",     "count", "ltc",
                                        "list-test-cases", "lts", "list-test-suites", "lr", "list-reporters"};
  for (const char* q : queries)
    if (a == q) return true;
  return false;
}

}  // namespace

int main(int argc, char** argv) {
  bool query = false;
  for (int i = 1; i < argc; ++i) query = query || is_query_option(argv[i]);

  if (!query) {
    int count = 0;
    const cudaError_t status = cudaGetDeviceCount(&count);
    if (status != cudaSuccess || count == 0) {
      std::printf("skipped: no CUDA device (%s)\n",
                  status != cudaSuccess ? cudaGetErrorString(status) : "cudaGetDeviceCount returned 0 devices");
      return 77;
    }
    int device = 0;
    cudaDeviceProp prop{};
    if (cudaGetDevice(&device) != cudaSuccess || cudaGetDeviceProperties(&prop, device) != cudaSuccess) {
      std::printf("skipped: no CUDA device (cannot query the current device: %s)\n",
                  cudaGetErrorString(cudaGetLastError()));
      return 77;
    }
    std::printf("device %d: %s (sm_%d%d)\n", device, prop.name, prop.major, prop.minor);
    std::fflush(stdout);
  }

  doctest::Context context;
  context.applyCommandLine(argc, argv);
  const int result = context.run();
  if (!query && !context.shouldExit()) {
    // Give back the scratch tally keeps per stream, so that compute-sanitizer's leak
    // check (scripts/sanitize.sh) reports only memory that something forgot to free.
    try {
      tally::release_scratch();
    } catch (const std::exception& e) {
      std::printf("tally::release_scratch failed: %s\n", e.what());
      return result == 0 ? 1 : result;
    }
  }
  return result;
}
