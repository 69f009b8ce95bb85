#!/usr/bin/env bash
# The runs made on a GPU machine, step by step, so that every committed
# result says exactly what produced it.  Usage:
#   scripts/gpu_runs.sh STEP...    (steps below; logs go to $LOGS)
# Run from the repository root after building dependencies are in place.
set -uo pipefail
# shellcheck source-path=SCRIPTDIR source=gpu_lib.sh
. "$(dirname "$0")/gpu_lib.sh"
LOGS=${LOGS:-${OUT:-/tmp}/logs}
mkdir -p "$LOGS"
tuner=./build/tuner
status=0

for s in "$@"; do
  case "$s" in
  build)
    banner build; environment "$LOGS/environment.txt"
    if ! { cmake -S . -B build -DCMAKE_BUILD_TYPE=Release \
      >"$LOGS/build.log" 2>&1 &&
      cmake --build build -j"$(nproc)" >>"$LOGS/build.log" 2>&1; }; then
      tail -40 "$LOGS/build.log"
      exit 1
    fi
    ;;
  gpu-tests)
    banner gpu-tests
    ctest --test-dir build -L gpu --output-on-failure >"$LOGS/ctest-gpu.log" 2>&1 ||
      status=1
    tail -5 "$LOGS/ctest-gpu.log"
    ;;
  transpose | transpose-noprune | gemm | gemm-noprune | gemm-odd | \
  gemm-tma | tc-bf16 | tc-bf16-8192 | tc-fp16-odd | tc-layouts | tma-transpose | \
  tma-transpose-odd | wg-bf16 | wg-bf16-8192 | wg-fp8 | wg-fp8-8192 | \
  wg-edges | wg-edges-trans)
    banner "$s"
    case "$s" in
    transpose) args=(--config configs/transpose.cfg) ;;
    transpose-noprune) args=(--config configs/transpose.cfg --no-prune) ;;
    gemm) args=(--config configs/gemm.cfg) ;;
    gemm-noprune) args=(--config configs/gemm.cfg --no-prune) ;;
    gemm-odd) args=(--config configs/gemm-odd.cfg) ;;
    # the SIMT GEMM fed by the copy engine (pipeline 3), against the same
    # cuBLAS; run beside `gemm` for the threads' copies
    gemm-tma) args=(--config configs/gemm-tma.cfg) ;;
    # the tensor-core GEMM (family gemm_tc)
    tc-bf16) args=(--config configs/gemm-bf16.cfg) ;;
    tc-bf16-8192) args=(--config configs/gemm-bf16-8192.cfg) ;;
    tc-fp16-odd) args=(--config configs/gemm-fp16-odd.cfg) ;;
    tc-layouts) args=(--config configs/gemm-bf16-layouts.cfg --no-prune) ;;
    # the copy engine's transpose (issue 12): every swizzle mode measured,
    # beside the threads' best region and the copy
    tma-transpose) args=(--config configs/transpose-tma.cfg --no-prune) ;;
    tma-transpose-odd)
      args=(--config configs/transpose-tma-odd.cfg --no-prune) ;;
    # the wgmma GEMM (family gemm_wg, issue 12 part 3; compiled for
    # sm_90a): every point measured, each step from the base in its row
    wg-bf16) args=(--config configs/gemm-wg-bf16.cfg --no-prune) ;;
    wg-bf16-8192) args=(--config configs/gemm-wg-bf16-8192.cfg --no-prune) ;;
    # fp8 (e4m3, promoted) on wgmma against cuBLASLt's fp8 matmul, every
    # step of the space measured (the wide promoted tiles among them)
    wg-fp8) args=(--config configs/gemm-wg-fp8.cfg --no-prune) ;;
    wg-fp8-8192) args=(--config configs/gemm-wg-fp8-8192.cfg --no-prune) ;;
    # its edges: odd sizes, alpha/beta, transposed operands, fp16 out
    wg-edges)
      args=(--config tests/fixtures/configs/gpu-gemm-wg-edges.cfg
            --no-prune) ;;
    wg-edges-trans)
      args=(--config tests/fixtures/configs/gpu-gemm-wg-edges-trans.cfg
            --no-prune) ;;
    esac
    # RESULTS: where the results files go (default: the config's)
    [ -n "${RESULTS:-}" ] && args+=(--output "$RESULTS")
    cmd=("$tuner" "${args[@]}" --device 0 -q)
    echo "command: ${cmd[*]}" >"$LOGS/$s.log"
    /usr/bin/time -v "${cmd[@]}" >>"$LOGS/$s.log" 2>&1 || status=1
    grep -E "best|tuner:|Elapsed|baseline" "$LOGS/$s.log" | tail -8
    ;;
  calibrate)
    # the device profile a time model needs (issue 16): results/devices/
    # <arch>-<device>-<YYYYMMDD>.json (DEVICES: another folder), the
    # summary with the stride sweep's table in the log
    banner calibrate
    cmd=("$tuner" calibrate --device 0 --output "${DEVICES:-results/devices}/")
    echo "command: ${cmd[*]}" >"$LOGS/calibrate.log"
    /usr/bin/time -v "${cmd[@]}" >>"$LOGS/calibrate.log" 2>&1 || status=1
    grep -E "^  [a-z_0-9]+ |wavefront adds|profile:|Elapsed" "$LOGS/calibrate.log"
    ;;
  validate-model)
    # issue 16, part 5: for every config (CONFIGS: some), a --no-prune and
    # a pruned run the same day, --predict, and scripts/model_check.py's
    # tables in tests/fixtures/model-check/; staged, resumable, BUDGET
    # seconds a call (run the step again to go on: exit 75 until all are
    # done)
    banner validate-model
    # shellcheck disable=SC2086
    scripts/validate_model.sh --budget "${BUDGET:-540}" ${CONFIGS:-all} \
      2>&1 | tee "$LOGS/validate-model.log"
    rc=${PIPESTATUS[0]}
    [ "$rc" -ne 0 ] && status=$rc
    ;;
  gemm-shapes | tc-shapes)
    # one job over 13 GEMM shapes (M = 1 .. 8192 x 4096 x 4096, three
    # squares): each shape's winner against the single best and cuBLAS in
    # the same run, the headers by size (tc-shapes: the tensor-core GEMM)
    banner "$s"
    name=gemm-shapes
    [ "$s" = tc-shapes ] && name=gemm-bf16-shapes
    out="$LOGS/$name"
    cmd=("$tuner" --config "configs/$name.cfg" --device 0 -q --output "$out")
    echo "command: ${cmd[*]}" >"$LOGS/$name.log"
    /usr/bin/time -v "${cmd[@]}" >>"$LOGS/$name.log" 2>&1 || status=1
    grep -E "^tuner:|Elapsed" "$LOGS/$name.log" | tail -24
    python3 scripts/shapes-table.py "$out"/$name-*.json \
      >"$LOGS/$name-table.md" || status=1
    cat "$LOGS/$name-table.md"
    "$tuner" merge --output "$out/merged" "$out"/$name-*.json \
      >"$LOGS/$name-merge.log" 2>&1 || status=1
    ;;
  mvn-transpose | mvn-transpose-tma | mvn-gemm | mvn-gemm-tma)
    banner "$s"
    if [ "$s" = mvn-transpose ]; then
      kernel=transpose
      cfgs="configs/transpose.cfg tests/fixtures/configs/gpu-transpose.cfg"
    elif [ "$s" = mvn-transpose-tma ]; then
      # the threads' reads (and stores into the TMA store's tile) under
      # each swizzle, predicted against ncu; the copy engine's own traffic
      # is not the LSU's
      kernel=transpose
      cfgs="tests/fixtures/configs/gpu-transpose-tma.cfg"
    elif [ "$s" = mvn-gemm-tma ]; then
      # the TMA ring's fragment loads under each swizzle; the copy
      # engine's writes are not the LSU's
      kernel=gemm
      cfgs="tests/fixtures/configs/gpu-gemm-tma-edges.cfg"
    else
      kernel=gemm
      cfgs="tests/fixtures/configs/gpu-gemm-model.cfg
            tests/fixtures/configs/gpu-gemm-model-even.cfg"
    fi
    for cfg in $cfgs; do
      name=$(basename "$cfg" .cfg)
      python3 scripts/model_vs_ncu.py --tuner "$tuner" --config "$cfg" \
        --kernel $kernel --no-prune --out "/tmp/mvn-$name" >"$LOGS/mvn-$name.log" 2>&1 ||
        status=1
      cp "/tmp/mvn-$name/model_vs_ncu.tsv" "$LOGS/mvn-$name.tsv" 2>/dev/null
      tail -3 "$LOGS/mvn-$name.log"
    done
    ;;
  noise)
    # the same tuning twice in a row: the winners must agree within noise
    banner noise
    for i in 1 2; do
      "$tuner" --config configs/transpose.cfg --device 0 -q \
        --output "$LOGS/noise-$i" >"$LOGS/noise-$i.log" 2>&1 || status=1
    done
    python3 scripts/compare_winners.py "$LOGS"/noise-1/*.json "$LOGS"/noise-2/*.json \
      | tee "$LOGS/noise.txt" || status=1
    ;;
  speed)
    # issue 13 in one GPU run: configs/gemm.cfg and configs/transpose.cfg
    # racing, with the full protocol, and transpose --no-prune (120 timed),
    # each from fresh caches (the tuner's and NVRTC's), then the table
    banner speed
    for cfg in gemm transpose; do
      for mode in race full noprune; do
        [ "$cfg" = gemm ] && [ "$mode" = noprune ] && continue
        fresh=$(mktemp -d)
        args=(--config "configs/$cfg.cfg" --device 0 -q --cache-dir "$fresh"
              --output "$LOGS/speed-$cfg-$mode")
        [ "$mode" = full ] && args+=(--full-protocol)
        [ "$mode" = noprune ] && args+=(--no-prune)
        echo "command: CUDA_CACHE_PATH=$fresh/nv $tuner ${args[*]}" \
          >"$LOGS/speed-$cfg-$mode.log"
        CUDA_CACHE_PATH=$fresh/nv /usr/bin/time -v "$tuner" "${args[@]}" \
          >>"$LOGS/speed-$cfg-$mode.log" 2>&1 || status=1
        rm -rf "$fresh"
      done
    done
    python3 scripts/speed_table.py "$LOGS" >"$LOGS/speed.md" || status=1
    cat "$LOGS/speed.md"
    ;;
  compile-speedup)
    # the 94 GEMM candidates on 1, 2, 4, 8, 16 workers (and all cores), no
    # cache (neither the tuner's nor NVRTC's), RUNS (5) runs each: the table
    banner compile-speedup
    scripts/compile_speedup.sh "$tuner" configs/gemm.cfg "${RUNS:-5}" \
      "$LOGS/compile-speedup.md" 2>"$LOGS/compile-speedup.log" || status=1
    cat "$LOGS/compile-speedup.md"
    ;;
  all-devices)
    # every GPU of the host at once, then the merge into headers
    banner all-devices
    for cfg in configs/transpose.cfg configs/gemm.cfg; do
      name=$(basename "$cfg" .cfg)
      cmd=("$tuner" --config "$cfg" --device all -q --output results/fleet)
      echo "command: ${cmd[*]}" >"$LOGS/all-$name.log"
      /usr/bin/time -v "${cmd[@]}" >>"$LOGS/all-$name.log" 2>&1 || status=1
      grep -E "best|tuner:|Elapsed|baseline|== GPU" "$LOGS/all-$name.log" | tail -12
    done
    for name in transpose gemm; do
      "$tuner" merge --output results/fleet/merged --history results/fleet/history \
        results/fleet/$name-*-gpu*.json >"$LOGS/merge-$name.log" 2>&1 || status=1
      tail -5 "$LOGS/merge-$name.log"
    done
    ;;
  probe-sparse)
    banner probe-sparse
    python3 scripts/smem_probe/patterns.py --set sparse >/tmp/sparse.txt &&
      PYTHONUNBUFFERED=1 python3 scripts/smem_probe.py --patterns /tmp/sparse.txt \
        --out /tmp/smem-sparse --build-dir /tmp/smem_build_s --arch sm_90 --reps 64 \
        >"$LOGS/probe-sparse.log" 2>&1 || status=1
    cp /tmp/smem-sparse/measured.tsv "$LOGS/measured-sparse.tsv" 2>/dev/null
    tail -3 "$LOGS/probe-sparse.log"
    ;;
  probe-ablate | probe-ldgsts)
    # wide loads with one broken pair, lanes removed one by one; cp.async
    banner "$s"
    if [ "$s" = probe-ablate ]; then sets="ablate"; else
      sets="ldgsts ldgsts-map ldgsts-gemm"; fi
    : >"/tmp/$s.txt"
    for set in $sets; do
      python3 scripts/smem_probe/patterns.py --set "$set" >>"/tmp/$s.txt" || status=1
    done
    PYTHONUNBUFFERED=1 python3 scripts/smem_probe.py --patterns "/tmp/$s.txt" \
      --out "/tmp/smem-$s" --build-dir "/tmp/smem_build_$s" --arch sm_90 --reps 64 \
      >"$LOGS/$s.log" 2>&1 || status=1
    cp "/tmp/smem-$s/measured.tsv" "$LOGS/measured-${s#probe-}.tsv" 2>/dev/null
    cp "/tmp/smem-$s/sass_check.tsv" "$LOGS/sass-${s#probe-}.tsv" 2>/dev/null
    tail -3 "$LOGS/$s.log"
    ;;
  ldgsts-source)
    # per-instruction cp.async wavefronts in place: the GEMM's tile copies
    # and scripts/smem_probe/ldgsts_sequence.cu (Nsight Compute source view)
    banner ldgsts-source
    nvcc -O3 -arch=sm_90 -lineinfo -o /tmp/ldgsts_sequence \
      scripts/smem_probe/ldgsts_sequence.cu >"$LOGS/ldgsts-sequence-build.log" 2>&1 ||
      status=1
    ncu --section SourceCounters -f -o /tmp/ldgsts-seq /tmp/ldgsts_sequence \
      >"$LOGS/ldgsts-sequence.log" 2>&1 || status=1
    ncu --section SourceCounters --kernel-name regex:^gemm$ -f -o /tmp/ldgsts-gemm \
      "$tuner" --config tests/fixtures/configs/gpu-gemm-async.cfg --device 0 \
      -r 1 --warmup 0 --no-cache -q --no-prune --output /tmp/ldgsts-gemm-tune \
      >"$LOGS/ldgsts-gemm.log" 2>&1 || status=1
    for r in seq gemm; do
      ncu -i "/tmp/ldgsts-$r.ncu-rep" --page source --csv --print-source sass \
        >"/tmp/ldgsts-$r.csv" 2>>"$LOGS/ldgsts-$r.log" &&
        python3 scripts/smem_probe/ldgsts_source.py "/tmp/ldgsts-$r.csv" \
          >"$LOGS/ldgsts-source-$r.tsv" || status=1
    done
    wc -l "$LOGS"/ldgsts-source-*.tsv
    ;;
  probe-confirm)
    banner probe-confirm
    python3 scripts/smem_probe/patterns.py --set confirm >/tmp/confirm.txt &&
      PYTHONUNBUFFERED=1 python3 scripts/smem_probe.py --patterns /tmp/confirm.txt \
        --out /tmp/smem-confirm --build-dir /tmp/smem_build_c --arch sm_90 --reps 64 \
        >"$LOGS/probe-confirm.log" 2>&1 || status=1
    cp /tmp/smem-confirm/measured.tsv "$LOGS/measured-confirm.tsv" 2>/dev/null
    tail -3 "$LOGS/probe-confirm.log"
    ;;
  probe)
    banner probe
    python3 scripts/smem_probe/patterns.py >/tmp/main.txt &&
      python3 scripts/smem_probe/patterns.py --set heldout >/tmp/heldout.txt &&
      cat /tmp/main.txt /tmp/heldout.txt >/tmp/all.txt &&
      PYTHONUNBUFFERED=1 python3 scripts/smem_probe.py --patterns /tmp/all.txt \
        --out /tmp/smem --build-dir /tmp/smem_build --arch sm_90 --reps 64 \
        --deadline "${PROBE_DEADLINE:-300}" >"$LOGS/probe.log" 2>&1 || status=1
    cp /tmp/smem/ncu_raw.csv "$LOGS/probe-ncu-raw.csv" 2>/dev/null
    cp /tmp/smem/measured.tsv /tmp/smem/sass_check.tsv /tmp/smem/metrics_used.txt \
      "$LOGS"/ 2>/dev/null
    tail -5 "$LOGS/probe.log"
    ;;
  *)
    echo "unknown step $s"; exit 2 ;;
  esac
done
exit "$status"
