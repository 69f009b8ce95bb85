#!/usr/bin/env bash
# validate_model.sh -- issue 16, part 5, on a GPU: for each config, a
# --no-prune run, a pruned run and a --predict for the GPU's architecture
# (no GPU: the profile and the model only), then scripts/model_check.py on
# them, writing tests/fixtures/model-check/<config>.md and .json.
#
# Staged and resumable, for device calls of limited length: a stage whose
# results file is there and complete is skipped; one that was interrupted
# is continued with --resume; with --budget S no stage starts after S
# seconds and a running tuner is interrupted (SIGINT: it writes what it
# measured) so that the call ends by then.  Run it again to go on: it says
# "not finished" and exits 75 while stages are left.
#
# Usage: scripts/validate_model.sh [--budget S] [CONFIG...]
#   CONFIG: the name of a file in configs/ (gemm, transpose, ...), a stage
#   of one (gemm:noprune, gemm:pruned, gemm:predict, gemm:check), or all
#   (the default): every configs/*.cfg.
# Environment: TUNER (./build/tuner), RUNS (tests/fixtures/model-check/runs:
#   the runs, one folder per config and stage), CHECK
#   (tests/fixtures/model-check: the tables and summaries), ARCH
#   (--predict's; default the --no-prune run's).
# Exit status: 0 done, 1 a stage failed or a figure is worse than the
#   committed bar, 2 bad usage, 75 the budget ran out (run it again).
set -uo pipefail
# shellcheck source-path=SCRIPTDIR source=gpu_lib.sh
. "$(dirname "$0")/gpu_lib.sh"
cd "$(dirname "$0")/.." || exit 2
TUNER=${TUNER:-./build/tuner}
RUNS=${RUNS:-tests/fixtures/model-check/runs}
CHECK=${CHECK:-tests/fixtures/model-check}
budget=0
targets=()
while [ $# -gt 0 ]; do
  case "$1" in
  --budget)
    budget=${2:-}
    case "$budget" in '' | *[!0-9]*)
      echo "validate_model.sh: --budget: seconds expected" >&2; exit 2 ;;
    esac
    shift 2 ;;
  -h | --help) sed -n '2,23p' "$0"; exit 0 ;;
  *) targets+=("$1"); shift ;;
  esac
done
[ ${#targets[@]} -eq 0 ] && targets=(all)
gpu_budget=$budget
status=0

# every target checked before any work
plan=()
for t in "${targets[@]}"; do
  if [ "$t" = all ]; then
    for c in configs/*.cfg; do plan+=("$(basename "$c" .cfg)"); done
    continue
  fi
  name=${t%%:*}
  stage=${t#"$name"}
  stage=${stage#:}
  if [ ! -f "configs/$name.cfg" ]; then
    echo "validate_model.sh: $t: no configs/$name.cfg" >&2; exit 2
  fi
  case "$stage" in
  '' | noprune | pruned | predict | check) ;;
  *) echo "validate_model.sh: $t: stage noprune, pruned, predict or check" \
       "expected" >&2; exit 2 ;;
  esac
  plan+=("$t")
done
if [ ! -x "$TUNER" ]; then
  echo "validate_model.sh: $TUNER: not built (scripts/gpu_runs.sh build)" >&2
  exit 2
fi

# the newest complete (not interrupted) results file in a folder, or the
# newest interrupted one with "resume " before it, or nothing
results_in() {
  python3 - "$1" <<'EOF'
import glob, json, os, sys
files = sorted(glob.glob(os.path.join(sys.argv[1], "*.json")),
               key=os.path.getmtime, reverse=True)
for f in files:
    try:
        d = json.load(open(f))
    except (OSError, ValueError):
        continue
    if not d.get("run", {}).get("interrupted"):
        print(f)
        sys.exit(0)
for f in files:
    print("resume " + f)
    sys.exit(0)
EOF
}

out_of_time=0
# run_stage NAME STAGE: 0 done (or already), 1 failed, 75 out of time
run_stage() {
  local name=$1 stage=$2 dir="$RUNS/$1/$2" found args cmd rc t0 remain
  found=$(results_in "$dir")
  if [ -n "$found" ] && [ "${found#resume }" = "$found" ]; then
    echo "  $stage: done before: $found"
    return 0
  fi
  args=(--config "configs/$name.cfg" -q --output "$dir")
  case "$stage" in
  noprune) args+=(--device 0 --no-prune) ;;
  pruned) args+=(--device 0) ;;
  predict)
    local np arch=${ARCH:-}
    np=$(results_in "$RUNS/$name/noprune")
    if [ -z "$arch" ]; then
      if [ -z "$np" ] || [ "${np#resume }" != "$np" ]; then
        echo "  predict: no complete --no-prune run to take the" \
             "architecture from (or set ARCH)"
        return 1
      fi
      # the run's target, which its file name carries (sm_90a for a
      # family that needs the feature set; the device says sm_90)
      arch=$(python3 -c 'import json,os,re,sys; m=re.search(r"-(sm_[0-9]+[a-z]?)-[0-9]{8}T", os.path.basename(sys.argv[1])); print(m.group(1) if m else json.load(open(sys.argv[1]))["device"]["arch"])' "$np")
    fi
    args+=(--predict --arch "$arch") ;;
  esac
  [ "${found#resume }" != "$found" ] && args+=(--resume "${found#resume }")
  remain=$(left)
  if [ "$remain" -lt 30 ]; then
    return 75
  fi
  mkdir -p "$dir"
  cmd=("$TUNER" "${args[@]}")
  echo "  $stage: ${cmd[*]}"
  t0=$(date +%s)
  timeout -s INT -k 20 $((remain - 20)) "${cmd[@]}" >"$dir.log" 2>&1
  rc=$?
  echo "  $stage: exit $rc, $(($(date +%s) - t0)) s (log $dir.log)"
  case $rc in
  0) return 0 ;;
  130 | 124) return 75 ;;
  *) tail -5 "$dir.log"; return 1 ;;
  esac
}

check_stage() {
  local name=$1 np pr pd args
  np=$(results_in "$RUNS/$name/noprune")
  pr=$(results_in "$RUNS/$name/pruned")
  pd=$(results_in "$RUNS/$name/predict")
  for f in "$np" "$pr"; do
    if [ -z "$f" ] || [ "${f#resume }" != "$f" ]; then
      echo "  check: the --no-prune and pruned runs are not both complete"
      return 1
    fi
  done
  args=(--no-prune "$np" --pruned "$pr" --json "$CHECK/$name.json"
        --markdown "$CHECK/$name.md")
  [ -n "$pd" ] && [ "${pd#resume }" = "$pd" ] && args+=(--predict "$pd")
  python3 scripts/model_check.py "${args[@]}" >"$RUNS/$name/check.log" 2>&1
  local rc=$?
  grep -A2 "^| valid space" "$RUNS/$name/check.log" | tail -1
  grep -A2 "^| predicted winner" "$RUNS/$name/check.log" | tail -1
  grep "^model_check.py:" "$RUNS/$name/check.log"
  return $rc
}

for t in "${plan[@]}"; do
  name=${t%%:*}
  stage=${t#"$name"}
  stage=${stage#:}
  stages=(noprune pruned predict check)
  [ -n "$stage" ] && stages=("$stage")
  banner "$name"
  c0=$(date +%s)
  for s in "${stages[@]}"; do
    if [ "$s" = check ]; then
      check_stage "$name" || status=1
      continue
    fi
    run_stage "$name" "$s"
    rc=$?
    if [ $rc -eq 75 ]; then out_of_time=1; break; fi
    [ $rc -ne 0 ] && status=1
  done
  echo "=== $name: $(($(date +%s) - c0)) s wall"
  [ $out_of_time -eq 1 ] && break
done
if [ $out_of_time -eq 1 ]; then
  echo "validate_model.sh: not finished (budget ${budget} s): run it again" \
       "with the same arguments to go on"
  exit 75
fi
exit $status
