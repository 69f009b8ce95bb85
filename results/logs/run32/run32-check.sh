#!/usr/bin/env bash
# Run 32, second call (issue 16): with the copy engine's cost in the model
# and the H200 profile of the first call (results/devices/
# sm_90-NVIDIA_H200-20261203.json, the newest), the pruned and --predict
# runs of every shipped config and their tables, against the day's
# --no-prune runs (run 30, results/model-check/runs-20261203).
# Usage: TREE=sha bash results/logs/run32/run32-check.sh
set -u
STAGES="pruned predict check" NOPRUNE_IN=results/model-check/runs-20261203 \
  RUN=32 bash results/logs/run30/run30.sh 540 transpose-tma-odd \
  transpose-tma transpose gemm-shapes gemm-bf16-shapes gemm-wg-bf16-8192 \
  gemm-bf16 gemm gemm-odd gemm-bf16-8192 gemm-fp16-odd gemm-wg-bf16 \
  gemm-bf16-layouts
