#!/usr/bin/env bash
# On a GPU: a run over a template with planted faults (a trap, an illegal
# address, a hang, a wrong result) records each as failed or wrong with the
# reason, restarts the worker, goes on, and picks a correct candidate.
set -u
tuner=$1
cfg=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$tuner" --config "$cfg" --device 0 --no-prune --no-cache -q --output "$tmp/out" \
  >"$tmp/table" 2>"$tmp/err"
rc=$?
cat "$tmp/table" "$tmp/err"
[ $rc -eq 0 ] || { echo "FAIL: exit $rc"; exit 1; }
python3 - "$tmp"/out/*.json <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
by_pad = {c["params"]["pad"]: c for c in d["candidates"]}
want = {0: "ok", 1: "failed", 2: "failed", 3: "failed", 4: "wrong_result", 5: "ok"}
for pad, status in want.items():
    c = by_pad[pad]
    print(pad, c["status"], c.get("reason", ""))
    assert c["status"] == status, (pad, c["status"], status)
assert "timeout" in by_pad[3]["reason"]
assert "differ" in by_pad[4]["reason"]
assert d["best"]["params"]["pad"] in (0, 5)
assert d["run"]["worker_starts"] >= 4, d["run"]["worker_starts"]
print("ok: trap, illegal address, hang and wrong result recorded; the run "
      "went on with %d workers" % d["run"]["worker_starts"])
PY
