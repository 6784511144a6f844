"""Conan 2 recipe for tally, a header-only CUDA C++ library.

    conan create .            # package it into the local cache and run test_package/
    # then, in a consumer's conanfile: requires = "tally/<version>"
    #   find_package(tally CONFIG REQUIRED)
    #   target_link_libraries(my_app PRIVATE tally::tally)

System requirement: the CUDA Toolkit (>= 12, with CCCL: Thrust, CUB, libcu++) is not a
Conan package; it must be installed on the machine that builds the consumer, where
CMake's FindCUDAToolkit finds it (nvcc on PATH, or CUDAToolkit_ROOT / CUDACXX). The
package holds headers only (no settings in its id, no libraries, no binaries); the
generated tally::tally target adds CCCL and the CUDA runtime through a small CMake build
module (share/tally/conan/tally-cuda.cmake) that finds the toolkit, just as tally's own
CMake package does. Set CMAKE_CUDA_ARCHITECTURES in your project: tally sets none.
"""

import os
import re

from conan import ConanFile
from conan.errors import ConanException
from conan.tools.build import check_min_cppstd
from conan.tools.files import copy, load


class TallyConan(ConanFile):
    name = "tally"
    description = ("Header-only CUDA C++ parallel algorithms in the style of Thrust and CUB: "
                   "reduce, max_element / min_element / minmax_element, top_k and copy_if in one "
                   "launch each, and the device atomics they are built from, with atomic, "
                   "shared-memory and warp-shuffle backends")
    license = "Apache-2.0"
    topics = ("cuda", "gpu", "parallel-algorithms", "reduce", "argmax", "top-k", "stream-compaction",
              "atomics", "header-only")
    package_type = "header-library"
    settings = "os", "arch", "compiler", "build_type"
    exports_sources = (
        "include/*",
        "cmake/conan/*",
        "LICENSE",
    )
    no_copy_source = True

    def set_version(self):
        # The one version of truth: include/tally/version.hpp.
        header = load(self, os.path.join(self.recipe_folder, "include", "tally", "version.hpp"))
        parts = []
        for part in ("MAJOR", "MINOR", "PATCH"):
            match = re.search(r"^#define TALLY_VERSION_%s +(\d+) *$" % part, header, re.MULTILINE)
            if not match:
                raise ConanException(
                    "include/tally/version.hpp has no '#define TALLY_VERSION_%s <number>'" % part)
            parts.append(match.group(1))
        self.version = ".".join(parts)

    def layout(self):
        # Headers straight from the source folder (also for `conan editable add .`).
        self.folders.source = "."
        self.cpp.source.includedirs = ["include"]

    def validate(self):
        if self.settings.get_safe("compiler.cppstd"):
            check_min_cppstd(self, 17)

    def package_id(self):
        # Header-only: one package for every configuration.
        self.info.clear()

    def package(self):
        copy(self, "LICENSE", self.source_folder, os.path.join(self.package_folder, "licenses"))
        copy(self, "*", os.path.join(self.source_folder, "include"), os.path.join(self.package_folder, "include"))
        copy(self, "tally-cuda.cmake", os.path.join(self.source_folder, "cmake", "conan"),
             os.path.join(self.package_folder, "share", "tally", "conan"))

    def package_info(self):
        self.cpp_info.bindirs = []
        self.cpp_info.libdirs = []
        self.cpp_info.includedirs = ["include"]
        self.cpp_info.set_property("cmake_file_name", "tally")
        self.cpp_info.set_property("cmake_target_name", "tally::tally")
        self.cpp_info.set_property("cmake_build_modules",
                                   [os.path.join("share", "tally", "conan", "tally-cuda.cmake")])
