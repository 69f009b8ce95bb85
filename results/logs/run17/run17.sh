#!/usr/bin/env bash
# Run 17: the gpu tests that close issue 11 (model vs Nsight Compute for
# every shipped tensor-core GEMM candidate, and the drift trace), stage by
# stage; after each stage everything so far is packed into $OUT/run17.tgz.
# Usage: run17.sh STAGE...   (build, ncu, runs, edges, drift)
set -u
F=/tmp/run17
mkdir -p $F/logs
pack() { tar czf "$OUT/run17.tgz.tmp" -C $F . && mv "$OUT/run17.tgz.tmp" "$OUT/run17.tgz"; }
stage() { echo "=== $* ($(date -u +%T))" >>$F/logs/stages.txt; "$@" >>$F/logs/stages.txt 2>&1; echo "--- rc=$? ($(date -u +%T))" >>$F/logs/stages.txt; pack; }
for s in "$@"; do
  case $s in
  build) stage bash scripts/gpu_runs.sh build ;;
  ncu) stage env TUNER_TEST_LOGS=$F/logs/ctest ctest --test-dir build -R "gpu_model_vs_ncu" --output-on-failure ;;
  runs) stage env RESULTS=$F/results LOGS=$F/logs bash scripts/gpu_runs.sh wg-bf16 wg-bf16-8192 tc-fp16-odd wg-edges wg-edges-trans ;;
  edges) stage env TUNER_TEST_LOGS=$F/logs/ctest ctest --test-dir build -R "gpu_gemm_edges" --output-on-failure ;;
  drift) stage env TUNER_TEST_LOGS=$F/logs/ctest timeout ${DRIFT_LIMIT:-1200} ctest --test-dir build -R "gpu_drift_trace" --output-on-failure ;;
  esac
done
tail -30 $F/logs/stages.txt
