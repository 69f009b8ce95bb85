#!/usr/bin/env bash
# Per-size winners end to end against the scripted worker (no GPU): one job
# of three sizes, where candidate 9 is fastest at 256 rows only, 3 at 512
# only, and the default times (1 + id/100 ms) decide 1024.  Each size's
# winner, the single best over all of them (the sum of the medians), the
# per-size racing (a size does not time on what cannot win there) and its
# cost are checked against the results file, and the full protocol picks
# the same winners; scripts/shapes-table.py makes its table.
set -u
# shellcheck source-path=SCRIPTDIR source=../support/test_util.sh
. "$(dirname "$0")/../support/test_util.sh"
tuner=$1 fake=$2 cfg=$3 table=$4  # TUNER FAKE_WORKER CONFIG SHAPES_TABLE
test_start
export TUNER_WORKER=$fake
export FAKE_WORKER_SCRIPT="9:fast256,3:fast512,4:slow"
race_and_full "$cfg"
grep -q "by size, each size's winner against the single best (candidate 3;" \
  "$tmp/race.err" || { echo "FAIL: no per-size summary"; cat "$tmp/race.err"; fail=1; }
grep -qE "^tuner:   512x256 +id 3 " "$tmp/race.err" ||
  { echo "FAIL: summary line of 512x256"; cat "$tmp/race.err"; fail=1; }
python3 - "$tmp"/race/*.json "$tmp"/full/*.json <<'PY' || fail=1
import json, sys
race, full = (json.load(open(p)) for p in sys.argv[1:3])
for d in (race, full):
    by = d["best_by_size"]
    assert [b["size"] for b in by] == [[256, 256], [512, 256], [1024, 256]], by
    assert [b["id"] for b in by] == [9, 3, 0], [b["id"] for b in by]
    assert [b["problem"] for b in by] == [0, 1, 2]
    # the single best over all sizes: 3 (2.56 ms against 9's 2.68)
    assert d["best"]["id"] == 3, d["best"]
    assert d["best"]["scope"].startswith("single best"), d["best"]
    cands = {c["id"]: c for c in d["candidates"] if c["status"] == "ok"}
    for k, b in enumerate(by):
        w = cands[b["id"]]
        assert abs(b["median_ms"] - w["timings"][k]["median_ms"]) < 1e-9
        assert abs(b["single_best_ms"] -
                   cands[3]["timings"][k]["median_ms"]) < 1e-9
        assert b["noise"] >= 0.005 and b["rule"].startswith("fastest median at this size")
        # nothing within the size's noise is faster than its winner
        fastest = min(c["timings"][k]["median_ms"] for c in cands.values())
        assert b["median_ms"] <= fastest * (1 + b["noise"]) + 1e-12
        assert b["baseline_ms"] > 0 and b["pct_of_baseline"] > 0
    assert by[0]["gain_pct"] > 50 and by[1]["gain_pct"] == 0, by
r = {c["id"]: c for c in race["candidates"] if c["status"] == "ok"}
# racing is per size: the winner of a size is never stopped there...
for k, b in enumerate(race["best_by_size"]):
    assert r[b["id"]]["timings"][k]["repetitions"] > 5, (k, b["id"])
# ...a candidate that wins one size is stopped at the sizes it loses...
assert min(t["repetitions"] for t in r[9]["timings"][1:]) == 5, r[9]["timings"]
assert r[9]["timings"][0]["repetitions"] > 5
# ...and the slow one after the minimum everywhere
assert [t["repetitions"] for t in r[4]["timings"]] == [5, 5, 5], r[4]["timings"]
# ...and, at each size, every candidate timed after that size's winner and
# clearly slower there than it stops after the minimum: the leader of a
# size is the fastest at that size (the journal has the order)
import glob
order = [json.loads(l)["id"] for l in open(glob.glob(sys.argv[1][:-5] + ".jsonl")[0])
         if json.loads(l)["kind"] == "candidate"]
for k, b in enumerate(race["best_by_size"]):
    wk = r[b["id"]]["timings"][k]["median_ms"]
    after = order[order.index(b["id"]) + 1:]
    slow = [i for i in after if r[i]["timings"][k]["median_ms"] > wk * 1.02]
    assert slow, (k, after)
    for i in slow:
        assert r[i]["timings"][k]["repetitions"] == 5, (k, i, r[i]["timings"][k])
cost = race["run"]["cost"]
per = cost["per_size"]
assert [p["problem"] for p in per] == [0, 1, 2]
assert sum(p["launches"] for p in per) == cost["launches"], (per, cost)
for k, p in enumerate(per):
    assert p["raced_out"] >= 8, (k, p)
    # the baselines' launches: every timing of them through the run
    assert p["launches"] == sum(c["timings"][k]["repetitions"] for c in r.values()) + \
        sum(m["timings"][k]["repetitions"] for b in race["baselines"]
            for m in b["measurements"])
fl = full["run"]["cost"]
assert all(p["raced_out"] == 0 for p in fl["per_size"])
assert cost["launches"] < fl["launches"] / 3, (cost["launches"], fl["launches"])
print("ok: winners by size %s, single best 3; %d launches against %d"
      % ([b["id"] for b in race["best_by_size"]], cost["launches"], fl["launches"]))
PY
# the per-shape table of this run
python3 "$table" "$tmp"/race/*.json >"$tmp/table" ||
  { echo "FAIL: shapes-table: exit $?"; fail=1; }
for row in "| 256x256 | 9 | 0.5000 |" "| 512x256 | 3 | 0.5000 |" \
           "| 1024x256 | 0 | 1.0000 |"; do
  grep -qF "$row" "$tmp/table" || { echo "FAIL: no '$row'"; cat "$tmp/table"; fail=1; }
done
exit $fail
