#!/usr/bin/env python3
"""The table of issue 13 from one GPU run's `speed` step: for each config,
the racing run, the full-protocol run and (transpose) the --no-prune run,
each from fresh caches: whole wall time, its parts (run.cost), candidates
timed, launches, the winner, and whether the racing run's winner is the
full protocol's or one within its noise (scripts/compare_winners.py).

Usage: speed_table.py LOGS   (LOGS/speed-CFG-MODE/*.json)
"""
import glob
import json
import os
import subprocess
import sys


def load(logs, cfg, mode):
    files = sorted(glob.glob(os.path.join(logs, "speed-%s-%s" % (cfg, mode),
                                          "*.json")))
    return (files[-1], json.load(open(files[-1]))) if files else (None, None)


def main():
    logs = sys.argv[1]
    print("| config | mode | whole run s | start-up | compile waited (pool wall) "
          "| verification | timed launches | other | timed candidates | "
          "launches | winner | % of baseline |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- "
          "| --- |")
    notes = []
    for cfg in ("gemm", "transpose"):
        for mode in ("race", "full", "noprune"):
            path, d = load(logs, cfg, mode)
            if d is None:
                continue
            r, c = d["run"], d["run"]["cost"]
            timed = sum(1 for x in d["candidates"] if x["status"] == "ok")
            b = d["best"]
            win = next(x for x in d["candidates"] if x["id"] == b["id"])
            print("| %s | %s | %.2f | %.2f | %.2f (%.2f) | %.2f | %.2f | %.2f "
                  "| %d | %d | id %d, %.4f ms | %.1f |" %
                  (cfg, mode, r["wall_s"], c["startup_s"], c["compile_s"],
                   c["compile_overlapped_s"], c["verify_s"], c["timed_s"],
                   c["other_s"], timed, c["launches"], b["id"],
                   b["median_ms"], win.get("pct_of_baseline", 0.0)))
        race, _ = load(logs, cfg, "race")
        full, _ = load(logs, cfg, "full")
        if race and full:
            out = subprocess.run([sys.executable,
                                  os.path.join(os.path.dirname(__file__),
                                               "compare_winners.py"),
                                  race, full], stdout=subprocess.PIPE,
                                 text=True)
            notes.append("%s, racing against the full protocol:\n\n    %s" %
                         (cfg, out.stdout.strip().replace("\n", "\n    ")))
    for n in notes:
        print()
        print(n)


if __name__ == "__main__":
    sys.exit(main())
