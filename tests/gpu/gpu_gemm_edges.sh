#!/usr/bin/env bash
# On a GPU: GEMM at sizes no tile (nor 4) divides, K below a k-tile,
# alpha/beta, transposed operands: every candidate compiles, is verified
# against the fp64 reference and is timed; none is wrong.
set -u
# shellcheck source-path=SCRIPTDIR source=../support/test_util.sh
. "$(dirname "$0")/../support/test_util.sh"
tuner=$1  # TUNER CONFIG...
shift
test_start
for cfg in "$@"; do
  gpu_tune "$cfg" || { fail=1; continue; }
  python3 - "$out"/*.json <<'PY' || fail=1
import json, sys
d = json.load(open(sys.argv[1]))
c = [x for x in d["candidates"] if x["status"] != "pruned"]
bad = [(x["id"], x["params_text"], x["status"], x.get("reason", "")[:200])
       for x in c if x["status"] != "ok"]
for b in bad:
    print("NOT OK", b)
assert c and not bad
# a grid fitted at launch (persistent -1) says the blocks it took: whole
# clusters, at most a block per tile (the first size's launch)
for x in c:
    p = dict(kv.split("=", 1) for kv in x["params_text"].split() if "=" in kv)
    if p.get("persistent") != "-1":
        assert all("blocks" not in t for t in x["timings"]), x["id"]
        continue
    cl = int(p.get("cluster", 1))
    got = [t.get("blocks", 0) for t in x["timings"]]
    assert all(b > 0 and b % cl == 0 for b in got), (x["id"], got)
    assert got[0] <= x["launch"]["grid"][0], (x["id"], got)
    print("fitted:", x["params_text"], "blocks", got)
assert d["baselines"][0]["name"] == "cublas"
print("ok: %d GEMM candidates verified and timed (%s)" %
      (len(c), d["run"]["config"]))
PY
done
exit $fail
