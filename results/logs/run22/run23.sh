#!/usr/bin/env bash
# Run 23 (issue 16): on the H200, `tuner calibrate` (the profile with the
# tiled copies, into results/devices/), then the transposes' pruned runs
# and predictions with it against the day's --no-prune runs (carried in
# scratch/np), and the calibrate GPU test.  Packs into $OUT/run23.tgz.
# Usage: run23.sh BUDGET_S CONFIG...
set -u
F=/tmp/run23
mkdir -p $F/runs
budget=$1; shift
pack() { tar czf "$OUT/run23.tgz.tmp" -C $F . && mv "$OUT/run23.tgz.tmp" "$OUT/run23.tgz"; }
for g in $(ls scratch/np/*/noprune/*.json.gz 2>/dev/null); do
  d=$F/runs/${g#scratch/np/}; mkdir -p "$(dirname "$d")"; gunzip -c "$g" >"${d%.gz}"
done
[ -x build/tuner ] || bash scripts/gpu_runs.sh build >$F/build.log 2>&1
{ echo "tree ${TREE:-unknown} (the device copy's .git is stale)"; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; nvcc --version | tail -2; date -u +%FT%TZ; } >$F/environment.txt
t0=$(date +%s)
./build/tuner calibrate --device 0 >$F/calibrate.log 2>&1
echo "calibrate rc=$?" >>$F/calibrate.log
mkdir -p $F/devices && cp results/devices/*.json $F/devices/
pack
for c in "$@"; do
  left=$((budget - ($(date +%s) - t0)))
  [ $left -lt 40 ] && break
  RUNS=$F/runs CHECK=$F/check bash scripts/validate_model.sh --budget $left $c:pruned $c:predict $c:check >>$F/validate.log 2>&1
  echo "rc=$? $c" >>$F/validate.log
  pack
done
timeout 200 ctest --test-dir build -R gpu_calibrate --output-on-failure >$F/ctest-gpu.log 2>&1
echo "ctest rc=$?" >>$F/ctest-gpu.log
pack
tail -30 $F/calibrate.log; grep -E "^=== |^\| [0-9]|model_check.py:|rc=" $F/validate.log | tail -30; tail -5 $F/ctest-gpu.log
