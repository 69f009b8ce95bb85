#!/usr/bin/env bash
# A step of the wgmma GEMM (issue 32 part 1) measured against its
# absence on the H200 in one call: the build; then gemm_wg bf16 tuned at
# 4096^3 and 8192^3 over the shipped configs' winners
# (results/runs/gemm-wg-bf16*: 128 x 256 x 64, two consumers and a
# producer, setmaxnreg, 4 stages, sw128, group_m 8; persistent over 132
# best, a block per tile and clusters of 2 within noise; 256 x 128 within
# noise at 4096^3) crossed with the step's values, SPACE one of:
#   order      the tile orders: tile_order 0 (group_m 0, 4, 8, 16), 1 (the
#              Hilbert curve, group_m 0) and 2 (the serpentine, group_m 4,
#              8, 16), clusters of 1 and 2: 48 points a size (runs 46, 48)
#   multicast  clusters of 1, 2 and 4, multicast 0, 1 (B shared) and 2 (A
#              shared), group_m 4, 8, 16 (a unit of multicast 1 spans
#              `cluster` tile rows): 76 points a size
#   pingpong   the consumers taking whole 64 x 256 or 128 x 128 tiles in
#              turn, 2 to 5 stages, both epilogues, clusters of 1 and of
#              2 sharing B; against the winners (128 x 256 and 256 x 128,
#              4 stages and epilogue 0, or 3 and epilogue 1 where it
#              fits, the same clusters), persistent 132
#   ring       the TMA-store epilogue staged through a ring of 2 or 4 of
#              C's 128-byte columns (c_ring) or whole where it fits, at 3
#              and 4 stages, against the direct epilogue at 4: the wide
#              tiles, clusters of 1 and of 2 sharing B, persistent 132
#   fit        the persistent grid fitted to the GPU at launch
#              (persistent -1) against 132 blocks (and 128 for clusters
#              of 4, 32 clusters), clusters of 1, 2 and 4 (B shared), the
#              direct epilogue and the ring of 2 at 4 stages: 14 points
#   streamk    the k-tiles of a ragged last wave split among all the
#              blocks (stream_k 1; 2: one whole wave more with them)
#              against none, on the ring of 2 at 4 stages (128 x 256)
#              and the direct epilogue, clusters of 1 and of 2 sharing
#              B, persistent 132, and without stream-K the grid fitted
#              (-1): 16 points
# Every point is timed with all its repetitions (--no-prune
# --full-protocol) and verified, cublasGemmEx timed through the same run
# (the family's baseline; each point against the timing nearest it).
# Each size runs twice, the second after the other size, as a look at
# the spread.
# nvidia-smi samples the SM clock, power and the clock event reasons
# every 500 ms throughout (clocks.csv), beside the tuner's own NVML
# readings in each results file.
#
# Usage, from the repository root on the GPU machine (the project's
# libraries from .deps/env.sh, sourced when it is there):
#   [BUDGET=500] [SPACE=order|multicast|pingpong|ring|fit|streamk] \
#     OUT=DIR \
#     bash scripts/gpu_gemm_wg_table.sh
# (SPACE order by default; OUTPUT=bf16 makes C bf16, the runs and the
# archive SPACE-bf16).  DIR receives SPACE.tgz (the configs, results
# and journals, logs,
# clocks.csv, table.md: per size and point the median and % of cuBLAS),
# packed again after each step so that a killed call keeps what was done;
# the table is printed at the end too.
#   DRY_RUN=1 [SPACE=...] OUT=DIR bash scripts/gpu_gemm_wg_table.sh
# on a machine without a GPU: no build (build/tuner must be there), each
# config through --dry-run --arch sm_90a (every point compiled).
set -u
# shellcheck source-path=SCRIPTDIR source=gpu_lib.sh
. "$(dirname "$0")/gpu_lib.sh"
: "${OUT:?OUT: the folder the files go to}"
mkdir -p "$OUT" || exit 1
dry=${DRY_RUN:-0}
space=${SPACE:-order}
output=${OUTPUT:-f32}
case $output in
f32 | bf16) ;;
*)
  echo "OUTPUT: f32 or bf16, not '$output'" >&2
  exit 2
  ;;
esac
# a bf16 C's runs and archive apart from the shipped fp32 C's
[ "$output" = bf16 ] && space_tag=$space-bf16 || space_tag=$space
case $space in
order | multicast | pingpong | ring | fit | streamk) ;;
*)
  echo "SPACE: order, multicast, pingpong, ring, fit or streamk, not" \
    "'$space'" >&2
  exit 2
  ;;
esac
W=$(mktemp -d "/tmp/gemm-wg-$space_tag.XXXXXX")
mkdir -p "$W/configs" "$W/results" "$W/logs"
export TUNER_CACHE_DIR=$W/cache
tuner=$PWD/build/tuner
status=0

# each step within BUDGET less 15 s for the packing, its line in
# logs/summary.txt, everything packed again after it
gpu_budget=${BUDGET:-500}
gpu_margin=15
gpu_min=20
gpu_logs=$W/logs
gpu_summary=$W/logs/summary.txt
gpu_table=20
gpu_pack_each=1
gpu_work=$W
gpu_pack=("$space_tag.tgz configs results logs")

# the space of SPACE: the winners' values, then the step's
space_block() {
  if [ "$space" = pingpong ]; then
    cat <<EOF
space = {
  bm = [64, 128, 256]; bn = [128, 256]; bk = [64]; consumers = [2];
  stages = [2, 3, 4, 5]; swizzle = [128]; producer = [1]; maxnreg = [1];
  persistent = [132]; epilogue = [0, 1]; group_m = [8];
  cluster = [1, 2];
  multicast = [0, 1];
  pingpong = [0, 1];
};
constraints = [
  "bm * bn == 32768 && pingpong == 0 || bm * bn == 16384 && pingpong == 1",
  "cluster == 1 && multicast == 0 || cluster == 2 && multicast == 1",
  "pingpong == 1 || stages == 4 && epilogue == 0 || stages == 3 && epilogue == 1",
  "epilogue == 0 || stages <= 3"
];
EOF
    return
  fi
  if [ "$space" = fit ]; then
    cat <<EOF
space = {
  bm = [128]; bn = [256]; bk = [64]; consumers = [2];
  stages = [4]; swizzle = [128]; producer = [1]; maxnreg = [1];
  persistent = [132, 128, -1]; epilogue = [0, 1]; group_m = [8];
  cluster = [1, 2, 4];
  multicast = [0, 1];
  c_ring = [0, 2];
};
constraints = [
  "cluster == 1 && multicast == 0 || cluster > 1 && multicast == 1",
  "epilogue == 0 && c_ring == 0 || epilogue == 1 && c_ring == 2",
  "persistent != 128 || cluster == 4"
];
EOF
    return
  fi
  if [ "$space" = streamk ]; then
    cat <<EOF
space = {
  bm = [128]; bn = [256]; bk = [64]; consumers = [2];
  stages = [4]; swizzle = [128]; producer = [1]; maxnreg = [1];
  persistent = [132, -1]; epilogue = [0, 1]; group_m = [8];
  cluster = [1, 2];
  multicast = [0, 1];
  c_ring = [0, 2];
  stream_k = [0, 1, 2];
};
constraints = [
  "cluster == 1 && multicast == 0 || cluster == 2 && multicast == 1",
  "epilogue == 0 && c_ring == 0 || epilogue == 1 && c_ring == 2",
  "persistent == 132 || stream_k == 0 && epilogue == 1"
];
EOF
    return
  fi
  if [ "$space" = ring ]; then
    cat <<EOF
space = {
  bm = [128, 256]; bn = [128, 256]; bk = [64]; consumers = [2];
  stages = [3, 4]; swizzle = [128]; producer = [1]; maxnreg = [1];
  persistent = [132]; epilogue = [0, 1]; group_m = [8];
  cluster = [1, 2];
  multicast = [0, 1];
  c_ring = [0, 2, 4];
};
constraints = [
  "bm * bn == 32768",
  "cluster == 1 && multicast == 0 || cluster == 2 && multicast == 1",
  "epilogue == 0 && stages == 4 && c_ring == 0 || epilogue == 1"
];
EOF
    return
  fi
  echo "space = {"
  echo "  bm = [128, 256]; bn = [128, 256]; bk = [64]; consumers = [2];"
  echo "  stages = [4]; swizzle = [128]; producer = [1]; maxnreg = [1];"
  echo "  persistent = [0, 132]; epilogue = [0];"
  if [ "$space" = order ]; then
    cat <<EOF
  cluster = [1, 2];
  group_m = [0, 4, 8, 16];
  tile_order = [0, 1, 2];
};
constraints = [
  "bm * bn == 32768",
  "cluster == 1 || persistent == 0",
  "tile_order == 1 && group_m == 0 || tile_order == 2 && group_m > 0 || tile_order == 0"
];
EOF
  else
    cat <<EOF
  cluster = [1, 2, 4];
  group_m = [4, 8, 16];
  multicast = [0, 1, 2];
};
constraints = [
  "bm * bn == 32768",
  "cluster > 1 || multicast == 0 && group_m == 8"
];
EOF
  fi
}

# config SIZE: the space at SIZE^3, from the shipped config's problem
# (bf16 in, fp32 C or OUTPUT's, A K-major, B N-major)
config() {
  local n=$1 cfg=$W/configs/$space_tag-$1.cfg
  cat >"$cfg" <<EOF
# scripts/gpu_gemm_wg_table.sh: the shipped winners crossed with SPACE
# $space at ${n}^3 (configs/gemm-wg-bf16.cfg's problem)
name = "$space_tag-$n";
family = "gemm_wg";
template = "$PWD/templates/gemm_wg.cu";
problem = {
  sizes = ( [$n, $n, $n] );
  trans_a = false;
  trans_b = false;
  alpha = 1.0;
  beta = 0.0;
  input = "bf16";
  output = "$([ "$output" = bf16 ] && echo input || echo f32)";
};
$(space_block)
bench = {
  repetitions = 30;
  warmup = 5;
  timeout_s = 30.0;
};
EOF
  echo "$cfg"
}

source_deps
: >"$W/logs/summary.txt"
environment "$W/logs/environment.txt"

if [ "$dry" = 1 ]; then
  for n in 4096 8192; do
    step "dry-$n" 300 "$tuner" --config "$(config $n)" --dry-run \
      --arch sm_90a --no-prune --all-candidates
    # a step skipped for the budget wrote no log
    [ -f "$W/logs/dry-$n.log" ] &&
      grep -oE 'tuner: [0-9]+ candidates.*' "$W/logs/dry-$n.log"
  done
  cat "$W/logs/summary.txt"
  exit $status
fi

# shellcheck disable=SC2016 # expanded by the inner shell
step build 240 bash -c 'cmake -S . -B build -DCMAKE_BUILD_TYPE=Release &&
  cmake --build build -j"$(nproc)" --target tuner' || { pack; exit 1; }

sampler_start "$W/logs/clocks.csv"

for pass in a b; do
  for n in 4096 8192; do
    step "tune-$n-$pass" 150 "$tuner" --config "$(config $n)" --device 0 \
      -q --no-prune --full-protocol --output "$W/results/$n-$pass"
  done
done
sampler_stop

# the table: per run and point, the median and % of the cuBLAS timing
# nearest it, the SM clock while it was timed
python3 - "$W"/results/*/*.json >"$W/logs/table.md" 2>&1 <<'PY' ||
import json, sys
keys = ("bm", "bn", "cluster", "multicast", "persistent", "tile_order",
        "group_m", "pingpong", "stages", "epilogue", "c_ring", "stream_k")
for path in sys.argv[1:]:
    d = json.load(open(path))
    print("## %s (%s)\n" % (d["name"], path.rsplit("/results/", 1)[-1]))
    for b in d["baselines"]:
        print("baseline %s: %d timings, spread %.1f%%\n" %
              (b["name"], len(b.get("measurements", [])),
               100 * b.get("spread", 0)))
    print("| " + " | ".join(keys) +
          " | blocks | median ms | % of cuBLAS | SM MHz |")
    print("|" + " --- |" * (len(keys) + 4))
    ok = [c for c in d["candidates"] if c.get("status") == "ok"]
    for c in sorted(ok, key=lambda c: c["median_ms"]):
        p, k = c["params"], c.get("clocks", {})
        # the grid launched: fitted to the GPU (persistent -1) or the
        # family's
        blocks = c["timings"][0].get("blocks", c["launch"]["grid"][0])
        print("| " + " | ".join(str(p.get(x, 0)) for x in keys) +
              " | %d | %.4f | %.1f | %s-%s |" %
              (blocks, c["median_ms"], c.get("pct_of_baseline", 0),
               k.get("sm_mhz_min"), k.get("sm_mhz_max")))
    bad = [c for c in d["candidates"]
           if c.get("status") not in ("ok", "pruned")]
    print("\n%d timed, %d failed or not timed: %s\n" %
          (len(ok), len(bad),
           sorted(set(c.get("status") for c in bad)) or "none"))
PY
  status=1
environment_end "$W/logs/environment.txt"
pack
cat "$W/logs/summary.txt" "$W/logs/table.md"
sampler_readings "$W/logs/clocks.csv"
exit $status
