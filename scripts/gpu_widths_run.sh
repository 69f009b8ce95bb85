#!/usr/bin/env bash
# Issue 33 on the H200 in one call, in this order: the build; the
# transposes of every element width tuned at 8192^2 and 5000 x 3004
# against the device copy of the same bytes in the same run; their table
# by width (scripts/widths_table.py); one header per config (tuner
# merge); the model against Nsight Compute on the shipped launches of
# each width at 8192^2 (scripts/model_vs_ncu.py); the GPU tests of the
# widths (every candidate verified bit for bit); then, as the budget
# allows, the odd sizes under ncu.
#
# Usage, from the repository root on the GPU machine (the project's
# libraries from .deps/env.sh, sourced when it is there):
#   [BUDGET=450] [TREE=commit] OUT=DIR bash scripts/gpu_widths_run.sh
# Every step runs under `timeout`, within what is left of BUDGET seconds
# (the whole script, the build included); a step that finds too little
# left is skipped and said so in summary.txt.  At most 8 files come back
# in $OUT, packed again after each step so that a killed call keeps what
# was done:
#   summary.txt       each step: seconds, exit status (124: timed out)
#   environment.txt   GPU, driver, toolkit, ncu, tree, start and end
#   widths-table.md   the table by width (GB/s, % of the copy, % of peak)
#   results.tgz       the tuning runs' results and journals, the headers
#   logs.tgz          the build's, tuner's, merges' and ctest's logs
#   mvn.tgz           per config: model_vs_ncu.py's log and per-launch TSV
set -u
# shellcheck source-path=SCRIPTDIR source=gpu_lib.sh
. "$(dirname "$0")/gpu_lib.sh"
: "${OUT:?OUT: the folder the files go to}"
mkdir -p "$OUT" || exit 1
W=$(mktemp -d /tmp/widths-run.XXXXXX)
mkdir -p "$W/results" "$W/logs" "$W/mvn" "$W/headers"
export TUNER_CACHE_DIR=$W/cache
tuner=$PWD/build/tuner
status=0

# each step within BUDGET less 15 s for the packing, its line in
# summary.txt, everything packed again after it
gpu_budget=${BUDGET:-450}
gpu_margin=15
gpu_min=20
gpu_logs=$W/logs
gpu_summary=$OUT/summary.txt
gpu_table=28
gpu_pack_each=1
gpu_work=$W
gpu_pack=("results.tgz results headers" "logs.tgz logs" "mvn.tgz mvn")

source_deps
: >"$OUT/summary.txt"
environment "$OUT/environment.txt"

# the tuner alone (the GPU tests below need no other target)
# shellcheck disable=SC2016 # expanded by the inner shell
step build 240 bash -c 'cmake -S . -B build -DCMAKE_BUILD_TYPE=Release &&
  cmake --build build -j"$(nproc)" --target tuner' || { pack; exit 1; }

# fp32 (the threads alone, both paths at 8192^2 and 5000 x 3004) and each
# other width at both sizes, every run with its copy of the same bytes
configs="transpose transpose-tma transpose-tma-odd transpose-f16
  transpose-f16-odd transpose-i8 transpose-i8-odd transpose-f64
  transpose-f64-odd"
for c in $configs; do
  step "tune-$c" 90 "$tuner" --config "configs/$c.cfg" --device 0 -q \
    --output "$W/results/$c"
done
python3 scripts/widths_table.py "$W"/results/*/*.json \
  >"$OUT/widths-table.md" 2>"$W/logs/widths-table.log"
rc=$?
summary_line widths-table 0 $rc
[ $rc -ne 0 ] && status=1
# one header per width: each config's results merged apart
for c in $configs; do
  ls "$W/results/$c"/*.json >/dev/null 2>&1 || continue
  step "merge-$c" 30 "$tuner" merge --output "$W/headers" \
    "$W/results/$c"/*.json
done

# ncu against the model on every launch the shipped configs of each width
# make (their pruned survivors, as a tuning runs them; scripts/
# model_vs_ncu.py times each once, --full-protocol), moved to mvn/
mvn() {
  local c=$1
  step "mvn-$c" 120 python3 scripts/model_vs_ncu.py --tuner "$tuner" \
    --config "configs/$c.cfg" --kernel transpose --out "$W/ncu-$c"
  mkdir -p "$W/mvn/$c"
  cp "$W/logs/mvn-$c.log" "$W/mvn/$c/" 2>/dev/null
  cp "$W/ncu-$c/model_vs_ncu.tsv" "$W/ncu-$c/ncu_tuner.log" "$W/mvn/$c/" \
    2>/dev/null
  pack
}
for c in transpose transpose-f16 transpose-i8 transpose-f64; do mvn $c; done
# the GPU tests of the transpose's widths: odd sizes, sub-word layouts,
# both paths, every candidate verified bit for bit
step ctest-gpu-transpose 150 ctest --test-dir build -R '^gpu_tune_transpose' \
  --output-on-failure
# then, as the budget allows, the odd sizes (their edge tiles) and the
# copy engine's fp32
for c in transpose-f16-odd transpose-i8-odd transpose-f64-odd \
         transpose-tma-odd transpose-tma; do
  mvn $c
done

environment_end "$OUT/environment.txt"
pack
cat "$OUT/summary.txt" "$OUT/widths-table.md"
grep -hE "^[0-9]+ launches|^DIFFERS|differ|equal" "$W"/logs/mvn-*.log | head -40
exit $status
