#!/usr/bin/env bash
# CI's compatibility builds, after the README's test command (.ci/run calls this):
#   archs    seven examples (every algorithm, every backend forced in
#            policies_and_backends.cu, the atomics) compiled for sm_80, sm_89 and sm_100
#            (sm_90: the main build) with the toolkit's nvcc: every architecture's tuning
#            rules and kernels must compile.
#   nvcc135  nvcc 13.5 (PyPI nvidia-cuda-nvcc and its parts, 13.5.37) with CCCL 3.5 (PyPI
#            nvidia-cuda-cccl 13.3.5.0.6): the host tests built and run, GPU_SUBSET built
#            (as PTX: they cannot run here) and the top_k example built (the most
#            templates; the other examples were dropped for CI's 30 minutes).
#   cccl35   (not run by default) CCCL 3.5 with the toolkit's nvcc: the host tests built
#            and run, and GPU_SUBSET built. Dropped from CI's default for its 30 minutes
#            (208 s of 2432 on 2026-11-30): nvcc135 builds the same against CCCL 3.5, and
#            the GPU machine builds and runs everything with the toolkit's nvcc against
#            CCCL 3.5 (scripts/gpu-check.sh --cccl-dir).
# The wheels are downloaded once into .ci-cache/ (ignored by git); nothing is installed.
#
# usage: scripts/ci-compat.sh [archs] [nvcc135] [cccl35]   (default: archs nvcc135)
# environment: JOBS (default nproc), CI_COMPAT_DIR (default build/compat)
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."
root=$(pwd)
jobs=${JOBS:-$(nproc)}
out=${CI_COMPAT_DIR:-$root/build/compat}
cache=$root/.ci-cache
steps=("$@")
((${#steps[@]})) || steps=(archs nvcc135)

cccl_wheel=nvidia-cuda-cccl==13.3.5.0.6
nvcc_version=13.5.37
# GPU tests built against CCCL 3.5: the ones that touch CCCL's interfaces most (function
# objects and iterators, memory resources, CUB as the reference); the nvcc135 step's
# top_k example compiles the algorithm with the most templates against CCCL 3.5 too.
# test_extrema_iterators: Thrust's reverse_iterator over device_ptr, which CCCL 3.5's
# contiguous-iterator trait cannot take (detail/type_traits.cuh; found on the H100 run).
GPU_SUBSET=(test_cccl_interop test_memory_resource test_extrema_iterators)

fetch() {  # wheel spec..., into $cache/<name>: downloaded and unpacked once
  local dir=$1
  shift
  if [[ -f "$cache/$dir/.done" ]]; then return; fi
  rm -rf "${cache:?}/$dir" && mkdir -p "$cache/$dir"
  python3 -m pip download --quiet --no-deps --only-binary=:all: -d "$cache/$dir" "$@"
  (cd "$cache/$dir" && for w in *.whl; do python3 -m zipfile -e "$w" . ; done)
  touch "$cache/$dir/.done"
}

configure_and_build() {  # build dir, then cmake arguments...; builds the targets in $targets
  local dir=$1
  shift
  cmake -S "$root" -B "$dir" -G Ninja -DCMAKE_BUILD_TYPE=Release "$@" >"$dir.configure.log" 2>&1 ||
    { cat "$dir.configure.log"; return 1; }
  grep -E "CCCL|CUDA architectures|compiler identification" "$dir.configure.log" || true
  cmake --build "$dir" --parallel "$jobs" --target "${targets[@]}"
}

start=$(date +%s)
mkdir -p "$out"
for step in "${steps[@]}"; do
  t0=$(date +%s)
  case "$step" in
    archs)
      # sm_90 is the main build's; the examples that instantiate every algorithm's kernels
      # (every backend forced in policies_and_backends) and the atomics, not the ones that
      # call the same kernels another way (streams, errors, iterators, migrating): CI's
      # 30 minutes.
      echo "== compat: the examples for sm_80, sm_89, sm_100 (nvcc $(nvcc --version | sed -n 's/.*release \([0-9.]*\).*/\1/p'))"
      targets=(tally_example_reduce_basics tally_example_policies_and_backends tally_example_custom_operator
               tally_example_atomics tally_example_top_k tally_example_copy_if tally_example_rows)
      configure_and_build "$out/archs" -DCMAKE_CUDA_ARCHITECTURES="80;89;100" \
        -DTALLY_BUILD_TESTS=OFF -DTALLY_BUILD_BENCHMARKS=OFF -DTALLY_BUILD_TOOLS=OFF -DTALLY_BUILD_EXAMPLES=ON
      # Each object was compiled for all three: __CUDA_ARCH_LIST__ names them in tally's
      # versioned namespace (detail/config.cuh).
      obj=$(find "$out/archs" -name 'top_k.cu.o' | head -n 1)
      # (The symbols are read first: `nm | grep -q` fails under pipefail when grep stops early.)
      symbols=$(nm -C "$obj")
      grep -q "tally::v[0-9_]*_SM_800_890_1000" <<<"$symbols" ||
        { echo "ci-compat.sh: $obj was not compiled for 80, 89 and 100" >&2; exit 1; }
      ;;
    cccl35 | nvcc135)
      fetch cccl35 "$cccl_wheel"
      cccl_dir=$cache/cccl35/nvidia/cu13/cccl/lib/cmake/cccl
      # The wheel's CMake package looks for its headers in cccl/include[/cccl], but the
      # wheel puts them in include/cccl beside it.
      [[ -e "$cache/cccl35/nvidia/cu13/cccl/include" ]] || ln -s ../include "$cache/cccl35/nvidia/cu13/cccl/include"
      compiler=()
      if [[ $step == nvcc135 ]]; then
        fetch nvcc135 "nvidia-cuda-nvcc==$nvcc_version" "nvidia-cuda-runtime==$nvcc_version" \
          "nvidia-cuda-crt==$nvcc_version" "nvidia-nvvm==$nvcc_version"
        # The nvcc wheel expects CCCL beside its headers (nvcc.profile: include/cccl).
        toolkit=$cache/nvcc135/nvidia/cu13
        [[ -e "$toolkit/include/cccl" ]] || ln -s "$cache/cccl35/nvidia/cu13/include/cccl" "$toolkit/include/cccl"
        chmod +x "$toolkit"/bin/* "$toolkit"/nvvm/bin/* 2>/dev/null || true
        compiler=(-DCMAKE_CUDA_COMPILER="$toolkit/bin/nvcc" -DCUDAToolkit_ROOT="$toolkit")
        echo "== compat: nvcc $("$toolkit/bin/nvcc" --version | sed -n 's/.*release \([0-9.]*\).*/\1/p') with CCCL 3.5"
      else
        echo "== compat: CCCL 3.5 with the toolkit's nvcc"
      fi
      if [[ $step == nvcc135 ]]; then
        targets=(tally_host_tests "${GPU_SUBSET[@]}" tally_example_top_k)
      else
        targets=(tally_host_tests "${GPU_SUBSET[@]}")
      fi
      # The GPU tests as PTX only (cmake/tally-architectures.cmake): they cannot run here.
      configure_and_build "$out/$step" "${compiler[@]}" -DCCCL_DIR="$cccl_dir" -DCMAKE_CUDA_ARCHITECTURES=90 \
        -DTALLY_GPU_TARGETS_AS_PTX=ON -DTALLY_EXPECT_CCCL_VERSION=3005000 \
        -DTALLY_BUILD_TESTS=ON -DTALLY_BUILD_BENCHMARKS=OFF -DTALLY_BUILD_TOOLS=OFF -DTALLY_BUILD_EXAMPLES=ON
      "$out/$step/test/tally_host_tests"
      ;;
    *) echo "ci-compat.sh: unknown step '$step' (archs, cccl35, nvcc135)" >&2; exit 2 ;;
  esac
  echo "== compat: $step done in $(($(date +%s) - t0)) s"
done
echo "== compat: all done in $(($(date +%s) - start)) s"
