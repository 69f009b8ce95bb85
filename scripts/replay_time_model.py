#!/usr/bin/env python3
"""Replays the time model on a committed measured run: predicts every
candidate of its config with the tuner itself (--predict --no-prune, the
given profile, the run's architecture) and compares the "predicted" field
with the measured median_ms: Spearman's rank correlation over the
candidates timed in both, the predicted winner's measured rank and its
time against the measured best, and whether the predicted top 10% holds
the measured best.  Then the pruning: the same prediction with pruning,
the share of the measured valid space it keeps, and every sibling group
(same non-layout parameters) whose measured best was pruned while no kept
layout is within 1% of it.

  scripts/replay_time_model.py TUNER PROFILE RESULTS.json [CONFIG]

CONFIG defaults to the run's own (run.config)."""
import json, os, re, subprocess, sys, tempfile


def ranks(v):
    order = sorted(range(len(v)), key=lambda i: v[i])
    r = [0.0] * len(v)
    i = 0
    while i < len(order):
        j = i
        while j + 1 < len(order) and v[order[j + 1]] == v[order[i]]:
            j += 1
        for k in range(i, j + 1):
            r[order[k]] = (i + j) / 2.0 + 1
        i = j + 1
    return r


def spearman(x, y):
    rx, ry = ranks(x), ranks(y)
    n = len(x)
    mx, my = sum(rx) / n, sum(ry) / n
    sxy = sum((a - mx) * (b - my) for a, b in zip(rx, ry))
    sxx = sum((a - mx) ** 2 for a in rx)
    syy = sum((b - my) ** 2 for b in ry)
    return sxy / (sxx * syy) ** 0.5 if sxx and syy else float("nan")


def predict(tuner, config, arch, profile, no_prune):
    with tempfile.TemporaryDirectory() as out:
        subprocess.run([tuner, "--config", config, "--predict", "--arch",
                        arch, "--profile", profile, "-o", out, "-q", "-j",
                        "2"] + (["--no-prune"] if no_prune else []),
                       check=True, stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL)
        name = [f for f in os.listdir(out) if f.endswith(".json")][0]
        return json.load(open(os.path.join(out, name)))


def layout_keys(doc):
    """The names of the layout parameters: those that differ between the
    candidates the results call siblings is not recorded, so the rule of
    the families is used: pad*, swizzle*."""
    names = list(doc["candidates"][0]["params"].keys())
    return [n for n in names if n.startswith("pad") or
            n.startswith("swizzle")]


def pruning(run, pruned):
    status = {c["params_text"]: c["status"] for c in pruned["candidates"]}
    lay = layout_keys(run)
    groups = {}
    for c in run["candidates"]:
        if c["status"] != "ok":
            continue
        key = tuple((k, v) for k, v in c["params"].items() if k not in lay)
        groups.setdefault(key, []).append(c)
    kept = sum(1 for c in run["candidates"] if c["status"] == "ok" and
               status.get(c["params_text"]) == "compiled")
    valid = sum(1 for c in run["candidates"] if c["status"] == "ok")
    lost = []
    for g in groups.values():
        best = min(c["median_ms"] for c in g)
        k = [c["median_ms"] for c in g
             if status.get(c["params_text"]) == "compiled"]
        if k and min(k) > best * 1.01:
            lost.append(round(100 * (min(k) / best - 1), 2))
    allbest = min(c["median_ms"] for g in groups.values() for c in g)
    keptbest = min([c["median_ms"] for g in groups.values() for c in g
                    if status.get(c["params_text"]) == "compiled"] or [0])
    return {"kept": kept, "valid": valid,
            "kept_best_slower_than_best_pct":
                round(100 * (keptbest / allbest - 1), 2),
            "timed_pct": round(100.0 * kept / valid, 1),
            "groups": len(groups),
            "groups_all_pruned": sum(
                1 for g in groups.values()
                if all(status.get(c["params_text"]) != "compiled"
                       for c in g)),
            "groups_losing_best_pct": lost}


def main():
    tuner, profile, measured = sys.argv[1:4]
    run = json.load(open(measured))
    config = sys.argv[4] if len(sys.argv) > 4 else run["run"]["config"]
    # the run's target, which its file name carries (sm_90a for a family
    # that needs the feature set; the device says sm_90)
    m = re.search(r"-(sm_[0-9]+[a-z]?)-[0-9]{8}T", os.path.basename(measured))
    arch = m.group(1) if m else run["device"]["arch"]
    pred = predict(tuner, config, arch, profile, True)
    pruned = predict(tuner, config, arch, profile, False)
    by_params = {c["params_text"]: c for c in pred["candidates"]
                 if "predicted" in c}
    pairs = []
    for c in run["candidates"]:
        p = by_params.get(c["params_text"])
        if c["status"] == "ok" and p is not None:
            pairs.append((p["predicted"]["ms"], c["median_ms"],
                          c["params_text"]))
    if not pairs:
        sys.exit("no candidate both measured and predicted")
    pm = [a for a, _, _ in pairs]
    mm = [b for _, b, _ in pairs]
    best = min(mm)
    win = min(range(len(pairs)), key=lambda i: pm[i])
    mrank = sorted(mm).index(mm[win]) + 1
    top = sorted(range(len(pairs)), key=lambda i: pm[i])
    top = top[:max(1, len(pairs) // 10)]
    print(json.dumps({
        "results": measured, "profile": profile, "timed": len(pairs),
        "spearman": round(spearman(pm, mm), 3),
        "predicted_winner": pairs[win][2],
        "winner_measured_rank": mrank,
        "winner_slower_than_best_pct": round(100 * (mm[win] / best - 1), 2),
        "top10pct_holds_best": any(mm[i] == best for i in top),
        "top10pct_best_slower_pct":
            round(100 * (min(mm[i] for i in top) / best - 1), 2),
        "pruning": pruning(run, pruned),
    }, indent=1))


if __name__ == "__main__":
    main()
