#!/usr/bin/env bash
# Run the GPU test executables under compute-sanitizer, tool by tool (memcheck with
# --leak-check full, racecheck, synccheck, initcheck), at the suites' small sizes, and
# print a summary per tool last. Every backend is covered: the suites loop over them.
# Exits 1 when any tool reported an error that no suppression below covers, or a test
# failed under a tool; 2 on a usage error.
#
# usage: scripts/sanitize.sh [--build-dir DIR] [--tools LIST] [--filter REGEX]
#                            [--out DIR] [--budget SPEC] [--full] [--strict]
#                            [--sanitizer-args "ARGS"] [--dry-run]
#   --build-dir DIR   where scripts/gpu-check.sh built the tests (default: build/gpu);
#                     the executables are DIR/test/test_*
#   --tools LIST      comma- or space-separated (default: memcheck,racecheck,synccheck,initcheck)
#   --filter REGEX    run only the executables whose name matches REGEX (grep -E)
#   --out DIR         where the logs go (default: $OUT, else <build dir>/logs), under
#                     DIR/sanitize/<tool>/<program>.log
#   --budget SPEC     seconds per tool: N for every tool, or tool=N,tool=N (defaults:
#                     memcheck=300, racecheck=1200, synccheck=120, initcheck=300; on an
#                     H100, memcheck and initcheck took about 2 minutes each over every
#                     program, synccheck half a minute over the core list, racecheck most
#                     of its budget: 65 s test_reduce_misc, 107 s test_top_k_misc, 331 s
#                     test_copy_if_misc). A program gets what is left of its
#                     tool's budget; one that runs out of it is killed ("timed out"),
#                     and the programs after it are "not run"
#   --full            every tool runs every program (default: racecheck and synccheck
#                     run the core list below only)
#   --strict          timed-out and not-run programs fail the run too
#   --sanitizer-args "ARGS"
#                     extra compute-sanitizer arguments for every run (word-split)
#   --dry-run         print which programs each tool would run, and exit
# environment:
#   OUT               the default log directory
#   COMPUTE_SANITIZER the compute-sanitizer binary (default:
#                     /usr/local/cuda/bin/compute-sanitizer, else the one on PATH)
#   The programs run with TALLY_SANITIZE=1: the suites' size lists stop at 33 tiles of
#   4096 + 1 items (test/gpu/common.cuh, max_listed_size), and test_determinism.cu runs
#   smaller sizes and fewer repetitions.
#
# What runs (small sizes):
#   - never: test_huge_real_memory, test_concurrency and every test_*_huge (gigabytes of
#     data or many seconds of work at full speed: hours under a sanitizer),
#     test_device_errors (its kernels fault and it runs out of memory on purpose), and, inside
#     the other programs, the doctest test cases matching $exclude_cases (-tce);
#   - the core list first (one program per algorithm: its misc suite, then the tuned
#     launch shapes, the atomics, several streams, determinism), then, for memcheck and
#     initcheck (and every tool under --full), every other test_* program, in name order,
#     while the tool's budget lasts.
#
# Counting: a program's errors are the X of compute-sanitizer's "ERROR SUMMARY: X errors"
# line, plus racecheck's warnings (its "RACECHECK SUMMARY: ... (E errors, W warnings)");
# when a program was killed before its summary, the error records in its log (lines
# "========= <message>") are counted instead. Records that match a suppression are
# subtracted.
set -uo pipefail

usage() { awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"; }

# --- suppressions ---------------------------------------------------------------------
# Known findings that are not bugs, one entry per line:
#   "TOOL|PROGRAM_REGEX|MESSAGE_REGEX|REASON"
# TOOL is a tool name or *; PROGRAM_REGEX and MESSAGE_REGEX are grep -E patterns, the
# first matched against the program's name, the second against the first line of each
# error record (the line after "========= "). REASON says why the finding is not a bug,
# with a reference (issue, commit, NVIDIA bug). Every entry needs a reason; entries are
# reviewed when the library or the CUDA toolkit changes.
suppressions=(
  # (none yet)
)

# --- programs -------------------------------------------------------------------------
# Run first, and the only ones racecheck and synccheck run unless --full.
core_programs=(
  test_reduce_misc test_extrema_misc test_top_k_misc test_copy_if_misc test_pieces
  test_reduce_streams test_extrema_tuned test_top_k_tuned test_atomic_update test_determinism
)
# Never run under a sanitizer (see above).
excluded_regex='^(test_huge_real_memory|test_concurrency|test_device_errors|test_.*_huge)$'
# Test cases left out inside the programs (doctest -tce): ranges past 2^31 items.
exclude_cases='*huge*,*2^31*,*2^32*,*2^33*,*more than 2^*'

declare -A budget=([memcheck]=300 [racecheck]=1200 [synccheck]=120 [initcheck]=300)
declare -A tool_args=(
  [memcheck]="--tool memcheck --leak-check full"
  [racecheck]="--tool racecheck"
  [synccheck]="--tool synccheck"
  [initcheck]="--tool initcheck"
)
min_seconds=10  # a program is not started with less of the budget left

build_dir=build/gpu
tools_spec="memcheck,racecheck,synccheck,initcheck"
filter=""
out_dir=""
full=0
strict=0
dry_run=0
extra_args=()
while (($#)); do
  case "$1" in
    --build-dir) [ $# -ge 2 ] || { usage >&2; exit 2; }; build_dir=$2; shift ;;
    --build-dir=*) build_dir=${1#*=} ;;
    --tools) [ $# -ge 2 ] || { usage >&2; exit 2; }; tools_spec=$2; shift ;;
    --tools=*) tools_spec=${1#*=} ;;
    --filter) [ $# -ge 2 ] || { usage >&2; exit 2; }; filter=$2; shift ;;
    --filter=*) filter=${1#*=} ;;
    --out) [ $# -ge 2 ] || { usage >&2; exit 2; }; out_dir=$2; shift ;;
    --out=*) out_dir=${1#*=} ;;
    --budget | --budget=*)
      if [ "$1" = --budget ]; then [ $# -ge 2 ] || { usage >&2; exit 2; }; spec=$2; shift; else spec=${1#*=}; fi
      if [[ $spec =~ ^[0-9]+$ ]]; then
        for t in "${!budget[@]}"; do budget[$t]=$spec; done
      else
        IFS=',' read -r -a parts <<<"$spec"
        for part in "${parts[@]}"; do
          if [[ $part =~ ^([a-z]+)=([0-9]+)$ ]] && [ -n "${budget[${BASH_REMATCH[1]}]+x}" ]; then
            budget[${BASH_REMATCH[1]}]=${BASH_REMATCH[2]}
          else
            echo "bad --budget entry: $part" >&2; exit 2
          fi
        done
      fi ;;
    --full) full=1 ;;
    --strict) strict=1 ;;
    --sanitizer-args) [ $# -ge 2 ] || { usage >&2; exit 2; }; read -r -a extra_args <<<"$2"; shift ;;
    --sanitizer-args=*) read -r -a extra_args <<<"${1#*=}" ;;
    --dry-run) dry_run=1 ;;
    -h | --help) usage; exit 0 ;;
    *) echo "unknown option: $1" >&2; usage >&2; exit 2 ;;
  esac
  shift
done

read -r -a tools <<<"${tools_spec//,/ }"
((${#tools[@]})) || { echo "--tools: no tool given" >&2; exit 2; }
for t in "${tools[@]}"; do
  [ -n "${tool_args[$t]+x}" ] || { echo "unknown tool: $t (memcheck, racecheck, synccheck, initcheck)" >&2; exit 2; }
done
for s in "${suppressions[@]}"; do
  IFS='|' read -r s_tool s_prog s_msg s_reason <<<"$s"
  if [ -z "$s_tool" ] || [ -z "$s_prog" ] || [ -z "$s_msg" ] || [ -z "$s_reason" ]; then
    echo "malformed suppression (TOOL|PROGRAM_REGEX|MESSAGE_REGEX|REASON, all four needed): $s" >&2
    exit 2
  fi
done

cd "$(dirname "${BASH_SOURCE[0]}")/.." || exit 2
root=$(pwd)
case "$build_dir" in /*) ;; *) build_dir="$root/$build_dir" ;; esac
test_dir="$build_dir/test"
[ -d "$test_dir" ] || { echo "no $test_dir: build the tests first (scripts/gpu-check.sh --tests-only)" >&2; exit 2; }

mapfile -t all_programs < <(find "$test_dir" -maxdepth 1 -type f -perm -u+x -name 'test_*' -printf '%f\n' | sort)
((${#all_programs[@]})) || { echo "no test_* executables in $test_dir" >&2; exit 2; }

selected() {  # is program $1 present, not excluded, and matched by --filter?
  local p=$1 q
  [[ $p =~ $excluded_regex ]] && return 1
  [ -n "$filter" ] && ! [[ $p =~ $filter ]] && return 1
  for q in "${all_programs[@]}"; do [ "$q" = "$p" ] && return 0; done
  return 1
}

# The programs of a tool, in order: the core list, then (memcheck, initcheck, --full)
# the rest by name.
plan_for() {
  local tool=$1 p c in_core
  for p in "${core_programs[@]}"; do selected "$p" && echo "$p"; done
  if ((full)) || [ "$tool" = memcheck ] || [ "$tool" = initcheck ]; then
    for p in "${all_programs[@]}"; do
      in_core=0
      for c in "${core_programs[@]}"; do [ "$c" = "$p" ] && in_core=1; done
      ((in_core)) || ! selected "$p" || echo "$p"
    done
  fi
}

if ((dry_run)); then
  for tool in "${tools[@]}"; do
    mapfile -t plan < <(plan_for "$tool")
    echo "$tool (budget ${budget[$tool]} s, ${#plan[@]} programs): ${plan[*]}"
  done
  echo "test cases excluded in every program: $exclude_cases"
  exit 0
fi

sanitizer=${COMPUTE_SANITIZER:-}
if [ -z "$sanitizer" ]; then
  if [ -x /usr/local/cuda/bin/compute-sanitizer ]; then sanitizer=/usr/local/cuda/bin/compute-sanitizer
  else sanitizer=$(command -v compute-sanitizer || true); fi
fi
if [ -z "$sanitizer" ] || [ ! -x "$sanitizer" ]; then
  echo "compute-sanitizer not found (set COMPUTE_SANITIZER)" >&2
  exit 2
fi

log_root=${out_dir:-${OUT:-$build_dir/logs}}
mkdir -p "$log_root/sanitize" || exit 2
log_root=$(cd "$log_root" && pwd)

# The first lines of the error records in a log (without the "========= " prefix):
# compute-sanitizer starts each record with "========= <message>" and indents the lines
# that follow; its banner and summary lines are not records.
record_heads() {
  grep -E '^========= [^ ]' "$1" | sed 's/^========= //' |
    grep -vE '^(COMPUTE-SANITIZER|ERROR SUMMARY|RACECHECK SUMMARY|LEAK SUMMARY|Target application returned|Saved host backtrace|Program finished|This tool|Note:|NOTE:)'
}

# How many of the records in log $3 (program $2, tool $1) a suppression covers.
count_suppressed() {
  local tool=$1 prog=$2 log=$3 n=0 head s s_tool s_prog s_msg s_reason
  ((${#suppressions[@]})) || { echo 0; return; }
  while IFS= read -r head; do
    for s in "${suppressions[@]}"; do
      IFS='|' read -r s_tool s_prog s_msg s_reason <<<"$s"
      if { [ "$s_tool" = '*' ] || [ "$s_tool" = "$tool" ]; } && [[ $prog =~ $s_prog ]] && [[ $head =~ $s_msg ]]; then
        n=$((n + 1))
        break
      fi
    done
  done < <(record_heads "$log")
  echo "$n"
}

summary=()
failed=0
incomplete=0
empty_tools=()
for tool in "${tools[@]}"; do
  mapfile -t plan < <(plan_for "$tool")
  # A tool with nothing to run is not a clean result (e.g. --filter naming a program
  # outside the core list for racecheck): say so, and fail below.
  ((${#plan[@]})) || empty_tools+=("$tool")
  dir="$log_root/sanitize/$tool"
  mkdir -p "$dir" || exit 2
  echo
  echo "=== $tool (budget ${budget[$tool]} s): ${plan[*]}"
  read -r -a targs <<<"${tool_args[$tool]}"
  ran=0 errors=0 warnings=0 suppressed=0 findings=0 test_failed=0 timed_out=0 not_run=0 skipped=0
  bad_programs=()
  start=$SECONDS
  for prog in "${plan[@]}"; do
    left=$((budget[$tool] - (SECONDS - start)))
    if ((left < min_seconds)); then
      not_run=$((not_run + 1))
      echo "$tool $prog: not run (budget spent)"
      continue
    fi
    log="$dir/$prog.log"
    t0=$SECONDS
    TALLY_SANITIZE=1 timeout --signal=TERM --kill-after=15 "$left" \
      "$sanitizer" "${targs[@]}" --error-exitcode 86 "${extra_args[@]}" \
      "$test_dir/$prog" "--test-case-exclude=$exclude_cases" >"$log" 2>&1
    rc=$?
    took=$((SECONDS - t0))
    ran=$((ran + 1))

    e=$(sed -nE 's/^========= ERROR SUMMARY: ([0-9]+) errors?.*/\1/p' "$log" | awk '{ s += $1 } END { print s + 0 }')
    has_summary=$(grep -c '^========= ERROR SUMMARY' "$log")
    w=$(sed -nE 's/^========= RACECHECK SUMMARY:.*[(][0-9]+ errors?, ([0-9]+) warnings?[)].*/\1/p' "$log" |
        awk '{ s += $1 } END { print s + 0 }')
    if ((has_summary == 0)); then e=$(record_heads "$log" | wc -l); w=0; fi
    s=$(count_suppressed "$tool" "$prog" "$log")
    f=$((e + w - s))
    ((f < 0)) && f=0
    errors=$((errors + e)); warnings=$((warnings + w)); suppressed=$((suppressed + s)); findings=$((findings + f))

    status="clean"
    case $rc in
      0 | 86) ;;
      77) status="skipped (no GPU)"; skipped=$((skipped + 1)) ;;
      124 | 137) status="timed out after ${took}s (budget)"; timed_out=$((timed_out + 1)) ;;
      *) status="test failed (exit $rc)"; test_failed=$((test_failed + 1)) ;;
    esac
    ((rc == 86 && f == 0 && s == 0)) && { status="exit 86 without a parsed error (see log)"; test_failed=$((test_failed + 1)); }
    if ((f > 0)); then
      if [ "$status" = clean ]; then status="$f finding(s)"; else status="$status; $f finding(s)"; fi
    fi
    { ((f > 0)) || [[ $status == test* || $status == exit* ]]; } && bad_programs+=("$prog")
    echo "$tool $prog: $status [errors $e, warnings $w, suppressed $s, ${took}s] log: $log"
  done
  line="$tool: $ran programs, ERROR SUMMARY: $errors errors"
  ((warnings)) && line="$line, $warnings racecheck warnings"
  ((suppressed)) && line="$line ($suppressed suppressed)"
  ((test_failed)) && line="$line; $test_failed failed"
  ((timed_out)) && line="$line; $timed_out timed out"
  ((not_run)) && line="$line; $not_run not run (budget ${budget[$tool]} s)"
  ((skipped)) && line="$line; $skipped skipped (no GPU)"
  ((${#bad_programs[@]})) && line="$line; problems in: ${bad_programs[*]}"
  summary+=("$line")
  ((findings || test_failed)) && failed=1
  ((timed_out || not_run)) && incomplete=1
done

echo
echo "=== sanitize summary"
for line in "${summary[@]}"; do echo "$line"; done
echo "suppressions: ${#suppressions[@]}"
echo "logs: $log_root/sanitize"
if ((failed)); then
  echo "FAILED: findings or failing tests (see the lines above and the logs)"
  exit 1
fi
if ((${#empty_tools[@]})); then
  echo "FAILED: no program to run for ${empty_tools[*]} (--filter, or outside the core list without --full)"
  exit 1
fi
if ((incomplete)); then
  if ((strict)); then
    echo "FAILED (--strict): some programs timed out or did not run"
    exit 1
  fi
  echo "clean, but incomplete: some programs timed out or did not run (raise --budget)"
  exit 0
fi
echo "clean"
