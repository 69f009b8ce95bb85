#!/usr/bin/env python3
"""The transposes of every element width as one table, from results files.

For each results file of a transpose family (transpose, transpose_batched,
transpose_heads) and each of its problems:
the element type and size, the device copy of the same bytes timed in the
same run (GB/s counting bytes read and written; its median timing), the
fastest candidate, the fastest of the threads' path and of the copy
engine's (tma = 1), each as GB/s, % of that copy (its timing nearest to
the candidate, as the tuner compares them, where the file has one
problem) and % of the H200's 4.8 TB/s, with the model's wavefronts per
block, and the copy engine's rate against the threads' (where it wins,
where it loses); a path none of whose points was timed says why
(excluded by the family's rules, pruned, failed).  The fastest median is
shown, which may differ within noise from the tuner's chosen best (that
prefers less shared memory among ties).

Usage: scripts/widths_table.py [--peak-gbs 4800] RESULTS.json...
Prints Markdown; exits 2 on a file that is not a transpose's results
(results come from other hosts: a malformed one is refused, not a crash).
"""
import argparse
import json
import sys

ELEM_BYTES = {"fp32": 4, "fp16": 2, "bf16": 2, "fp8": 1, "int8": 1,
              "fp64": 8}
# The transpose families and the entries of their sizes: [rows, cols],
# [batch, rows, cols], [batch, heads, rows, cols].
DIMS = {"transpose": 2, "transpose_batched": 3, "transpose_heads": 4}


class BadInput(Exception):
    pass


def timing(c, k):
    t = c.get("timings") or []
    if k < len(t) and t[k]:
        ms = t[k].get("median_ms", 0)
        if not isinstance(ms, (int, float)) or isinstance(ms, bool):
            raise ValueError("timings[%d].median_ms %r is not a number"
                             % (k, ms))
        if ms > 0:
            return ms
    return None


def wavefronts(c, k):
    per = (c.get("model") or {}).get("per_problem") or []
    if k < len(per):
        return per[k].get("wavefronts_per_block")
    return None


def why_none(cands):
    """Why no candidate of a path was timed: counts by status."""
    if not cands:
        return "not in the space"
    counts = {}
    for c in cands:
        s = c.get("status", "?")
        counts[s] = counts.get(s, 0) + 1
    first = next((c.get("reason") for c in cands if c.get("reason")), "")
    text = ", ".join("%d %s" % (n, s) for s, n in sorted(counts.items()))
    return text + (" (%s)" % first[:90] if first else "")


def nearest_copy(c, one_problem, copy_ms):
    """The copy's timing nearest in time to candidate c (baseline_ms, the
    tuner's own comparison) where the results have one problem (it is
    over all problems), else the copy's median timing."""
    ms = c.get("baseline_ms")
    if one_problem and ms is not None:
        if not isinstance(ms, (int, float)) or isinstance(ms, bool) or \
                ms <= 0:
            raise ValueError("baseline_ms %r is not a positive number" % ms)
        return ms
    return copy_ms


def cell(c, k, ms, copy_ms, gb, peak):
    gbs = gb / (ms * 1e-3)
    wf = wavefronts(c, k)
    return "%.0f GB/s, %.1f %% copy, %.1f %% peak (%s%s)" % (
        gbs, 100 * copy_ms / ms, 100 * gbs / peak, c.get("params_text", ""),
        "; %.0f wf/block" % wf if wf is not None else "")


def rows_of(path, doc, peak):
    if doc.get("family") not in DIMS:
        raise BadInput("%s: family %r, not a transpose's" %
                       (path, doc.get("family")))
    n_dims = DIMS[doc["family"]]
    ref = doc.get("reference_baseline", "memcpy")
    base = next((b for b in doc.get("baselines", [])
                 if b.get("name") == ref), None)
    out = []
    problems = doc.get("problems", [])
    for k, prob in enumerate(problems):
        elem = prob.get("elem", "fp32")
        size = prob.get("size", [])
        if elem not in ELEM_BYTES or not isinstance(size, list) or \
                len(size) != n_dims:
            raise BadInput("%s: problems[%d]: not a %s problem"
                           % (path, k, doc["family"]))
        if not all(isinstance(v, int) and not isinstance(v, bool) and v > 0
                   for v in size):
            raise BadInput("%s: problems[%d].size %r: not %d positive "
                           "integers" % (path, k, size, n_dims))
        # a batch of matrices: the leading dimensions count them
        elems = 1
        for v in size:
            elems *= v
        gb = 2.0 * elems * ELEM_BYTES[elem] / 1e9
        copy_ms = timing(base, k) if base else None
        timed = [(timing(c, k), c) for c in doc.get("candidates", [])
                 if c.get("status") == "ok" and timing(c, k)]
        row = ["%s" % doc.get("name", "?"), elem,
               "x".join("%d" % v for v in size)]
        if copy_ms is None:
            row.append("no copy timed")
            out.append(row + ["-"] * 4)
            continue
        row.append("%.0f GB/s (%.1f %% peak)" % (gb / (copy_ms * 1e-3),
                                                 100 * gb / (copy_ms * 1e-3)
                                                 / peak))
        fastest = {}
        for path_tma in (None, 0, 1):
            sel = [(ms, c) for ms, c in timed
                   if path_tma is None or
                   c.get("params", {}).get("tma", 0) == path_tma]
            if sel:
                ms, c = min(sel, key=lambda x: x[0])
                fastest[path_tma] = ms
                row.append(cell(c, k, ms,
                                nearest_copy(c, len(problems) == 1, copy_ms),
                                gb, peak))
            else:
                cands = [c for c in doc.get("candidates", [])
                         if path_tma is None or
                         c.get("params", {}).get("tma", 0) == path_tma]
                row.append("none timed: " + why_none(cands))
        if 0 in fastest and 1 in fastest:
            ratio = fastest[0] / fastest[1]
            row.append("%.1f %% of the threads' rate: %s" % (
                100 * ratio, "wins" if ratio > 1 else "loses"))
        else:
            row.append("-")
        out.append(row)
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--peak-gbs", type=float, default=4800.0,
                    help="the GPU's DRAM bandwidth (H200: 4800 GB/s)")
    ap.add_argument("results", nargs="+")
    a = ap.parse_args()
    head = ["job", "elem", "size", "device copy", "fastest",
            "fastest of the threads", "fastest of the copy engine (tma = 1)",
            "copy engine against threads"]
    table = []
    try:
        for path in a.results:
            try:
                with open(path) as f:
                    doc = json.load(f)
            except (OSError, ValueError) as e:
                raise BadInput("%s: %s" % (path, e))
            try:
                rows = rows_of(path, doc, a.peak_gbs)
            except (AttributeError, KeyError, TypeError, ValueError,
                    ZeroDivisionError) as e:
                raise BadInput("%s: not a transpose's results (%s: %s)"
                               % (path, type(e).__name__, e))
            table.extend(rows)
    except BadInput as e:
        print("widths_table.py: %s" % e, file=sys.stderr)
        return 2
    print("| " + " | ".join(head) + " |")
    print("|" + " --- |" * len(head))
    for row in table:
        print("| " + " | ".join(str(v) for v in row) + " |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
