#!/usr/bin/env bash
# Run 16: the final GPU run of the session, stage by stage; after each
# stage everything so far is packed into $OUT/run16.tgz (the only file
# that comes back), so a stage cut short by the time limit loses nothing
# before it.
set -u
F=/tmp/run16
mkdir -p $F/logs $F/results
export LOGS=$F/logs RESULTS=$F/results
pack() { tar czf "$OUT/run16.tgz.tmp" -C $F . && mv "$OUT/run16.tgz.tmp" "$OUT/run16.tgz"; }
stage() { echo "=== $* ($(date -u +%T))" >>$F/logs/stages.txt; "$@" >>$F/logs/stages.txt 2>&1; echo "--- rc=$? ($(date -u +%T))" >>$F/logs/stages.txt; pack; }
git log -1 --format='%H %s' >$F/logs/commit.txt 2>/dev/null
git status --short >>$F/logs/commit.txt 2>/dev/null
stage bash scripts/gpu_runs.sh build
stage bash scripts/gpu_runs.sh tc-bf16 tc-bf16-8192 tc-fp16-odd tc-layouts
stage bash scripts/gpu_runs.sh speed
stage bash scripts/gpu_runs.sh tma-transpose tma-transpose-odd
stage env TUNER_TEST_LOGS=$F/logs/ctest ctest --test-dir build -R "gpu_gemm_edges|gpu_tune_transpose_tma|gpu_calibrate" --output-on-failure
stage env RUNS=2 JOBS="1 16" bash scripts/gpu_runs.sh compile-speedup
stage env TUNER_TEST_LOGS=$F/logs/ctest ctest --test-dir build -R "gpu_model_vs_ncu|gpu_drift_trace" --output-on-failure
