#!/usr/bin/env bash
# The A/B of two versions of tally in one process (benchmarks/ab/README.md): builds
# benchmarks/ab/ against a baseline's headers and the working tree's, then runs it.
#
# usage: scripts/ab.sh [--baseline COMMIT|DIR] [--build-dir DIR] [--no-run] [-- TALLY_AB_ARGS]
#   --baseline COMMIT  a commit of this repository (its include/ is extracted with git
#                      archive into <build dir>/baseline/); default dd57f55, the last
#                      commit before one kernel per call site
#   --baseline DIR     a directory holding the baseline's tally/ headers (for a machine
#                      without the repository's history: extract it where git is)
#   --build-dir DIR    default build/ab
#   --no-run           build only
# environment: NVCC (default nvcc), ARCH (default 90), JOBS (default nproc)
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."
baseline=dd57f55
build_dir=build/ab
run=1
while (($#)); do
  case "$1" in
    --baseline) baseline=$2; shift ;;
    --build-dir) build_dir=$2; shift ;;
    --no-run) run=0 ;;
    --) shift; break ;;
    -h | --help) awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"; exit 0 ;;
    *) echo "ab.sh: unknown option $1" >&2; exit 2 ;;
  esac
  shift
done
mkdir -p "$build_dir"
if [[ -d "$baseline/tally" ]]; then
  old_include=$(cd "$baseline" && pwd)
else
  old_include=$build_dir/baseline/include
  rm -rf "$build_dir/baseline" && mkdir -p "$build_dir/baseline"
  git archive "$baseline" include | tar -x -C "$build_dir/baseline"
fi

NVCC=${NVCC:-nvcc}
ARCH=${ARCH:-90}
JOBS=${JOBS:-$(nproc)}
flags=(-std=c++17 -O3 "-arch=sm_$ARCH" --extended-lambda -Isupport -Ibenchmarks/ab)
compile() {  # source, object, extra flags...
  local src=$1 obj=$2
  shift 2
  "$NVCC" "${flags[@]}" "$@" -c "$src" -o "$obj"
}
pids=()
compile benchmarks/ab/ab_old.cu "$build_dir/ab_old.o" -I"$old_include" -Dtally=tally_old & pids+=($!)
for tu in ab_new ab_new_top_k ab_new_copy_if ab_new_reduce ab_main; do
  while (($(jobs -rp | wc -l) >= JOBS)); do sleep 1; done
  compile "benchmarks/ab/$tu.cu" "$build_dir/$tu.o" -Iinclude & pids+=($!)
done
for p in "${pids[@]}"; do wait "$p"; done
"$NVCC" "-arch=sm_$ARCH" "$build_dir"/ab_*.o -o "$build_dir/tally_ab"
echo "built $build_dir/tally_ab (baseline: $baseline)"
if ((run)); then "$build_dir/tally_ab" "$@"; fi
