#!/usr/bin/env bash
# On a GPU with Nsight Compute: the model's shared-memory wavefronts per
# launch against ncu's, for every candidate of the transpose at odd sizes,
# of each element width by the threads and the copy engine (all equal),
# of every shipped tensor-core GEMM candidate (ldmatrix,
# stmatrix and shared stores all equal, cp.async's shared side apart) and
# of the GEMM model config (equal on every launch without
# cp.async whose executed instructions are the plan's; with cp.async ncu's
# counts depend on more than the addresses, even the loads' once:
# tests/fixtures/model-validation/README.md).  NVRTC 13.0 now and then
# compiles a GEMM candidate with other shared loads than its source has
# (the same source, another run: 1 or 2 of 98 candidates here); those
# launches are listed as CODE IS NOT THE PLAN with their instruction
# counts and do not fail the model.
set -u
tuner=$1
src=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
command -v ncu >/dev/null || { echo "FAIL: ncu not found"; exit 1; }
fail=0
python3 "$src/scripts/model_vs_ncu.py" --tuner "$tuner" \
  --config "$src/tests/fixtures/configs/gpu-transpose.cfg" --kernel transpose \
  --no-prune --out "$tmp/transpose" >"$tmp/transpose.log" 2>&1 || fail=1
tail -3 "$tmp/transpose.log"
# the transposes of the other widths (sub-word loads and stores, packed
# loads, 8-byte accesses in half-warps), by the threads and the copy
# engine: all equal
widths="gpu-transpose-f16 gpu-transpose-i8 gpu-transpose-f64"
widths="$widths gpu-transpose-tma-bf16 gpu-transpose-tma-fp8"
widths="$widths gpu-transpose-tma-f64"
for cfg in $widths; do
  python3 "$src/scripts/model_vs_ncu.py" --tuner "$tuner" \
    --config "$src/tests/fixtures/configs/$cfg.cfg" --kernel transpose --no-prune \
    --out "$tmp/$cfg" >"$tmp/$cfg.log" 2>&1 || fail=1
  echo "$cfg: $(tail -1 "$tmp/$cfg.log")"
done
python3 "$src/scripts/model_vs_ncu.py" --tuner "$tuner" \
  --config "$src/tests/fixtures/configs/gpu-gemm-model.cfg" --kernel gemm \
  --no-prune --exclude-cp-async --out "$tmp/gemm" >"$tmp/gemm.log" 2>&1 ||
  fail=1
grep -E "^[0-9]+ launches|^DIFFERS|^CODE IS NOT|^launches without" \
  "$tmp/gemm.log"
# the tensor-core GEMM: every shipped candidate (the layouts of one tile
# unpruned, the pruned survivors of the fp16 and bf16 jobs), all equal with
# cp.async's shared side left out of both counts (--apart-cp-async)
for cfg in gemm-bf16-layouts gemm-fp16-odd gemm-bf16; do
  np=""
  [ "$cfg" = gemm-bf16-layouts ] && np=--no-prune
  python3 "$src/scripts/model_vs_ncu.py" --tuner "$tuner" \
    --config "$src/configs/$cfg.cfg" --kernel gemm_tc $np --apart-cp-async \
    --out "$tmp/$cfg" >"$tmp/$cfg.log" 2>&1 || fail=1
  grep -E "^[0-9]+ launches|^[0-9]+\s" "$tmp/$cfg.log" | head -20
done
# the per-launch tables, for the record (TUNER_TEST_LOGS=DIR keeps them)
if [ -n "${TUNER_TEST_LOGS:-}" ]; then
  mkdir -p "$TUNER_TEST_LOGS/model_vs_ncu" &&
    cp "$tmp"/*.log "$TUNER_TEST_LOGS/model_vs_ncu/" &&
    for k in transpose gemm gemm-bf16-layouts gemm-fp16-odd gemm-bf16 \
             $widths; do
      cp "$tmp/$k/model_vs_ncu.tsv" "$TUNER_TEST_LOGS/model_vs_ncu/$k.tsv"
    done
fi
[ $fail -eq 0 ] && echo "ok: model equals ncu"
exit $fail
