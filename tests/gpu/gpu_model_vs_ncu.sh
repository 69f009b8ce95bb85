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
#
#   gpu_model_vs_ncu.sh TUNER SRC PART
#
# PART is the name of one config below, less .cfg (gpu-transpose, a
# width's such as gpu-transpose-f16, gpu-gemm-model, or a tensor-core GEMM
# config such as gemm-bf16): each is a test of its own
# (tests/gpu/CMakeLists.txt), so that a call to a GPU machine limited in
# time can take a few at once.
set -u
[ $# -eq 3 ] || { echo "usage: gpu_model_vs_ncu.sh TUNER SRC PART"; exit 2; }
tuner=$1
src=$2
part=$3
case $part in
gpu-transpose | gpu-transpose-* | gpu-gemm-model | gemm-bf16-layouts | \
  gemm-fp16-odd | gemm-bf16) ;;
*)
  echo "FAIL: no part $part"
  exit 2
  ;;
esac
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
command -v ncu >/dev/null || { echo "FAIL: ncu not found"; exit 1; }
fail=0
cfg=$src/tests/fixtures/configs
case $part in
gpu-transpose)
  python3 "$src/scripts/model_vs_ncu.py" --tuner "$tuner" \
    --config "$cfg/gpu-transpose.cfg" --kernel transpose \
    --no-prune --out "$tmp/$part" >"$tmp/$part.log" 2>&1 || fail=1
  tail -3 "$tmp/$part.log"
  ;;
gpu-transpose-*)
  # the transposes of the other widths (sub-word loads and stores, packed
  # loads, 8-byte accesses in half-warps), by the threads and the copy
  # engine: all equal
  python3 "$src/scripts/model_vs_ncu.py" --tuner "$tuner" \
    --config "$cfg/$part.cfg" --kernel transpose --no-prune \
    --out "$tmp/$part" >"$tmp/$part.log" 2>&1 || fail=1
  echo "$part: $(tail -1 "$tmp/$part.log")"
  ;;
gpu-gemm-model)
  python3 "$src/scripts/model_vs_ncu.py" --tuner "$tuner" \
    --config "$cfg/gpu-gemm-model.cfg" --kernel gemm \
    --no-prune --exclude-cp-async --out "$tmp/$part" >"$tmp/$part.log" 2>&1 ||
    fail=1
  grep -E "^[0-9]+ launches|^DIFFERS|^CODE IS NOT|^launches without" \
    "$tmp/$part.log"
  ;;
gemm-bf16-layouts | gemm-fp16-odd | gemm-bf16)
  # the tensor-core GEMM: every shipped candidate (the layouts of one tile
  # unpruned, the pruned survivors of the fp16 and bf16 jobs), all equal
  # with cp.async's shared side left out of both counts (--apart-cp-async)
  np=""
  [ "$part" = gemm-bf16-layouts ] && np=--no-prune
  python3 "$src/scripts/model_vs_ncu.py" --tuner "$tuner" \
    --config "$src/configs/$part.cfg" --kernel gemm_tc $np --apart-cp-async \
    --out "$tmp/$part" >"$tmp/$part.log" 2>&1 || fail=1
  grep -E "^[0-9]+ launches|^[0-9]+\s" "$tmp/$part.log" | head -20
  ;;
esac
# the per-launch table, for the record (TUNER_TEST_LOGS=DIR keeps it)
if [ -n "${TUNER_TEST_LOGS:-}" ]; then
  mkdir -p "$TUNER_TEST_LOGS/model_vs_ncu" &&
    cp "$tmp/$part.log" "$TUNER_TEST_LOGS/model_vs_ncu/" &&
    cp "$tmp/$part/model_vs_ncu.tsv" "$TUNER_TEST_LOGS/model_vs_ncu/$part.tsv"
fi
[ $fail -eq 0 ] && echo "ok: model equals ncu ($part)"
exit $fail
