#!/usr/bin/env bash
# drift_runs.sh MODE TUNER FAKE_WORKER FAKE_NVML SRC -- a GPU that drifts
# (issue 31, part 5), whole runs against tests/support/fake_worker and the
# scripted NVML tests/support/fake_nvml.c, no GPU:
#   drift      the worker's times grow 1% a job: the baseline is timed at
#              the start, after every 4 candidates and at the end, every
#              timing kept with its time, and each candidate compared with
#              the timing nearest to it, not the first; the summary, the
#              report and a merge read them
#   resume     a run killed and resumed keeps its baseline timings and
#              adds its own; its candidates keep their times and clocks
#   throttle   NVML reports the power cap after a few readings: the
#              summary, the results and the report say the run throttled;
#              a cool GPU is steady; a clock that falls without a reason
#              throttles too; without NVML the clocks are unknown and the
#              run goes on
#   untrusted  the new fields of a results file checked by the reader
#              (tuner report, tuner merge), each bad one named; a file
#              without them still reads
set -u
# shellcheck source-path=SCRIPTDIR source=../support/test_util.sh
. "$(dirname "$0")/../support/test_util.sh"
mode=$1 tuner=$2 fake=$3 nvml=$4 src=$5
cfg=$src/tests/fixtures/configs/cpu-drift.cfg
test_start
export TUNER_WORKER=$fake
export FAKE_WORKER_SCRIPT="0:ok" # every candidate verifies: 1 + id/100 ms
unset TUNER_NVML FAKE_NVML_HOT_AFTER FAKE_NVML_NO_REASONS FAKE_NVML_PCI \
  FAKE_WORKER_DRIFT FAKE_WORKER_DELAY_MS
cache=$tmp/cache
run() { # OUT [options]: one run; stderr in OUT.err
  local out=$1
  shift
  "$tuner" --config "$cfg" --no-prune --cache-dir "$cache" -q -o "$out" \
    "$@" >"$out.out" 2>"$out.err"
}
# the cache filled first: the runs below compile nothing, so their jobs
# follow each other evenly (what "nearest in time" is measured by)
"$tuner" --config "$cfg" --no-prune --cache-dir "$cache" -q -n \
  -o "$tmp/warm" >/dev/null 2>&1 || { echo "FAIL: warm-up"; exit 1; }

case $mode in
drift)
  FAKE_WORKER_DRIFT=0.01 FAKE_WORKER_DELAY_MS=5 run "$tmp/d" ||
    { echo "FAIL: the run: $(cat "$tmp/d.err")"; exit 1; }
  # jobs 1, 6, 11, 16, 21 of a worker slower by 1% a job: 0.9 ms * 1.2
  grep -q "^tuner: baseline memcpy timed 5 times over .* s: 0.9000 to 1.0800 ms (spread 20.0%); each candidate is compared with the timing nearest to it$" "$tmp/d.err" ||
    { echo "FAIL: no line on the baseline's timings"; cat "$tmp/d.err"; fail=1; }
  grep -q "^tuner: the best (id 0) is .*% of memcpy as timed .* s \(after\|before\) it, noise .*%: slower$" "$tmp/d.err" ||
    { echo "FAIL: no line on the best against the baseline"; cat "$tmp/d.err"; fail=1; }
  python3 - "$tmp"/d/*.json <<'PY' || fail=1
import json, sys
d = json.load(open(sys.argv[1]))
b = d["baselines"][0]
ms = b["measurements"]
# at the start, after 4, 8, 12 candidates, at the end (after 16)
assert [m["measurement"] for m in ms] == list(range(5)), ms
assert [m["after"] for m in ms] == [0, 4, 8, 12, 16], [m["after"] for m in ms]
at = [m["timed_at_ms"] for m in ms]
assert at == sorted(at) and at[-1] > at[0], at
# the drift shows: every timing slower than the last
med = [m["median_ms"] for m in ms]
assert all(x < y for x, y in zip(med, med[1:])), med
assert b["spread"] > 0.15, b["spread"]
assert b["median_ms"] == sorted(med)[2], (b["median_ms"], med)
assert b["median_measurement"] == 2
ok = [c for c in d["candidates"] if c["status"] == "ok"]
assert len(ok) == 16, len(ok)
err_near, err_first = [], []
for c in ok:
    t = c["timed_at_ms"]
    j = c["baseline_measurement"]
    dist = [abs(m["timed_at_ms"] - t) for m in ms]
    # the nearest in time (a tie either way; the file's times are whole
    # milliseconds, each rounded, the tuner's finer: 1 ms either way)
    assert dist[j] <= min(dist) + 1, (c["id"], j, dist)
    assert abs(c["baseline_ms"] - ms[j]["median_ms"]) < 1e-9, c
    pct = 100 * ms[j]["median_ms"] / c["median_ms"]
    assert abs(c["pct_of_baseline"] - pct) < 1e-3, (c["pct_of_baseline"], pct)
    # the baseline's spread in the noise: it moved about 1% a job
    assert c["baseline_noise"] >= 0.01, c
    truth = 100 * 0.9 / (1 + c["id"] / 100)
    err_near.append(abs(c["pct_of_baseline"] - truth))
    err_first.append(abs(100 * ms[0]["median_ms"] / c["median_ms"] - truth))
# against the timing nearest to it a candidate is within a few jobs of
# drift of its true share; against the first alone it is far off
assert max(err_near) < 6, err_near
assert sum(err_near) < sum(err_first) / 3, (sum(err_near), sum(err_first))
assert max(err_first) > 12, err_first
best = d["best"]
assert best["vs_baseline"] == "slower", best
assert best["baseline_measurement"] in range(5), best
assert d["run"]["clocks"]["known"] is False
print("ok: 5 timings of the baseline, %.0f%% apart; mean error %.2f%% "
      "against the nearest, %.2f%% against the first"
      % (100 * b["spread"], sum(err_near) / 16, sum(err_first) / 16))
PY
  # the report shows the timings; a merge reads the file
  "$tuner" report "$tmp"/d/*.json -o "$tmp/d.html" 2>"$tmp/report.err" ||
    { echo "FAIL: report: $(cat "$tmp/report.err")"; fail=1; }
  n=$(grep -o 'data-measurement="[0-9]*"' "$tmp/d.html" | wc -l)
  [ "$n" -eq 5 ] || { echo "FAIL: the report shows $n timings, not 5"; fail=1; }
  grep -q 'data-clocks="unknown"' "$tmp/d.html" ||
    { echo "FAIL: the report does not say the clocks are unknown"; fail=1; }
  # a merge of two such runs of one night: the winner's % of baseline in
  # the header is each run's against the timing nearest to the winner
  FAKE_WORKER_DRIFT=0.01 FAKE_WORKER_DELAY_MS=5 run "$tmp/d2" ||
    { echo "FAIL: the second run: $(cat "$tmp/d2.err")"; exit 1; }
  "$tuner" merge -q -o "$tmp/merged" "$tmp"/d/*.json "$tmp"/d2/*.json \
    2>"$tmp/merge.err" ||
    { echo "FAIL: merge: $(cat "$tmp/merge.err")"; fail=1; }
  python3 - "$tmp/merged/sm_90/transpose.h" "$tmp"/d/*.json "$tmp"/d2/*.json <<'PY' || fail=1
import json, math, re, sys
h = open(sys.argv[1]).read()
text = re.search(r"Parameters: (.*)", h).group(1).strip()
pct = float(re.search(r"of each run's fastest, ([0-9.]+)% of baseline", h).group(1))
runs = [json.load(open(p)) for p in sys.argv[2:]]
near = [next(c for c in d["candidates"] if c["params_text"] == text)
        for d in runs]
want = math.exp(sum(math.log(c["pct_of_baseline"]) for c in near) / 2)
one = math.exp(sum(math.log(100 * d["baselines"][0]["median_ms"] /
                            c["median_ms"]) for d, c in zip(runs, near)) / 2)
assert abs(pct - want) < 0.051, (pct, want)
if abs(want - one) > 1:  # not the run's one figure (where they differ)
    assert abs(pct - one) > 0.5, (pct, one)
print("ok: the merge's %.1f%% of baseline is against the nearest timings" % pct)
PY
  ;;

resume)
  export TUNER_NVML=$nvml
  FAKE_WORKER_DELAY_MS=150 FAKE_WORKER_LOG="$tmp/jobs.log" \
    "$tuner" --config "$cfg" --no-prune --cache-dir "$cache" -q \
    -o "$tmp/k" >/dev/null 2>&1 &
  pid=$!
  wait_jobs 7 "$tmp/jobs.log" || echo "note: the run did not get far"
  kill -9 $pid
  wait $pid 2>/dev/null
  json=$(ls "$tmp"/k/*.json | head -1)
  before=$(grep -c '"kind":"baseline"' "${json%.json}.jsonl")
  "$tuner" --config "$cfg" --no-prune --cache-dir "$cache" -q \
    --resume "$json" >/dev/null 2>"$tmp/resume.err" ||
    { echo "FAIL: resume: $(cat "$tmp/resume.err")"; exit 1; }
  python3 - "$json" "$before" <<'PY' || fail=1
import json, sys
d = json.load(open(sys.argv[1]))
before = int(sys.argv[2])
ms = d["baselines"][0]["measurements"]
assert before >= 2, "the kill came too early to test anything: %d" % before
# the killed run's timings kept, the resumed run's added after them
assert len(ms) >= before + 1, (len(ms), before)
assert [m["measurement"] for m in ms] == list(range(len(ms)))
at = [m["timed_at_ms"] for m in ms]
assert at == sorted(at), at
assert all("clocks" in m for m in ms), ms
ok = [c for c in d["candidates"] if c["status"] == "ok"]
assert len(ok) == 16
for c in ok:
    assert "timed_at_ms" in c and c["clocks"]["samples"] >= 2, c
    dist = [abs(m["timed_at_ms"] - c["timed_at_ms"]) for m in ms]
    # the nearest, to the file's whole milliseconds (as in drift above)
    assert dist[c["baseline_measurement"]] <= min(dist) + 1, (c["id"], dist)
print("ok: %d timings before the kill, %d after the resume" % (before, len(ms)))
PY
  ;;

throttle)
  export TUNER_NVML=$nvml
  # hot after 6 readings: the baseline's first timing (2 readings, at
  # its start and its end) is cool, everything from the third job on hot
  FAKE_NVML_HOT_AFTER=6 run "$tmp/hot" ||
    { echo "FAIL: the hot run: $(cat "$tmp/hot.err")"; exit 1; }
  grep -q "^tuner: THROTTLED: [0-9]* of 16 candidates and [0-9]* of 5 baseline measurements were timed while NVML said sw_power_cap; SM clock 1980 MHz at the start, down to 1450 MHz (-26.8%), power up to 700 W of a limit of 700 W$" "$tmp/hot.err" ||
    { echo "FAIL: the summary does not say it throttled"; cat "$tmp/hot.err"; fail=1; }
  python3 - "$tmp"/hot/*.json <<'PY' || fail=1
import json, sys
d = json.load(open(sys.argv[1]))
c = d["run"]["clocks"]
assert c["known"] is True and c["throttled"] is True, c
assert c["start_sm_mhz"] == 1980 and c["min_sm_mhz"] == 1450, c
assert c["reasons"] == ["sw_power_cap"], c
assert c["max_power_w"] == 700 and c["power_limit_w"] == 700, c
assert c["candidates"] == 16 and c["candidates_throttled"] >= 14, c
assert c["baseline_measurements"] == 5, c
ms = d["baselines"][0]["measurements"]
first = ms[0]["clocks"]
assert first["sm_mhz_first"] == 1980 and first["reasons"] == [], first
assert first["throttled"] is False, first
assert ms[-1]["clocks"]["throttled"] is True, ms[-1]
assert ms[-1]["clocks"]["reasons"] == ["sw_power_cap"], ms[-1]
assert c["baseline_measurements_throttled"] == \
    sum(m["clocks"]["throttled"] for m in ms), c
hot = [x for x in d["candidates"] if x["status"] == "ok"
       and x["clocks"]["throttled"]]
assert len(hot) == c["candidates_throttled"], (len(hot), c)
assert all(x["clocks"]["sm_mhz_min"] == 1450 and x["clocks"]["power_w_max"]
           == 700 and x["clocks"]["temp_c_max"] == 84 for x in hot), hot[0]
print("ok: throttled: %d of 16 candidates, %d of 5 baseline timings"
      % (c["candidates_throttled"], c["baseline_measurements_throttled"]))
PY
  "$tuner" report "$tmp"/hot/*.json -o "$tmp/hot.html" 2>"$tmp/report.err" ||
    { echo "FAIL: report: $(cat "$tmp/report.err")"; fail=1; }
  grep -q '<p data-clocks="throttled" class="warn"><strong>The GPU throttled</strong>' "$tmp/hot.html" ||
    { echo "FAIL: the report does not say the GPU throttled"; fail=1; }
  [ "$(grep -c 'data-throttled="1"' "$tmp/hot.html")" -ge 1 ] ||
    { echo "FAIL: the report marks no throttled timing"; fail=1; }
  grep -q 'sw_power_cap' "$tmp/hot.html" ||
    { echo "FAIL: the report names no reason"; fail=1; }

  # a cool GPU: steady
  run "$tmp/cool" || { echo "FAIL: the cool run: $(cat "$tmp/cool.err")"; exit 1; }
  grep -q "^tuner: clocks steady: SM clock 1980 MHz at the start, 1980 to 1980 MHz, power up to 450 W of a limit of 700 W$" "$tmp/cool.err" ||
    { echo "FAIL: the cool run is not steady"; cat "$tmp/cool.err"; fail=1; }
  python3 -c '
import json, sys
c = json.load(open(sys.argv[1]))["run"]["clocks"]
assert c["known"] and not c["throttled"] and c["candidates_throttled"] == 0, c
' "$tmp"/cool/*.json || fail=1
  "$tuner" report "$tmp"/cool/*.json -o "$tmp/cool.html" 2>/dev/null &&
    grep -q 'data-clocks="steady"' "$tmp/cool.html" ||
    { echo "FAIL: the report of the cool run is not steady"; fail=1; }

  # no reasons from this GPU's NVML: the clock alone shows the throttling
  FAKE_NVML_NO_REASONS=1 FAKE_NVML_HOT_AFTER=6 run "$tmp/clock" ||
    { echo "FAIL: the clock run: $(cat "$tmp/clock.err")"; exit 1; }
  grep -q "^tuner: THROTTLED: .* were timed with the SM clock more than 10% below the start's; SM clock 1980 MHz at the start, down to 1450 MHz" "$tmp/clock.err" ||
    { echo "FAIL: a falling clock is not throttling"; cat "$tmp/clock.err"; fail=1; }
  python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
assert d["run"]["clocks"]["throttled"] and d["run"]["clocks"]["reasons"] == []
assert all("reasons" not in m["clocks"] for m in d["baselines"][0]["measurements"])
' "$tmp"/clock/*.json || { echo "FAIL: the clock run's results"; fail=1; }

  # without NVML: "clocks unknown", and the run goes on
  TUNER_NVML=$tmp/no-such-libnvidia-ml.so run "$tmp/none" ||
    { echo "FAIL: a run without NVML stopped: $(cat "$tmp/none.err")"; fail=1; }
  grep -q "^tuner: clocks unknown: no NVML: cannot load $tmp/no-such-libnvidia-ml.so" "$tmp/none.err" ||
    { echo "FAIL: no 'clocks unknown'"; cat "$tmp/none.err"; fail=1; }
  FAKE_NVML_PCI=0000:81:00.0 run "$tmp/other" ||
    { echo "FAIL: a run on a GPU NVML does not know stopped"; fail=1; }
  grep -q "^tuner: clocks unknown: NVML does not know the GPU at PCI 0000:01:00.0: Not Found (6)$" "$tmp/other.err" ||
    { echo "FAIL: no 'clocks unknown' for another GPU"; cat "$tmp/other.err"; fail=1; }
  python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
c = d["run"]["clocks"]
assert c == {"known": False, "throttled": False, "why": c["why"]}, c
assert "cannot load" in c["why"], c
ok = [x for x in d["candidates"] if x["status"] == "ok"]
assert len(ok) == 16 and all("clocks" not in x for x in ok)
assert d["best"] is not None
' "$tmp"/none/*.json || { echo "FAIL: the results without NVML"; fail=1; }
  ;;

untrusted)
  export TUNER_NVML=$nvml
  FAKE_NVML_HOT_AFTER=6 run "$tmp/u" ||
    { echo "FAIL: the run: $(cat "$tmp/u.err")"; exit 1; }
  good=$(ls "$tmp"/u/*.json | head -1)
  mkdir -p "$tmp/bad"
  # EDIT (python on d, c = the first ok candidate) TEXT: report and merge
  # refuse the file with exit 2, naming the place; nothing written
  bad() {
    python3 - "$good" "$tmp/bad/r.json" "$1" <<'PY' || { echo "FAIL: edit $1"; fail=1; return; }
import json, sys
d = json.load(open(sys.argv[1]))
c = [x for x in d["candidates"] if x["status"] == "ok"][0]
exec(sys.argv[3])
json.dump(d, open(sys.argv[2], "w"))
PY
    local i
    i=$(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print([x["status"] for x in d["candidates"]].index("ok"))' "$good")
    local text=${2//@/candidates[$i]}
    for cmd in report merge; do
      rm -rf "$tmp/out.html" "$tmp/out"
      if [ $cmd = report ]; then
        "$tuner" report "$tmp/bad/r.json" -o "$tmp/out.html" 2>"$tmp/err"
      else
        "$tuner" merge -q -o "$tmp/out" "$tmp/bad/r.json" 2>"$tmp/err"
      fi
      rc=$?
      if [ $rc -ne 2 ] || ! grep -qF -- "r.json: $text" "$tmp/err"; then
        echo "FAIL: $cmd of $1: exit $rc, expected 2 and \"$text\""
        cat "$tmp/err"
        fail=1
      fi
      [ ! -e "$tmp/out.html" ] && [ ! -e "$tmp/out" ] ||
        { echo "FAIL: $cmd of $1 wrote something"; fail=1; }
    done
  }
  bad 'c["baseline_measurement"] = 99' \
    "@.baseline_measurement: 99 is outside [0, 4]"
  bad 'c["timed_at_ms"] = "now"' "@.timed_at_ms: expected an integer"
  bad 'c["clocks"]["reasons"] = ["<script>x</script>"]' \
    "@.clocks.reasons[0]: not a reason's name"
  bad 'c["clocks"]["sm_mhz_min"] = 99999' "@.clocks: sm_mhz_first"
  bad 'c["pct_of_baseline"] = -3' "@.pct_of_baseline: -3 is outside"
  bad 'c["vs_baseline"] = "<b>faster</b>"' "@.vs_baseline: \"<b>faster</b>\" is not"
  bad 'd["baselines"][0]["measurements"][1]["measurement"] = 7' \
    "baselines[0].measurements[1].measurement: 7 is outside [1, 1]"
  bad 'd["baselines"][0]["measurements"][2]["timings"] = []' \
    "baselines[0].measurements[2].timings: 0 entries for 1 problems"
  bad 'd["baselines"][0]["measurements"][0]["median_ms"] = 1e300' \
    "baselines[0].measurements[0].median_ms: 1e+300 is not a time"
  bad 'd["baselines"][0]["median_measurement"] = 5' \
    "baselines[0].median_measurement: 5 is outside [0, 4]"
  bad 'd["run"]["clocks"]["reasons"] = [3]' \
    "run.clocks.reasons[0]: not a reason's name"
  bad 'd["run"]["clocks"]["throttled"] = "yes"' \
    "run.clocks.throttled: expected true or false"
  bad 'd["best"]["baseline_noise"] = 1e9' "best.baseline_noise: 1e+09 is outside"
  # a file from before the drift's fields: read as before
  python3 - "$good" "$tmp/old.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
for c in d["candidates"]:
    for k in ("timed_at_ms", "clocks", "baseline_measurement", "baseline_ms",
              "baseline_noise", "vs_baseline"):
        c.pop(k, None)
for b in d["baselines"]:
    for k in ("measurements", "median_measurement", "spread"):
        b.pop(k, None)
for o in [d["best"]] + d.get("best_by_size", []):
    for k in ("baseline_measurement", "baseline_ms", "baseline_noise",
              "vs_baseline"):
        o.pop(k, None)
d["run"].pop("clocks")
json.dump(d, open(sys.argv[2], "w"))
PY
  "$tuner" report "$tmp/old.json" -o "$tmp/old.html" 2>"$tmp/err" ||
    { echo "FAIL: a file without the drift's fields: $(cat "$tmp/err")"; fail=1; }
  grep -q 'data-clocks="none"' "$tmp/old.html" ||
    { echo "FAIL: the report of an old file"; fail=1; }
  "$tuner" merge -q -o "$tmp/old-out" "$tmp/old.json" 2>"$tmp/err" ||
    { echo "FAIL: merge of a file without the drift's fields: $(cat "$tmp/err")"; fail=1; }
  ;;
*)
  echo "usage: drift_runs.sh drift|resume|throttle|untrusted TUNER FAKE NVML SRC"
  exit 2
  ;;
esac
[ $fail -eq 0 ] && echo "ok: $mode"
exit $fail
