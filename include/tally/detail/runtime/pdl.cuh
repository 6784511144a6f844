#pragma once
// Programmatic dependent launch (sm_90+): back-to-back kernels on one stream overlap
// the next kernel's launch with the end of the previous one.
//
// tally's kernels are launched with programmatic stream serialisation allowed, and
// each begins with `griddepcontrol.wait`, which returns once every grid it depends on
// (whatever ran before it on the stream, tally's or not) has completed and its memory
// is visible. So no input is read early and no scratch is touched early: the only thing
// that overlaps is the launch itself (about 1-2 µs of the ~2.5 µs between two
// back-to-back kernels on an H100). Right after the wait the kernel allows its own
// dependents to launch; they too wait for this grid to complete before they start.
// On older GPUs the launch attribute is not set and both instructions are skipped.

#include <tally/detail/config.cuh>

TALLY_NAMESPACE_BEGIN
namespace detail {

__device__ TALLY_FORCEINLINE void wait_for_prior_grids() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("griddepcontrol.wait;" ::: "memory");
  asm volatile("griddepcontrol.launch_dependents;" ::: "memory");
#endif
}

/// Launches `kernel` under `config` (grid, block, dynamic shared memory and stream; no
/// attributes of its own), allowing programmatic dependent launch where the architecture
/// has it.
template <class... Params, class... Args>
cudaError_t launch_kernel(cudaLaunchConfig_t config, int arch, void (*kernel)(Params...), Args&&... args) {
  cudaLaunchAttribute attribute{};
  attribute.id = cudaLaunchAttributeProgrammaticStreamSerialization;
  attribute.val.programmaticStreamSerializationAllowed = 1;
  config.attrs = &attribute;
  config.numAttrs = arch >= 90 ? 1 : 0;
  return cudaLaunchKernelEx(&config, kernel, std::forward<Args>(args)...);
}

/// Launches `kernel` on `stream`, allowing programmatic dependent launch where the
/// architecture has it.
template <class... Params, class... Args>
cudaError_t launch_kernel(void (*kernel)(Params...), int arch, dim3 grid, dim3 block, cudaStream_t stream,
                          Args&&... args) {
  cudaLaunchConfig_t config{};
  config.gridDim = grid;
  config.blockDim = block;
  config.dynamicSmemBytes = 0;
  config.stream = stream;
  return launch_kernel(config, arch, kernel, std::forward<Args>(args)...);
}

}  // namespace detail
TALLY_NAMESPACE_END
