#!/usr/bin/env python3
"""shapes-table.py RESULTS.json [--csv] -- a run of several sizes as one
table: for each size, its own winner (best_by_size), the single best over
all sizes (best) at that size, and the reference baseline measured in the
same run (cuBLAS for gemm, the device copy for transpose; as timed nearest
to that size's winner, best_by_size[].baseline_ms, where the file has
it), in ms, in the family's unit and in %.

    python3 scripts/shapes-table.py results/gemm-shapes-sm_90-*.json

Columns: the size; the winner's candidate id, median and rate; the single
best's median and rate there; the winner's gain over it (single / winner
- 1, in %: how much faster the table by size is at that size); the
baseline's median and rate; the winner and the single best as % of the
baseline (baseline time / their time).  Then the totals over the sizes
and the parameters of every configuration named.  The rate of a size is
its work (problems[].work: flops or bytes) over the time, in the unit of
the results (TFLOP/s, GB/s).  Exit status 2 for a file that is not a
results file of several sizes with best_by_size (docs/results.md)."""
import json
import math
import sys


def die(msg):
    print("shapes-table: " + msg, file=sys.stderr)
    sys.exit(2)


def size_text(size):
    return "x".join(str(d) for d in size)


def fmt(x, digits):
    return "-" if x is None else "%.*f" % (digits, x)


def main(argv):
    args = [a for a in argv[1:] if not a.startswith("--")]
    csv = "--csv" in argv[1:]
    if len(args) != 1 or any(a not in ("--csv",) for a in argv[1:]
                             if a.startswith("--")):
        die("usage: shapes-table.py RESULTS.json [--csv]")
    try:
        with open(args[0], encoding="utf-8") as fh:
            doc = json.load(fh)
    except (OSError, ValueError) as e:
        die("%s: %s" % (args[0], e))
    if not isinstance(doc, dict) or doc.get("schema") != "tuner-results/1":
        die("%s: not a tuner results file (schema tuner-results/1)" % args[0])
    best, by = doc.get("best"), doc.get("best_by_size")
    probs = doc.get("problems") or []
    if not isinstance(best, dict) or doc.get("predicted"):
        die("%s: no measured winner (best is null, or a prediction)"
            % args[0])
    if not isinstance(by, list) or len(by) != len(probs):
        die("%s: no best_by_size for its %d problems (a file written before "
            "per-size winners?)" % (args[0], len(probs)))
    cands = {c.get("id"): c for c in doc.get("candidates", [])
             if c.get("status") == "ok"}
    single = cands.get(best.get("id"))
    if single is None:
        die("%s: best.id %s is not an ok candidate" % (args[0], best.get("id")))
    unit = best.get("unit", "")
    # work per second per unit, from the winner's own numbers
    scale = None
    for k, b in enumerate(by):
        if b and b.get("rate") and b.get("median_ms"):
            scale = probs[k]["work"] / (b["median_ms"] * 1e-3) / b["rate"]
            break
    bases = doc.get("baselines") or []
    base = bases[0] if bases and bases[0].get("status") == "ok" else None
    base_name = doc.get("reference_baseline") or (base or {}).get("name", "")

    def rate(k, ms):
        if ms is None or not ms > 0 or scale is None:
            return None
        return probs[k]["work"] / (ms * 1e-3) / scale

    rows, named = [], {best["id"]: single["params_text"]}
    tot = {"w": 0.0, "s": 0.0, "b": 0.0}
    gains = []
    for k, b in enumerate(by):
        if not isinstance(b, dict) or b.get("id") not in cands:
            die("%s: best_by_size[%d] names no ok candidate" % (args[0], k))
        w = cands[b["id"]]
        named[b["id"]] = w["params_text"]
        wms = w["timings"][k]["median_ms"]
        sms = single["timings"][k]["median_ms"]
        # the baseline as timed nearest to this size's winner (files
        # before it: the baseline's one figure)
        bms = b.get("baseline_ms") or \
            (base["timings"][k]["median_ms"] if base else None)
        gain = 100.0 * (sms / wms - 1.0)
        gains.append(sms / wms)
        tot["w"] += wms
        tot["s"] += sms
        tot["b"] += bms or 0.0
        rows.append([size_text(probs[k]["size"]), str(b["id"]), fmt(wms, 4),
                     fmt(rate(k, wms), 2), fmt(sms, 4), fmt(rate(k, sms), 2),
                     "%+.1f" % gain, fmt(bms, 4), fmt(rate(k, bms), 2),
                     fmt(100.0 * bms / wms if bms else None, 1),
                     fmt(100.0 * bms / sms if bms else None, 1)])
    head = ["size", "winner id", "winner ms", "winner " + unit,
            "single best ms", "single best " + unit, "gain %",
            base_name + " ms", base_name + " " + unit, "winner % of " +
            base_name, "single best % of " + base_name]
    geo = math.exp(sum(math.log(g) for g in gains) / len(gains))
    total = ["all %d sizes (sum of medians)" % len(by), "", fmt(tot["w"], 4),
             "", fmt(tot["s"], 4), "", "%+.1f" % (100.0 * (tot["s"] /
                                                          tot["w"] - 1)),
             fmt(tot["b"], 4) if base else "-", "",
             fmt(100.0 * tot["b"] / tot["w"], 1) if base else "-",
             fmt(100.0 * tot["b"] / tot["s"], 1) if base else "-"]
    if csv:
        print(",".join(head))
        for r in rows + [total]:
            print(",".join(r))
        return 0
    dev = (doc.get("device") or {}).get("name") or "?"
    print("%s (%s) on %s, %s; single best: candidate %d; gain: how much "
          "faster each size's own winner is than the single best there"
          % (doc.get("name"), doc.get("family"), dev,
             (doc.get("run") or {}).get("started", "?"), best["id"]))
    print()
    print("| " + " | ".join(head) + " |")
    print("|" + "---|" * len(head))
    for r in rows + [total]:
        print("| " + " | ".join(r) + " |")
    print()
    print("Geometric mean of the gains over the sizes: %+.1f %%; sizes "
          "whose winner is not the single best: %d of %d." %
          (100.0 * (geo - 1.0), sum(1 for b in by if b["id"] != best["id"]),
           len(by)))
    print()
    for i in sorted(named):
        print("- candidate %d: %s" % (i, named[i]))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
