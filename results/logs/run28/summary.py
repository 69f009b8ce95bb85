#!/usr/bin/env python3
"""summary.py -- run 28's table (README.md) from its files: each timed
candidate's median and prediction (time-<cfg>.json.gz, the run with 30
repetitions) beside Nsight Compute's counters of its two profiled launches
(<cfg>-raw.csv.gz, in the order the tuner launched them: the benchmark's
order, least predicted first, which the ncu run shares with the timed one;
each launch's registers are checked against the candidate's).

Usage: summary.py [DIR]   (default: this file's folder)"""
import csv
import gzip
import json
import os
import sys

METRICS = [
    ("ncu us", "gpu__time_duration.sum", 1),
    ("copy wf (M)", "smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_ldgsts.sum", 1e6),
    ("L2 requests (M)", "lts__t_requests_srcunit_tex_op_read.sum", 1e6),
    ("L2 sectors (M)", "lts__t_sectors_srcunit_tex_op_read.sum", 1e6),
    ("excess sectors (M)", "derived__memory_l2_theoretical_sectors_global_excessive", 1e6),
    ("L2 throughput %", "lts__throughput.avg.pct_of_peak_sustained_elapsed", 1),
    ("long-scoreboard", "smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active.ratio", 1),
    ("MIO throttle", "smsp__average_warps_issue_stalled_mio_throttle_per_issue_active.ratio", 1),
]


def num(text):
    return float(text.replace(",", ""))


def main():
    here = sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(
        os.path.abspath(__file__))
    for cfg in ("pads", "tiles"):
        with gzip.open(os.path.join(here, "time-%s.json.gz" % cfg), "rt") as f:
            doc = json.load(f)
        with gzip.open(os.path.join(here, "%s-raw.csv.gz" % cfg), "rt") as f:
            rows = list(csv.reader(f))
        head, launches = rows[0], rows[2:]
        ok = [c for c in doc["candidates"] if c.get("status") == "ok"]
        order = sorted(ok, key=lambda c: c["predicted"]["ms"])
        if len(launches) != 2 * len(order):
            sys.exit("%s: %d launches for %d candidates" %
                     (cfg, len(launches), len(order)))
        print("| %s | median ms (q1-q3) | predicted ms | model copy wf (M) | L2 requests / median (G/s) | %s |" %
              (cfg, " | ".join(m[0] for m in METRICS)))
        print("|" + " --- |" * (5 + len(METRICS)))
        for i, c in enumerate(order):
            p = c["params"]
            name = "%dx%d pad %d/%d %s/%s" % (p["bm"], p["bn"], p["pad_a"],
                                               p["pad_b"], p["swizzle_a"],
                                               p["swizzle_b"])
            t = c["timings"][0]
            regs = head.index("launch__registers_per_thread")
            for j in (0, 1):
                if int(num(launches[2 * i + j][regs])) != c["compile"]["registers"]:
                    sys.exit("%s: launch %d is not %s (registers)" %
                             (cfg, 2 * i + j, name))
            figs = []
            for _, key, scale in METRICS:
                col = head.index(key)
                vals = [num(launches[2 * i + j][col]) for j in (0, 1)]
                figs.append(sum(vals) / 2 / scale)
            req = figs[2] * 1e6
            print("| %s | %.4f (%.4f-%.4f) | %.4f | %.2f | %.1f | %s |" % (
                name, t["median_ms"], t["q1_ms"], t["q3_ms"],
                c["predicted"]["ms"],
                c["model"]["per_problem"][0]["cp_async_wavefronts"] / 1e6,
                req / (t["median_ms"] * 1e-3) / 1e9,
                " | ".join("%.4g" % v for v in figs)))
        print()


if __name__ == "__main__":
    main()
