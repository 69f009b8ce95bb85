#!/usr/bin/env bash
# The wavefront model against every pattern measured on the H200 with
# Nsight Compute (tests/fixtures/model-validation/measured-*.tsv): `tuner
# conflicts` must give the measured wavefronts per instruction on every row
# but the ones listed, with the reason, in known-mismatches.txt.
set -u
tuner=$1
dir=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
python3 - "$dir" "$tmp" <<'PY' || exit 1
import glob, os, sys
d, tmp = sys.argv[1], sys.argv[2]
rows = []
for f in sorted(glob.glob(os.path.join(d, "measured-*.tsv"))):
    lines = open(f).read().split("\n")
    head = lines[0].split("\t")
    col = {n: i for i, n in enumerate(head)}
    for l in lines[1:]:
        r = l.split("\t")
        if len(r) < len(head) or r[col["status"]] != "ok":
            continue
        rows.append((r[col["id"]], r[col["op"]], r[col["width"]],
                     r[col["addresses"]], r[col["wavefronts_per_inst"]]))
with open(os.path.join(tmp, "in.txt"), "w") as f:
    for r in rows:
        f.write("%s %s %s\n" % (r[1], r[2], r[3]))
with open(os.path.join(tmp, "meas.txt"), "w") as f:
    for r in rows:
        f.write("%s\t%s\n" % (r[0], r[4]))
print("%d measured rows" % len(rows))
PY
"$tuner" conflicts --arch sm_90 "$tmp/in.txt" >"$tmp/pred.txt" || exit 1
python3 - "$tmp/meas.txt" "$tmp/pred.txt" "$dir/known-mismatches.txt" <<'PY'
import sys
meas = [l.split("\t") for l in open(sys.argv[1]).read().splitlines()]
pred = open(sys.argv[2]).read().splitlines()
known = {l.strip() for l in open(sys.argv[3]) if l.strip() and not l.startswith("#")}
assert len(meas) == len(pred), (len(meas), len(pred))
bad, fixed, ok = [], [], 0
for (pid, m), p in zip(meas, pred):
    same = float(m) == float(p.split()[0])
    if pid in known:
        if same:
            fixed.append(pid)
    elif not same:
        bad.append((pid, m, p))
    else:
        ok += 1
print("%d rows equal, %d known mismatches" % (ok, len(known)))
for b in bad:
    print("DIFFERS: %s measured %s, model %s" % b)
for f in fixed:
    print("now matches, remove from known-mismatches.txt: %s" % f)
seen = {pid for pid, _ in meas}
missing = known - seen
for x in missing:
    print("known mismatch not in the tables: %s" % x)
sys.exit(1 if bad or fixed or missing else 0)
PY
