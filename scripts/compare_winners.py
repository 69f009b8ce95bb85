#!/usr/bin/env python3
"""Do two runs of the same job pick the same winner, or one within noise?

Usage: compare_winners.py FIRST.json SECOND.json
The second run's winner must be the first's, or a candidate whose median in
the FIRST run lies within that run's noise margin of the first's winner
(and the other way round).  Prints both winners and exits 0 if they agree.
"""
import json
import sys


def main():
    a, b = (json.load(open(p)) for p in sys.argv[1:3])
    ca = {c["id"]: c for c in a["candidates"]}
    cb = {c["id"]: c for c in b["candidates"]}
    wa, wb = a["best"], b["best"]
    print("run 1: winner %d %s %.4f ms (noise %.3f), ties %s" %
          (wa["id"], wa["params"], wa["median_ms"], wa["noise"],
           wa["within_noise"]))
    print("run 2: winner %d %s %.4f ms (noise %.3f), ties %s" %
          (wb["id"], wb["params"], wb["median_ms"], wb["noise"],
           wb["within_noise"]))
    if wa["id"] == wb["id"]:
        print("same winner")
        return 0
    ok = True
    for (run, other, win) in ((ca, a, wb), (cb, b, wa)):
        fastest = run[other["best"]["fastest_id"]]["median_ms"]
        t = run[win["id"]].get("median_ms")
        within = t is not None and t <= fastest * (1 + other["best"]["noise"])
        print("  winner %d in the other run: %s ms, fastest %.4f ms: %s" %
              (win["id"], t, fastest, "within noise" if within else "NOT"))
        ok = ok and within
    print("winners differ but each is within the other run's noise"
          if ok else "winners differ beyond noise")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
