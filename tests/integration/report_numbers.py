#!/usr/bin/env python3
"""report_numbers.py TUNER OUTDIR RESULTS... -- `tuner report` of each
results file; the numbers its SVG marks carry (data-id, data-ms,
data-wavefronts, data-count, data-baseline, data-param/value) checked
against the results JSON they came from.  Exits 1 on a mismatch."""
import json
import os
import re
import subprocess
import sys
from collections import Counter
from html.parser import HTMLParser


class Marks(HTMLParser):
    def __init__(self):
        super().__init__()
        self.svg = None
        self.marks = []

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "svg" and a.get("id"):
            self.svg = a["id"]
        if any(k.startswith("data-") for k in a):
            a["_tag"], a["_svg"] = tag, self.svg
            self.marks.append(a)


def close(a, b):
    return abs(a - b) <= 1e-5 * max(abs(a), abs(b))


def kind(c):
    if c["status"] == "pruned":
        return "pruned" if c.get("pruned_by") == "model" else "excluded"
    return c["status"] if c["status"] in (
        "ok", "compile_error", "wrong", "failed") else "other"


def check(tuner, out, path):
    bad = []
    html = os.path.join(out, os.path.basename(path) + ".html")
    subprocess.run([tuner, "report", path, "-o", html], check=True)
    doc = json.load(open(path))
    p = Marks()
    p.feed(open(html, encoding="utf-8").read())
    cands = {c["id"]: c for c in doc["candidates"]}
    ok = [c for c in doc["candidates"] if c["status"] == "ok"]
    bars = [m for m in p.marks if m["_svg"] == "r0-bars" and "data-id" in m]
    if len(bars) != len(ok):
        bad.append("%d bars for %d timed" % (len(bars), len(ok)))
    last = 0
    for m in bars:
        c = cands[int(m["data-id"])]
        ms = float(m["data-ms"])
        if c["status"] != "ok" or not close(ms, c["median_ms"]):
            bad.append("bar %s: %s ms, results %s" % (m["data-id"], ms,
                                                     c.get("median_ms")))
        if ms < last:
            bad.append("bars not sorted at id %s" % m["data-id"])
        last = ms
    pts = [m for m in p.marks if m["_svg"] == "r0-model"]
    want = [c for c in doc["candidates"]
            if kind(c) != "excluded" and
            c.get("model", {}).get("wavefronts", 0) > 0]
    if len(pts) != len(want):
        bad.append("%d scatter marks for %d candidates with wavefronts"
                   % (len(pts), len(want)))
    for m in pts:
        c = cands[int(m["data-id"])]
        if not close(float(m["data-wavefronts"]), c["model"]["wavefronts"]):
            bad.append("point %s: wavefronts %s, results %s" % (
                m["data-id"], m["data-wavefronts"], c["model"]["wavefronts"]))
        if ("data-ms" in m) != (c["status"] == "ok") or (
                "data-ms" in m and not close(float(m["data-ms"]),
                                             c["median_ms"])):
            bad.append("point %s: ms %s, results %s" % (
                m["data-id"], m.get("data-ms"), c.get("median_ms")))
    counts = Counter(kind(c) for c in doc["candidates"])
    got = {m["data-status"]: int(m["data-count"]) for m in p.marks
           if m["_svg"] == "r0-counts"}
    if got != dict(counts):
        bad.append("counts %s, results %s" % (got, dict(counts)))
    for m in p.marks:
        if "data-baseline" in m:
            b = [b for b in doc["baselines"] if b["name"] == m["data-baseline"]]
            if not b or not close(float(m["data-ms"]), b[0]["median_ms"]):
                bad.append("baseline %s: %s" % (m["data-baseline"],
                                                m["data-ms"]))
    for m in p.marks:
        if "data-param" not in m:
            continue
        best = min(c["median_ms"] for c in ok
                   if str(c["params"][m["data-param"]]) == m["data-value"])
        if not close(float(m["data-ms"]), best):
            bad.append("%s=%s: best %s, results %s" % (
                m["data-param"], m["data-value"], m["data-ms"], best))
    w = [m for m in p.marks if m.get("id") == "r0-winner"]
    if doc["best"] and (not w or int(w[0]["data-id"]) != doc["best"]["id"]):
        bad.append("winner: %s, results %s" % (w, doc["best"]["id"]))
    for b in bad[:20]:
        print("%s: %s" % (path, b))
    print("%s: %d bars, %d scatter marks, %d counts checked" % (
        path, len(bars), len(pts), len(got)))
    return len(bad) == 0


def main():
    tuner, out = sys.argv[1], sys.argv[2]
    os.makedirs(out, exist_ok=True)
    ok = all([check(tuner, out, p) for p in sys.argv[3:]])
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
