#!/usr/bin/env bash
# Run 25 (issue 16, part 5): the pruned runs with the measured rules
# (tuner/pipeline/measured.h) and the predictions, on the H200, against the
# --no-prune runs committed in results/model-check/runs-20261202/ (made the
# same day, 2026-12-02, by run 22).  scripts/validate_model.sh's pruned,
# predict and check stages; everything packed into $OUT/run25.tgz after
# each config.
# Usage: [RUN=N] run25.sh BUDGET_S CONFIG...   (builds first on a fresh
#   machine; RUN names the scratch folder and archive, 25 by default)
set -u
R=run${RUN:-25}
F=/tmp/$R
mkdir -p $F/runs $F/check
budget=$1; shift
pack() { tar czf "$OUT/$R.tgz.tmp" -C $F . && mv "$OUT/$R.tgz.tmp" "$OUT/$R.tgz"; }
for g in results/model-check/runs-20261202/*/noprune-*.json.gz; do
  c=$(basename "$(dirname "$g")"); mkdir -p $F/runs/$c/noprune
  b=$(basename "$g" .gz); gunzip -c "$g" >$F/runs/$c/noprune/$b
done
[ -x build/tuner ] || bash scripts/gpu_runs.sh build >$F/build.log 2>&1
{ echo "tree ${TREE:-unknown} (the device copy's .git is stale)"; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; nvcc --version | tail -2; date -u +%FT%TZ; } >$F/environment.txt
t0=$(date +%s)
for c in "$@"; do
  left=$((budget - ($(date +%s) - t0)))
  [ $left -lt 40 ] && break
  RUNS=$F/runs CHECK=$F/check bash scripts/validate_model.sh --budget $left \
    $c:pruned $c:predict $c:check >>$F/validate.log 2>&1
  echo "rc=$? $c" >>$F/validate.log
  pack
done
pack
grep -E "^=== |^\| [0-9]|model_check.py:|rc=|exit" $F/validate.log | tail -80
