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
: "${OUT:?OUT: the folder the files go to}"
mkdir -p "$OUT" || exit 1
W=$(mktemp -d /tmp/rect-run.XXXXXX)
mkdir -p "$W/results" "$W/logs" "$W/mvn"
export TUNER_CACHE_DIR=$W/cache
if [ -f .deps/env.sh ]; then
  # shellcheck disable=SC1091
  source .deps/env.sh
fi
t0=$(date +%s)
since() { echo "$(($(date +%s) - t0))s"; }
pack() { tar czf "$OUT/rect.tgz" -C "$W" results logs mvn 2>/dev/null; }
{
  nvidia-smi --query-gpu=name,driver_version,clocks.sm --format=csv,noheader
  git rev-parse HEAD 2>/dev/null
  date -u +%FT%TZ
} >"$W/logs/environment.txt" 2>&1
if ! (cmake -S . -B build -DCMAKE_BUILD_TYPE=Release &&
  cmake --build build -j"$(nproc)") >"$W/logs/build.log" 2>&1; then
  tail -30 "$W/logs/build.log"
  pack
  exit 1
fi
echo "build $(since)"
# each explore copy is removed before the next: transpose_explore.py
# writes configs/explore-*.cfg beside the shipped ones
for c in transpose-i8 transpose-i8-odd transpose-f16 transpose-f16-odd \
         transpose transpose-tma-odd transpose-f64 transpose-f64-odd; do
  python3 scripts/transpose_explore.py "configs/$c.cfg" \
    --add 'tile_rows=[0, 32, 64, 128, 256]' --out "$W/x" >/dev/null ||
    continue
  timeout 100 ./build/tuner --config "configs/explore-$c.cfg" --device 0 \
    -q --no-prune --output "$W/results/$c" >"$W/logs/tune-$c.log" 2>&1
  echo "$c rc=$? $(since)"
  grep -E "best|^baseline" "$W/logs/tune-$c.log" | head -3
  rm -f "configs/explore-$c.cfg" configs/include/explore-*.cfg
  pack
done
for c in transpose-i8 transpose-f16; do
  python3 scripts/transpose_explore.py "configs/$c.cfg" \
    --add 'tile_rows=[256]' --set 'tma=[0]' --set 'tma_store=[0]' \
    --set 'tile=[64, 128]' --out "$W/x" >/dev/null || continue
  timeout 100 python3 scripts/model_vs_ncu.py --tuner ./build/tuner \
    --config "configs/explore-$c.cfg" --kernel transpose \
    --out "$W/mvn/$c" >"$W/logs/mvn-$c.log" 2>&1
  echo "mvn $c rc=$? $(since)"
  grep -E "launches" "$W/logs/mvn-$c.log" | tail -2
  rm -f "configs/explore-$c.cfg" configs/include/explore-*.cfg
  pack
done
timeout 120 ctest --test-dir build -R '^gpu_tune_transpose' -j4 \
  --output-on-failure >"$W/logs/ctest-transpose.log" 2>&1
echo "ctest rc=$? $(since)"
tail -4 "$W/logs/ctest-transpose.log"
pack
