#!/usr/bin/env bash
# The runs made on a GPU machine, step by step, so that every committed
# result says exactly what produced it.  Usage:
#   scripts/gpu_runs.sh STEP...    (steps below; logs go to $LOGS)
# Run from the repository root after building dependencies are in place.
set -uo pipefail
LOGS=${LOGS:-${OUT:-/tmp}/logs}
mkdir -p "$LOGS"
tuner=./build/tuner
status=0

step() { echo "=== $1 ($(date -u +%FT%TZ))"; }
log_env() {
  { date -u; hostname; nvidia-smi; nvcc --version; ncu --version;
    nproc; } >"$LOGS/environment.txt" 2>&1
}

for s in "$@"; do
  case "$s" in
  build)
    step build; log_env
    cmake -S . -B build -DCMAKE_BUILD_TYPE=Release >"$LOGS/build.log" 2>&1 &&
      cmake --build build -j"$(nproc)" >>"$LOGS/build.log" 2>&1 ||
      { tail -40 "$LOGS/build.log"; exit 1; }
    ;;
  gpu-tests)
    step gpu-tests
    ctest --test-dir build -L gpu --output-on-failure >"$LOGS/ctest-gpu.log" 2>&1 ||
      status=1
    tail -5 "$LOGS/ctest-gpu.log"
    ;;
  transpose | transpose-noprune | gemm | gemm-noprune | gemm-odd)
    step "$s"
    case "$s" in
    transpose) args=(--config configs/transpose.cfg) ;;
    transpose-noprune) args=(--config configs/transpose.cfg --no-prune) ;;
    gemm) args=(--config configs/gemm.cfg) ;;
    gemm-noprune) args=(--config configs/gemm.cfg --no-prune) ;;
    gemm-odd) args=(--config configs/gemm-odd.cfg) ;;
    esac
    cmd=("$tuner" "${args[@]}" --device 0 -q)
    echo "command: ${cmd[*]}" >"$LOGS/$s.log"
    /usr/bin/time -v "${cmd[@]}" >>"$LOGS/$s.log" 2>&1 || status=1
    grep -E "best|tuner:|Elapsed|baseline" "$LOGS/$s.log" | tail -8
    ;;
  mvn-transpose)
    step mvn-transpose
    for cfg in configs/transpose.cfg tests/configs/gpu-transpose.cfg; do
      name=$(basename "$cfg" .cfg)
      python3 scripts/model_vs_ncu.py --tuner "$tuner" --config "$cfg" \
        --kernel transpose --no-prune --out "/tmp/mvn-$name" >"$LOGS/mvn-$name.log" 2>&1 ||
        status=1
      cp "/tmp/mvn-$name/model_vs_ncu.tsv" "$LOGS/mvn-$name.tsv" 2>/dev/null
      tail -3 "$LOGS/mvn-$name.log"
    done
    ;;
  probe)
    step probe
    python3 scripts/smem_probe/patterns.py >/tmp/main.txt &&
      python3 scripts/smem_probe/patterns.py --set heldout >/tmp/heldout.txt &&
      cat /tmp/main.txt /tmp/heldout.txt >/tmp/all.txt &&
      PYTHONUNBUFFERED=1 python3 scripts/smem_probe.py --patterns /tmp/all.txt \
        --out /tmp/smem --build-dir /tmp/smem_build --arch sm_90 --reps 64 \
        --deadline "${PROBE_DEADLINE:-300}" >"$LOGS/probe.log" 2>&1 || status=1
    cp /tmp/smem/measured.tsv /tmp/smem/sass_check.tsv /tmp/smem/metrics_used.txt \
      "$LOGS"/ 2>/dev/null
    tail -5 "$LOGS/probe.log"
    ;;
  *)
    echo "unknown step $s"; exit 2 ;;
  esac
done
exit $status
