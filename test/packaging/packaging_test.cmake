# One packaging test, run by CTest as `cmake -D... -P packaging_test.cmake` (see
# CMakeLists.txt here). Every step runs offline in WORK_DIR, which is emptied first.
#
#   STEP=find_package      install tally from the build tree TALLY_BUILD_DIR to
#                          WORK_DIR/prefix, check what was installed, then build
#                          consumer/ against it with find_package(tally CONFIG REQUIRED)
#   STEP=add_subdirectory  build consumer/ with add_subdirectory(<tally source>)
#   STEP=vcpkg_steps       run the vcpkg port's steps without vcpkg
#                          (packaging/vcpkg/test-port-steps.cmake) into WORK_DIR/vcpkg,
#                          then build consumer/ against its installed tree
#   STEP=conan             `conan create` of a copy of the recipe (conanfile.py,
#                          test_package/) with a private CONAN_HOME and no remotes;
#                          prints "tally-packaging: SKIP" (CTest: Skipped) without conan
#
# Variables: STEP, TALLY_SOURCE_DIR, WORK_DIR; and from tally's build: TALLY_BUILD_DIR,
# EXPECTED_VERSION (tally's project version), BUILD_TYPE, GENERATOR, MAKE_PROGRAM, CXX_COMPILER, CUDA_COMPILER, CUDA_HOST_COMPILER,
# CUDA_ARCHITECTURES (a list separated by commas).
# The consumer programs are run by separate CTest tests (<step>.run).

cmake_minimum_required(VERSION 3.25)

foreach(var IN ITEMS STEP TALLY_SOURCE_DIR WORK_DIR)
  if(NOT DEFINED ${var} OR "${${var}}" STREQUAL "")
    message(FATAL_ERROR "packaging_test.cmake: -D${var}=... is required")
  endif()
endforeach()
if(NOT BUILD_TYPE)
  set(BUILD_TYPE Release)
endif()
if(NOT GENERATOR)
  set(GENERATOR Ninja)
endif()
if(NOT CUDA_ARCHITECTURES)
  set(CUDA_ARCHITECTURES 90)
endif()
string(REPLACE "," ";" cuda_architectures "${CUDA_ARCHITECTURES}")

file(REMOVE_RECURSE "${WORK_DIR}")
file(MAKE_DIRECTORY "${WORK_DIR}")

# Runs a command; stops the test with its output when it fails.
function(run_step what)
  message(STATUS "== ${what}")
  execute_process(COMMAND ${ARGN}
                  WORKING_DIRECTORY "${WORK_DIR}"
                  RESULT_VARIABLE status
                  COMMAND_ECHO STDOUT)
  if(NOT status EQUAL 0)
    message(FATAL_ERROR "${what} failed (${status})")
  endif()
endfunction()

# The CMake arguments that make a consumer build use tally's compilers and generator.
set(toolchain_args
  -G "${GENERATOR}"
  "-DCMAKE_BUILD_TYPE=${BUILD_TYPE}"
  "-DCMAKE_CUDA_ARCHITECTURES=${cuda_architectures}"
  -DCMAKE_FIND_PACKAGE_NO_PACKAGE_REGISTRY=ON
  -DCMAKE_FIND_USE_PACKAGE_REGISTRY=OFF)
foreach(pair IN ITEMS MAKE_PROGRAM:CMAKE_MAKE_PROGRAM CXX_COMPILER:CMAKE_CXX_COMPILER
                      CUDA_COMPILER:CMAKE_CUDA_COMPILER CUDA_HOST_COMPILER:CMAKE_CUDA_HOST_COMPILER)
  string(REPLACE ":" ";" pair "${pair}")
  list(GET pair 0 from)
  list(GET pair 1 to)
  if(${from})
    list(APPEND toolchain_args "-D${to}=${${from}}")
  endif()
endforeach()

set(consumer_source "${CMAKE_CURRENT_LIST_DIR}/consumer")

# Configures and builds consumer/ in WORK_DIR/consumer with find_package(tally) from
# `prefix`, which must be where tally is found.
function(build_consumer_against prefix)
  run_step("configure the consumer with find_package(tally)"
    "${CMAKE_COMMAND}" -S "${consumer_source}" -B "${WORK_DIR}/consumer" ${toolchain_args}
    "-DCMAKE_PREFIX_PATH=${prefix}")
  file(STRINGS "${WORK_DIR}/consumer/CMakeCache.txt" tally_dir_line REGEX "^tally_DIR:")
  if(NOT tally_dir_line STREQUAL "tally_DIR:PATH=${prefix}/share/tally")
    message(FATAL_ERROR "the consumer found another tally: ${tally_dir_line}")
  endif()
  run_step("build the consumer" "${CMAKE_COMMAND}" --build "${WORK_DIR}/consumer" --config "${BUILD_TYPE}")
endfunction()

# ---------------------------------------------------------------------------------------
if(STEP STREQUAL "find_package")
  if(NOT TALLY_BUILD_DIR)
    message(FATAL_ERROR "STEP=find_package needs -DTALLY_BUILD_DIR=<tally's build tree>")
  endif()
  set(prefix "${WORK_DIR}/prefix")
  run_step("install tally to ${prefix}"
    "${CMAKE_COMMAND}" --install "${TALLY_BUILD_DIR}" --prefix "${prefix}" --config "${BUILD_TYPE}")

  # What was installed: every header of include/, the package files, nothing compiled.
  file(GLOB_RECURSE source_headers RELATIVE "${TALLY_SOURCE_DIR}/include" "${TALLY_SOURCE_DIR}/include/*")
  file(GLOB_RECURSE installed_headers RELATIVE "${prefix}/include" "${prefix}/include/*")
  list(SORT source_headers)
  list(SORT installed_headers)
  if(NOT source_headers STREQUAL installed_headers)
    set(missing ${source_headers})
    list(REMOVE_ITEM missing ${installed_headers})
    set(extra ${installed_headers})
    list(REMOVE_ITEM extra ${source_headers})
    message(FATAL_ERROR "installed include/ differs from the source's: not installed: [${missing}], extra: [${extra}]")
  endif()
  foreach(file IN ITEMS share/tally/tallyConfig.cmake share/tally/tallyConfigVersion.cmake
                        share/tally/tallyTargets.cmake include/tally/version.hpp)
    if(NOT EXISTS "${prefix}/${file}")
      message(FATAL_ERROR "not installed: ${file}")
    endif()
  endforeach()
  foreach(dir IN ITEMS lib lib64 bin)
    if(EXISTS "${prefix}/${dir}")
      message(FATAL_ERROR "a header-only install has ${dir}/")
    endif()
  endforeach()
  # The version file as find_package runs it: from a 32-bit project too (ARCH_INDEPENDENT).
  function(check_version_file requested expect_compatible)
    string(REPLACE "." ";" parts "${requested}")
    list(GET parts 0 PACKAGE_FIND_VERSION_MAJOR)
    list(GET parts 1 PACKAGE_FIND_VERSION_MINOR)
    set(PACKAGE_FIND_NAME tally)
    set(PACKAGE_FIND_VERSION "${requested}")
    set(PACKAGE_FIND_VERSION_COUNT 3)
    set(PACKAGE_FIND_VERSION_PATCH 0)
    set(CMAKE_SIZEOF_VOID_P 4)
    include("${prefix}/share/tally/tallyConfigVersion.cmake")
    if(PACKAGE_VERSION_UNSUITABLE)
      message(FATAL_ERROR "tallyConfigVersion.cmake: unsuitable for a 32-bit project (not ARCH_INDEPENDENT)")
    endif()
    if(NOT PACKAGE_VERSION STREQUAL EXPECTED_VERSION)
      message(FATAL_ERROR "tallyConfigVersion.cmake: version ${PACKAGE_VERSION}, expected ${EXPECTED_VERSION}")
    endif()
    if(NOT "${PACKAGE_VERSION_COMPATIBLE}" STREQUAL "${expect_compatible}")
      message(FATAL_ERROR "tallyConfigVersion.cmake: request ${requested} gives compatible=${PACKAGE_VERSION_COMPATIBLE}")
    endif()
  endfunction()
  if(EXPECTED_VERSION MATCHES "^([0-9]+)\\.([0-9]+)\\.([0-9]+)$")
    set(major "${CMAKE_MATCH_1}")
    set(minor "${CMAKE_MATCH_2}")
    math(EXPR next_major "${major} + 1")
    check_version_file("${major}.${minor}.0" TRUE)
    check_version_file("${next_major}.0.0" FALSE)
    if(major EQUAL 0 AND minor GREATER 0)  # 0.x: each minor version may break the API
      math(EXPR previous_minor "${minor} - 1")
      check_version_file("0.${previous_minor}.0" FALSE)
    elseif(major GREATER 0)
      math(EXPR previous_major "${major} - 1")
      check_version_file("${previous_major}.0.0" FALSE)
      check_version_file("${major}.0.0" TRUE)
    endif()
  else()
    message(FATAL_ERROR "EXPECTED_VERSION (MAJOR.MINOR.PATCH, from the tally build) is '${EXPECTED_VERSION}'")
  endif()
  file(GLOB package_files "${prefix}/share/tally/*.cmake")
  foreach(file IN LISTS package_files)
    file(READ "${file}" text)
    foreach(path IN ITEMS "${prefix}" "${TALLY_SOURCE_DIR}" "${TALLY_BUILD_DIR}")
      string(FIND "${text}" "${path}" at)
      if(NOT at EQUAL -1)
        message(FATAL_ERROR "${file} names the absolute path ${path}: the package is not relocatable")
      endif()
    endforeach()
  endforeach()

  build_consumer_against("${prefix}")

# ---------------------------------------------------------------------------------------
elseif(STEP STREQUAL "add_subdirectory")
  run_step("configure the consumer with add_subdirectory(tally)"
    "${CMAKE_COMMAND}" -S "${consumer_source}" -B "${WORK_DIR}/consumer" ${toolchain_args}
    "-DTALLY_CONSUMER_ADD_SUBDIRECTORY=${TALLY_SOURCE_DIR}")
  run_step("build the consumer" "${CMAKE_COMMAND}" --build "${WORK_DIR}/consumer" --config "${BUILD_TYPE}")

# ---------------------------------------------------------------------------------------
elseif(STEP STREQUAL "vcpkg_steps")
  set(port_steps_args "-DWORK_DIR=${WORK_DIR}/vcpkg" "-DGENERATOR=${GENERATOR}")
  foreach(var IN ITEMS MAKE_PROGRAM CXX_COMPILER CUDA_COMPILER CUDA_HOST_COMPILER)
    if(${var})
      list(APPEND port_steps_args "-D${var}=${${var}}")
    endif()
  endforeach()
  run_step("the vcpkg port's steps"
    "${CMAKE_COMMAND}" ${port_steps_args} -P "${TALLY_SOURCE_DIR}/packaging/vcpkg/test-port-steps.cmake")
  # As the vcpkg toolchain file does: the installed tree is a prefix to search.
  build_consumer_against("${WORK_DIR}/vcpkg/installed/x64-linux")

# ---------------------------------------------------------------------------------------
elseif(STEP STREQUAL "conan")
  find_program(conan_program conan NO_CACHE)
  if(NOT conan_program)
    message("tally-packaging: SKIP (conan is not on PATH; .ci/run installs it: python3 -m pip install conan)")
    return()
  endif()
  execute_process(COMMAND "${conan_program}" --version OUTPUT_VARIABLE conan_version OUTPUT_STRIP_TRAILING_WHITESPACE)
  message(STATUS "${conan_program}: ${conan_version}")
  if(NOT conan_version MATCHES "version 2\\.")
    message(FATAL_ERROR "the recipe needs Conan 2, found: ${conan_version}")
  endif()

  # A copy of what the recipe exports and its test_package, so that Conan writes nothing
  # into the source tree (test_package/build, CMakeUserPresets.json).
  set(recipe "${WORK_DIR}/recipe")
  file(MAKE_DIRECTORY "${recipe}")
  foreach(item IN ITEMS conanfile.py test_package include cmake LICENSE CMakeLists.txt)
    file(COPY "${TALLY_SOURCE_DIR}/${item}" DESTINATION "${recipe}")
  endforeach()

  # A private Conan home with the detected profile and no remotes: nothing is downloaded.
  set(ENV{CONAN_HOME} "${WORK_DIR}/conan-home")
  if(CUDA_COMPILER)
    set(ENV{CUDACXX} "${CUDA_COMPILER}")  # the test_package uses tally's nvcc
  endif()
  run_step("conan profile detect" "${conan_program}" profile detect --force)
  execute_process(COMMAND "${conan_program}" remote list --format=json
                  OUTPUT_VARIABLE remotes RESULT_VARIABLE status)
  if(NOT status EQUAL 0)
    message(FATAL_ERROR "conan remote list failed (${status})")
  endif()
  string(JSON remote_count LENGTH "${remotes}")
  set(remote_names "")
  if(remote_count GREATER 0)
    math(EXPR last "${remote_count} - 1")
    foreach(i RANGE ${last})
      string(JSON name GET "${remotes}" ${i} name)
      list(APPEND remote_names "${name}")
    endforeach()
  endif()
  foreach(remote IN LISTS remote_names)
    run_step("conan remote remove ${remote}" "${conan_program}" remote remove "${remote}")
  endforeach()

  string(REPLACE "," ";" conan_archs "${CUDA_ARCHITECTURES}")
  run_step("conan create"
    "${conan_program}" create "${recipe}"
      -s compiler.cppstd=17
      -s "build_type=${BUILD_TYPE}"
      -c "tools.cmake.cmaketoolchain:generator=${GENERATOR}"
      -c "user.tally:cuda_architectures=${conan_archs}")

  # The package: headers, licence and the CMake build module only.
  file(GLOB package_folders LIST_DIRECTORIES true "$ENV{CONAN_HOME}/p/b/tally*/p")
  list(LENGTH package_folders count)
  if(NOT count EQUAL 1)
    message(FATAL_ERROR "expected one tally package in the Conan cache, found: [${package_folders}]")
  endif()
  file(GLOB_RECURSE packaged LIST_DIRECTORIES false RELATIVE "${package_folders}" "${package_folders}/*")
  set(unexpected "")
  foreach(file IN LISTS packaged)
    if(NOT file MATCHES "^(include/tally/.+|licenses/LICENSE|share/tally/conan/tally-cuda\\.cmake|conaninfo\\.txt|conanmanifest\\.txt)$")
      list(APPEND unexpected "${file}")
    endif()
  endforeach()
  if(unexpected)
    message(FATAL_ERROR "unexpected files in the Conan package: ${unexpected}")
  endif()
  if(NOT EXISTS "${package_folders}/include/tally/tally.cuh")
    message(FATAL_ERROR "the Conan package has no include/tally/tally.cuh")
  endif()

else()
  message(FATAL_ERROR "packaging_test.cmake: unknown STEP '${STEP}'")
endif()

message(STATUS "== ${STEP}: done in ${WORK_DIR}")
