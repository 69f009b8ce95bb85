#!/usr/bin/env bash
# On a GPU (sm_90): the fp8 wgmma GEMM tuned whole with --no-prune, e4m3
# promoted to bf16 C and e5m2 with fast accumulation to fp32 C, at sizes
# no tile divides, alpha, beta and the scales not 1 and 0: every candidate
# compiles, is verified against the fp64 reference within the bound of
# family/gemm_ref.h and is timed, none is wrong.  cuBLASLt's fp8 matmul is
# the baseline: timed for e4m3; for e5m2 timed or, where cuBLASLt has no
# e5m2 x e5m2 algorithm, missing with its reason.  A header is written.
# Usage: gpu_gemm_fp8.sh TUNER CFG...  (e4m3 and e5m2 configs)
set -u
# shellcheck source-path=SCRIPTDIR source=../support/test_util.sh
. "$(dirname "$0")/../support/test_util.sh"
tuner=$1
shift
test_start
for cfg in "$@"; do
  gpu_tune "$cfg" || { fail=1; continue; }
  python3 - "$out"/*.json <<'PY' || fail=1
import json, sys
d = json.load(open(sys.argv[1]))
c = [x for x in d["candidates"] if x["status"] != "pruned"]
bad = [(x["id"], x["params_text"], x["status"], x.get("reason", "")[:300])
       for x in c if x["status"] != "ok"]
for b in bad:
    print("NOT OK", b)
assert c and not bad, "candidates not ok"
b = d["baselines"][0]
print("baseline %s: %s %s %s" % (b["name"], b["status"],
      b.get("median_ms", ""), b.get("reason", "")))
inp = d["problems"][0]["input"]
if inp == "e4m3":
    assert b["status"] == "ok" and b["median_ms"] > 0, "no cuBLASLt timing"
else:
    assert b["status"] == "ok" or "cublasLt" in b.get("reason", ""), \
        "the baseline neither timed nor missing with cuBLASLt's reason"
best = " ".join("%s=%s" % kv for kv in d["best"]["params"].items())
print("ok: %d fp8 GEMM candidates (%s) verified and timed; best %s" %
      (len(c), inp, best))
PY
  ls "$out"/sm_90a/*.h >/dev/null 2>&1 || { echo "FAIL $cfg: no header"; fail=1; }
done
exit $fail
