#!/usr/bin/env bash
# Build tally on a GPU machine and run everything that needs the GPU: the CTest suite
# (host and GPU tests), every benchmark binary (through `tally bench`), `tally verify`, and
# the Python package (pip install, pytest, python -m tally.bench). Writes every log to
# $OUT (or <build dir>/logs) and prints a short summary last. Exits non-zero when any
# step failed (the summary is printed anyway).
#
# usage: scripts/gpu-check.sh [--tests-only | --bench-only] [--no-build]
#                             [--build-dir DIR] [--filter REGEX] [--targets "A B"]
#   --tests-only      build without benchmarks; run CTest and `tally verify` only
#   --bench-only      build without tests; run the benchmarks only
#   --no-build        use the existing build directory as it is (and its python-site)
#   --build-dir DIR   build directory (default: build/gpu)
#   --filter REGEX    run only the CTest tests matching REGEX (ctest -R)
#   --targets "A B"   build only these targets (e.g. when device time is short)
#   --fuzz SECONDS    also run `tally verify --fuzz SECONDS` (differential fuzzing)
#   --sanitize        also run scripts/sanitize.sh (compute-sanitizer) over the GPU tests
#   --arch LIST       CMAKE_CUDA_ARCHITECTURES (default: the project's rule, which is
#                     CUDAARCHS, else the visible GPUs (native), else 90)
#   --no-python       skip the Python package
#   --python-only     only the Python package: pip install, pytest (and, unless
#                     --tests-only, python -m tally.bench); no CMake build, CTest or bench
#   --cccl-dir DIR    configure against this CCCL's cmake/cccl directory (e.g. CCCL 3.5
#                     from PyPI; CCCL_DIR) instead of the toolkit's
# The benchmarks run through `tally bench --json` (each bench_* binary once, its default
# sizes), then `tally plot`: bench_*.md, bench.json and charts/ in the log directory.
# environment:
#   TALLY_BENCH_ARGS  extra arguments for every benchmark binary (word-split; passed
#                     after `tally bench --`), e.g. TALLY_BENCH_ARGS='--benchmark_filter=int32'
#   TALLY_COMMIT      the commit being tested (else the file .commit, else git, else unknown)
#   CTEST_PARALLEL_LEVEL  tests run at once (default 8; 1: one after the other)
#   OUT               where the logs go (default: <build dir>/logs)
set -uo pipefail

usage() { awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"; }

run_tests=1
run_bench=1
run_python=1
run_cmake=1
build=1
build_dir=build/gpu
filter=""
targets=()
fuzz=0
sanitize=0
arch=""
cccl_dir=""
while (($#)); do
  case "$1" in
    --tests-only) run_bench=0 ;;
    --bench-only) run_tests=0 ;;
    --no-build) build=0 ;;
    --build-dir) [ $# -ge 2 ] || { usage >&2; exit 2; }; build_dir=$2; shift ;;
    --build-dir=*) build_dir=${1#*=} ;;
    --filter) [ $# -ge 2 ] || { usage >&2; exit 2; }; filter=$2; shift ;;
    --filter=*) filter=${1#*=} ;;
    --targets) [ $# -ge 2 ] || { usage >&2; exit 2; }; read -r -a targets <<<"$2"; shift ;;
    --fuzz) [ $# -ge 2 ] || { usage >&2; exit 2; }; fuzz=$2; shift ;;
    --fuzz=*) fuzz=${1#*=} ;;
    --sanitize) sanitize=1 ;;
    --no-python) run_python=0 ;;
    --python-only) run_cmake=0 ;;
    --arch) [ $# -ge 2 ] || { usage >&2; exit 2; }; arch=$2; shift ;;
    --arch=*) arch=${1#*=} ;;
    --cccl-dir) [ $# -ge 2 ] || { usage >&2; exit 2; }; cccl_dir=$2; shift ;;
    --cccl-dir=*) cccl_dir=${1#*=} ;;
    -h | --help) usage; exit 0 ;;
    *) echo "unknown option: $1" >&2; usage >&2; exit 2 ;;
  esac
  shift
done
if ((!run_tests && !run_bench)); then
  echo "--tests-only and --bench-only exclude each other" >&2
  exit 2
fi

cd "$(dirname "${BASH_SOURCE[0]}")/.." || exit 2
root=$(pwd)
case "$build_dir" in /*) ;; *) build_dir="$root/$build_dir" ;; esac
log_dir=${OUT:-$build_dir/logs}
mkdir -p "$log_dir" || exit 2
log_dir=$(cd "$log_dir" && pwd)

if [ -n "${TALLY_COMMIT:-}" ]; then
  commit=$TALLY_COMMIT
elif [ -s .commit ]; then
  commit=$(head -n 1 .commit)
elif git rev-parse HEAD >/dev/null 2>&1; then
  commit=$(git rev-parse HEAD)
  git diff --quiet HEAD 2>/dev/null || commit="$commit (with uncommitted changes)"
else
  commit=unknown
fi

jobs=$(nproc 2>/dev/null || echo 4)
failed=()  # names of the steps that failed
step() { echo; echo "=== $*"; }

# --- configure and build --------------------------------------------------------------
if ((build && run_cmake)); then
  step "configure ($build_dir)"
  cmake_args=(-S "$root" -B "$build_dir" -G Ninja
    -DCMAKE_BUILD_TYPE=Release
    -DTALLY_BUILD_TESTS=$([ $run_tests = 1 ] && echo ON || echo OFF)
    -DTALLY_BUILD_BENCHMARKS=$([ $run_bench = 1 ] && echo ON || echo OFF)
    -DTALLY_BUILD_TOOLS=ON)
  [ -n "$arch" ] && cmake_args+=(-DCMAKE_CUDA_ARCHITECTURES="$arch")
  [ -n "$cccl_dir" ] && cmake_args+=(-DCCCL_DIR="$cccl_dir")
  # CMake 4 refuses packages whose config files ask for a policy version below 3.5.
  cmake_major=$(cmake --version | awk 'NR==1 {split($3, v, "."); print v[1]}')
  if [ "${cmake_major:-0}" -ge 4 ]; then cmake_args+=(-DCMAKE_POLICY_VERSION_MINIMUM=3.5); fi
  if cmake "${cmake_args[@]}" 2>&1 | tee "$log_dir/configure.log"; then
    step "build ($jobs jobs)"
    SECONDS=0
    # -k 0: build every target that can be built, so that one broken file does not hide the rest.
    target_args=()
    ((${#targets[@]})) && target_args=(--target "${targets[@]}")
    if cmake --build "$build_dir" --parallel "$jobs" "${target_args[@]}" -- -k 0 2>&1 | tee "$log_dir/build.log"; then
      echo "build took ${SECONDS}s"
    else
      failed+=("build")
    fi
  else
    failed+=("configure")
  fi
fi

# --- device ---------------------------------------------------------------------------
step "device"
device=$(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>&1)
nvsmi_rc=$?
echo "$device" | tee "$log_dir/device.log"
if ((nvsmi_rc != 0)); then
  failed+=("nvidia-smi")
  device="unknown (nvidia-smi failed)"
fi
device=$(echo "$device" | paste -sd ';' - | sed 's/;/; /g')

# --- tests ----------------------------------------------------------------------------
ctest_summary="not run"
verify_line="not run"
if ((run_tests && run_cmake)); then
  step "ctest${filter:+ -R $filter}"
  # Tests in parallel: those that take most of the GPU memory or measure it run alone
  # (RUN_SERIAL, test/CMakeLists.txt). With 8 (H200, 16 cores, 6ecc28b): the 74 tests in
  # 179 s, so configure, build and tests fit one device call of 600 s.
  ctest_args=(--test-dir "$build_dir" --output-on-failure --no-tests=error --parallel "${CTEST_PARALLEL_LEVEL:-8}")
  [ -n "$filter" ] && ctest_args+=(-R "$filter")
  SECONDS=0
  ctest "${ctest_args[@]}" 2>&1 | tee "$log_dir/ctest.log"
  ctest_rc=${PIPESTATUS[0]}
  echo "ctest took ${SECONDS}s"
  ctest_summary=$(grep -E '^[0-9]+% tests passed' "$log_dir/ctest.log" | tail -n 1)
  [ -n "$ctest_summary" ] || ctest_summary=$(grep -E 'No tests were found' "$log_dir/ctest.log" | tail -n 1)
  [ -n "$ctest_summary" ] || ctest_summary="no summary line (see ctest.log)"
  skipped=$(grep -c '\*\*\*Skipped' "$log_dir/ctest.log")
  ctest_summary="$ctest_summary; $skipped skipped"
  ((ctest_rc == 0)) || failed+=("ctest")

  step "tally verify"
  if [ -x "$build_dir/tally" ]; then
    "$build_dir/tally" verify 2>&1 | tee "$log_dir/verify.log"
    verify_rc=${PIPESTATUS[0]}
    verify_line=$(grep -v '^[[:space:]]*$' "$log_dir/verify.log" | tail -n 1)
    verify_line="${verify_line:-(no output)} [exit $verify_rc]"
    ((verify_rc == 0)) || failed+=("verify")
  else
    echo "no $build_dir/tally" | tee "$log_dir/verify.log"
    verify_line="no tally binary"
    failed+=("verify")
  fi
fi

fuzz_line="not run"
if ((run_tests && fuzz > 0)); then
  step "tally verify --fuzz $fuzz"
  "$build_dir/tally" verify --fuzz "$fuzz" 2>&1 | tee "$log_dir/fuzz.log"
  fuzz_rc=${PIPESTATUS[0]}
  fuzz_line="$(grep '^fuzz:' "$log_dir/fuzz.log" | tail -n 1) [exit $fuzz_rc]"
  ((fuzz_rc == 0)) || failed+=("fuzz")
fi
sanitize_lines="not run"
if ((run_tests && sanitize)); then
  step "sanitize"
  "$root/scripts/sanitize.sh" --build-dir "$build_dir" --out "$log_dir" 2>&1 | tee "$log_dir/sanitize.log"
  sanitize_rc=${PIPESTATUS[0]}
  sanitize_lines=$(grep -E '^(memcheck|racecheck|synccheck|initcheck):' "$log_dir/sanitize.log")
  ((sanitize_rc == 0)) || failed+=("sanitize")
fi

# --- benchmarks -----------------------------------------------------------------------
# `tally bench` runs every bench_* executable once (the one harness, benchmarks/README.md),
# in the log directory: their Markdown tables (bench_reduce.md, ...) land there, and their
# rows in bench.json (JSON Lines), which `tally plot` draws into charts/.
tables=()
if ((run_bench && run_cmake)); then
  step "tally bench ${TALLY_BENCH_ARGS:-}"
  marker="$log_dir/.bench-start"
  touch "$marker"
  bench_extra=()
  # shellcheck disable=SC2206  # TALLY_BENCH_ARGS is a list of arguments
  [ -n "${TALLY_BENCH_ARGS:-}" ] && bench_extra=(-- ${TALLY_BENCH_ARGS})
  (cd "$log_dir" && "$build_dir/tally" bench --json "$log_dir/bench.json" "${bench_extra[@]}") 2>&1 |
    tee "$log_dir/bench.log"
  bench_rc=${PIPESTATUS[0]}
  if ((bench_rc != 0)); then
    # "tally bench: failed: bench_top_k (exit 1), ..." names the executables; else the whole step.
    which=$(sed -n 's/^tally bench: failed: //p' "$log_dir/bench.log" | tail -n 1)
    failed+=("tally bench${which:+: $which}")
  fi
  mapfile -t tables < <(find "$log_dir" -maxdepth 1 -type f -name 'bench_*.md' -newer "$marker" | sort)
  rm -f "$marker"
  if [ -s "$log_dir/bench.json" ]; then
    "$build_dir/tally" plot "$log_dir/bench.json" -o "$log_dir/charts" || echo "tally plot failed (matplotlib?)"
  fi
fi

# --- the Python package -----------------------------------------------------------------
# Built offline (--no-build-isolation: the machine's scikit-build-core and nanobind) into
# <build dir>/python-site, put first on PYTHONPATH; the tests and the benchmark import it.
pytest_line="not run"
pybench_line="not run"
if ((run_python)); then
  site="$build_dir/python-site"
  step "pip install ./python -> $site"
  SECONDS=0
  if ((!build)) && [ -d "$site/tally" ]; then
    echo "--no-build: using $site as it is"
    export PYTHONPATH="$site${PYTHONPATH:+:$PYTHONPATH}"
    python_ready=1
  fi
  ((build)) && rm -rf "$site"
  if ((${python_ready:-0})) || CMAKE_BUILD_PARALLEL_LEVEL=$jobs python3 -m pip install --no-build-isolation --no-deps --target "$site" \
       ${arch:+--config-settings=cmake.define.CMAKE_CUDA_ARCHITECTURES="$arch"} "$root/python" 2>&1 |
       tee "$log_dir/pip.log"; then
    if ! ((${python_ready:-0})); then
      echo "pip install took ${SECONDS}s; $(du -h "$site"/tally/_tally*.so | cut -f1) module"
      export PYTHONPATH="$site${PYTHONPATH:+:$PYTHONPATH}"
    fi
    if ((run_tests)); then
      step "pytest"
      (cd "$root/python" && python3 -m pytest -q -rs tests) 2>&1 | tee "$log_dir/pytest.log"
      ((PIPESTATUS[0] == 0)) || failed+=("pytest")
      pytest_line=$(grep -E '(passed|failed|error)' "$log_dir/pytest.log" | tail -n 1)
    fi
    if ((run_bench)); then
      step "python -m tally.bench"
      python3 -m tally.bench --md "$log_dir/bench_python.md" 2>&1 | tee "$log_dir/pybench.log"
      ((PIPESTATUS[0] == 0)) || failed+=("python bench")
      pybench_line="$log_dir/bench_python.md"
    fi
  else
    failed+=("pip install")
  fi
fi

# --- summary (last) -------------------------------------------------------------------
echo
echo "=== summary"
echo "device:  $device"
echo "commit:  $commit"
if ((run_tests && run_cmake)); then
  echo "ctest:   $ctest_summary"
  echo "verify:  $verify_line"
  ((fuzz > 0)) && echo "fuzz:    $fuzz_line"
  ((sanitize)) && echo "$sanitize_lines" | sed 's/^/sanitize: /'
fi
if ((run_bench && run_cmake)); then
  if ((${#tables[@]})); then
    echo "tables:  ${tables[0]}"
    for t in "${tables[@]:1}"; do echo "         $t"; done
  else
    echo "tables:  none"
  fi
fi
if ((run_python)); then
  ((run_tests)) && echo "pytest:  $pytest_line"
  ((run_bench)) && echo "python bench: $pybench_line"
fi
echo "logs:    $log_dir"
if ((${#failed[@]})); then
  echo "FAILED:  ${failed[*]}"
  exit 1
fi
echo "all steps passed"
