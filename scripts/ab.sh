#!/usr/bin/env bash
# The A/B of two versions of tally in one process (benchmarks/ab/README.md): builds
# benchmarks/ab/ against a baseline's headers and the working tree's, then runs it.
#
# usage: scripts/ab.sh [--baseline COMMIT|DIR] [--variant NAME=COMMIT|DIR]...
#                     [--build-dir DIR] [--no-run] [-- TALLY_AB_ARGS]
#   --baseline COMMIT  a commit of this repository (its include/ is extracted with git
#                      archive into <build dir>/baseline/); default dd57f55, the last
#                      commit before one kernel per call site
#   --baseline DIR     a directory holding the baseline's tally/ headers (for a machine
#                      without the repository's history: extract it where git is)
#   --variant NAME=COMMIT|DIR
#                      a third version (repeatable), timed in the same rounds under the
#                      automatic policy, rows "NAME auto": a commit's include/ or a
#                      directory of tally/ headers (e.g. a copy of include/ with another
#                      tuning rule). NAME: letters, digits, _ (not old, new or tally)
#   --build-dir DIR    default build/ab
#   --no-run           build only
# environment: NVCC (default nvcc), ARCH (default 90), JOBS (default nproc)
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."
baseline=dd57f55
build_dir=build/ab
run=1
variants=()
while (($#)); do
  case "$1" in
    --baseline) baseline=$2; shift ;;
    --variant) variants+=("$2"); shift ;;
    --build-dir) build_dir=$2; shift ;;
    --no-run) run=0 ;;
    --) shift; break ;;
    -h | --help) awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"; exit 0 ;;
    *) echo "ab.sh: unknown option $1" >&2; exit 2 ;;
  esac
  shift
done
mkdir -p "$build_dir"
# The include directory of a version given as a directory of tally/ headers or a commit
# (extracted into <build dir>/<name>/include).
include_of() {  # version, name
  if [[ -d "$1/tally" ]]; then
    (cd "$1" && pwd)
  else
    rm -rf "${build_dir:?}/$2" && mkdir -p "$build_dir/$2"
    git archive "$1" include | tar -x -C "$build_dir/$2"
    echo "$build_dir/$2/include"
  fi
}
old_include=$(include_of "$baseline" baseline)
variant_names=()
variant_includes=()
for v in "${variants[@]}"; do
  name=${v%%=*}
  where=${v#*=}
  if [[ "$v" != *=* || ! "$name" =~ ^[A-Za-z_][A-Za-z0-9_]*$ || "$name" == old || "$name" == new || "$name" == tally ]]; then
    echo "ab.sh: --variant wants NAME=COMMIT|DIR with NAME of letters, digits and _ (not old, new, tally): $v" >&2
    exit 2
  fi
  variant_names+=("$name")
  variant_includes+=("$(include_of "$where" "variant_$name")")
done

NVCC=${NVCC:-nvcc}
ARCH=${ARCH:-90}
JOBS=${JOBS:-$(nproc)}
flags=(-std=c++17 -O3 "-arch=sm_$ARCH" --extended-lambda -Isupport -Ibenchmarks/ab)
compile() {  # source, object, extra flags...
  local src=$1 obj=$2
  shift 2
  "$NVCC" "${flags[@]}" "$@" -c "$src" -o "$obj"
}
rm -f "$build_dir"/ab_variant_*.o  # a variant of an earlier build is not linked in
pids=()
compile benchmarks/ab/ab_old.cu "$build_dir/ab_old.o" -I"$old_include" -Dtally=tally_old & pids+=($!)
for tu in ab_new ab_new_top_k ab_new_copy_if ab_new_reduce ab_main; do
  while (($(jobs -rp | wc -l) >= JOBS)); do sleep 1; done
  compile "benchmarks/ab/$tu.cu" "$build_dir/$tu.o" -Iinclude & pids+=($!)
done
for i in "${!variant_names[@]}"; do
  while (($(jobs -rp | wc -l) >= JOBS)); do sleep 1; done
  name=${variant_names[$i]}
  compile benchmarks/ab/ab_variant.cu "$build_dir/ab_variant_$name.o" -I"${variant_includes[$i]}" \
    "-Dtally=tally_$name" "-DAB_VARIANT_NAME=$name" & pids+=($!)
done
for p in "${pids[@]}"; do wait "$p"; done
"$NVCC" "-arch=sm_$ARCH" "$build_dir"/ab_*.o -o "$build_dir/tally_ab"
echo "built $build_dir/tally_ab (baseline: $baseline)"
if ((run)); then "$build_dir/tally_ab" "$@"; fi
