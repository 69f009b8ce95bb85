#!/usr/bin/env bash
# Run 32, first call (issue 16): on the H200, the build, `tuner calibrate`
# with the copy engine's boxes (the new profile, into results/devices/ and
# $OUT), the GPU calibration test, and the pruned and --predict runs of the
# two TMA transposes against the day's --no-prune runs (run 30), with that
# profile.  Usage: TREE=sha bash results/logs/run32/run32-calibrate.sh
set -u
mkdir -p $OUT/cal
bash scripts/gpu_runs.sh build >$OUT/cal/build.log 2>&1 || { tail -30 $OUT/cal/build.log; exit 1; }
./build/tuner calibrate --device 0 >$OUT/cal/calibrate.txt 2>$OUT/cal/calibrate.err
echo "calibrate rc=$?"
cp results/devices/sm_90-NVIDIA_H200-2026120[3-9].json $OUT/cal/ 2>/dev/null
grep -E "tma_|global_copy|sm_clock" $OUT/cal/calibrate.txt
(cd build && ctest -R gpu_calibrate --output-on-failure >$OUT/cal/gpu_calibrate.log 2>&1; echo "gpu_calibrate rc=$?")
tar czf $OUT/cal.tgz -C $OUT cal
STAGES="pruned predict check" NOPRUNE_IN=results/model-check/runs-20261203 \
  RUN=32 bash results/logs/run30/run30.sh 200 transpose-tma-odd transpose-tma
