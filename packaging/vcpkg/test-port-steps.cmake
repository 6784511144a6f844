# Runs the vcpkg port (ports/tally/portfile.cmake) without vcpkg, which cannot be fetched
# in tally's CI: the portfile itself is included, with small stand-ins for the vcpkg_*
# functions it calls that do the same CMake steps (configure with tests, benchmarks, tools
# and examples off; build the install target; fix up and check the package files; install
# usage and copyright). Then it checks the package the way vcpkg's post-build checks do
# and copies it into an installed tree, as `vcpkg install` does:
#
#   cmake -DWORK_DIR=/tmp/tally-vcpkg [-DGENERATOR=Ninja] [-DCUDA_COMPILER=.../nvcc]
#         [-DCXX_COMPILER=...] [-DMAKE_PROGRAM=...] -P packaging/vcpkg/test-port-steps.cmake
#
# Result: WORK_DIR/installed/x64-linux, a prefix for CMAKE_PREFIX_PATH (what the vcpkg
# toolchain file adds), with share/tally/{tallyConfig.cmake,usage,copyright}.
# CTest test packaging.vcpkg_steps (test/packaging) runs this, then builds
# test/packaging/consumer against that tree as the port's `usage` file says.
#
# The stand-ins do what tally's port needs, not everything vcpkg does (no debug build of
# a release-only port, no binary caching, no toolchain file).

cmake_minimum_required(VERSION 3.25)

if(NOT WORK_DIR)
  message(FATAL_ERROR "test-port-steps.cmake: -DWORK_DIR=<an empty or disposable folder> is required")
endif()
if(NOT GENERATOR)
  set(GENERATOR Ninja)  # vcpkg_cmake_configure's default
endif()

set(PORT tally)
set(CURRENT_PORT_DIR "${CMAKE_CURRENT_LIST_DIR}/ports/${PORT}")
set(TARGET_TRIPLET x64-linux)
set(VCPKG_TARGET_IS_LINUX ON)
set(VCPKG_TARGET_ARCHITECTURE x64)
set(VCPKG_LIBRARY_LINKAGE static)
set(CURRENT_BUILDTREES_DIR "${WORK_DIR}/buildtrees/${PORT}")
set(CURRENT_PACKAGES_DIR "${WORK_DIR}/packages/${PORT}_${TARGET_TRIPLET}")
set(CURRENT_INSTALLED_DIR "${WORK_DIR}/installed/${TARGET_TRIPLET}")
file(REMOVE_RECURSE "${CURRENT_BUILDTREES_DIR}" "${CURRENT_PACKAGES_DIR}" "${CURRENT_INSTALLED_DIR}")
file(MAKE_DIRECTORY "${CURRENT_BUILDTREES_DIR}" "${CURRENT_PACKAGES_DIR}")

# --- the manifest ----------------------------------------------------------------------
file(READ "${CURRENT_PORT_DIR}/vcpkg.json" manifest)
string(JSON manifest_name GET "${manifest}" name)
string(JSON VERSION GET "${manifest}" version)
if(NOT manifest_name STREQUAL PORT)
  message(FATAL_ERROR "vcpkg.json: name is '${manifest_name}', not '${PORT}'")
endif()
get_filename_component(repo_root "${CMAKE_CURRENT_LIST_DIR}/../.." ABSOLUTE)
file(STRINGS "${repo_root}/include/tally/version.hpp" version_defines
     REGEX "^#define TALLY_VERSION_(MAJOR|MINOR|PATCH) +[0-9]+ *$")
set(header_version "")
foreach(part IN ITEMS MAJOR MINOR PATCH)
  string(REGEX MATCH "TALLY_VERSION_${part} +([0-9]+)" _ "${version_defines}")
  list(APPEND header_version "${CMAKE_MATCH_1}")
endforeach()
list(JOIN header_version "." header_version)
if(NOT VERSION STREQUAL header_version)
  message(FATAL_ERROR "vcpkg.json has version ${VERSION}, include/tally/version.hpp has ${header_version}")
endif()
string(JSON dependency_count LENGTH "${manifest}" dependencies)
set(dependencies "")
math(EXPR last "${dependency_count} - 1")
foreach(i RANGE ${last})
  string(JSON type TYPE "${manifest}" dependencies ${i})
  if(type STREQUAL "OBJECT")
    string(JSON name GET "${manifest}" dependencies ${i} name)
  else()
    string(JSON name GET "${manifest}" dependencies ${i})
  endif()
  list(APPEND dependencies "${name}")
endforeach()
foreach(needed IN ITEMS cuda vcpkg-cmake vcpkg-cmake-config)
  if(NOT needed IN_LIST dependencies)
    message(FATAL_ERROR "vcpkg.json does not depend on ${needed} (dependencies: ${dependencies})")
  endif()
endforeach()
message(STATUS "port ${PORT} ${VERSION}, dependencies: ${dependencies}")

# --- stand-ins for the vcpkg functions the portfile calls --------------------------------
function(run_step what)
  message(STATUS "== ${what}")
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE status COMMAND_ECHO STDOUT)
  if(NOT status EQUAL 0)
    message(FATAL_ERROR "${what} failed (${status})")
  endif()
endfunction()

function(vcpkg_from_github)
  message(FATAL_ERROR "test-port-steps.cmake runs the port's local-source variant; vcpkg_from_github needs vcpkg and the network")
endfunction()

# The cuda port's helper: nvcc from CUDA_COMPILER, CUDA_PATH, CUDA_HOME, PATH or /usr/local/cuda.
function(vcpkg_find_cuda)
  cmake_parse_arguments(PARSE_ARGV 0 arg "" "OUT_CUDA_TOOLKIT_ROOT;OUT_CUDA_VERSION" "")
  if(CUDA_COMPILER)
    set(nvcc "${CUDA_COMPILER}")
  else()
    find_program(nvcc NAMES nvcc HINTS ENV CUDA_PATH ENV CUDA_HOME PATHS /usr/local/cuda
                 PATH_SUFFIXES bin NO_CACHE)
  endif()
  if(NOT nvcc)
    message(FATAL_ERROR "vcpkg_find_cuda: no nvcc")
  endif()
  execute_process(COMMAND "${nvcc}" --version OUTPUT_VARIABLE out RESULT_VARIABLE status)
  if(NOT status EQUAL 0 OR NOT out MATCHES "V([0-9]+)\\.([0-9]+)\\.[0-9]+")
    message(FATAL_ERROR "vcpkg_find_cuda: ${nvcc} --version failed")
  endif()
  get_filename_component(root "${nvcc}" DIRECTORY)
  get_filename_component(root "${root}" DIRECTORY)
  set(NVCC "${nvcc}" PARENT_SCOPE)
  set(${arg_OUT_CUDA_TOOLKIT_ROOT} "${root}" PARENT_SCOPE)
  if(arg_OUT_CUDA_VERSION)
    set(${arg_OUT_CUDA_VERSION} "${CMAKE_MATCH_1}.${CMAKE_MATCH_2}" PARENT_SCOPE)
  endif()
endfunction()

# Configures SOURCE_PATH for release (and debug unless VCPKG_BUILD_TYPE is release) into
# the buildtrees, installing into the package folder, with vcpkg's standard options.
function(vcpkg_cmake_configure)
  cmake_parse_arguments(PARSE_ARGV 0 arg "" "SOURCE_PATH" "OPTIONS;OPTIONS_RELEASE;OPTIONS_DEBUG")
  set(configs rel)
  if(NOT VCPKG_BUILD_TYPE STREQUAL "release")
    list(APPEND configs dbg)
  endif()
  set(common
    -G "${GENERATOR}"
    -DFETCHCONTENT_FULLY_DISCONNECTED=ON
    -DCMAKE_EXPORT_NO_PACKAGE_REGISTRY=ON
    -DCMAKE_FIND_PACKAGE_NO_PACKAGE_REGISTRY=ON
    -DCMAKE_INSTALL_LIBDIR:STRING=lib
    -DCMAKE_INSTALL_BINDIR:STRING=bin
    "-DCMAKE_PREFIX_PATH=${CURRENT_INSTALLED_DIR}")
  if(CXX_COMPILER)
    list(APPEND common "-DCMAKE_CXX_COMPILER=${CXX_COMPILER}")
  endif()
  if(CUDA_HOST_COMPILER)
    list(APPEND common "-DCMAKE_CUDA_HOST_COMPILER=${CUDA_HOST_COMPILER}")
  endif()
  if(MAKE_PROGRAM)
    list(APPEND common "-DCMAKE_MAKE_PROGRAM=${MAKE_PROGRAM}")
  endif()
  set(build_dirs "")
  foreach(config IN LISTS configs)
    set(build_dir "${CURRENT_BUILDTREES_DIR}/${TARGET_TRIPLET}-${config}")
    if(config STREQUAL "rel")
      set(specific -DCMAKE_BUILD_TYPE=Release "-DCMAKE_INSTALL_PREFIX=${CURRENT_PACKAGES_DIR}" ${arg_OPTIONS_RELEASE})
    else()
      set(specific -DCMAKE_BUILD_TYPE=Debug "-DCMAKE_INSTALL_PREFIX=${CURRENT_PACKAGES_DIR}/debug" ${arg_OPTIONS_DEBUG})
    endif()
    run_step("vcpkg_cmake_configure (${config})"
      "${CMAKE_COMMAND}" -S "${arg_SOURCE_PATH}" -B "${build_dir}" ${common} ${arg_OPTIONS} ${specific})
    list(APPEND build_dirs "${build_dir}")
  endforeach()
  set_property(GLOBAL PROPERTY tally_vcpkg_build_dirs "${build_dirs}")
endfunction()

function(vcpkg_cmake_install)
  get_property(build_dirs GLOBAL PROPERTY tally_vcpkg_build_dirs)
  if(NOT build_dirs)
    message(FATAL_ERROR "vcpkg_cmake_install before vcpkg_cmake_configure")
  endif()
  foreach(build_dir IN LISTS build_dirs)
    run_step("vcpkg_cmake_install (${build_dir})" "${CMAKE_COMMAND}" --build "${build_dir}" --target install)
  endforeach()
endfunction()

# Moves CONFIG_PATH to share/PACKAGE_NAME (debug: keeps only the *-debug.cmake files) and
# requires the package files to be relocatable: vcpkg rewrites absolute paths, tally's
# files must not have any.
function(vcpkg_cmake_config_fixup)
  cmake_parse_arguments(PARSE_ARGV 0 arg "" "PACKAGE_NAME;CONFIG_PATH" "")
  if(NOT arg_PACKAGE_NAME)
    set(arg_PACKAGE_NAME "${PORT}")
  endif()
  if(NOT arg_CONFIG_PATH)
    set(arg_CONFIG_PATH "share/${arg_PACKAGE_NAME}")
  endif()
  set(release_dir "${CURRENT_PACKAGES_DIR}/${arg_CONFIG_PATH}")
  set(target_dir "${CURRENT_PACKAGES_DIR}/share/${arg_PACKAGE_NAME}")
  if(NOT IS_DIRECTORY "${release_dir}")
    message(FATAL_ERROR "vcpkg_cmake_config_fixup: '${release_dir}' does not exist")
  endif()
  if(NOT release_dir STREQUAL target_dir)
    file(COPY "${release_dir}/" DESTINATION "${target_dir}")
    file(REMOVE_RECURSE "${release_dir}")
  endif()
  set(debug_dir "${CURRENT_PACKAGES_DIR}/debug/${arg_CONFIG_PATH}")
  if(IS_DIRECTORY "${debug_dir}")
    file(GLOB debug_files "${debug_dir}/*-debug.cmake")
    if(debug_files)
      file(COPY ${debug_files} DESTINATION "${target_dir}")
    endif()
    file(REMOVE_RECURSE "${debug_dir}")
  endif()
  file(GLOB package_files "${target_dir}/*.cmake")
  foreach(file IN LISTS package_files)
    file(READ "${file}" text)
    foreach(path IN ITEMS "${CURRENT_PACKAGES_DIR}" "${CURRENT_BUILDTREES_DIR}" "${repo_root}")
      string(FIND "${text}" "${path}" at)
      if(NOT at EQUAL -1)
        message(FATAL_ERROR "vcpkg_cmake_config_fixup: ${file} names the absolute path ${path}")
      endif()
    endforeach()
  endforeach()
endfunction()

function(vcpkg_install_copyright)
  cmake_parse_arguments(PARSE_ARGV 0 arg "" "" "FILE_LIST")
  set(text "")
  foreach(file IN LISTS arg_FILE_LIST)
    file(READ "${file}" part)
    string(APPEND text "${part}")
  endforeach()
  file(WRITE "${CURRENT_PACKAGES_DIR}/share/${PORT}/copyright" "${text}")
endfunction()

# --- the port ----------------------------------------------------------------------------
message(STATUS "== running ${CURRENT_PORT_DIR}/portfile.cmake")
include("${CURRENT_PORT_DIR}/portfile.cmake")

# --- vcpkg's post-build checks that apply to a header-only port --------------------------
set(share "${CURRENT_PACKAGES_DIR}/share/${PORT}")
foreach(file IN ITEMS copyright usage tallyConfig.cmake tallyConfigVersion.cmake tallyTargets.cmake)
  if(NOT EXISTS "${share}/${file}")
    message(FATAL_ERROR "the package has no share/${PORT}/${file}")
  endif()
endforeach()
if(NOT EXISTS "${CURRENT_PACKAGES_DIR}/include/tally/tally.cuh")
  message(FATAL_ERROR "the package has no include/tally/tally.cuh")
endif()
foreach(dir IN ITEMS debug/include debug/share lib bin debug/lib debug/bin)
  if(EXISTS "${CURRENT_PACKAGES_DIR}/${dir}")
    message(FATAL_ERROR "the package has ${dir}/ (header-only: headers and share/ only)")
  endif()
endforeach()
file(GLOB_RECURSE empty_check LIST_DIRECTORIES true "${CURRENT_PACKAGES_DIR}/*")
foreach(entry IN LISTS empty_check)
  if(IS_DIRECTORY "${entry}")
    file(GLOB children "${entry}/*")
    if(NOT children)
      message(FATAL_ERROR "the package has an empty directory: ${entry}")
    endif()
  endif()
endforeach()
file(READ "${share}/usage" usage)
foreach(needed IN ITEMS "find_package(tally CONFIG REQUIRED)" "tally::tally")
  string(FIND "${usage}" "${needed}" at)
  if(at EQUAL -1)
    message(FATAL_ERROR "share/${PORT}/usage does not say ${needed}")
  endif()
endforeach()

# --- `vcpkg install`: the package joins the installed tree; the package folder goes ------
file(COPY "${CURRENT_PACKAGES_DIR}/" DESTINATION "${CURRENT_INSTALLED_DIR}")
file(REMOVE_RECURSE "${CURRENT_PACKAGES_DIR}")
message(STATUS "== tally ${VERSION} installed in ${CURRENT_INSTALLED_DIR}")
