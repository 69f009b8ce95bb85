#!/usr/bin/env bash
# Run 22 (issue 16, part 5): scripts/validate_model.sh's stages (CONFIG or
# CONFIG:STAGE) on the H200, the --no-prune runs of earlier calls of the
# same day carried in scratch/np/<config>/noprune/, gzipped.  Packs
# everything into $OUT/run22.tgz after each target.
# Usage: run22.sh BUDGET_S TARGET...   (builds first on a fresh machine)
set -u
F=/tmp/run22
mkdir -p $F/runs
budget=$1; shift
pack() { tar czf "$OUT/run22.tgz.tmp" -C $F . && mv "$OUT/run22.tgz.tmp" "$OUT/run22.tgz"; }
for g in $(ls scratch/np/*/noprune/*.json.gz 2>/dev/null); do
  d=$F/runs/${g#scratch/np/}; mkdir -p "$(dirname "$d")"; gunzip -c "$g" >"${d%.gz}"
done
[ -x build/tuner ] || bash scripts/gpu_runs.sh build >$F/build.log 2>&1
{ echo "tree ${TREE:-unknown} (the device copy's .git is stale)"; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; nvcc --version | tail -2; date -u +%FT%TZ; } >$F/environment.txt
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
