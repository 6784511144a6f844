# vcpkg overlay port for tally, a header-only CUDA C++ library:
#   vcpkg install tally --overlay-ports=packaging/vcpkg/ports
# (or list "tally" in your vcpkg.json and pass the same --overlay-ports).
#
# Source: this port builds the tally checkout it lives in (packaging/vcpkg/ports/tally is
# four levels below the repository root), so it always matches the checkout. vcpkg
# identifies a build by the port's files, not by that source: after changing tally,
# `vcpkg remove tally` (and, with binary caching on, install with --no-binarycaching) so
# that the next install rebuilds it.
#
# For a registry port, or a copy of this port outside the repository, replace the
# SOURCE_PATH block below with a download of the release:
#   vcpkg_from_github(
#     OUT_SOURCE_PATH SOURCE_PATH
#     REPO <owner>/tally
#     REF "v${VERSION}"
#     SHA512 <SHA-512 of the release tarball: vcpkg prints it when this is 0>
#     HEAD_REF main)
#
# tally's CI runs these steps without vcpkg: packaging/vcpkg/test-port-steps.cmake runs
# this file with stand-ins for the vcpkg_* functions (CTest test packaging.vcpkg_steps).

get_filename_component(SOURCE_PATH "${CMAKE_CURRENT_LIST_DIR}/../../../.." ABSOLUTE)
if(NOT EXISTS "${SOURCE_PATH}/include/tally/version.hpp")
  message(FATAL_ERROR "The tally port builds the tally checkout it lives in, and ${SOURCE_PATH} is not one. "
                      "Outside tally's repository use vcpkg_from_github (see the top of this file).")
endif()

# Header-only: one (release) configuration installs everything.
set(VCPKG_BUILD_TYPE release)

# The cuda port makes the CUDA toolkit available (depending on the vcpkg version it checks
# the system's toolkit or provides one) and brings vcpkg_find_cuda(), which finds nvcc:
# tally's CMake project enables the CUDA language, although it compiles nothing here.
vcpkg_find_cuda(OUT_CUDA_TOOLKIT_ROOT cuda_toolkit_root)

vcpkg_cmake_configure(
  SOURCE_PATH "${SOURCE_PATH}"
  OPTIONS
    "-DCMAKE_CUDA_COMPILER=${NVCC}"
    "-DCUDAToolkit_ROOT=${cuda_toolkit_root}"
    -DTALLY_INSTALL=ON
    -DTALLY_BUILD_TESTS=OFF
    -DTALLY_BUILD_BENCHMARKS=OFF
    -DTALLY_BUILD_TOOLS=OFF
    -DTALLY_BUILD_EXAMPLES=OFF)

vcpkg_cmake_install()

vcpkg_cmake_config_fixup(PACKAGE_NAME tally CONFIG_PATH share/tally)

file(REMOVE_RECURSE
  "${CURRENT_PACKAGES_DIR}/debug/include"
  "${CURRENT_PACKAGES_DIR}/debug/share"
  "${CURRENT_PACKAGES_DIR}/share/doc")

file(INSTALL "${CMAKE_CURRENT_LIST_DIR}/usage" DESTINATION "${CURRENT_PACKAGES_DIR}/share/${PORT}")
vcpkg_install_copyright(FILE_LIST "${SOURCE_PATH}/LICENSE")
