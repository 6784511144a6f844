# Conan package only (conanfile.py installs this as share/tally/conan/tally-cuda.cmake and
# names it a build module): the tally-config.cmake that Conan's CMakeDeps generates
# includes it after creating tally::tally, which then gets what tally's own CMake package
# (cmake/tallyConfig.cmake.in) gives it: C++17 / CUDA C++17, CCCL and the CUDA toolkit's
# headers, found on this machine. The CUDA toolkit is a system requirement, not a Conan package.

find_package(CUDAToolkit REQUIRED)
if(NOT TARGET CCCL::CCCL)
  find_package(CCCL CONFIG REQUIRED
    HINTS
      "${CUDAToolkit_LIBRARY_DIR}/cmake"
      "${CUDAToolkit_TARGET_DIR}/lib64/cmake"
      "${CUDAToolkit_TARGET_DIR}/lib/cmake")
endif()

if(TARGET tally::tally)
  get_target_property(_tally_links tally::tally INTERFACE_LINK_LIBRARIES)
  if(NOT "CUDA::toolkit" IN_LIST _tally_links)  # once, however often find_package(tally) runs
    set_property(TARGET tally::tally APPEND PROPERTY INTERFACE_LINK_LIBRARIES CCCL::CCCL CUDA::toolkit)
    set_property(TARGET tally::tally APPEND PROPERTY INTERFACE_COMPILE_FEATURES cxx_std_17 cuda_std_17)
  endif()
  unset(_tally_links)
endif()
