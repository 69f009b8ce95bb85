#!/usr/bin/env python3
"""Replays the time model on a committed measured run: predicts every
candidate of its config with the tuner itself (--predict --no-prune, the
given profile, the run's architecture) and compares the "predicted" field
with the measured median_ms: Spearman's rank correlation over the
candidates timed in both, the predicted winner's measured rank and its
time against the measured best, and whether the predicted top 10% holds
the measured best.

  scripts/replay_time_model.py TUNER PROFILE RESULTS.json [CONFIG]

CONFIG defaults to the run's own (run.config)."""
import json, os, subprocess, sys, tempfile


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


def main():
    tuner, profile, measured = sys.argv[1:4]
    run = json.load(open(measured))
    config = sys.argv[4] if len(sys.argv) > 4 else run["run"]["config"]
    arch = run["device"]["arch"]
    with tempfile.TemporaryDirectory() as out:
        subprocess.run([tuner, "--config", config, "--predict", "--arch",
                        arch, "--no-prune", "--profile", profile, "-o", out,
                        "-q", "-j", "2"], check=True,
                       stdout=subprocess.DEVNULL)
        name = [f for f in os.listdir(out) if f.endswith(".json")][0]
        pred = json.load(open(os.path.join(out, name)))
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
    }, indent=1))


if __name__ == "__main__":
    main()
