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
  # Remembered for tally_ptx_without_gpu(): these architectures were a default, not a choice.
  if(chosen STREQUAL "native")
    set(TALLY_ARCHITECTURES_WITHOUT_GPU "" CACHE INTERNAL "")
  else()
    set(TALLY_ARCHITECTURES_WITHOUT_GPU "${chosen}" CACHE INTERNAL "")
  endif()
  message(STATUS "tally: CUDA architectures ${chosen}: ${why}; set CUDAARCHS or -DCMAKE_CUDA_ARCHITECTURES to choose")
endfunction()

# GPU tests and benchmarks cannot run on a machine without a GPU, and ptxas (PTX to the
# GPU's machine code) was 60% of a top_k test file's compile time on the 2-core CI
# machine (test_top_k_wide: cicc 67 s, ptxas 124 s of 208 s). So where the configure
# found no GPU and nobody chose the architectures, TALLY_GPU_TARGETS_AS_PTX (default
# then ON) compiles their device code to PTX only ("90-virtual"): every template is
# still instantiated and compiled by cicc, and on a GPU the driver would JIT-compile the
# PTX at the first launch (slowly: reconfigure with CUDAARCHS set for a build that runs).
# The examples and the tool too (they cannot run there either). Everything of a build with a GPU or chosen architectures gets the GPU's code as
# before: there ptxas sees every kernel of the library (CI: scripts/ci-compat.sh's archs
# step, the examples for sm_80, sm_89 and sm_100; the GPU machine: sm_90, every target).
# For the same reason their PTX is not optimized (`-Xcicc -O0`): NVVM's optimizer was 115
# of test_top_k_misc's 179 s on that machine (cicc 132 s -> 16 s; 62 s in all), and the
# front end, which instantiates every template and reports every error, runs as before.
# Their directories (test/, benchmarks/, examples/) then also compile host code at -O0
# (tally_host_level_without_gpu): gcc was then half of what was left (test_top_k_misc 53 s -> 36 s).

# Whether the GPU tests, benchmarks and examples are compiled as above (the TALLY_GPU_TARGETS_AS_PTX
# option, defined on first use), into `out`.
function(tally_gpu_targets_as_ptx out)
  set(default OFF)
  if(TALLY_ARCHITECTURES_WITHOUT_GPU AND
     "${CMAKE_CUDA_ARCHITECTURES}" STREQUAL "${TALLY_ARCHITECTURES_WITHOUT_GPU}")
    set(default ON)
  endif()
  option(TALLY_GPU_TARGETS_AS_PTX
         "GPU tests, benchmarks, examples and the tool as unoptimized PTX only, host code at -O0 (default: ON where the configure found no GPU and no architectures were chosen)"
         ${default})
  set(${out} ${TALLY_GPU_TARGETS_AS_PTX} PARENT_SCOPE)
endfunction()

# Where tally_gpu_targets_as_ptx says so (no GPU, no architectures chosen), sets the host
# optimization level of the calling directory's CUDA files to `level` (nvcc's -O is the
# host compiler's; a second -O on a target made nvcc warn at every file); else leaves it.
macro(tally_host_level_without_gpu level)
  tally_gpu_targets_as_ptx(tally_level_as_ptx)
  if(tally_level_as_ptx)
    foreach(config RELEASE RELWITHDEBINFO MINSIZEREL)
      string(REGEX REPLACE "(^| )-O[0-9s]( |$)" "\\1${level}\\2" CMAKE_CUDA_FLAGS_${config}
             "${CMAKE_CUDA_FLAGS_${config}}")
    endforeach()
  endif()
endmacro()

# tally_ptx_without_gpu(targets...): the targets as above (the tool's ptxas was 27 of
# checks_top_k_types.cu's 91 s on the CI machine, cicc 30, gcc 26; its PTX was optimized
# until 2026-12-01).
function(tally_ptx_without_gpu)
  tally_gpu_targets_as_ptx(as_ptx)
  if(NOT as_ptx)
    return()
  endif()
  set(virtual "")
  foreach(arch IN LISTS CMAKE_CUDA_ARCHITECTURES)
    string(REGEX REPLACE "-(real|virtual)$" "" arch "${arch}")
    list(APPEND virtual "${arch}-virtual")
  endforeach()
  list(REMOVE_DUPLICATES virtual)
  foreach(target IN LISTS ARGN)
    set_property(TARGET ${target} PROPERTY CUDA_ARCHITECTURES ${virtual})
    target_compile_options(${target} PRIVATE "$<$<COMPILE_LANGUAGE:CUDA>:SHELL:-Xcicc -O0>")
  endforeach()
endfunction()
