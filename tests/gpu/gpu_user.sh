#!/usr/bin/env bash
# On a GPU: described kernels (issue 34) verified against their references
# and timed.  gpu-user.cfg: the points with bug = 1 compute one element
# wrong and must be wrong_result, naming the buffer and the element; the
# others ok; the copy baseline timed.  gpu-user-types.cfg: int8, uint16,
# fp64, int32 and a read-and-written fp32 buffer, a __constant__ table,
# the reference the space's first point: every candidate ok.
set -u
tuner=$1
dir=$2
case "$tuner" in /*) ;; *) tuner=$PWD/$tuner ;; esac
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
for c in gpu-user gpu-user-types; do
  "$tuner" --config "$dir/$c.cfg" --device 0 --no-prune --no-cache -q \
    --output "$tmp/$c" >"$tmp/$c.table" 2>"$tmp/$c.err"
  rc=$?
  cat "$tmp/$c.table" "$tmp/$c.err"
  [ $rc -eq 0 ] || { echo "FAIL: $c exited $rc"; fail=1; continue; }
  python3 - "$c" "$tmp"/$c/*.json <<'PY' || fail=1
import json, sys
name, path = sys.argv[1], [p for p in sys.argv[2:] if p.endswith(".json")][0]
d = json.load(open(path))
c = d["candidates"]
b = d["baselines"][0]
assert b["name"] == "memcpy" and b["status"] == "ok", b
for x in c:
    bug = x["params"].get("bug", 0)
    want = "wrong_result" if bug else "ok"
    assert x["status"] == want, (x["id"], x["params"], x["status"],
                                 x.get("reason"))
    if bug:
        r = x["reason"]
        assert r.startswith("y: 1 of ") and "[" in r, r
print(f"{name}: {len(c)} candidates as expected; best {d['best']['params']}")
PY
done
exit $fail
