#!/usr/bin/env bash
# Compile-time benchmark: what one call of a tally algorithm costs to compile, against the
# same call to CUB, in one run. Each translation unit in benchmarks/compile_time/ holds one
# call, written as a user would (raw device pointers, a stream); each is compiled with
#   nvcc -std=c++17 -O3 -arch=sm_ARCH -c   (tally's also with -I include)
# one compile at a time (never in parallel: that would time the other compiles too), R
# times, round-robin (rep 1 of every unit, then rep 2, ...), so that a slow spell of a
# shared machine hits every unit alike. The figure is the least wall time over the reps,
# with the least CPU time (user + system, nvcc and its children) in parentheses, and the
# kernels of the unit: nm -C x.o | grep -c "guard variable for __device_stub".
# A Markdown table goes to stdout (progress to stderr); the ratio is tally / peer.
#
# usage: scripts/compile-time.sh [--reps N] [--arch NN] [--only LIST] [--json FILE]
#                                [--cccl35 DIR] [--tally-cccl35] [--peers-cccl35]
#   --reps N          compiles of each unit; the least is kept (default 3)
#   --arch NN         -arch=sm_NN (default 90)
#   --only LIST       comma- or space-separated rows, from: reduce, max_element, copy_if,
#                     top_k2, top_k8, top_k32, top_k_any, top_k_rows, thrust_reduce, rows, argmax_rows (default: all)
#   --json FILE       also write the results as JSON to FILE
#   --cccl35 DIR      the CCCL 3.5 include directory (the one holding cub/, thrust/, cuda/).
#                     Default: <repo>/.cccl/nvidia/cu13/include/cccl, fetched when missing
#                     with pip download --no-deps nvidia-cuda-cccl==13.3.5.0.6 (PyPI) and
#                     unzipped into <repo>/.cccl (ignored by git)
#   --tally-cccl35    compile tally's units against CCCL 3.5 too (3.5 first on the include
#                     path), to check that tally compiles there; default: the toolkit's CCCL
#   --peers-cccl35    compile the CUB and Thrust peers against CCCL 3.5 too (default: the
#                     toolkit's CCCL; cub_topk.cu always gets 3.5, DeviceTopK is new there)
# environment:
#   NVCC              the compiler (default: /usr/local/cuda/bin/nvcc, else nvcc on PATH)
#   TMPDIR            where the temporary build directory goes
# Exits 1 when a unit fails to compile (nvcc's messages are printed) or CCCL 3.5 cannot be
# had, 2 on a usage error.
#
# Rows (tally unit -> peer unit):
#   reduce         tally_reduce.cu       cub_reduce.cu     cub::DeviceReduce::Sum
#   max_element    tally_max_element.cu  cub_argmax.cu     cub::DeviceReduce::ArgMax
#   copy_if        tally_copy_if.cu      cub_select_if.cu  cub::DeviceSelect::If
#   top_k2/8/32    tally_top_kK.cu       cub_topk.cu       cub::DeviceTopK::MaxPairs (3.5)
#   top_k_any      tally_top_k_any.cu    cub_topk.cu       the same (run-time k on both sides)
#   thrust_reduce  tally_reduce.cu       thrust_reduce.cu  thrust::reduce
#   rows           tally_reduce_rows.cu  cub_segmented_reduce.cu  cub::DeviceSegmentedReduce::Sum
#   argmax_rows    tally_max_element_rows.cu  cub_segmented_argmax.cu  cub::DeviceSegmentedReduce::ArgMax
# A unit shared by several rows is compiled once per rep.
set -uo pipefail

usage() { awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"; }
die() { echo "compile-time.sh: $*" >&2; exit 1; }
usage_error() { echo "compile-time.sh: $*" >&2; usage >&2; exit 2; }

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
tu_dir=$repo/benchmarks/compile_time
cccl35_wheel_version=13.3.5.0.6

reps=3
arch=90
only=""
json=""
cccl35=""
tally_cccl35=0
peers_cccl35=0

while (($#)); do
  case $1 in
    --reps) [[ $# -ge 2 ]] || usage_error "$1 needs a value"; reps=$2; shift 2 ;;
    --arch) [[ $# -ge 2 ]] || usage_error "$1 needs a value"; arch=$2; shift 2 ;;
    --only) [[ $# -ge 2 ]] || usage_error "$1 needs a value"; only=$2; shift 2 ;;
    --json) [[ $# -ge 2 ]] || usage_error "$1 needs a value"; json=$2; shift 2 ;;
    --cccl35) [[ $# -ge 2 ]] || usage_error "$1 needs a value"; cccl35=$2; shift 2 ;;
    --tally-cccl35) tally_cccl35=1; shift ;;
    --peers-cccl35) peers_cccl35=1; shift ;;
    -h | --help) usage; exit 0 ;;
    *) usage_error "unknown argument: $1" ;;
  esac
done
[[ $reps =~ ^[1-9][0-9]*$ ]] || usage_error "--reps wants a positive integer, not '$reps'"
[[ $arch =~ ^[0-9]+[a-z]?$ ]] || usage_error "--arch wants a number such as 90, not '$arch'"

# --- rows: name|call|tally unit|peer|peer unit -------------------------------------------
all_rows=(
  "reduce|reduce (float sum)|tally_reduce|cub::DeviceReduce::Sum|cub_reduce"
  "max_element|max_element (float)|tally_max_element|cub::DeviceReduce::ArgMax|cub_argmax"
  "copy_if|copy_if (int, stable)|tally_copy_if|cub::DeviceSelect::If|cub_select_if"
  "top_k2|top_k<2> (float)|tally_top_k2|cub::DeviceTopK::MaxPairs|cub_topk"
  "top_k8|top_k<8> (float)|tally_top_k8|cub::DeviceTopK::MaxPairs|cub_topk"
  "top_k32|top_k<32> (float)|tally_top_k32|cub::DeviceTopK::MaxPairs|cub_topk"
  "top_k_any|top_k, run-time k (float)|tally_top_k_any|cub::DeviceTopK::MaxPairs|cub_topk"
  "top_k_rows|top_k over rows, run-time k (float)|tally_top_k_rows|cub::DeviceTopK::MaxPairs|cub_topk"
  "thrust_reduce|reduce (float sum)|tally_reduce|thrust::reduce|thrust_reduce"
  "rows|reduce_into over rows (float sum)|tally_reduce_rows|cub::DeviceSegmentedReduce::Sum|cub_segmented_reduce"
  "argmax_rows|max_element_into over rows (float)|tally_max_element_rows|cub::DeviceSegmentedReduce::ArgMax|cub_segmented_argmax"
)
rows=()
if [[ -z $only ]]; then
  rows=("${all_rows[@]}")
else
  for want in ${only//,/ }; do
    found=0
    for row in "${all_rows[@]}"; do
      if [[ ${row%%|*} == "$want" ]]; then rows+=("$row"); found=1; fi
    done
    ((found)) || usage_error "--only: unknown row '$want'"
  done
fi
((${#rows[@]})) || usage_error "--only selected no rows"

# The units to compile, in row order, each once.
units=()
for row in "${rows[@]}"; do
  IFS='|' read -r _ _ tally_tu _ peer_tu <<<"$row"
  for tu in "$tally_tu" "$peer_tu"; do
    [[ " ${units[*]} " == *" $tu "* ]] || units+=("$tu")
  done
done
for tu in "${units[@]}"; do
  [[ -f $tu_dir/$tu.cu ]] || die "missing $tu_dir/$tu.cu"
done

# --- tools -------------------------------------------------------------------------------
if [[ -z ${NVCC:-} ]]; then
  if [[ -x /usr/local/cuda/bin/nvcc ]]; then NVCC=/usr/local/cuda/bin/nvcc; else NVCC=$(command -v nvcc) || die "nvcc not found (set NVCC)"; fi
fi
command -v nm >/dev/null || die "nm not found (binutils)"

# Does a unit want CCCL 3.5 first on its include path?
wants_cccl35() {
  case $1 in
    cub_topk) return 0 ;;
    tally_*) ((tally_cccl35)) ;;
    *) ((peers_cccl35)) ;;
  esac
}
need_cccl35=0
for tu in "${units[@]}"; do wants_cccl35 "$tu" && need_cccl35=1; done

if ((need_cccl35)); then
  if [[ -z $cccl35 ]]; then
    cccl35=$repo/.cccl/nvidia/cu13/include/cccl
    if [[ ! -f $cccl35/cub/device/device_topk.cuh ]]; then
      echo "fetching CCCL 3.5 (nvidia-cuda-cccl==$cccl35_wheel_version) into $repo/.cccl" >&2
      mkdir -p "$repo/.cccl" || die "cannot create $repo/.cccl"
      pip_cmd=(python3 -m pip)
      "${pip_cmd[@]}" --version >/dev/null 2>&1 || pip_cmd=(pip)
      "${pip_cmd[@]}" download --no-deps "nvidia-cuda-cccl==$cccl35_wheel_version" -d "$repo/.cccl" >&2 ||
        die "pip download of nvidia-cuda-cccl==$cccl35_wheel_version failed (or give --cccl35 DIR)"
      wheel=$(ls "$repo/.cccl"/nvidia_cuda_cccl-"$cccl35_wheel_version"-*.whl 2>/dev/null | head -n 1)
      [[ -n $wheel ]] || die "no nvidia_cuda_cccl-$cccl35_wheel_version wheel in $repo/.cccl"
      if command -v unzip >/dev/null; then
        unzip -q -o "$wheel" -d "$repo/.cccl" || die "unzip $wheel failed"
      else
        python3 -m zipfile -e "$wheel" "$repo/.cccl" || die "unpacking $wheel failed"
      fi
    fi
  fi
  [[ -f $cccl35/cub/device/device_topk.cuh ]] ||
    die "$cccl35 holds no cub/device/device_topk.cuh: not a CCCL >= 3.3 include directory"
  cccl35=$(cd "$cccl35" && pwd)
fi

work=$(mktemp -d "${TMPDIR:-/tmp}/tally-compile-time.XXXXXX") || die "mktemp failed"
trap 'rm -rf "$work"' EXIT

flags_of() {  # the nvcc arguments of unit $1, one a line
  local tu=$1
  printf '%s\n' -std=c++17 -O3 "-arch=sm_$arch" -c
  if wants_cccl35 "$tu"; then printf '%s\n' -I "$cccl35"; fi
  if [[ $tu == tally_* ]]; then printf '%s\n' -I "$repo/include"; fi
}

# CCCL version seen under a set of flags, as X.Y.Z.
cccl_version() {
  local extra=("$@") v
  printf '#include <cuda/std/version>\ntally_cccl_version=CCCL_VERSION\n' >"$work/version.cu"
  v=$("$NVCC" -std=c++17 -E -x cu "${extra[@]}" "$work/version.cu" 2>/dev/null |
    awk '/^tally_cccl_version=/ { on = 1; sub(/^tally_cccl_version=/, "") }
         on && !/^#/ && match($0, /[0-9]+/) { print substr($0, RSTART, RLENGTH); exit }')
  if [[ -n $v ]]; then echo "$((v / 1000000)).$((v / 1000 % 1000)).$((v % 1000))"; else echo "?"; fi
}
cccl_default=$(cccl_version)
cccl_35=""
((need_cccl35)) && cccl_35=$(cccl_version -I "$cccl35")

# --- header ------------------------------------------------------------------------------
nvcc_version=$("$NVCC" --version | sed -n 's/.*release \([0-9.]*\), V\([0-9.]*\).*/\2/p')
commit=$(git -C "$repo" rev-parse --short HEAD 2>/dev/null || echo unknown)
[[ -n $(git -C "$repo" status --porcelain 2>/dev/null) ]] && commit+="+dirty"
when=$(date -u '+%Y-%m-%d %H:%M UTC')
cpus=$(nproc)
cccl_note="CCCL $cccl_default (toolkit)"
((need_cccl35)) && cccl_note+=", CCCL $cccl_35 ($cccl35)"
tally_cccl=$cccl_default
((tally_cccl35)) && tally_cccl=$cccl_35
peer_cccl=$cccl_default
((peers_cccl35)) && peer_cccl=$cccl_35

# --- compile -----------------------------------------------------------------------------
declare -A best_wall best_cpu kernels
TIMEFORMAT='%3R %3U %3S'
total=$((reps * ${#units[@]}))
done_count=0
for ((rep = 1; rep <= reps; rep++)); do
  for tu in "${units[@]}"; do
    mapfile -t flags < <(flags_of "$tu")
    obj=$work/$tu.o
    rm -f "$obj"
    { time "$NVCC" "${flags[@]}" "$tu_dir/$tu.cu" -o "$obj" >"$work/$tu.log" 2>&1; } 2>"$work/$tu.time"
    rc=$?
    done_count=$((done_count + 1))
    if ((rc != 0)); then
      echo "compile-time.sh: $tu.cu failed to compile (nvcc exit $rc):" >&2
      echo "  $NVCC ${flags[*]} $tu_dir/$tu.cu -o $tu.o" >&2
      cat "$work/$tu.log" >&2
      exit 1
    fi
    read -r wall user sys <"$work/$tu.time"
    cpu=$(awk -v u="$user" -v s="$sys" 'BEGIN { printf "%.3f", u + s }')
    if [[ -z ${best_wall[$tu]:-} ]] || awk -v a="$wall" -v b="${best_wall[$tu]}" 'BEGIN { exit !(a < b) }'; then
      best_wall[$tu]=$wall
    fi
    if [[ -z ${best_cpu[$tu]:-} ]] || awk -v a="$cpu" -v b="${best_cpu[$tu]}" 'BEGIN { exit !(a < b) }'; then
      best_cpu[$tu]=$cpu
    fi
    kernels[$tu]=$(nm -C "$obj" | grep -c "guard variable for __device_stub" || true)
    printf '[%d/%d] rep %d %-18s %7.2f s wall, %7.2f s cpu, %s kernels\n' \
      "$done_count" "$total" "$rep" "$tu" "$wall" "$cpu" "${kernels[$tu]}" >&2
  done
done

# --- table -------------------------------------------------------------------------------
cell() { printf '%.1f (%.1f) / %s' "${best_wall[$1]}" "${best_cpu[$1]}" "${kernels[$1]}"; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.2f", a / b; else printf "-" }'; }

echo "Compile time of one call, $when: nvcc $nvcc_version -std=c++17 -O3 -arch=sm_$arch -c, tally $commit," \
  "nproc $cpus, least of $reps (round-robin, one compile at a time); $cccl_note"
echo
echo "| call | tally s (cpu s) / kernels | peer | peer s (cpu s) / kernels | ratio |"
echo "|---|---|---|---|---|"
for row in "${rows[@]}"; do
  IFS='|' read -r name call tally_tu peer peer_tu <<<"$row"
  if [[ $peer_tu == cub_topk ]]; then peer+=" ($cccl_35)"; else peer+=" ($peer_cccl)"; fi
  r=$(ratio "${best_wall[$tally_tu]}" "${best_wall[$peer_tu]}")
  rc=$(ratio "${best_cpu[$tally_tu]}" "${best_cpu[$peer_tu]}")
  echo "| $call | $(cell "$tally_tu") | $peer | $(cell "$peer_tu") | ${r}x (cpu ${rc}x) |"
done
echo
echo "Seconds: least wall time (least user + system CPU time) over $reps compiles; kernels:" \
  "nm -C x.o | grep -c \"guard variable for __device_stub\"; ratio: tally / peer. tally's units" \
  "compiled against CCCL $tally_cccl."

# --- json --------------------------------------------------------------------------------
if [[ -n $json ]]; then
  {
    printf '{\n  "date": "%s",\n  "nvcc": "%s",\n  "commit": "%s",\n  "nproc": %s,\n' \
      "$when" "$nvcc_version" "$commit" "$cpus"
    printf '  "flags": "-std=c++17 -O3 -arch=sm_%s -c",\n  "reps": %s,\n' "$arch" "$reps"
    printf '  "cccl_default": "%s",\n  "cccl35": "%s",\n  "cccl35_dir": "%s",\n' \
      "$cccl_default" "$cccl_35" "$( ((need_cccl35)) && echo "$cccl35")"
    printf '  "tally_cccl": "%s",\n  "peer_cccl": "%s",\n' "$tally_cccl" "$peer_cccl"
    printf '  "units": {\n'
    n=0
    for tu in "${units[@]}"; do
      n=$((n + 1))
      sep=","; ((n == ${#units[@]})) && sep=""
      printf '    "%s": {"wall_s": %s, "cpu_s": %s, "kernels": %s}%s\n' \
        "$tu" "${best_wall[$tu]}" "${best_cpu[$tu]}" "${kernels[$tu]}" "$sep"
    done
    printf '  },\n  "rows": [\n'
    n=0
    for row in "${rows[@]}"; do
      n=$((n + 1))
      sep=","; ((n == ${#rows[@]})) && sep=""
      IFS='|' read -r name call tally_tu peer peer_tu <<<"$row"
      printf '    {"name": "%s", "call": "%s", "tally": "%s", "peer": "%s", "peer_unit": "%s",' \
        "$name" "$call" "$tally_tu" "$peer" "$peer_tu"
      printf ' "ratio_wall": %s, "ratio_cpu": %s}%s\n' \
        "$(ratio "${best_wall[$tally_tu]}" "${best_wall[$peer_tu]}")" \
        "$(ratio "${best_cpu[$tally_tu]}" "${best_cpu[$peer_tu]}")" "$sep"
    done
    printf '  ]\n}\n'
  } >"$json" || die "cannot write $json"
  echo "wrote $json" >&2
fi
