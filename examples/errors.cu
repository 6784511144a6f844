// errors: what tally throws and how to catch it. tally::error for invalid arguments
// (checked before anything is queued, so the caller's data is untouched),
// tally::cuda_error (derived from tally::error) for CUDA failures, with the CUDA error
// code and the algorithm's name in the message.
//
// The first checks need no GPU and run everywhere: without a CUDA device the program
// shows the "no device" error, prints "skipped: ..." and returns 77 (1 if a check
// failed). With a device it runs the rest and returns 0 (all correct) or 1.
#include <tally/tally.cuh>

#include <thrust/device_vector.h>
#include <thrust/iterator/counting_iterator.h>

#include <cstdio>

namespace {

int failures = 0;
void expect(bool ok, const char* what) {
  std::printf("%s: %s\n", ok ? "ok  " : "FAIL", what);
  if (!ok) ++failures;
}

}  // namespace

enum class outcome { ok, invalid_argument, cuda_failure };

// example-begin catch
// Runs call() and reports what it threw. tally::cuda_error derives from tally::error,
// which derives from std::runtime_error: catch the most derived class first.
template <class Call>
outcome run(const char* what, Call call) {
  try {
    call();
    return outcome::ok;
  } catch (const tally::cuda_error& e) {  // CUDA failed: no device, out of memory, a launch
    std::printf("%s: CUDA error %s: %s\n", what, cudaGetErrorName(e.code()), e.what());
    return outcome::cuda_failure;
  } catch (const tally::error& e) {  // invalid arguments
    std::printf("%s: invalid argument: %s\n", what, e.what());
    return outcome::invalid_argument;
  }
}
// example-end catch

int main() {
  int devices = 0;
  const cudaError_t device_status = cudaGetDeviceCount(&devices);
  const bool have_gpu = device_status == cudaSuccess && devices > 0;

  // example-begin anywhere
  // The arguments are checked before the GPU is touched: a reversed range is a
  // tally::error on every machine. A valid call where there is no usable GPU is a
  // tally::cuda_error ("tally::reduce: no CUDA device available (...)").
  thrust::counting_iterator<int> i(0);
  outcome reversed = run("reversed range", [&] { tally::reduce(i + 10, i, 0); });
  outcome valid = run("sum of 0..9", [&] { tally::reduce(i, i + 10, 0); });
  // example-end anywhere
  expect(reversed == outcome::invalid_argument, "a reversed range is a tally::error");
  expect(valid == (have_gpu ? outcome::ok : outcome::cuda_failure),
         have_gpu ? "a valid call succeeds" : "without a device a valid call is a tally::cuda_error");

  if (!have_gpu) {
    std::printf("skipped: no CUDA device (%s); the checks above need none\n",
                device_status != cudaSuccess ? cudaGetErrorString(device_status)
                                             : "cudaGetDeviceCount returned 0 devices");
    return failures == 0 ? 77 : 1;
  }

  // example-begin pointers
  thrust::device_vector<float> data(1000, 1.0f);
  const float* first = thrust::raw_pointer_cast(data.data());
  const float* last = first + data.size();

  // A null output pointer: tally::error, and nothing is queued.
  outcome null_out = run("null output", [&] { tally::reduce_into(first, last, static_cast<float*>(nullptr), 0.0f); });

  // An output in pageable host memory (here on the stack), which a GPU without access
  // to pageable memory can't write: tally::error, and the variable keeps its value.
  // (Where the GPU can access pageable memory, HMM or ATS, the call is valid.)
  float on_stack = -1.0f;
  outcome stack_out = run("output on the stack", [&] { tally::reduce_into(first, last, &on_stack, 0.0f); });
  cudaStreamSynchronize(nullptr);  // in case the call was valid: wait for the result
  // example-end pointers
  expect(null_out == outcome::invalid_argument, "a null output is a tally::error");
  expect((stack_out == outcome::invalid_argument && on_stack == -1.0f) ||
             (stack_out == outcome::ok && on_stack == 1000.0f),
         "pageable output: a tally::error that leaves it alone, or (HMM/ATS) the sum");

  cudaStream_t stream;
  cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking);
  float before = tally::reduce(tally::par.on(stream), first, last, 0.0f);
  expect(before == 1000.0f, "a valid call on the stream");

  // example-begin capture
  // A CUDA failure: the synchronous tally::reduce waits for its stream, which CUDA
  // refuses while the stream is being captured into a graph (capture reduce_into
  // instead). tally throws tally::cuda_error, and the capture is void: end it.
  cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal);
  outcome captured = run("reduce in a graph capture", [&] { tally::reduce(tally::par.on(stream), first, last, 0.0f); });
  cudaGraph_t graph = nullptr;
  cudaError_t end = cudaStreamEndCapture(stream, &graph);  // cudaErrorStreamCaptureInvalidated
  // example-end capture
  expect(captured == outcome::cuda_failure, "a synchronous reduce during a capture is a tally::cuda_error");
  expect(end != cudaSuccess && graph == nullptr, "the capture was invalidated");
  if (graph) cudaGraphDestroy(graph);
  (void)cudaGetLastError();

  // Neither error is sticky: the stream and tally work as before.
  float after = tally::reduce(tally::par.on(stream), first, last, 0.0f);
  expect(after == 1000.0f, "tally works after the failed capture");

  cudaStreamDestroy(stream);
  std::printf("errors: %d unexpected outcome(s)\n", failures);
  return failures == 0 ? 0 : 1;
}
