#!/usr/bin/env bash
# transpose_bounds.sh -- what bounds a transpose candidate: Nsight Compute
# on one timed launch of each point named below (its DRAM traffic and
# throughput, its L2 sectors, its issue and occupancy), at the clocks the
# tuner runs at.  Each point is a shipped config narrowed to one
# candidate by scripts/transpose_explore.py.  On the GPU machine, from the
# repository root, after the build:
#
#   OUT=DIR bash scripts/transpose_bounds.sh
#
# DIR receives bounds.csv (ncu's raw page, a row a point) and bounds.log.
set -u
: "${OUT:?OUT: the folder the files go to}"
mkdir -p "$OUT"
metrics=gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum
metrics=$metrics,dram__throughput.avg.pct_of_peak_sustained_elapsed
metrics=$metrics,lts__t_sectors_op_read.sum,lts__t_sectors_op_write.sum
metrics=$metrics,lts__throughput.avg.pct_of_peak_sustained_elapsed
metrics=$metrics,sm__throughput.avg.pct_of_peak_sustained_elapsed
metrics=$metrics,smsp__inst_executed.sum,sm__warps_active.avg.pct_of_peak_sustained_active
metrics=$metrics,smsp__issue_active.avg.pct_of_peak_sustained_active
metrics=$metrics,l1tex__data_pipe_lsu_wavefronts_mem_shared.sum
metrics=$metrics,launch__occupancy_limit_shared_mem,launch__waves_per_multiprocessor
# name config settings...: the point
points=(
  "i8-t128 configs/transpose-i8.cfg tile=[128] rows_per_thread=[8] vec=[16] swizzle=[\"xor\"] pack=[4] tma=[0] pad=[0] pad_unit=[0] tma_store=[0]"
  "i8-t256 configs/transpose-i8.cfg tile=[256] rows_per_thread=[8] vec=[16] swizzle=[\"xor\"] pack=[4] tma=[0] pad=[0] pad_unit=[0] tma_store=[0]"
  "f16-t128 configs/transpose-f16.cfg tile=[128] rows_per_thread=[4] vec=[8] swizzle=[\"xor\"] pack=[2] tma=[0] pad=[0] pad_unit=[0] tma_store=[0]"
  "f16-t64 configs/transpose-f16.cfg tile=[64] rows_per_thread=[4] vec=[4] swizzle=[\"xor\"] pack=[2] tma=[0] pad=[0] pad_unit=[0] tma_store=[0]"
  "f32-t64 configs/transpose.cfg tile=[64] rows_per_thread=[4] vec=[2] swizzle=[\"none\"] pad=[1]"
  "f32-t128 configs/transpose.cfg tile=[128] rows_per_thread=[8] vec=[2] swizzle=[\"none\"] pad=[1]"
)
: >"$OUT/bounds.log"
first=1
for p in "${points[@]}"; do
  read -r name cfg settings <<<"$p"
  sets=()
  for s in $settings; do sets+=(--set "$s"); done
  python3 scripts/transpose_explore.py "$cfg" "${sets[@]}" \
    --out "/tmp/bounds-$name" >>"$OUT/bounds.log" 2>&1 || continue
  x=$(dirname "$cfg")/explore-$(basename "$cfg")
  sed -i "s/^name = \"explore-[^\"]*\";/name = \"bounds-$name\";/" "$x"
  echo "== $name: $settings" >>"$OUT/bounds.log"
  # the second launch: the first is the verification's
  timeout 120 ncu --clock-control none --kernel-name regex:^transpose$ \
    --launch-skip 1 --launch-count 1 --metrics "$metrics" --csv \
    --page raw ./build/tuner --config "$x" --device 0 -r 1 --warmup 0 \
    --full-protocol -q --output "/tmp/bounds-$name/res" \
    >"/tmp/bounds-$name/ncu.csv" 2>>"$OUT/bounds.log"
  echo "ncu exit $?" >>"$OUT/bounds.log"
  grep -v '^==' "/tmp/bounds-$name/ncu.csv" | sed "s/^/$name,/" |
    if [ $first = 1 ]; then cat; else tail -n +3; fi >>"$OUT/bounds.csv"
  first=0
  rm -f "$x"
done
cat "$OUT/bounds.log"
