#!/usr/bin/env python3
"""How far can pruning go, and how accurate must a model be to get there?
(issue 16: "at most 40% of the valid space timed")

Usage:
  model_reach.py [--root R] [--markdown OUT.md] [--check OUT.md] [CONFIG...]

For every config with committed runs under tests/fixtures/model-check/runs-*/
(or those named), from each day's --no-prune run (every valid candidate
timed):

Reach.  An ideal rule that knows every candidate's time within a factor
1 +- e, and prunes right up to what scripts/model_check.py counts as a
loss, prunes candidate P in favour of K wherever P cannot beat K beyond
noise for any times within those factors: t_P (1 - e) (1 + n) >=
t_K (1 + e), n the run's selection noise (best.noise).  It keeps each
size's best and each group's best (the groups of model_check.py: the same
values of every non-layout parameter), as model_check.py judges a pruned
run:
  - a whole group goes when no member is the fastest of a size (or of the
    sum) and every member is beaten so at every size and in the sum by the
    space's fastest there;
  - in a group that stays, a layout goes when the group's fastest by its
    sum beats it so in the sum, and at every size that one or the space's
    fastest there does.
The timed fraction it leaves is about the least that a rule safe for any
errors within 1 +- e (one that loses no group's or size's best beyond
noise whatever they are) can time: such a rule could go lower only by
keeping, instead of a size's or a group's fastest, a candidate within
noise of it.  At e = 0 it knows the times themselves.
The tuner's measured bound is such a rule, and stricter (a lower bound
above the leader and its noise); its sibling ratio is not: it takes the
model's error once on two siblings' ratio, counting on their errors to
move together.

"valid" is the --no-prune run's timed candidates.  --markdown writes the
table; --check compares it with OUT.md and exits 1 if they differ (the
CPU test model_check_committed).
Exit status: 0 done; 1 --check differs; 2 bad input.
"""
import argparse
import glob
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import model_check  # noqa: E402  (the loaders, the groups' rules)

E_GRID = (0.0, 0.01, 0.02, 0.03, 0.05, 0.08, 0.12)
TARGET = 0.40


def times(c, n_sizes):
    """c's median at each size and in the sum (the last entry)."""
    t = [model_check.ms_at(c, k) for k in range(n_sizes)]
    return t + [sum(t)]


def groups_of(doc, lp, pick):
    out = {}
    for c in doc["candidates"]:
        if pick(c):
            key = tuple((k, json.dumps(v)) for k, v in c["params"].items()
                        if k not in lp)
            out.setdefault(key, []).append(c)
    return out


def reach(np_, e):
    """(kept, valid): what the ideal rule at accuracy e keeps.  What it
    compares with is kept: each size's fastest (and the sum's), and the
    fastest by its sum of each group that stays."""
    lp = np_.get("layout_params") or []
    n_sizes = max(1, len(np_.get("problems") or []))
    noise = (np_.get("best") or {}).get("noise") or 0.0
    f = (1 + e) / (1 - e) / (1 + noise)
    gs = groups_of(np_, lp, model_check.timed)
    t = {c["params_text"]: times(c, n_sizes) for g in gs.values() for c in g}
    if any(None in v for v in t.values()):
        raise model_check.BadInput("a timed candidate without a median at "
                                   "every size")
    ks = range(n_sizes + 1)  # the sizes, then the sum
    first = {k: min(t, key=lambda x: t[x][k]) for k in ks}
    fastest = [t[first[k]][k] for k in ks]
    leaders = set(first.values())
    kept = 0
    for g in gs.values():
        names = [c["params_text"] for c in g]
        if not leaders & set(names) and \
                all(all(t[x][k] >= f * fastest[k] for k in ks) for x in names):
            continue  # the whole group goes
        head = min(names, key=lambda x: t[x][n_sizes])
        for x in names:
            gone = x != head and x not in leaders and \
                t[x][n_sizes] >= f * t[head][n_sizes] and \
                all(t[x][k] >= f * min(t[head][k], fastest[k])
                    for k in range(n_sizes))
            kept += not gone
    return kept, len(t)


def runs(root, configs):
    found = {}
    for d in sorted(glob.glob(os.path.join(root, model_check.CHECK_DIR,
                                           "runs-*"))):
        for np_path in sorted(glob.glob(os.path.join(d, "*",
                                                     "noprune-*.json*"))):
            cfg = os.path.basename(os.path.dirname(np_path))
            if configs and cfg not in configs:
                continue
            found.setdefault(cfg, []).append((os.path.basename(d)[5:],
                                              np_path))
    return found


def table(root, configs):
    out = ["| config | day | valid | noise | " + " | ".join(
        "e = %g%%" % (100 * e) for e in E_GRID) +
        " | largest e at <= 40% |",
        "| --- | --- | --- | --- | " + " | ".join("---" for _ in E_GRID) +
        " | --- |"]
    found = runs(root, configs)
    if configs and set(configs) - set(found):
        raise model_check.BadInput("no committed runs of %s" % ", ".join(
            sorted(set(configs) - set(found))))
    for cfg in sorted(found):
        for day, np_path in found[cfg]:
            np_ = model_check.load_results(np_path, True)
            cells, ok = [], None
            for e in E_GRID:
                kept, valid = reach(np_, e)
                cells.append("%.1f%%" % (100.0 * kept / valid))
                if kept <= TARGET * valid:
                    ok = e
            out.append("| %s | %s | %d | %.1f%% | %s | %s |" % (
                cfg, day, valid, 100 * ((np_.get("best") or {}).get("noise")
                                        or 0.0), " | ".join(cells),
                "none" if ok is None else "%g%%" % (100 * ok)))
    return "\n".join(out) + "\n"


def main():
    ap = argparse.ArgumentParser(
        description=__doc__.split("\n")[0],
        formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--root", default=model_check.ROOT)
    ap.add_argument("--markdown")
    ap.add_argument("--check")
    ap.add_argument("configs", nargs="*")
    a = ap.parse_args()
    try:
        text = table(a.root, a.configs)
    except model_check.BadInput as e:
        print("model_reach.py: %s" % e, file=sys.stderr)
        return 2
    sys.stdout.write(text)
    if a.markdown:
        model_check.write(a.markdown, text)
    if a.check:
        try:
            with open(a.check) as f:
                old = f.read()
        except OSError as e:
            print("model_reach.py: %s: cannot read: %s" % (a.check,
                                                           e.strerror),
                  file=sys.stderr)
            return 2
        if old != text:
            print("model_reach.py: %s differs from the committed runs' "
                  "table (write it again with --markdown)" % a.check,
                  file=sys.stderr)
            return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
