#!/usr/bin/env bash
# A budget (issue 34, part 6) against the scripted worker, no GPU: --budget
# N times the first N candidates of the benchmark's order (the most
# promising first) and stops; the results and the summary say so and how
# many were left untimed; --resume continues, and ends where a run without
# a budget ends.  bench.budget in the config, a budget of seconds, and a
# bad budget too.
set -u
# shellcheck source-path=SCRIPTDIR source=../support/test_util.sh
. "$(dirname "$0")/../support/test_util.sh"
tuner=$1 fake=$2 cfg=$3  # TUNER FAKE_WORKER CONFIG
test_start
export TUNER_WORKER=$fake
# the fastest is 9; the others 1 + id/100 ms; 5 gives a wrong result
export FAKE_WORKER_SCRIPT="9:fast,5:wrong"
run() { "$tuner" --config "$1" --cache-dir "$tmp/cache" -q "${@:2}"; }

# 1. without a budget, for reference: the order the benchmark takes
FAKE_WORKER_LOG="$tmp/ref.log" run "$cfg" --output "$tmp/ref" \
  >/dev/null 2>"$tmp/ref.err" || { echo "FAIL: reference run"; fail=1; }

# 2. --budget 5: the first five of that order, then the summary says so
FAKE_WORKER_LOG="$tmp/b.log" run "$cfg" --output "$tmp/b" --budget 5 \
  >/dev/null 2>"$tmp/b.err" ||
  { echo "FAIL: budget run: exit $?"; cat "$tmp/b.err"; fail=1; }
grep -q "the budget (5 candidates) stopped the benchmark: 5 candidates timed" \
  "$tmp/b.err" || { echo "FAIL: no budget line"; cat "$tmp/b.err"; fail=1; }
json=$(ls "$tmp"/b/*.json 2>/dev/null | head -1)
python3 - "$json" "$tmp"/ref/*.json "$tmp/b.log" "$tmp/ref.log" \
  "$tmp/b.err" <<'PY' || fail=1
import json, re, sys
b, ref = (json.load(open(p)) for p in sys.argv[1:3])
jobs = lambda p: [int(l.split()[1]) for l in open(p)
                  if l.startswith("candidate")]
done = {"ok", "wrong_result", "failed"}
timed = [c["id"] for c in b["candidates"] if c["status"] in done]
untimed = [c["id"] for c in b["candidates"]
           if c["status"] in ("pending", "compiled")]
bud = b["run"]["budget"]
assert bud == {"candidates": 5, "seconds": None, "timed": 5,
               "stopped": True, "untimed": len(untimed)}, bud
assert len(timed) == 5 and len(untimed) > 0, (timed, untimed)
# the most promising first: the first five the unlimited run took
assert jobs(sys.argv[3]) == jobs(sys.argv[4])[:5], \
    (jobs(sys.argv[3]), jobs(sys.argv[4]))
assert sorted(timed) == sorted(jobs(sys.argv[3])), timed
# the first is the one the time model predicts fastest
pred = {c["id"]: c["predicted"]["ms"] for c in ref["candidates"]
        if c["status"] != "pruned" and "predicted" in c}
assert jobs(sys.argv[3])[0] == min(pred, key=pred.get)
# the winner is the best of those timed; and the summary's count agrees
best = min((c for c in b["candidates"] if c["status"] == "ok"),
           key=lambda c: c["median_ms"])
assert b["best"]["id"] == best["id"], (b["best"], best["id"])
assert re.search(r"%d left untimed: continue with --resume" % len(untimed),
                 open(sys.argv[5]).read())
print("ok: budget 5 timed %s first, %d left untimed" % (timed, len(untimed)))
PY

# 3. --resume with a budget times the next ones; with none, the rest:
# then it ends as the run without a budget did, nothing timed twice
FAKE_WORKER_LOG="$tmp/b.log" run "$cfg" --resume "$json" --budget 2 \
  >/dev/null 2>"$tmp/r1.err" || { echo "FAIL: resume 1"; fail=1; }
grep -q "the budget (2 candidates) stopped" "$tmp/r1.err" ||
  { echo "FAIL: resume 1: no budget line"; cat "$tmp/r1.err"; fail=1; }
FAKE_WORKER_LOG="$tmp/b.log" run "$cfg" --resume "$json" --budget none \
  >/dev/null 2>"$tmp/r2.err" || { echo "FAIL: resume 2"; fail=1; }
grep -q "the budget" "$tmp/r2.err" &&
  { echo "FAIL: resume 2 speaks of a budget"; fail=1; }
python3 - "$json" "$tmp"/ref/*.json "$tmp/b.log" "$tmp/ref.log" <<'PY' || fail=1
import collections, json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:3])
key = lambda d: {c["id"]: (c["status"], c.get("median_ms"))
                 for c in d["candidates"]}
assert key(a) == key(b), [(i, key(a)[i], key(b)[i]) for i in key(a)
                          if key(a)[i] != key(b)[i]]
assert a["best"]["id"] == b["best"]["id"] == 9
assert "budget" not in a["run"], a["run"].get("budget")
jobs = [l.split()[1] for l in open(sys.argv[3]) if l.startswith("candidate")]
ref = [l.split()[1] for l in open(sys.argv[4]) if l.startswith("candidate")]
assert not [j for j, n in collections.Counter(jobs).items() if n > 1], jobs
assert jobs == ref, (jobs, ref)  # in the same order, across three runs
print("ok: resumed twice, the results of a run without a budget")
PY

# 4. bench.budget in the config; --budget none lifts it
sed 's/^bench = { /bench = { budget = 3; /' "$cfg" >"$tmp/budget3.cfg"
# the copy is elsewhere: its template by the repository's absolute path
root=$(cd "$(dirname "$0")/../.." && pwd)
sed -i "s#\"\(\.\./\)*templates/#\"$root/templates/#" "$tmp/budget3.cfg"
run "$tmp/budget3.cfg" --output "$tmp/c3" >/dev/null 2>"$tmp/c3.err" ||
  { echo "FAIL: bench.budget run"; cat "$tmp/c3.err"; fail=1; }
grep -q "the budget (3 candidates) stopped" "$tmp/c3.err" ||
  { echo "FAIL: bench.budget: $(cat "$tmp/c3.err")"; fail=1; }
run "$tmp/budget3.cfg" --output "$tmp/c0" --budget none >/dev/null \
  2>"$tmp/c0.err" || { echo "FAIL: --budget none"; fail=1; }
grep -q "the budget" "$tmp/c0.err" && { echo "FAIL: none kept a budget"; fail=1; }

# 5. seconds: a budget spent before the first candidate times none, and
# says so; the run still ends well, without a header
run "$cfg" --output "$tmp/s" --budget 0.001s >/dev/null 2>"$tmp/s.err" ||
  { echo "FAIL: seconds budget: exit $?"; cat "$tmp/s.err"; fail=1; }
grep -q "the budget (0.001 s) stopped the benchmark: 0 candidates timed" \
  "$tmp/s.err" || { echo "FAIL: seconds: $(cat "$tmp/s.err")"; fail=1; }
grep -q "no header" "$tmp/s.err" || { echo "FAIL: seconds: a header"; fail=1; }

# 6. bad budgets: exit 2 before any work
for bad in 0 -3 12x 1.5 2d 10000000 ""; do
  msg=$(run "$cfg" --output "$tmp/bad" --budget "$bad" 2>&1 >/dev/null)
  rc=$?
  [ $rc -eq 2 ] && [[ "$msg" == *"is not a budget"* ]] ||
    { echo "FAIL: --budget '$bad': exit $rc: $msg"; fail=1; }
done
msg=$(run "$cfg" --dry-run --budget 5 2>&1 >/dev/null)
[ $? -eq 2 ] || { echo "FAIL: --budget with --dry-run: $msg"; fail=1; }
[ -e "$tmp/bad" ] && { echo "FAIL: a bad budget wrote $tmp/bad"; fail=1; }

[ $fail -eq 0 ] && echo "ok: budget"
exit $fail
