#!/usr/bin/env bash
# Racing and adaptive repetitions against the scripted worker (issue 13,
# part 3), no GPU: a slow candidate is raced out after bench.min_repetitions
# launches and the winner is that of --full-protocol, which times every
# candidate with every repetition; the results record the launches of each
# candidate and the run's cost split (part 4).
set -u
# shellcheck source-path=SCRIPTDIR source=../support/test_util.sh
. "$(dirname "$0")/../support/test_util.sh"
tuner=$1 fake=$2 cfg=$3  # TUNER FAKE_WORKER CONFIG
test_start
export TUNER_WORKER=$fake
# 9 is the fastest (0.5 ms), 4 far the slowest (3 ms), the others 1 + id/100
export FAKE_WORKER_SCRIPT="9:fast,4:slow"
race_and_full "$cfg"
grep -q "timed launches" "$tmp/race.err" ||
  { echo "FAIL: no cost line on stderr"; cat "$tmp/race.err"; fail=1; }
python3 - "$tmp"/race/*.json "$tmp"/full/*.json <<'PY' || fail=1
import json, sys
race, full = (json.load(open(p)) for p in sys.argv[1:3])
reps = 100
def cands(d):
    return {c["id"]: c for c in d["candidates"] if c["status"] == "ok"}
r, f = cands(race), cands(full)
assert sorted(r) == sorted(f) == list(range(16)), (sorted(r), sorted(f))
# the winner is unchanged
assert race["best"]["id"] == full["best"]["id"] == 9, (race["best"], full["best"])
# the full protocol: everything, every repetition, nothing raced
for c in f.values():
    assert c["raced_out"] is False, c["id"]
    assert [t["repetitions"] for t in c["timings"]] == [reps, reps], c["id"]
    assert c["launches"] == 2 * reps, c["id"]
assert full["run"]["full_protocol"] is True
assert full["run"]["cost"]["raced_out"] == 0
# racing: the slow one stops after the minimum (5) on both problems
slow = r[4]
assert slow["raced_out"] is True, slow
assert [t["repetitions"] for t in slow["timings"]] == [5, 5], slow["timings"]
assert slow["launches"] == 10
# the winner was not raced, and its launches are its timings' repetitions
best = r[9]
assert best["raced_out"] is False
assert best["launches"] == sum(t["repetitions"] for t in best["timings"])
# adaptive: a contender stops when its median's interval is tight, between
# the minimum and the cap (the scripted spread needs 40 of them)
assert [t["repetitions"] for t in best["timings"]] == [40, 40], best["timings"]
raced = [c for c in r.values() if c["raced_out"]]
assert len(raced) >= 10, len(raced)
for c in r.values():
    for t in c["timings"]:
        assert 5 <= t["repetitions"] <= reps, (c["id"], t)
# raced-out medians are honest: above the winner's by more than the noise
for c in raced:
    assert c["median_ms"] > best["median_ms"] * 1.01, c["id"]
cost = race["run"]["cost"]
parts = ("startup_s", "compile_warmup_s", "compile_s", "verify_s",
         "timed_s", "other_s")
for k in parts:
    assert cost[k] >= 0, (k, cost)
total = sum(cost[k] for k in parts)
assert abs(total - cost["wall_s"]) < 1e-3, (total, cost)  # 6 digits kept
# the baselines' launches: every timing of them, at the start, through
# the run and at its end
assert cost["launches"] == sum(c["launches"] for c in r.values()) + \
    sum(t["repetitions"] for b in race["baselines"]
        for m in b.get("measurements", []) for t in m["timings"]), cost
assert cost["raced_out"] == len(raced)
assert cost["launches"] < full["run"]["cost"]["launches"] / 3, \
    (cost["launches"], full["run"]["cost"]["launches"])
print("ok: %d of 16 raced out, %d launches against %d, same winner"
      % (len(raced), cost["launches"], full["run"]["cost"]["launches"]))
PY
exit $fail
