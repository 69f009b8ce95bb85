#!/usr/bin/env bash
# gpu_examples_run.sh -- the H200 run of issue 34's three examples
# (configs/examples/: conv2d, softmax, transpose_fp16), each tuned end to
# end with its baseline, then each declared plan checked against Nsight
# Compute launch by launch (scripts/plan_vs_ncu.py, whose run is a
# --no-prune one).  On the GPU machine, from the repository root, with the
# packed dependencies (.deps, DESIGN.md "Building on the GPU machine"):
#
#   OUT=/some/folder scripts/gpu_examples_run.sh
#
# Steps, each under a timeout, each logged to $WORK/logs/STEP.log (the
# script goes on after a failed step and exits 1 at the end):
#   build       cmake and the tuner alone
#   tune-EX     tuner --config configs/examples/EX/EX.cfg --device 0: the
#               pruned run with its baseline, results in $WORK/results/EX
#   noprune-EX  the same with --no-prune (every valid candidate timed), in
#               $WORK/results/EX-noprune, then model-check-EX:
#               scripts/model_check.py on the two (pruning loses no
#               sibling group's best beyond noise), in $WORK/model-check
#   ncu-EX      scripts/plan_vs_ncu.py on EX into $WORK/ncu/EX: a
#               --no-prune run under ncu, every profiled launch's
#               instructions and wavefronts against the plan, tied to the
#               accesses' `line`s (SourceCounters; NO_SOURCE=1 leaves it
#               out)
# The steps end within TOTAL seconds (default 450: the device's commands
# stop at 600 s, and the whole, the archive included, is to stay under 8
# minutes).  A step's timeout is its cap or what is left, whichever is
# less.  The checks share what the tunes leave, split evenly.
# Profiling every launch of the three spaces (1460 launches) does not fit
# in that, so each check profiles a window of its run's launches
# (--launches FIRST:COUNT): the first check LAUNCHES (default 48) from
# FIRST (default 0), the next ones as many as the rate measured so far
# lets fit in their share (LAUNCHES=all: the whole run, no window).  The
# summary says which launches each covered and what every launch of the
# run would take at that rate; later calls with FIRST and STEPS="build
# ncu" cover the rest (a run is the same each time: no pruning).
#
# Settings (environment): STEPS (default "build tune noprune ncu"), EXAMPLES
# (default "transpose_fp16 softmax conv2d": the smallest space first, so
# that its rate sizes the others' windows), TOTAL, LAUNCHES, FIRST,
# NO_SOURCE, WORK (default /tmp/gpu_examples_run), DRY=1 (no GPU: the
# tunes are dry runs for sm_90 and the checks stop where ncu is looked
# for; for trying the script on a CPU machine).
#
# $OUT receives two files (the device returns at most 8): summary.txt and
# gpu_examples_run.tar.gz (results, journals, headers, plan_vs_ncu.py's
# tables, ncu's CSV pages but not its .ncu-rep files, the logs).
set -uo pipefail
# shellcheck source-path=SCRIPTDIR source=gpu_lib.sh
. "$(dirname "$0")/gpu_lib.sh"
OUT=${OUT:-/tmp/gpu_examples_out}
WORK=${WORK:-/tmp/gpu_examples_run}
TOTAL=${TOTAL:-450}
STEPS=${STEPS:-build tune noprune ncu}
EXAMPLES=${EXAMPLES:-transpose_fp16 softmax conv2d}
LAUNCHES=${LAUNCHES:-48}
FIRST=${FIRST:-0}
NO_SOURCE=${NO_SOURCE:-0}
DRY=${DRY:-0}
LOGS=$WORK/logs
tuner=./build/tuner
# one compile cache for the tunes and the checks: the checks' --no-prune
# runs compile only what the tunes pruned
export TUNER_CACHE_DIR=${TUNER_CACHE_DIR:-$WORK/cache}
status=0
summary=$WORK/summary.txt
mkdir -p "$OUT" "$LOGS" "$WORK/results" "$WORK/ncu" "$TUNER_CACHE_DIR"
: >"$summary"

# each step within TOTAL, its header and the end of its log on stdout,
# what it did said into the summary (say) by the script
gpu_budget=$TOTAL
gpu_min=10
gpu_logs=$LOGS
gpu_summary=$summary
gpu_tail=8
gpu_work=$WORK
gpu_pack=("gpu_examples_run.tar.gz --exclude=cache --exclude=*.ncu-rep .")

has_step() { case " $STEPS " in *" $1 "*) return 0 ;; esac; return 1; }
# tune_args EX DIR [ARG...]: the tuner's arguments for example EX into
# DIR (a dry run for sm_90 with DRY=1), in the array args
tune_args() {
  local ex=$1 dir=$2
  shift 2
  args=(--config "configs/examples/$ex/$ex.cfg" -q "$@" --output "$dir")
  if [ "$DRY" = 1 ]; then
    args+=(--dry-run --arch sm_90)
  else
    args+=(--device 0)
  fi
}
# newest_json DIR: the newest results file a run wrote into DIR
newest_json() {
  find "$1" -name '*.json' 2>/dev/null | sort | tail -1
}

finish() {
  say "total: $(elapsed) s; exit $status"
  cp "$summary" "$OUT/summary.txt"
  pack || echo "note: the archive is incomplete"
  # the device returns files of at most 16 MiB: without the source pages
  if [ "$(stat -c %s "$OUT/gpu_examples_run.tar.gz")" -gt 15000000 ]; then
    say "note: the archive leaves out ncu_source.csv (over 15 MB with it)"
    gpu_pack=("gpu_examples_run.tar.gz --exclude=cache --exclude=*.ncu-rep
      --exclude=ncu_source.csv .")
    pack
  fi
  ls -la "$OUT"
  exit $status
}

source_deps
environment "$LOGS/environment.txt"
say "gpu_examples_run: $(git log -1 --format='%h %s' 2>/dev/null)"
say "steps: $STEPS; examples: $EXAMPLES; TOTAL=$TOTAL LAUNCHES=$LAUNCHES" \
    "FIRST=$FIRST NO_SOURCE=$NO_SOURCE DRY=$DRY"

if has_step build; then
  step build 150 bash -c \
    "cmake -S . -B build -DCMAKE_BUILD_TYPE=Release &&
     cmake --build build -j$(nproc) --target tuner"
  say "build: exit $step_rc, $step_s s"
  [ $step_rc -eq 0 ] || finish
fi
[ -x "$tuner" ] || { say "no $tuner"; status=1; finish; }

# 1. the tunes: each example end to end, its baseline in the same run
if has_step tune; then
  for ex in $EXAMPLES; do
    tune_args "$ex" "$WORK/results/$ex"
    step "tune-$ex" 90 "$tuner" "${args[@]}"
    say "tune $ex: exit $step_rc, $step_s s"
    grep -h "^tuner: .*\(best\|baseline\|pruned\|failed\|verified\)" \
      "$LOGS/tune-$ex.log" | tail -6 | sed 's/^/  /' | tee -a "$summary"
    res=$(newest_json "$WORK/results/$ex")
    [ -n "$res" ] && timeout 30 python3 - "$res" <<'PY' | tee -a "$summary"
import collections, json, sys
d = json.load(open(sys.argv[1]))
n = collections.Counter(c.get("status") for c in d["candidates"])
print("  %s: %s" % (sys.argv[1].rsplit("/", 1)[-1],
                    ", ".join("%d %s" % (v, k) for k, v in sorted(n.items()))))
run = d.get("run", {})
print("  wall %.1f s, %s pruned by the model, %s by measurement"
      % (run.get("wall_s", 0), run.get("pruned_by_model"),
         run.get("pruned_by_measured")))
for b in d.get("baselines", []):
    print("  baseline %s: %s ms, %s %s" % (b.get("name"), b.get("median_ms"),
                                          b.get("rate"), b.get("unit")))
best = d.get("best")
if best:
    print("  best: id %s %s: %s ms, %s %s, %s%% of the baseline"
          % (best["id"], " ".join("%s=%s" % kv for kv in
                                  best["params"].items()),
             best.get("median_ms"), best.get("rate"), best.get("unit"),
             best.get("pct_of_baseline")))
else:
    print("  best: none")
PY
  done
fi

# 2. pruning against no pruning: each example's --no-prune run, every
# valid candidate timed, right after its pruned run, and
# scripts/model_check.py on the pair (does pruning lose a sibling group's
# best, or a size's, beyond noise?)
if has_step noprune; then
  mkdir -p "$WORK/model-check"
  for ex in $EXAMPLES; do
    tune_args "$ex" "$WORK/results/$ex-noprune" --no-prune
    step "noprune-$ex" 120 "$tuner" "${args[@]}"
    say "no-prune $ex: exit $step_rc, $step_s s"
    np=$(newest_json "$WORK/results/$ex-noprune")
    pr=$(newest_json "$WORK/results/$ex")
    if [ -z "$np" ] || [ -z "$pr" ]; then
      say "  model_check $ex: not run (a results file is missing)"
      status=1
      continue
    fi
    step "model-check-$ex" 60 python3 scripts/model_check.py \
      --no-prune "$np" --pruned "$pr" \
      --markdown "$WORK/model-check/$ex.md" \
      --json "$WORK/model-check/$ex.json"
    say "  model_check $ex: exit $step_rc"
    sed 's/^/  /' "$WORK/model-check/$ex.md" 2>/dev/null | head -30 |
      tee -a "$summary"
  done
fi

# 3. the checks: the plan against Nsight Compute
if has_step ncu; then
  rate=""  # seconds a profiled launch, the whole check's time included
  # shellcheck disable=SC2086
  set -- $EXAMPLES
  n_left=$#
  for ex in "$@"; do
    cfg=configs/examples/$ex/$ex.cfg
    share=$(( ($(left) - 20) / n_left ))
    n_left=$((n_left - 1))
    total=$(timeout 60 "$tuner" plan --config "$cfg" --json 2>/dev/null |
            python3 -c 'import json, sys
d = json.load(sys.stdin)
print(2 * len(d["points"]) * len(d["problems"]))' 2>/dev/null)
    total=${total:-0}
    if [ "$LAUNCHES" = all ]; then
      window=()
      desc="every launch"
    else
      count=$LAUNCHES
      if [ -n "$rate" ]; then
        # 80% of the share at the rate measured so far
        count=$(python3 -c "print(max(8, int(0.8 * $share / $rate)))")
      fi
      [ "$total" -gt 0 ] && [ "$count" -gt $((total - FIRST)) ] &&
        count=$((total - FIRST))
      window=(--launches "$FIRST:$count")
      desc="launches $FIRST to $((FIRST + count - 1)) of $total"
    fi
    src=()
    [ "$NO_SOURCE" = 1 ] && src=(--no-source)
    ncu_bin=ncu
    [ "$DRY" = 1 ] && ncu_bin=/nonexistent/ncu
    rm -rf "$WORK/ncu/$ex"
    step "ncu-$ex" "$share" python3 scripts/plan_vs_ncu.py \
      --tuner "$tuner" --config "$cfg" --out "$WORK/ncu/$ex" \
      --ncu "$ncu_bin" --timeout $((share > 40 ? share - 30 : 10)) \
      --import-timeout 60 "${window[@]}" "${src[@]}"
    case $step_rc in
    0) verdict="every profiled launch equals the plan" ;;
    1) verdict="some launch differs from the plan" ;;
    2) verdict="bad input" ;;
    3) verdict="nothing compared (ncu, counters, timeout or alignment)" ;;
    124 | 137) verdict="timed out" ;;
    *) verdict="exit $step_rc" ;;
    esac
    say "ncu $ex ($desc, share $share s): exit $step_rc, $step_s s: $verdict"
    line=$(grep -h "launches of .* profiled" "$LOGS/ncu-$ex.log" | tail -1)
    [ -n "$line" ] && say "  $line"
    # the first launches that differ, with the accesses and lines named
    grep -hE "^launch [0-9]+ .*: differs in |^    (access '|the kernel has)" \
      "$LOGS/ncu-$ex.log" | head -12 | sed 's/^/  /' | tee -a "$summary"
    profiled=$(echo "$line" | sed -n 's/.*: \([0-9]*\) launches of .*/\1/p')
    if [ "$step_rc" -le 1 ] && [ -n "$profiled" ] && [ "$profiled" -gt 0 ]; then
      rate=$(python3 -c "print(round($step_s / $profiled, 3))")
      say "  $rate s a profiled launch (the whole check); all $total:" \
          "about $(python3 -c "print(int($rate * $total))") s"
    fi
  done
fi
finish
