#!/usr/bin/env bash
# Whole tuning runs against a scripted worker (tests/fake_worker), no GPU:
# broken candidates cost only themselves, a wrong result never wins, Ctrl-C
# keeps what was measured, and a run killed with SIGKILL and resumed ends
# with the results of a run that was not killed.
set -u
# shellcheck source-path=SCRIPTDIR source=../support/test_util.sh
. "$(dirname "$0")/../support/test_util.sh"
tuner=$1 fake=$2 cfg=$3  # TUNER FAKE_WORKER CONFIG
test_start
export TUNER_WORKER=$fake
py() { python3 - "$@"; }

# 1. faults: crash, hang, lost context, segfault, wrong; 6 is the fastest
FAKE_WORKER_SCRIPT="2:crash,3:hang,5:wrong,6:fast,7:lost,9:segv,11:wrong" \
  "$tuner" --config "$cfg" --no-prune --cache-dir "$tmp/cache" -q --output "$tmp/faults" \
  >"$tmp/faults.out" 2>&1
rc=$?
[ $rc -eq 0 ] || { echo "FAIL faults: exit $rc"; cat "$tmp/faults.out"; fail=1; }
py "$tmp"/faults/*.json <<'PY' || fail=1
import json, sys
d = json.load(open(sys.argv[1]))
st = {c["id"]: c for c in d["candidates"]}
want = {2: "failed", 3: "failed", 5: "wrong_result", 7: "failed",
        9: "failed", 11: "wrong_result", 0: "ok", 6: "ok", 15: "ok"}
for i, s in want.items():
    assert st[i]["status"] == s, (i, st[i]["status"], s)
assert "crash" in st[2]["reason"] and "signal 6" in st[2]["reason"], st[2]["reason"]
assert "timeout" in st[3]["reason"], st[3]["reason"]
assert "ILLEGAL_ADDRESS" in st[7]["reason"]
assert d["best"]["id"] == 6, d["best"]
assert d["run"]["worker_starts"] == 5, d["run"]["worker_starts"]
print("ok: faults recorded, the run went on, the fastest verified one won")
PY

# 2. a run that is not killed, for reference
"$tuner" --config "$cfg" --no-prune --cache-dir "$tmp/cache" -q --output "$tmp/ref" >/dev/null 2>&1 ||
  { echo "FAIL: reference run"; fail=1; }

# 3. SIGKILL in the middle, then --resume
FAKE_WORKER_DELAY_MS=150 FAKE_WORKER_LOG="$tmp/jobs.log" \
  "$tuner" --config "$cfg" --no-prune --cache-dir "$tmp/cache" -q --output "$tmp/killed" \
  >/dev/null 2>&1 &
pid=$!
wait_jobs 4 "$tmp/jobs.log" || echo "note: the run did not get far"
kill -9 $pid
wait $pid 2>/dev/null
json=$(ls "$tmp"/killed/*.json 2>/dev/null | head -1)
if [ -z "$json" ]; then
  echo "FAIL: nothing written before the kill"; fail=1
else
  done_before=$(grep -c '^candidate' "$tmp/jobs.log")
  FAKE_WORKER_LOG="$tmp/jobs.log" "$tuner" --config "$cfg" --no-prune \
    --cache-dir "$tmp/cache" -q --resume "$json" >/dev/null 2>"$tmp/resume.err" ||
    { echo "FAIL: resume"; cat "$tmp/resume.err"; fail=1; }
  py "$json" "$tmp"/ref/*.json "$tmp/jobs.log" "$done_before" <<'PY' || fail=1
import json, sys, collections
a, b = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
ca = {c["id"]: (c["status"], c.get("median_ms")) for c in a["candidates"]}
cb = {c["id"]: (c["status"], c.get("median_ms")) for c in b["candidates"]}
assert ca == cb, [(i, ca[i], cb[i]) for i in ca if ca[i] != cb[i]]
assert a["best"]["id"] == b["best"]["id"]
jobs = [l.split()[1] for l in open(sys.argv[3]) if l.startswith("candidate")]
twice = [j for j, n in collections.Counter(jobs).items() if n > 1]
assert len(twice) <= 1, twice  # only the one in flight at the kill
assert int(sys.argv[4]) >= 2, "the kill came too early to test anything"
assert a["run"]["resumed"] >= 1
print("ok: killed after %s candidates, resumed, same results as a run that "
      "was not killed; measured twice: %s" % (sys.argv[4], twice))
PY
fi

# 4. Ctrl-C: exit 130, the results so far are written and readable (every
# candidate ok: likely winners are timed first, not in id order, so the
# first jobs must not depend on the faults script of the supervisor test)
FAKE_WORKER_SCRIPT= FAKE_WORKER_DELAY_MS=150 FAKE_WORKER_LOG="$tmp/int.log" "$tuner" --config "$cfg" \
  --no-prune --cache-dir "$tmp/cache" -q --output "$tmp/int" >/dev/null 2>"$tmp/int.err" &
pid=$!
wait_jobs 3 "$tmp/int.log" || echo "note: the run did not get far"
kill -INT $pid
wait $pid
rc=$?
[ $rc -eq 130 ] || { echo "FAIL: Ctrl-C exit $rc"; cat "$tmp/int.err"; fail=1; }
grep -q -- "--resume" "$tmp/int.err" || { echo "FAIL: no resume hint"; fail=1; }
py "$tmp"/int/*.json <<'PY' || fail=1
import json, sys
d = json.load(open(sys.argv[1]))
assert d["run"]["interrupted"] is True
ok = [c for c in d["candidates"] if c["status"] == "ok"]
assert ok, "nothing measured before the interrupt"
print("ok: interrupted after %d candidates, results readable" % len(ok))
PY

# 5. --device all: one worker per GPU, one result per GPU, one header
FAKE_WORKER_DEVICES=2 "$tuner" --config "$cfg" --device all --cache-dir "$tmp/cache" \
  -q --output "$tmp/all" >"$tmp/all.out" 2>&1 ||
  { echo "FAIL: --device all"; cat "$tmp/all.out"; fail=1; }
py "$tmp/all" <<'PY' || fail=1
import glob, json, os, sys
d = sys.argv[1]
res = sorted(glob.glob(os.path.join(d, "*-gpu*.json")))
assert len(res) == 2, res
devs = [json.load(open(r))["device"]["ordinal"] for r in res]
assert sorted(devs) == [0, 1], devs
assert len(glob.glob(os.path.join(d, "sm_90", "*.h"))) == 1
print("ok: --device all measured 2 GPUs, compiled once, one header")
PY
exit $fail
