#!/usr/bin/env python3
"""test_summary.py BUILD JUNIT EXCLUDE GPU ALL -- scripts/test.sh's last
lines: each test that did not run and why, then one line counting them.

BUILD: the build folder (its tests are listed with their labels by
`ctest --show-only=json-v1`); JUNIT: ctest's --output-junit of the run;
EXCLUDE: the labels test.sh left out ("a|b"); GPU: 1 if nvidia-smi saw a
GPU; ALL: 1 for --all.  A test that skipped itself (exit 77) gives the
first line of its output as the reason.
"""
import json
import subprocess
import sys
import xml.etree.ElementTree as ET

WHY = {
    "gpu": "no GPU here (nvidia-smi sees none)",
    "nvrtc-compile": "the exhaustive compiles, scripts/test.sh --all",
    "browser": "Chromium and the Nu HTML checker, scripts/test.sh --all",
    "slurm": "Slurm's daemons, scripts/test.sh --all",
}


def main():
    build, junit, exclude, gpu, run_all = sys.argv[1:6]
    excluded = [l for l in exclude.split("|") if l]
    p = subprocess.run(["ctest", "--test-dir", build,
                        "--show-only=json-v1"], stdout=subprocess.PIPE,
                       stderr=subprocess.DEVNULL, universal_newlines=True)
    labels = {}
    for t in json.loads(p.stdout).get("tests", []):
        ls = []
        for prop in t.get("properties", []):
            if prop.get("name") == "LABELS":
                ls = prop.get("value") or []
        labels[t["name"]] = ls
    try:
        cases = ET.parse(junit).getroot().iter("testcase")
    except (OSError, ET.ParseError) as e:
        print("test: no results to count (%s)" % e)
        return 1
    ran, passed, failed, skipped, unstarted = set(), 0, 0, [], []
    for c in cases:
        name = c.get("name")
        ran.add(name)
        status = c.get("status")
        if status == "run":
            passed += 1
        elif status == "fail":
            failed += 1
        else:
            out = (c.findtext("system-out") or "").strip().splitlines()
            if c.find("skipped") is not None:
                skipped.append((name, out[0] if out else "(no reason given)"))
            else:
                unstarted.append(name)
    by_label, unselected = {}, []
    for name, ls in labels.items():
        if name in ran:
            continue
        hit = [l for l in excluded if l in ls]
        if hit:
            by_label.setdefault(hit[0], []).append(name)
        else:
            unselected.append(name)
    for name, why in skipped:
        print("did not run: %s: %s" % (name, why))
    for name in unstarted:
        print("did not run: %s: not started (a test it needs failed)" % name)
    parts = []
    for l in excluded:
        if by_label.get(l):
            parts.append("%d %s: %s" % (len(by_label[l]), l,
                                        WHY.get(l, "TUNER_TEST_EXCLUDE")))
    if unselected:
        parts.append("%d not selected by the arguments" % len(unselected))
    if skipped:
        parts.append("%d skipped themselves (above)" % len(skipped))
    if unstarted:
        parts.append("%d not started (above)" % len(unstarted))
    n_not = sum(len(v) for v in by_label.values()) + len(unselected) + \
        len(skipped) + len(unstarted)
    ran_n = len(ran) - len(skipped) - len(unstarted)
    print("test: %d of %d tests ran: %d passed, %d failed; %d did not run%s"
          % (ran_n, len(labels), passed, failed, n_not,
             ": " + "; ".join(parts) if parts else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main())
