#!/usr/bin/env bash
# Run 28: Nsight Compute on the layouts and tiles the time model rates
# alike and the H200 does not (pads.cfg, tiles.cfg).  Each config is timed
# (--no-prune, 30 repetitions), then every gemm_tc launch profiled with
# --set full; the details, raw counters and SASS source counters go into
# $OUT/run28.tgz.
# Usage (device machine, repository root): bash results/logs/run28/run28.sh
set -u
F=/tmp/run28; mkdir -p $F
D=results/logs/run28
{ nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; nvcc --version | tail -2; ncu --version | tail -1; date -u +%FT%TZ; } >$F/environment.txt
[ -x build/tuner ] || { cmake -S . -B build -DCMAKE_BUILD_TYPE=Release >$F/build.log 2>&1 && cmake --build build -j16 --target tuner >>$F/build.log 2>&1; } || { tail -30 $F/build.log; exit 1; }
for c in pads tiles; do
  ./build/tuner --config $D/$c.cfg --device 0 --no-prune -r 30 -q --output $F/time-$c >$F/time-$c.log 2>&1
  echo "time $c rc=$?" >>$F/status.txt
  ncu --target-processes all --kernel-name regex:'^gemm_tc$' --set full -f -o $F/$c \
    ./build/tuner --config $D/$c.cfg --device 0 --no-prune -r 1 --warmup 0 --no-cache -q \
    --full-protocol --output $F/ncu-$c >$F/ncu-$c.log 2>&1
  echo "ncu $c rc=$?" >>$F/status.txt
  ncu --import $F/$c.ncu-rep --page details >$F/$c-details.txt 2>&1
  ncu --import $F/$c.ncu-rep --page raw --csv >$F/$c-raw.csv 2>&1
  ncu --import $F/$c.ncu-rep --page source --csv --print-source sass >$F/$c-sass.csv 2>&1
  rm -f $F/$c.ncu-rep.tmp
  tar czf $OUT/run28.tgz -C $F --exclude='*.ncu-rep' . 
done
cat $F/status.txt; grep -c . $F/*-raw.csv; du -sh $OUT/run28.tgz
