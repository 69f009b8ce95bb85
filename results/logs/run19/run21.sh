#!/usr/bin/env bash
# Run 21 (issue 16, part 5): the wgmma configs' pruned runs and predictions
# with gemm_wg's new estimate, against run 20's --no-prune runs (carried in
# scratch/np, gzipped); then the GPU tests that tune (the transposes, the
# GEMM edges, faults, calibrate, the user project) on the final tree.
# Packs everything into $OUT/run21.tgz after each step.
# Usage: run21.sh BUDGET_S CONFIG...
set -u
F=/tmp/run21
mkdir -p $F/runs
budget=$1; shift
pack() { tar czf "$OUT/run21.tgz.tmp" -C $F . && mv "$OUT/run21.tgz.tmp" "$OUT/run21.tgz"; }
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
timeout 400 ctest --test-dir build -R "gpu_tune_transpose|gpu_faults|gpu_gemm_edges|gpu_calibrate|user_project" --output-on-failure >$F/ctest-gpu.log 2>&1
echo "ctest rc=$?" >>$F/ctest-gpu.log
pack
grep -E "^=== |^\| [0-9]|model_check.py:|rc=" $F/validate.log | tail -60
grep -E "Test +#|tests passed|rc=" $F/ctest-gpu.log
