# The CUDA architectures of tally's own build (tests, benchmarks, tool) when nobody chose
# them. Included by the top-level CMakeLists.txt only when tally is the top-level project:
# a project that adds tally with add_subdirectory() or find_package() keeps its own.
#
# Order: -DCMAKE_CUDA_ARCHITECTURES=... (or a preset's cache variable) wins; then the
# CUDAARCHS environment variable, which CMake itself turns into CMAKE_CUDA_ARCHITECTURES;
# then `native` when nvidia-smi lists a GPU (CMake compiles for the GPUs it finds); then
# TALLY_DEFAULT_CUDA_ARCHITECTURES, for a machine without a GPU (CI, a login node):
# sm_90 only by default, the GPU the tuning tables were measured on; set CUDAARCHS (e.g.
# `CUDAARCHS="80;89;90;100" cmake --preset default`) to build for others.

set(TALLY_DEFAULT_CUDA_ARCHITECTURES "90" CACHE STRING
    "CUDA architectures of tally's own build on a machine without a GPU (when neither CMAKE_CUDA_ARCHITECTURES nor CUDAARCHS is set)")

function(tally_default_cuda_architectures)
  if(DEFINED CMAKE_CUDA_ARCHITECTURES OR DEFINED ENV{CUDAARCHS})
    return()
  endif()
  set(chosen "${TALLY_DEFAULT_CUDA_ARCHITECTURES}")
  set(why "no GPU found (nvidia-smi)")
  find_program(TALLY_NVIDIA_SMI nvidia-smi)
  mark_as_advanced(TALLY_NVIDIA_SMI)
  if(TALLY_NVIDIA_SMI)
    execute_process(COMMAND "${TALLY_NVIDIA_SMI}" --query-gpu=compute_cap --format=csv,noheader
                    RESULT_VARIABLE status OUTPUT_VARIABLE caps ERROR_QUIET TIMEOUT 20)
    if(status EQUAL 0 AND caps MATCHES "[0-9]+\\.[0-9]+")
      string(STRIP "${caps}" caps)
      string(REPLACE "\n" ", " caps "${caps}")
      set(chosen native)
      set(why "the GPUs of this machine (compute capability ${caps})")
    endif()
  endif()
  set(CMAKE_CUDA_ARCHITECTURES "${chosen}" CACHE STRING "CUDA architectures to build tally's tests, benchmarks and tool for")
  message(STATUS "tally: CUDA architectures ${chosen}: ${why}; set CUDAARCHS or -DCMAKE_CUDA_ARCHITECTURES to choose")
endfunction()
