#!/usr/bin/env bash
# gpu_drift_run.sh -- the H200 run of issue 31, part 5 ("a GPU that
# drifts"): the baseline timed throughout a run and the clocks read per
# candidate, with a sustained job where throttling is detected and
# reported.  On the GPU machine, from the repository root, with the
# packed dependencies (.deps, DESIGN.md "Building on the GPU machine"):
#
#   OUT=/some/folder scripts/gpu_drift_run.sh
#
# Steps, each under a timeout within the whole run's budget (BUDGET_S,
# default 450 s: the script ends within it, packing what it has), each
# logged to logs/STEP.log (the script goes on after a failed step and
# exits 1 at the end):
#   build     cmake and the tuner alone (-j of the cores)
#   cool      configs/transpose.cfg: a short job that stays far from the
#             power cap (the clocks should read steady)
#   sustained configs/gemm-wg-bf16-8192.cfg --no-prune --full-protocol
#             --repetitions $REPS (1000): 39 wgmma candidates and cuBLAS,
#             bf16 GEMMs at about 780 TFLOP/s (1.4 ms a launch), every
#             repetition taken: about a minute of load; the baseline is
#             timed again every 10 s (bench.baseline_every_s) and at the
#             end
#   report    tuner report of both runs (report.html) and the figures that
#             matter pulled out of the results (summary.txt)
# nvidia-smi samples the SM clock, power, temperature and clock event
# reasons every 500 ms from before the first job to after the last
# (clocks.csv), as a check of what the tuner's NVML readings say.
# The work is done in a folder of its own (WORK); $OUT gets four files:
# gpu_drift_run.tar.gz (logs, results, journals, headers, the report, the
# clocks), and apart, to read at once, summary.txt, report.html and
# clocks.csv.  It takes about 3 to 4 minutes on an H200.
set -uo pipefail
# shellcheck source-path=SCRIPTDIR source=gpu_lib.sh
. "$(dirname "$0")/gpu_lib.sh"
BUDGET_S=${BUDGET_S:-450}
OUT=${OUT:-/tmp/gpu_drift_run}
REPS=${REPS:-1000}
WORK=${WORK:-$(mktemp -d "${TMPDIR:-/tmp}/gpu_drift_run.XXXXXX")}
LOGS=$WORK/logs
RES=$WORK/results
CACHE=${CACHE:-$WORK/cache}
tuner=./build/tuner
status=0
mkdir -p "$OUT" "$LOGS" "$RES"

# each step within BUDGET_S less 15 s for the packing, its header and
# the end of its log on stdout; the packing at the end, or on a TERM
gpu_budget=$BUDGET_S
gpu_margin=15
gpu_logs=$LOGS
gpu_tail=25
gpu_work=$WORK
gpu_copy=("$LOGS/clocks.csv" "$LOGS/summary.txt" "$WORK/report.html")
gpu_pack=("gpu_drift_run.tar.gz logs results report.html")

# The sampler stopped, and what there is packed into $OUT: on every way
# out, a failed build or a TERM included.
finish() {
  sampler_stop
  banner pack
  pack
  ls -la "$OUT"
  echo "took $(elapsed) s"
}
trap 'finish; exit 1' TERM INT

banner environment
environment "$LOGS/environment.txt"
{
  timeout 10 nvidia-smi -q -d CLOCK,POWER,PERFORMANCE,TEMPERATURE
  echo "REPS=$REPS BUDGET_S=$BUDGET_S"
} >>"$LOGS/environment.txt" 2>&1

source_deps
if ! step build 180 bash -c \
  "cmake -S . -B build -DCMAKE_BUILD_TYPE=Release &&
   cmake --build build -j$(nproc) --target tuner"; then
  finish
  exit 1
fi

sampler_start "$LOGS/clocks.csv" 400

# 1. a short job, the GPU cool
step cool 90 "$tuner" --config configs/transpose.cfg --device 0 -q \
  --cache-dir "$CACHE" --output "$RES/cool"

# 2. the sustained job
step sustained 240 "$tuner" --config configs/gemm-wg-bf16-8192.cfg \
  --device 0 -q --no-prune --full-protocol --repetitions "$REPS" \
  --cache-dir "$CACHE" --output "$RES/sustained"
sleep 2 # the sampler sees the GPU after the load
sampler_stop

# 3. the report, and the figures that matter
mapfile -t files < <(ls "$RES"/cool/*.json "$RES"/sustained/*.json 2>/dev/null)
if [ "${#files[@]}" -gt 0 ]; then
  step report 30 "$tuner" report "${files[@]}" -o "$WORK/report.html"
  timeout "$(secs_for 30)" python3 - "${files[@]}" >"$LOGS/summary.txt" \
    2>&1 <<'PY'
import json, sys
for path in sys.argv[1:]:
    d = json.load(open(path))
    print("==", path.rsplit("/results/", 1)[-1])
    print("  run.clocks:", json.dumps(d["run"].get("clocks")))
    for b in d["baselines"]:
        ms = b.get("measurements", [])
        t0 = ms[0]["timed_at_ms"] if ms else 0
        print("  baseline %s: %d timings, spread %.1f%%" %
              (b["name"], len(ms), 100 * b.get("spread", 0)))
        for m in ms:
            c = m.get("clocks", {})
            print("    #%d at %6.1f s after %3d candidates: %.4f ms, SM %s-%s "
                  "MHz, %s W, reasons %s, throttled %s" %
                  (m["measurement"], (m["timed_at_ms"] - t0) / 1000,
                   m["after"], m["median_ms"], c.get("sm_mhz_min"),
                   c.get("sm_mhz_max"), c.get("power_w_max"),
                   c.get("reasons"), c.get("throttled")))
    ok = [c for c in d["candidates"] if c["status"] == "ok"]
    hot = [c for c in ok if c.get("clocks", {}).get("throttled")]
    print("  candidates: %d timed, %d throttled" % (len(ok), len(hot)))
    for c in ok:
        k = c.get("clocks", {})
        print("    id %3s at %s: %.4f ms, %.1f%% of baseline #%s "
              "(noise %.1f%%, %s); SM %s-%s MHz, %s W, %s, throttled %s" %
              (c["id"], c.get("timed_at_ms"), c["median_ms"],
               c.get("pct_of_baseline", 0), c.get("baseline_measurement"),
               100 * c.get("baseline_noise", 0), c.get("vs_baseline"),
               k.get("sm_mhz_min"), k.get("sm_mhz_max"),
               k.get("power_w_max"), k.get("reasons"), k.get("throttled")))
    best = d.get("best") or {}
    print("  best: id %s, %.1f%% of the baseline timed nearest (#%s), "
          "noise %.1f%%: %s" %
          (best.get("id"), best.get("pct_of_baseline", 0),
           best.get("baseline_measurement"),
           100 * best.get("baseline_noise", 0), best.get("vs_baseline")))
    ms = d["baselines"][0].get("measurements", [])
    if ms and "pct_of_baseline" in best:
        c = next(x for x in d["candidates"] if x["id"] == best["id"])
        print("  best against the first timing alone: %.1f%%, against the "
              "last: %.1f%%" % (100 * ms[0]["median_ms"] / c["median_ms"],
                                100 * ms[-1]["median_ms"] / c["median_ms"]))
PY
  grep -v "^    id " "$LOGS/summary.txt"
else
  echo "no results to report"
  status=1
fi
grep -h "^tuner: \(THROTTLED\|clocks\|baseline\|the best\)" \
  "$LOGS/cool.log" "$LOGS/sustained.log" 2>/dev/null
sampler_readings "$LOGS/clocks.csv"

finish
exit $status
