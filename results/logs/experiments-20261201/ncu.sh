#!/usr/bin/env bash
# ncu of the best tensor-core candidate and of cuBLAS's kernel beside it
set -u
out=${1:-/tmp/ncu}; mkdir -p "$out"
cfg=scratch/tc-best.cfg
ncu --target-processes all --kernel-name regex:'^gemm_tc$' -c 1 --set full \
  -f -o "$out/tc" ./build/tuner --config $cfg --device 0 -r 1 --warmup 0 \
  --no-cache -q --full-protocol --output /tmp/ncu-tune1 >"$out/tc-run.log" 2>&1
ncu --import "$out/tc.ncu-rep" --page details >"$out/tc-details.txt" 2>&1
ncu --target-processes all --kernel-name regex:'nvjet|sm90|cutlass|gemm_bf16|xmma' \
  -c 1 --set full -f -o "$out/cublas" ./build/tuner --config $cfg --device 0 -r 1 \
  --warmup 0 --no-cache -q --full-protocol --output /tmp/ncu-tune2 >"$out/cublas-run.log" 2>&1
ncu --import "$out/cublas.ncu-rep" --page details >"$out/cublas-details.txt" 2>&1
ncu --import "$out/tc.ncu-rep" --page raw --csv >"$out/tc-raw.csv" 2>&1
ncu --import "$out/cublas.ncu-rep" --page raw --csv >"$out/cublas-raw.csv" 2>&1
