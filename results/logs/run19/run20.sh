#!/usr/bin/env bash
# Run 20 (issue 16, part 5): the pruned runs and predictions of the model
# as committed, against run 19's --no-prune runs of the same day (carried
# in scratch/np, gzipped), and the three configs run 19 had no time for,
# all stages.  Packs everything into $OUT/run20.tgz after each config.
# Usage: run20.sh BUDGET_S CONFIG...
set -u
F=/tmp/run20
mkdir -p $F/runs
budget=$1; shift
pack() { tar czf "$OUT/run20.tgz.tmp" -C $F . && mv "$OUT/run20.tgz.tmp" "$OUT/run20.tgz"; }
for g in scratch/np/*/noprune/*.json.gz; do
  d=$F/runs/${g#scratch/np/}; mkdir -p "$(dirname "$d")"; gunzip -c "$g" >"${d%.gz}"
done
[ -x build/tuner ] || bash scripts/gpu_runs.sh build >$F/build.log 2>&1
{ git log -1 --format=%H 2>/dev/null; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; nvcc --version | tail -2; date -u +%FT%TZ; } >$F/environment.txt
t0=$(date +%s)
for c in "$@"; do
  left=$((budget - ($(date +%s) - t0)))
  [ $left -lt 40 ] && break
  RUNS=$F/runs CHECK=$F/check bash scripts/validate_model.sh --budget $left $c >>$F/validate.log 2>&1
  echo "rc=$? $c" >>$F/validate.log
  pack
done
pack
grep -E "^=== |^\| [0-9]|model_check.py:|rc=" $F/validate.log | tail -60
