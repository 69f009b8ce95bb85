#!/usr/bin/env python3
"""model_check_test.py -- scripts/model_check.py and model_reach.py, issue
16's validation.

Usage: model_check_test.py committed ROOT   the committed summaries
                                            (ROOT/tests/fixtures/
                                            model-check/)
                                            recomputed from their inputs:
                                            none worse than its bar, and
                                            model_reach.py's table of them
                                            (reach.md) up to date
       model_check_test.py self ROOT TMP    the figures on hand-made runs,
                                            a worsened run and a stricter bar
                                            fail, bad input exits 2; a run
                                            of two sizes that keeps every
                                            group's best by its sum but
                                            loses one size's best; the
                                            reach of a hand-made run
"""
import copy
import json
import lzma
import math
import os
import subprocess
import sys

failures = 0


def check(cond, what):
    global failures
    if not cond:
        failures += 1
        print("FAIL: " + what)


def script(name, root, *args):
    """Runs scripts/NAME with args: (exit status, stdout, stderr)."""
    p = subprocess.run([sys.executable,
                        os.path.join(root, "scripts", name)] +
                       list(args), stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, universal_newlines=True)
    return p.returncode, p.stdout, p.stderr


def tool(root, *args):
    return script("model_check.py", root, *args)


def cand(i, tile, pad, status="ok", ms=None, by=None, pred=None, iqr=0.0):
    c = {"id": i, "params": {"tile": tile, "pad": pad},
         "params_text": "tile=%d pad=%d" % (tile, pad), "status": status}
    if by:
        c["pruned_by"] = by
        c["reason"] = "synthetic"
    if ms is not None:
        c["median_ms"] = ms
        c["timings"] = [{"median_ms": ms, "q1_ms": ms * (1 - iqr / 2),
                         "q3_ms": ms * (1 + iqr / 2), "min_ms": ms,
                         "max_ms": ms, "repetitions": 10}]
    if pred is not None:
        c["predicted"] = {"ms": pred, "lo_ms": pred, "hi_ms": pred}
    return c


def cand_sizes(i, tile, pad, ms):
    """An ok candidate timed at several sizes, ms[k] at size k (no spread);
    its median_ms the sum, as a run of many sizes writes it."""
    c = cand(i, tile, pad, ms=sum(ms))
    c["timings"] = [{"median_ms": x, "q1_ms": x, "q3_ms": x, "min_ms": x,
                     "max_ms": x, "repetitions": 10} for x in ms]
    return c


def doc(no_prune, cands, best_id):
    return {"schema": "tuner-results-1", "family": "toy", "name": "toy",
            "layout_params": ["pad"],
            "run": {"config": "configs/toy.cfg", "no_prune": no_prune,
                    "started": "2026-12-01T10:00:00Z", "interrupted": False},
            "device": {"name": "Toy GPU", "arch": "sm_90"},
            "candidates": cands,
            "best": {"id": best_id, "noise": 0.01}}


def toy(tmp):
    """Three groups (tile 16, 32, 64) of three pads each, and one invalid
    point.  The --no-prune run's times and predictions, by hand:
      tile 16: pads 1.00 1.20 1.50 ms; the pruned run keeps pad 1: pad 0
               beats it by 20%: lost
      tile 32: pads 0.50 0.503 0.70: keeps pad 1, prunes pad 0, 0.6%
               apart: within the 1% noise, not lost
      tile 64: pads 2.0 2.1 2.2: keeps pad 0, prunes 1 and 2: not lost
    Valid space 9; the pruned run times 4 of them (one per group, and
    tile 32 pad 2)."""
    ms = {(16, 0): 1.0, (16, 1): 1.2, (16, 2): 1.5, (32, 0): 0.5,
          (32, 1): 0.503, (32, 2): 0.7, (64, 0): 2.0, (64, 1): 2.1,
          (64, 2): 2.2}
    # predicted: in the measured order but for tile 32 pad 0, predicted
    # slowest; the predicted winner is tile 32 pad 1 (measured 2nd)
    pred = {k: v for k, v in ms.items()}
    pred[(32, 0)] = 9.0
    npc, prc = [], []
    i = 0
    for (t, p), m in sorted(ms.items()):
        npc.append(cand(i, t, p, ms=m, pred=pred[(t, p)]))
        kept = (t, p) in ((16, 1), (32, 1), (32, 2), (64, 0))
        prc.append(cand(i, t, p, ms=m if kept else None,
                        status="ok" if kept else "pruned",
                        by=None if kept else "time_model"))
        i += 1
    npc.append(cand(i, 128, 0, status="pruned", by="limits"))
    prc.append(cand(i, 128, 0, status="pruned", by="limits"))
    npath = os.path.join(tmp, "np.json")
    ppath = os.path.join(tmp, "pr.json")
    json.dump(doc(True, npc, 3), open(npath, "w"))
    json.dump(doc(False, prc, 4), open(ppath, "w"))
    return npath, ppath, npc, prc


def part_self(root, tmp):
    npath, ppath, npc, prc = toy(tmp)
    out = os.path.join(tmp, "toy.json")
    rc, so, se = tool(root, "--no-prune", npath, "--pruned", ppath,
                      "--json", out, "--markdown",
                      os.path.join(tmp, "toy.md"))
    check(rc == 0, "toy: exit %d: %s" % (rc, se))
    s = json.load(open(out))
    f = s["figures"]
    check(f["groups"] == 3 and f["groups_touched"] == 3,
          "toy: 3 groups touched, got %s" % f["groups_touched"])
    check(f["groups_losing"] == 1, "toy: 1 losing group, got %s"
          % f["groups_losing"])
    check(f["valid"] == 9 and f["timed"] == 4,
          "toy: 4 of 9 timed, got %s of %s" % (f["timed"], f["valid"]))
    check(abs(f["timed_fraction"] - 4 / 9) < 1e-12, "toy: fraction 4/9")
    check(f["pruned_by"] == {"time_model": 5}, "toy: 5 pruned by the time "
          "model, got %s" % f["pruned_by"])
    check(f["predicted_winner"] == "tile=32 pad=1" and
          f["predicted_winner_rank"] == 2 and f["predicted_timed"] == 9,
          "toy: winner tile=32 pad=1 2nd of 9, got %s %s" % (
              f["predicted_winner"], f["predicted_winner_rank"]))
    check(abs(f["predicted_winner_gap_pct"] - 0.6) < 1e-9,
          "toy: gap 0.6%%, got %s" % f["predicted_winner_gap_pct"])
    # top 10% of 9 is 1 candidate: tile 32 pad 1, within 1% of the best
    check(f["top10_k"] == 1 and f["top10_holds_best"] is True,
          "toy: top 1 holds the best within noise")
    # Spearman by hand: measured ranks 1..9, tile 32 pad 0 (measured 1st)
    # predicted 9th, the others keep their order: d = 8 for it, 1 for the
    # 8 others: rho = 1 - 6 * (64 + 8) / (9 * 80) = 0.4
    check(abs(f["spearman"] - 0.4) < 1e-9, "toy: spearman 0.4, got %s"
          % f["spearman"])
    check("**yes**" in open(os.path.join(tmp, "toy.md")).read(),
          "toy: the markdown marks the lost group")

    # the same summary verifies; a stricter bar fails, figure by figure
    vdir = os.path.join(tmp, "verify")
    os.makedirs(vdir)
    json.dump(s, open(os.path.join(vdir, "toy.json"), "w"))
    rc, so, se = tool(root, "--verify", vdir)
    check(rc == 0, "verify toy: exit %d: %s%s" % (rc, so, se))
    for k, v in (("groups_losing", 0), ("timed_fraction", 0.4),
                 ("predicted_winner_gap_pct", 0.5), ("spearman", 0.5)):
        t = copy.deepcopy(s)
        t["bar"][k] = v
        json.dump(t, open(os.path.join(vdir, "toy.json"), "w"))
        rc, so, se = tool(root, "--verify", vdir)
        check(rc == 1 and k in so, "verify, bar %s %s: exit %d (1 "
              "expected): %s" % (k, v, rc, so))
    # a worse run against the committed bar: tile 64 pad 1 now the fastest
    # of its group, which the pruned run pruned
    npc[7]["median_ms"] = npc[7]["timings"][0]["median_ms"] = 1.5
    json.dump(doc(True, npc, 3), open(npath, "w"))
    json.dump(s, open(os.path.join(vdir, "toy.json"), "w"))
    rc, so, se = tool(root, "--verify", vdir)
    check(rc == 1 and "groups_losing: 2, worse than the bar 1" in so,
          "verify, a worse run: exit %d: %s" % (rc, so))
    # writing over it keeps the old bar (exit 1), --raise-bar does not lower
    rc, so, se = tool(root, "--no-prune", npath, "--pruned", ppath,
                      "--json", out)
    check(rc == 1 and json.load(open(out))["bar"]["groups_losing"] == 1,
          "a worse run keeps the bar and exits 1 (exit %d)" % rc)

    # bad input: exit 2, nothing written
    for args, what in (
            (["--no-prune", ppath, "--pruned", npath], "run.no_prune"),
            (["--no-prune", npath, "--pruned", ppath, "--layout-params",
              "tile"], "--layout-params"),
            (["--no-prune", npath, "--pruned", os.path.join(tmp, "none")],
             "cannot read"),
            (["--no-prune", npath, "--pruned", ppath, "--predict",
              npath + ".h"], "cannot read")):
        before = open(out).read()
        rc, so, se = tool(root, *(args + ["--json", out]))
        check(rc == 2 and what in se and open(out).read() == before,
              "bad input %s: exit %d, %s" % (args, rc, se.strip()))
    d = json.load(open(ppath))
    d["run"]["started"] = "2026-12-02T10:00:00Z"
    json.dump(d, open(ppath, "w"))
    rc, so, se = tool(root, "--no-prune", npath, "--pruned", ppath)
    check(rc == 2 and "same day" in se, "another day: exit %d" % rc)


def two_sizes(tmp):
    """Two sizes, two groups of two pads.  By hand (ms at size 0, size 1;
    the sum):
      tile 16: pad 0 1.0, 3.0 (4.0); pad 1 1.2, 2.0 (3.2)
      tile 32: pad 0 1.5, 2.5 (4.0); pad 1 1.6, 2.6 (4.2)
    The pruned run prunes tile 16 pad 0 and tile 32 pad 1.  No group
    loses by its sum (tile 16 keeps pad 1, 3.2 against 4.0; tile 32 keeps
    pad 0), but size 0 loses its best: 1.0 pruned against 1.2 kept.
    Size 1 keeps it (2.0)."""
    ms = {(16, 0): (1.0, 3.0), (16, 1): (1.2, 2.0), (32, 0): (1.5, 2.5),
          (32, 1): (1.6, 2.6)}
    npc, prc = [], []
    for i, ((t, p), m) in enumerate(sorted(ms.items())):
        c = cand_sizes(i, t, p, m)
        npc.append(c)
        kept = (t, p) in ((16, 1), (32, 0))
        d = copy.deepcopy(c)
        if not kept:
            d.update(status="pruned", pruned_by="measured",
                     reason="synthetic")
            del d["median_ms"], d["timings"]
        prc.append(d)
    paths = []
    for no_prune, cs, best in ((True, npc, 1), (False, prc, 1)):
        d = doc(no_prune, cs, best)
        d["problems"] = [{"size": [64, 64]}, {"size": [128, 128]}]
        paths.append(os.path.join(tmp, "two-%s.json" % no_prune))
        json.dump(d, open(paths[-1], "w"))
    return paths


def part_sizes(root, tmp):
    npath, ppath = two_sizes(tmp)
    out = os.path.join(tmp, "two.json")
    rc, so, se = tool(root, "--no-prune", npath, "--pruned", ppath,
                      "--json", out)
    check(rc == 0, "two sizes: exit %d: %s" % (rc, se))
    s = json.load(open(out))
    f = s["figures"]
    check(f["groups_losing"] == 0, "two sizes: no group loses by its sum, "
          "got %s" % f["groups_losing"])
    check(f["sizes"] == 2 and f["sizes_losing"] == 1,
          "two sizes: 1 of 2 sizes loses its best, got %s of %s" % (
              f["sizes_losing"], f["sizes"]))
    lost = [r for r in s["sizes"] if r["lost"]]
    check(len(lost) == 1 and lost[0]["size"] == [64, 64] and
          lost[0]["best_pruned"] == "tile=16 pad=0" and
          abs(lost[0]["best_kept_ms"] - 1.2) < 1e-12,
          "two sizes: size 64 x 64 lost to tile=16 pad=0, got %s" % lost)
    # the bar holds it: a summary with a stricter bar fails --verify
    vdir = os.path.join(tmp, "verify-two")
    os.makedirs(vdir)
    s["bar"]["sizes_losing"] = 0
    json.dump(s, open(os.path.join(vdir, "two.json"), "w"))
    rc, so, se = tool(root, "--verify", vdir)
    check(rc == 1 and "sizes_losing: 1, worse than the bar 0" in so,
          "verify two sizes, bar 0: exit %d: %s" % (rc, so))


def reach_tool(root, *args):
    return script("model_reach.py", root, *args)


def part_reach(root, tmp):
    """scripts/model_reach.py on a hand-made --no-prune run of two sizes,
    noise 1%, two groups of two pads (ms at size 0, size 1; the sum):
      tile 16: pad 0 1.0, 2.0 (3.0); pad 1 1.05, 2.1 (3.15)
      tile 32: pad 0 1.2, 3.0 (4.2); pad 1 2.0, 4.0 (6.0)
    f = (1 + e) / (1 - e) / 1.01.  Tile 16 pad 0 is every size's fastest.
    e <= 2% (f <= 1.0305): tile 32 goes whole, tile 16 pad 1 goes (3.15
    against 3.0 f): 1 of 4 kept.  e = 3% (1.0513) to 8% (1.1623): tile 16
    pad 1 stays: 2 of 4.  e = 12% (1.2600): tile 32 pad 0 is within it of
    the fastest at size 0 (1.2 against 1.26), so tile 32 stays with pad 0
    (pad 1: 6.0 against 4.2 f = 5.29 in the sum, beaten at both sizes): 3
    of 4.  The largest e at <= 40%: 2%."""
    ms = {(16, 0): (1.0, 2.0), (16, 1): (1.05, 2.1), (32, 0): (1.2, 3.0),
          (32, 1): (2.0, 4.0)}
    cs = []
    for i, ((t, p), m) in enumerate(sorted(ms.items())):
        c = cand_sizes(i, t, p, m)
        cs.append(c)
    d = doc(True, cs, 0)
    d["problems"] = [{"size": [64, 64]}, {"size": [128, 128]}]
    rdir = os.path.join(tmp, "reach", "tests", "fixtures", "model-check",
                        "runs-20261201", "toy")
    os.makedirs(rdir)
    with lzma.open(os.path.join(rdir, "noprune-toy-sm_90-20261201T100000Z"
                                ".json.xz"), "wt") as f:
        json.dump(d, f)
    rroot = os.path.join(tmp, "reach")
    md = os.path.join(tmp, "reach.md")
    rc, so, se = reach_tool(root, "--root", rroot, "--markdown", md)
    want = ("| toy | 20261201 | 4 | 1.0% | 25.0% | 25.0% | 25.0% | 50.0% | "
            "50.0% | 50.0% | 75.0% | 2% |")
    check(rc == 0 and want in so.splitlines(),
          "reach: exit %d, want %s, got %s%s" % (rc, want, so, se))
    rc, so, se = reach_tool(root, "--root", rroot, "--check", md)
    check(rc == 0, "reach --check, the same table: exit %d %s" % (rc, se))
    with open(md, "a") as f:
        f.write("| stale | row |\n")
    rc, so, se = reach_tool(root, "--root", rroot, "--check", md)
    check(rc == 1 and "differs" in se, "reach --check, a stale table: exit "
          "%d %s" % (rc, se))
    rc, so, se = reach_tool(root, "--root", rroot, "nosuch")
    check(rc == 2 and "nosuch" in se, "reach, no runs of a config: exit %d"
          % rc)


def part_committed(root):
    d = os.path.join(root, "tests", "fixtures", "model-check")
    rc, so, se = tool(root, "--verify", d)
    sys.stdout.write(so + se)
    check(rc == 0, "the committed summaries: exit %d" % rc)
    # the reach table of the committed --no-prune runs is up to date
    rc, so, se = reach_tool(root, "--check", os.path.join(d, "reach.md"))
    sys.stdout.write(se)
    check(rc == 0, "tests/fixtures/model-check/reach.md: exit %d" % rc)


def main():
    if len(sys.argv) >= 3 and sys.argv[1] == "committed":
        part_committed(sys.argv[2])
    elif len(sys.argv) >= 4 and sys.argv[1] == "self":
        part_self(sys.argv[2], sys.argv[3])
        part_sizes(sys.argv[2], sys.argv[3])
        part_reach(sys.argv[2], sys.argv[3])
    else:
        print(__doc__)
        return 2
    print("%d failures" % failures)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
