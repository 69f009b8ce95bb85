#!/usr/bin/env python3
"""replay_measured.py -- the measured rules (tuner/pipeline/measured.h)
replayed on committed --no-prune runs, and judged as scripts/model_check.py
judges a pruned run.

For each config and each day under tests/fixtures/model-check/runs-*/, the
replay (tests/replay_measured, the tuner's own pruning, order and rules)
decides with one day's timings; the figures are model_check.py's, judged
against the same day's run and against the other day's (a real pruned run
measures anew, and its times differ by the day's noise).  The prediction
figures are model_check.py's too, of the replay's --predict winner
(predicted_best) and its predictions: the model of this tree with the
run's registers, judged against each day's times.

Usage: replay_measured.py REPLAY_BIN ROOT TMP [--profile P] [--check]
                          [CONFIG...]
  --profile: the device profile (plain JSON, or xz'ed); default the
           H200's newest under results/devices/
  --check: exit 1 if any group loses its best, or any size does where
           the day that decided judges (the CPU test
           replay_measured_committed)
"""
import glob
import json
import os
import re
import shutil
import subprocess
import sys


def main():
    args = sys.argv[1:]
    check = "--check" in args
    args = [a for a in args if a != "--check"]
    profile = None
    if "--profile" in args:
        i = args.index("--profile")
        profile = args[i + 1]
        del args[i:i + 2]
    if len(args) < 3:
        print(__doc__, file=sys.stderr)
        return 2
    binary, root, tmp = args[:3]
    configs = args[3:]
    sys.path.insert(0, os.path.join(root, "scripts"))
    import model_check
    # the H200's newest profile, as a run on it takes (names end in the
    # date)
    profile = profile or sorted(glob.glob(os.path.join(
        root, "results", "devices", "sm_90-NVIDIA_H200-*.json")))[-1]
    if profile.endswith(".xz"):  # the tests' copy: the tuner reads JSON
        plain = os.path.join(tmp, "profile.json")
        with model_check.open_text(profile) as src, open(plain, "w") as dst:
            shutil.copyfileobj(src, dst)
        profile = plain
    days = sorted(glob.glob(os.path.join(root, model_check.CHECK_DIR,
                                         "runs-*")))
    runs = {}
    for d in days:
        for f in glob.glob(os.path.join(d, "*", "noprune-*.json*")):
            cfg = os.path.basename(os.path.dirname(f))
            runs.setdefault(cfg, {})[os.path.basename(d)] = f
    lost = 0
    print("| config | decided with | judged with | valid | timed | "
          "measured | groups losing | sizes losing | winner against the "
          "best | predicted winner | top 10% holds the best | Spearman |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | "
          "--- | --- |")
    for cfg in sorted(runs):
        if configs and cfg not in configs:
            continue
        judges = {}
        for dec, path in sorted(runs[cfg].items()):
            plain = os.path.join(tmp, "%s-%s.json" % (cfg, dec))
            with model_check.open_text(path) as src, \
                    open(plain, "w") as dst:
                shutil.copyfileobj(src, dst)
            m = re.search(r"-(sm_[0-9]+[a-z]?)-[0-9]{8}T", path)
            out = os.path.join(tmp, "%s-%s-replayed.json" % (cfg, dec))
            p = subprocess.run([binary, os.path.join(root, "configs",
                                                     cfg + ".cfg"),
                                m.group(1), profile, plain, out],
                               stdout=subprocess.PIPE,
                               stderr=subprocess.STDOUT,
                               universal_newlines=True)
            if p.returncode != 0:
                print("%s %s: replay failed: %s" % (cfg, dec, p.stdout))
                return 1
            pr = model_check.load_json(out)
            lp = pr.get("layout_params") or []
            # the replay's prediction, as a --predict results file
            pd = dict(pr, best=pr.get("predicted_best"))
            pd_path = os.path.join(tmp, "%s-%s-predict.json" % (cfg, dec))
            with open(pd_path, "w") as f:
                f.write(json.dumps(pd))  # dumps: C-encoded, dump is not
            for judge, jpath in sorted(runs[cfg].items()):
                np_ = judges.get(jpath)
                if np_ is None:  # each day's run read once a config
                    np_ = judges[jpath] = model_check.load_json(jpath)
                fig, rows = model_check.pruning(np_, pr, lp)
                sfig, srows = model_check.sizes(np_, pr)
                q = model_check.prediction(np_, pd_path)
                # a size's best is judged on the day that decided: on
                # another day the best itself moves by more than the noise
                # (gemm-bf16-8192's day-1 best ran 13% behind on day 4),
                # which no rule can foresee; groups on every day, as before
                lost += fig["groups_losing"] + (
                    sfig["sizes_losing"] if judge == dec else 0)
                print("| %s | %s | %s | %d | %d (%.1f%%) | %d | %d | "
                      "%d of %d | %s | %s | %s | %s |" % (
                    cfg, dec[5:], judge[5:], fig["valid"], fig["timed"],
                    100 * fig["timed_fraction"],
                    fig["pruned_by"].get("measured", 0),
                    fig["groups_losing"], sfig["sizes_losing"],
                    sfig["sizes"],
                    "%+.1f%%" % fig["pruned_winner_gap_pct"]
                    if fig["pruned_winner_gap_pct"] is not None else "-",
                    "%+.1f%% (%s of %s)" % (q["predicted_winner_gap_pct"],
                                           q["predicted_winner_rank"],
                                           q["predicted_timed"])
                    if q["predicted_winner_gap_pct"] is not None else "-",
                    {True: "yes", False: "no", None: "-"}[
                        q["top10_holds_best"]],
                    "%.3f" % q["spearman"] if q["spearman"] is not None
                    else "-"))
                for r in rows:
                    if r["lost"]:
                        print("|  | lost: %s | %s | %s |" % (
                            r["group"], r.get("best_pruned"),
                            r.get("reason", "")[:160]))
                for r in srows:
                    if r["lost"]:
                        print("|  | size %s lost: %s | %s against %s |" % (
                            r["size"], r.get("best_pruned"),
                            r.get("best_pruned_ms"), r.get("best_kept_ms")))
    return 1 if check and lost else 0


if __name__ == "__main__":
    sys.exit(main())
