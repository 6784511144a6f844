#!/usr/bin/env bash
# The timeline of top_k's stream and select kernels (benchmarks/timeline/README.md): builds
# benchmarks/timeline/stream_timeline.cu with the kernel's phase marks on
# (TALLY_STREAM_TIMELINE), then runs it with the given cases.
#
# usage: scripts/timeline.sh [--build-dir DIR] [--cccl DIR] [--no-run] [--spread] [CASE...]
#   --build-dir DIR  default build/timeline
#   --cccl DIR       a CCCL include directory put first (e.g. CCCL 3.5's from PyPI)
#   --no-run         build only (e.g. here, then carry the binary to the GPU machine)
#   --spread         also each mark's spread over the blocks (stream_timeline --spread)
#   CASE             ROWSxLENGTH:K, flat:N:K, with :ascending (stream_timeline's usage)
# environment: NVCC (default nvcc), ARCH (default 90)
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."
build_dir=build/timeline
cccl=()
run=1
spread=()
while (($#)); do
  case "$1" in
    --build-dir) build_dir=$2; shift ;;
    --cccl) cccl=(-I"$2"); shift ;;
    --no-run) run=0 ;;
    --spread) spread=(--spread) ;;
    -h | --help) awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"; exit 0 ;;
    --*) echo "timeline.sh: unknown option $1" >&2; exit 2 ;;
    *) break ;;
  esac
  shift
done
mkdir -p "$build_dir"
"${NVCC:-nvcc}" -std=c++17 -O3 "-arch=sm_${ARCH:-90}" -DTALLY_STREAM_TIMELINE "${cccl[@]}" -Iinclude -Isupport \
  benchmarks/timeline/stream_timeline.cu -o "$build_dir/stream_timeline"
echo "built $build_dir/stream_timeline"
if ((run)); then "$build_dir/stream_timeline" "${spread[@]}" "$@"; fi
