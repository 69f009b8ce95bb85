#!/usr/bin/env bash
# The rectangular tiles (tile_rows) on the GPU in one call, for the run
# that docs/notes/transpose-widths.md waits for: every width's config
# with tile_rows 0 (the square), 32, 64, 128 and 256 added, tuned
# --no-prune against the copy of the same bytes (every candidate verified
# bit for bit); the model against Nsight Compute on rectangles of int8 and
# fp16 (scripts/model_vs_ncu.py); the transposes' GPU tests.
#
# Usage, from the repository root on the GPU machine (the project's
# libraries from .deps/env.sh, sourced when it is there):
#   OUT=DIR bash scripts/gpu_transpose_rect.sh
# DIR receives rect.tgz (results, logs, model_vs_ncu's tables), packed
# again after each step so that a killed call keeps what was done.
set -u
# shellcheck source-path=SCRIPTDIR source=gpu_lib.sh
. "$(dirname "$0")/gpu_lib.sh"
: "${OUT:?OUT: the folder the files go to}"
mkdir -p "$OUT" || exit 1
W=$(mktemp -d /tmp/rect-run.XXXXXX)
mkdir -p "$W/results" "$W/logs" "$W/mvn"
export TUNER_CACHE_DIR=$W/cache

# each step under its own timeout (no budget), everything packed again
# after it; the script's exit status is 0 but for a failed build
gpu_logs=$W/logs
gpu_pack_each=1
gpu_work=$W
gpu_pack=("rect.tgz results logs mvn")

source_deps
environment "$W/logs/environment.txt"
# shellcheck disable=SC2016 # expanded by the inner shell
if ! step build 480 bash -c 'cmake -S . -B build -DCMAKE_BUILD_TYPE=Release &&
  cmake --build build -j"$(nproc)"'; then
  tail -30 "$W/logs/build.log"
  exit 1
fi
echo "build $(elapsed)s"
# each explore copy is removed before the next: transpose_explore.py
# writes configs/explore-*.cfg beside the shipped ones
for c in transpose-i8 transpose-i8-odd transpose-f16 transpose-f16-odd \
         transpose transpose-tma-odd transpose-f64 transpose-f64-odd; do
  python3 scripts/transpose_explore.py "configs/$c.cfg" \
    --add 'tile_rows=[0, 32, 64, 128, 256]' --out "$W/x" >/dev/null ||
    continue
  step "tune-$c" 100 ./build/tuner --config "configs/explore-$c.cfg" \
    --device 0 -q --no-prune --output "$W/results/$c"
  echo "$c rc=$step_rc $(elapsed)s"
  grep -E "best|^baseline" "$W/logs/tune-$c.log" | head -3
  rm -f "configs/explore-$c.cfg" configs/include/explore-*.cfg
done
for c in transpose-i8 transpose-f16; do
  python3 scripts/transpose_explore.py "configs/$c.cfg" \
    --add 'tile_rows=[256]' --set 'tma=[0]' --set 'tma_store=[0]' \
    --set 'tile=[64, 128]' --out "$W/x" >/dev/null || continue
  step "mvn-$c" 100 python3 scripts/model_vs_ncu.py --tuner ./build/tuner \
    --config "configs/explore-$c.cfg" --kernel transpose --out "$W/mvn/$c"
  echo "mvn $c rc=$step_rc $(elapsed)s"
  grep -E "launches" "$W/logs/mvn-$c.log" | tail -2
  rm -f "configs/explore-$c.cfg" configs/include/explore-*.cfg
done
step ctest-transpose 120 ctest --test-dir build -R '^gpu_tune_transpose' \
  -j4 --output-on-failure
echo "ctest rc=$step_rc $(elapsed)s"
tail -5 "$W/logs/ctest-transpose.log"
