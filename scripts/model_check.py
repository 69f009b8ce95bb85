#!/usr/bin/env python3
"""Does pruning keep every sibling group's best layout, and does the
prediction find the measured winner?  (issue 16, part 5)

Usage:
  model_check.py --no-prune NP.json --pruned PR.json [--predict P.json|P.h]
                 [--layout-params a,b,...] [--any-day]
                 [--markdown OUT.md] [--json OUT.json] [--raise-bar]
  model_check.py --verify DIR

The first form compares two runs of one config made the same day: a
--no-prune run (every valid candidate timed) and a pruned one.  It prints a
markdown table (also to --markdown) and writes a JSON summary (--json) with
the figures and the bar they must not fall below.  When --json names an
existing summary of the same config, its bar is kept (--raise-bar: the
better of the old bar and the new figures); the exit status is 1 when a
figure is worse than the bar.

--verify recomputes every summary in DIR (*.json) from the inputs it names
(paths relative to the repository root) and exits 1 if a figure is worse
than the summary's bar or differs from the figure the summary records.

Pruning.  Siblings share the values of every parameter that is not a layout
parameter (the results' layout_params, or --layout-params for files written
before it).  A group is touched when the pruned run pruned one of its
layouts (pruned_by other than family, constraint or limits); it loses when
its best pruned layout beats its best kept layout beyond noise, both timed
in the --no-prune run (NOISE_RULE).  A size loses when the fastest there
of the pruned candidates beats the fastest there of the kept ones beyond
noise (SIZE_RULE): a job of many sizes ships each size's winner, and a
group's sum of medians can keep its best while a size loses its own.  The
timed fraction is the pruned run's
timed candidates over its valid space (not pruned by family, constraint or
limits).

Prediction.  The predicted winner is --predict's (a --predict results file's
best, or a header's "Parameters:" line), else the candidate of least
predicted.ms in the --no-prune file.  Its measured rank and its time against
the measured best are from the --no-prune run; the top 10% and Spearman's
rank correlation need predicted.ms on the candidates (of the --predict
file, else of the --no-prune file), otherwise they are n/a.

Exit status: 0 done; 1 a figure worse than the bar (or, --verify, changed);
2 bad input, found before anything is written.
"""
import argparse
import gzip
import json
import lzma
import math
import os
import re
import sys

from model_check_table import fmt, markdown

SCHEMA = "tuner-model-check-1"
SPACE_KINDS = ("family", "constraint", "limits")  # invalid, not pruned
SIZE_RULE = ("at each size, the --no-prune run's fastest there of the "
             "candidates the pruned run pruned (P) against its fastest "
             "there of those the pruned run timed (K): the size loses when "
             "P beats K beyond noise, n = max(best.noise, the relative "
             "interquartile ranges of P and K at that size)")
NOISE_RULE = ("P beats K beyond noise when median(P) * (1 + n) < "
              "median(K), n = max(the --no-prune run's selection noise "
              "best.noise (at least the config's bench.min_noise), the "
              "relative interquartile range (q3 - q1) / median of P and of "
              "K at any problem); medians are sums over the problems")
TOP_RULE = ("the ceil(10%) timed candidates of least "
            "predicted.ms; it holds the best when one of them is within the "
            "--no-prune run's selection noise of the measured fastest")
# the bar: each figure, and whether less is better
BAR = (("groups_losing", True), ("sizes_losing", True),
       ("timed_fraction", True),
       ("predicted_winner_gap_pct", True), ("top10_holds_best", False),
       ("spearman", False))
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


class BadInput(Exception):
    pass


# the committed runs and summaries (tests/fixtures/: the tests read them)
CHECK_DIR = os.path.join("tests", "fixtures", "model-check")


def open_text(path):
    """A text file, plain or compressed by its name: *.xz (the committed
    runs) or *.gz (as the GPU machine's runs come)."""
    if path.endswith(".xz"):
        return lzma.open(path, "rt")
    if path.endswith(".gz"):
        return gzip.open(path, "rt")
    return open(path)


def load_json(path):
    """A JSON file, plain, xz'ed or gzipped (open_text)."""
    try:
        with open_text(path) as f:
            return json.load(f)
    except (OSError, EOFError, lzma.LZMAError) as e:  # a bad or cut file
        raise BadInput("%s: cannot read: %s" % (path,
                                                getattr(e, "strerror",
                                                        None) or e))
    except ValueError as e:
        raise BadInput("%s: not JSON: %s" % (path, e))


def load_results(path, want_no_prune):
    d = load_json(path)
    if not isinstance(d, dict) or not isinstance(d.get("candidates"), list) \
            or not isinstance(d.get("run"), dict):
        raise BadInput("%s: not a results file (no run, no candidates[])"
                       % path)
    run = d["run"]
    if want_no_prune is not None and bool(run.get("no_prune")) != \
            want_no_prune:
        raise BadInput("%s: run.no_prune is %s: expected a %s run" % (
            path, json.dumps(run.get("no_prune")),
            "--no-prune" if want_no_prune else "pruned"))
    if run.get("interrupted"):
        raise BadInput("%s: run.interrupted: the run is incomplete "
                       "(continue it with tuner --resume)" % path)
    seen = set()
    for i, c in enumerate(d["candidates"]):
        if not isinstance(c, dict) or not isinstance(c.get("params_text"),
                                                     str) \
                or not isinstance(c.get("params"), dict) \
                or not isinstance(c.get("status"), str):
            raise BadInput("%s: candidates[%d]: params, params_text and "
                           "status expected" % (path, i))
        if c["params_text"] in seen:
            raise BadInput("%s: candidates[%d]: params_text \"%s\" twice"
                           % (path, i, c["params_text"]))
        seen.add(c["params_text"])
        if c["status"] == "ok" and not positive(c.get("median_ms")):
            raise BadInput("%s: candidates[%d]: ok without a median_ms > 0"
                           % (path, i))
    return d


def positive(x):
    return isinstance(x, (int, float)) and not isinstance(x, bool) and x > 0


def config_key(d):
    return os.path.splitext(os.path.basename(d["run"].get("config", "")))[0]


def check_pair(np_path, np_, pr_path, pr, any_day):
    for what, get in (("family", lambda d: d.get("family")),
                      ("run.config", config_key),
                      ("device.name",
                       lambda d: (d.get("device") or {}).get("name"))):
        if get(np_) != get(pr):
            raise BadInput("%s: %s %s, but %s has %s: two runs of one "
                           "config on one device expected" % (
                               pr_path, what, json.dumps(get(pr)), np_path,
                               json.dumps(get(np_))))
    days = [str(d["run"].get("started", ""))[:10] for d in (np_, pr)]
    if days[0] != days[1] and not any_day:
        raise BadInput("%s: run.started %s, but %s was started %s: runs of "
                       "the same day expected (--any-day to compare them "
                       "anyway)" % (pr_path, days[1], np_path, days[0]))


def layout_params(np_path, np_, pr_path, pr, option):
    found = [(p, d["layout_params"]) for p, d in ((np_path, np_),
                                                  (pr_path, pr))
             if "layout_params" in d]
    for p, lp in found:
        if not isinstance(lp, list) or \
                not all(isinstance(x, str) for x in lp):
            raise BadInput("%s: layout_params: a list of names expected" % p)
    if len(found) == 2 and found[0][1] != found[1][1]:
        raise BadInput("%s: layout_params %s, but %s has %s" % (
            found[1][0], found[1][1], found[0][0], found[0][1]))
    if option is not None:
        lp = [x for x in option.split(",") if x]
        if found and found[0][1] != lp:
            raise BadInput("--layout-params %s, but %s says %s" % (
                ",".join(lp), found[0][0], found[0][1]))
        where = "--layout-params"
    elif found:
        lp, where = found[0][1], "results"
    else:
        raise BadInput("%s: no layout_params (a file of before them): name "
                       "the family's layout parameters with --layout-params"
                       % pr_path)
    names = set(pr["candidates"][0]["params"]) if pr["candidates"] else set()
    for x in lp:
        if x not in names:
            raise BadInput("layout parameter \"%s\": not a parameter of %s "
                           "(%s)" % (x, pr_path, ", ".join(sorted(names))))
    if not lp:
        raise BadInput("--layout-params: no parameter named")
    return lp, where


def ms_at(c, k):
    """c's median at size k (its timings[k], or median_ms for a run of
    one size), or None."""
    ts = c.get("timings")
    if isinstance(ts, list) and k < len(ts) and isinstance(ts[k], dict) \
            and positive(ts[k].get("median_ms")):
        return ts[k]["median_ms"]
    return c.get("median_ms") if k == 0 and positive(c.get("median_ms")) \
        and not ts else None


def rel_iqr_at(c, k):
    ts = c.get("timings")
    if isinstance(ts, list) and k < len(ts) and isinstance(ts[k], dict):
        t = ts[k]
        if positive(t.get("median_ms")) and "q1_ms" in t and "q3_ms" in t:
            return (t["q3_ms"] - t["q1_ms"]) / t["median_ms"]
    return 0.0


def rel_iqr(c):
    """The largest relative interquartile range of c over the sizes."""
    return max([0.0] + [rel_iqr_at(c, k)
                        for k in range(len(c.get("timings") or []))])


def sizes(np_, pr):
    """Each size's best kept (SIZE_RULE): the figures and a row a size."""
    meas = {c["params_text"]: c for c in np_["candidates"]}
    best_np = np_.get("best") or {}
    sel_noise = best_np.get("noise") if positive(best_np.get("noise")) \
        else 0.0
    kept = [meas[c["params_text"]] for c in pr["candidates"]
            if timed(c) and timed(meas.get(c["params_text"]))]
    pruned = [meas[c["params_text"]] for c in pr["candidates"]
              if valid(c) and pruned_by_pruning(c) and
              timed(meas.get(c["params_text"]))]
    probs = np_.get("problems") if isinstance(np_.get("problems"),
                                              list) else []
    rows = []
    for k in range(max(1, len(probs))):
        size = probs[k].get("size") if k < len(probs) and \
            isinstance(probs[k], dict) else None
        row = {"problem": k, "size": size}
        kt = [c for c in kept if ms_at(c, k) is not None]
        pt = [c for c in pruned if ms_at(c, k) is not None]
        if not pt or not kt:
            row.update(lost=bool(pt) and not kt,
                       why="nothing pruned timed there" if not pt
                       else "nothing kept timed there")
            rows.append(row)
            continue
        bp = min(pt, key=lambda c: ms_at(c, k))
        bk = min(kt, key=lambda c: ms_at(c, k))
        n = max(sel_noise, rel_iqr_at(bp, k), rel_iqr_at(bk, k))
        row.update(best_pruned=bp["params_text"], best_pruned_ms=ms_at(bp, k),
                   best_kept=bk["params_text"], best_kept_ms=ms_at(bk, k),
                   faster_pct=100.0 * (ms_at(bk, k) / ms_at(bp, k) - 1),
                   noise=n, lost=ms_at(bp, k) * (1 + n) < ms_at(bk, k))
        rows.append(row)
    return {"sizes": len(rows),
            "sizes_losing": sum(1 for r in rows if r["lost"])}, rows


def timed(c):
    return c is not None and c["status"] == "ok" and positive(
        c.get("median_ms"))


def valid(c):
    return not (c["status"] == "pruned" and c.get("pruned_by") in
                SPACE_KINDS)


def pruned_by_pruning(c):
    return c["status"] == "pruned" and c.get("pruned_by") not in SPACE_KINDS


def pruning(np_, pr, lp):
    """The pruning's figures and its touched groups, one row each."""
    meas = {c["params_text"]: c for c in np_["candidates"]}
    best_np = np_.get("best") or {}
    sel_noise = best_np.get("noise") if positive(best_np.get("noise")) \
        else 0.0
    groups = {}
    kinds = {}
    for c in pr["candidates"]:
        if not valid(c):
            continue
        if pruned_by_pruning(c):
            kinds[c.get("pruned_by")] = kinds.get(c.get("pruned_by"), 0) + 1
        key = tuple((k, json.dumps(v)) for k, v in c["params"].items()
                    if k not in lp)
        groups.setdefault(key, []).append(c)
    win = (pr.get("best") or {})
    wt = pr_text(pr, win)
    wc = meas.get(wt) if wt else None
    rows = []
    unmeasured = 0
    for key, g in groups.items():
        pruned = [c for c in g if pruned_by_pruning(c)]
        if not pruned:
            continue
        kept = [c for c in g if not pruned_by_pruning(c)]
        pt = [meas[c["params_text"]] for c in pruned
              if timed(meas.get(c["params_text"]))]
        kt = [meas[c["params_text"]] for c in kept
              if timed(meas.get(c["params_text"]))]
        unmeasured += len(pruned) - len(pt)
        row = {"group": " ".join("%s=%s" % (k, json.loads(v))
                                 for k, v in key),
               "pruned": len(pruned), "kept": len(kept)}
        if not pt:
            row.update(lost=False, why="no pruned layout timed in the "
                       "--no-prune run")
            rows.append(row)
            continue
        bp = min(pt, key=lambda c: c["median_ms"])
        row.update(best_pruned=layout_text(bp, lp),
                   best_pruned_ms=bp["median_ms"],
                   reason=pruned_reason(pruned, bp))
        if not kt and not timed(wc):
            row.update(lost=True, why="no kept layout timed")
            rows.append(row)
            continue
        # a whole group pruned (the time model prunes across groups too)
        # has lost its best only if that beats what the pruned run chose
        bk = min(kt, key=lambda c: c["median_ms"]) if kt else wc
        if not kt:
            row.update(why="the whole group pruned: its best against the "
                       "pruned run's winner")
        n = max(sel_noise, rel_iqr(bp), rel_iqr(bk))
        row.update(best_kept=layout_text(bk, lp) if kt else
                   "the pruned run's winner", best_kept_ms=bk["median_ms"],
                   faster_pct=100.0 * (bk["median_ms"] / bp["median_ms"] - 1),
                   noise=n, lost=bp["median_ms"] * (1 + n) < bk["median_ms"])
        rows.append(row)
    rows.sort(key=lambda r: -r.get("faster_pct", -1e9))
    n_valid = sum(1 for c in pr["candidates"] if valid(c))
    n_timed = sum(1 for c in pr["candidates"] if timed(c))
    np_valid = set(c["params_text"] for c in np_["candidates"] if valid(c))
    pr_valid = set(c["params_text"] for c in pr["candidates"] if valid(c))
    fig = {
        "groups": len(groups),
        "groups_touched": len(rows),
        "groups_losing": sum(1 for r in rows if r["lost"]),
        "groups_losing_1pct": sum(1 for r in rows
                                  if r.get("faster_pct", -1) > 1.0 or
                                  (r["lost"] and "faster_pct" not in r)),
        "pruned_unmeasured": unmeasured,
        "pruned_by": kinds,
        "valid": n_valid,
        "timed": n_timed,
        "timed_fraction": n_timed / n_valid if n_valid else None,
        "valid_only_in_pruned_run": len(pr_valid - np_valid),
        "valid_only_in_no_prune_run": len(np_valid - pr_valid),
        "noprune_timed": sum(1 for c in np_["candidates"] if timed(c)),
        "selection_noise": sel_noise,
    }
    fastest = min((c["median_ms"] for c in np_["candidates"] if timed(c)),
                  default=None)
    fig["pruned_winner"] = wt
    fig["pruned_winner_gap_pct"] = (
        100.0 * (wc["median_ms"] / fastest - 1)
        if timed(wc) and fastest else None)
    return fig, rows


def layout_text(c, lp):
    return " ".join("%s=%s" % (k, c["params"][k]) for k in lp
                    if k in c["params"])


def pruned_reason(pruned, bp):
    for c in pruned:
        if c["params_text"] == bp["params_text"]:
            return c.get("reason", "")
    return ""


def pr_text(doc, best):
    """The params_text of a results file's best (by id, else its text)."""
    if not isinstance(best, dict):
        return None
    if isinstance(best.get("params_text"), str):
        return best["params_text"]
    for c in doc["candidates"]:
        if c.get("id") == best.get("id"):
            return c["params_text"]
    return None


def predicted_ms(c):
    p = c.get("predicted")
    if isinstance(p, dict) and positive(p.get("ms")):
        return p["ms"]
    return None


def read_predict(path, np_):
    """(source text, the predicted winner's params_text, {text: ms} or
    None) from a --predict results file or header."""
    if path.endswith(".h"):
        try:
            with open(path) as f:
                text = f.read()
        except OSError as e:
            raise BadInput("%s: cannot read: %s" % (path, e.strerror))
        m = re.search(r"^\s*\*\s*Parameters:\s*(.+?)\s*$", text, re.M)
        if m is None:
            raise BadInput("%s: no \" * Parameters: ...\" line: not a "
                           "header the tuner wrote" % path)
        return m.group(1), None
    d = load_results(path, None)
    if d.get("family") != np_.get("family"):
        raise BadInput("%s: family %s, but the --no-prune run's is %s" % (
            path, json.dumps(d.get("family")), json.dumps(np_.get("family"))))
    # a run on the device names its compute capability (sm_90); --predict
    # names its target, which may be the feature set (sm_90a)
    arch = lambda x: re.sub(r"(sm_[0-9]+)[a-z]$", r"\1",
                            str((x.get("device") or {}).get("arch")))
    if arch(d) != arch(np_):
        raise BadInput("%s: device.arch %s, but the --no-prune run's is %s"
                       % (path, json.dumps(arch(d)), json.dumps(arch(np_))))
    win = pr_text(d, d.get("best"))
    if win is None:
        raise BadInput("%s: best: no predicted winner" % path)
    ms = {c["params_text"]: predicted_ms(c) for c in d["candidates"]
          if predicted_ms(c) is not None}
    return win, ms or None


def ranks(xs):
    """Ranks from 1, ties given their mean rank."""
    order = sorted(range(len(xs)), key=lambda i: xs[i])
    r = [0.0] * len(xs)
    i = 0
    while i < len(order):
        j = i
        while j + 1 < len(order) and xs[order[j + 1]] == xs[order[i]]:
            j += 1
        for k in range(i, j + 1):
            r[order[k]] = (i + j) / 2.0 + 1
        i = j + 1
    return r


def spearman(a, b):
    ra, rb = ranks(a), ranks(b)
    n = len(a)
    ma, mb = sum(ra) / n, sum(rb) / n
    cov = sum((x - ma) * (y - mb) for x, y in zip(ra, rb))
    va = sum((x - ma) ** 2 for x in ra)
    vb = sum((y - mb) ** 2 for y in rb)
    return cov / math.sqrt(va * vb) if va > 0 and vb > 0 else None


def prediction(np_, predict_path):
    fig = {"source": None, "predicted_winner": None,
           "predicted_winner_status": None, "predicted_winner_rank": None,
           "predicted_timed": None, "predicted_winner_gap_pct": None,
           "top10_k": None, "top10_holds_best": None, "spearman": None,
           "ranked_by": None}
    tm = [c for c in np_["candidates"] if timed(c)]
    if not tm:
        return fig
    fastest = min(c["median_ms"] for c in tm)
    noise = (np_.get("best") or {}).get("noise") or 0.0
    own = {c["params_text"]: predicted_ms(c) for c in np_["candidates"]
           if valid(c) and predicted_ms(c) is not None}
    win, ms = None, None
    if predict_path is not None:
        win, ms = read_predict(predict_path, np_)
        fig["source"] = rel(predict_path)
    if ms is None and own:
        ms = own
        fig["ranked_by"] = "the --no-prune run's predicted.ms"
    elif ms is not None:
        fig["ranked_by"] = "%s's predicted.ms" % rel(predict_path)
    if win is None and own:
        win = min(own, key=lambda t: own[t])
        fig["source"] = "the --no-prune run's predicted.ms"
    if win is None:
        return fig
    meas = {c["params_text"]: c for c in np_["candidates"]}
    fig["predicted_winner"] = win
    wc = meas.get(win)
    fig["predicted_winner_status"] = wc["status"] if wc else "not in the " \
        "--no-prune run"
    fig["predicted_timed"] = len(tm)
    if timed(wc):
        fig["predicted_winner_rank"] = 1 + sum(
            1 for c in tm if c["median_ms"] < wc["median_ms"])
        fig["predicted_winner_gap_pct"] = 100.0 * (wc["median_ms"] / fastest
                                                   - 1)
    if ms is None:
        return fig
    both = [c for c in tm if c["params_text"] in ms]
    if len(both) < 2:
        return fig
    k = int(math.ceil(0.1 * len(both)))
    top = sorted(both, key=lambda c: ms[c["params_text"]])[:k]
    fig["top10_k"] = k
    fig["top10_holds_best"] = any(c["median_ms"] <= fastest * (1 + noise)
                                  for c in top)
    fig["spearman"] = spearman([ms[c["params_text"]] for c in both],
                               [c["median_ms"] for c in both])
    return fig


def rel(path):
    a = os.path.abspath(path)
    return os.path.relpath(a, ROOT) if a.startswith(ROOT + os.sep) else a


def compute(np_path, pr_path, predict_path, lp_option, any_day):
    np_ = load_results(np_path, True)
    pr = load_results(pr_path, False)
    check_pair(np_path, np_, pr_path, pr, any_day)
    lp, lp_from = layout_params(np_path, np_, pr_path, pr, lp_option)
    pfig, rows = pruning(np_, pr, lp)
    sfig, srows = sizes(np_, pr)
    qfig = prediction(np_, predict_path)
    figures = dict(pfig)
    figures.update(sfig)
    figures.update(qfig)
    return {
        "schema": SCHEMA,
        "key": config_key(pr),
        "config": pr["run"].get("config"),
        "family": pr.get("family"),
        "name": pr.get("name"),
        "device": (pr.get("device") or {}).get("name"),
        "arch": (pr.get("device") or {}).get("arch"),
        "day": str(pr["run"].get("started", ""))[:10],
        "inputs": {"no_prune": rel(np_path), "pruned": rel(pr_path),
                   "predict": rel(predict_path) if predict_path else None,
                   "any_day": bool(any_day)},
        "layout_params": lp,
        "layout_params_from": lp_from,
        "rules": {"noise": NOISE_RULE, "sizes": SIZE_RULE,
                  "top10": TOP_RULE,
                  "timed": "status ok in the pruned run, over its candidates "
                           "not pruned by " + ", ".join(SPACE_KINDS)},
        "figures": figures,
        "groups": rows,
        "sizes": srows,
    }


def worse(name, less_better, fig, bar):
    """A message if fig is worse than bar, else None."""
    if bar is None:
        return None
    if fig is None:
        return "%s: n/a, the bar is %s" % (name, fmt(bar))
    if isinstance(bar, bool):
        bad = bar and not fig
    else:
        eps = 1e-9 * max(1.0, abs(bar))
        bad = fig > bar + eps if less_better else fig < bar - eps
    return "%s: %s, worse than the bar %s" % (name, fmt(fig), fmt(bar)) \
        if bad else None


def better(less_better, a, b):
    if a is None or b is None:
        return a if b is None else b
    if isinstance(a, bool):
        return a or b
    return min(a, b) if less_better else max(a, b)


def bar_of(s, old, raise_bar):
    fig = s["figures"]
    if old is None:
        return {k: fig.get(k) for k, _ in BAR}
    if not raise_bar:
        # a figure added after the old bar was set gets today's
        return {k: old.get(k) if k in old else fig.get(k) for k, _ in BAR}
    return {k: better(lb, old.get(k), fig.get(k)) for k, lb in BAR}


def problems(s):
    return [m for m in (worse(k, lb, s["figures"].get(k), s["bar"].get(k))
                        for k, lb in BAR) if m]


def write(path, text):
    d = os.path.dirname(path)
    if d:
        os.makedirs(d, exist_ok=True)
    tmp = path + ".tmp"
    with open(tmp, "w") as f:
        f.write(text)
    os.replace(tmp, path)


def close(a, b):
    if isinstance(a, float) or isinstance(b, float):
        return a is not None and b is not None and \
            abs(a - b) <= 1e-6 * max(1.0, abs(b))
    return a == b


def verify(folder):
    try:
        names = sorted(n for n in os.listdir(folder) if n.endswith(".json"))
    except OSError as e:
        raise BadInput("%s: cannot list: %s" % (folder, e.strerror))
    summaries = []
    for n in names:
        p = os.path.join(folder, n)
        s = load_json(p)
        if not isinstance(s, dict) or s.get("schema") != SCHEMA:
            raise BadInput("%s: schema: \"%s\" expected" % (p, SCHEMA))
        for k in ("inputs", "figures", "bar"):
            if not isinstance(s.get(k), dict):
                raise BadInput("%s: %s: an object expected" % (p, k))
        summaries.append((p, s))
    if not summaries:
        raise BadInput("%s: no summary (*.json) to verify" % folder)
    jobs = []
    for p, s in summaries:
        i = s["inputs"]
        path = lambda x: None if x is None else os.path.join(ROOT, x)
        lp = ",".join(s.get("layout_params") or []) \
            if s.get("layout_params_from") == "--layout-params" else None
        try:
            new = compute(path(i.get("no_prune")), path(i.get("pruned")),
                          path(i.get("predict")), lp, i.get("any_day"))
        except BadInput as e:
            raise BadInput("%s: its inputs: %s" % (p, e))
        jobs.append((p, s, new))
    failed = 0
    for p, s, new in jobs:
        new["bar"] = s["bar"]
        msgs = problems(new)
        for k in [k for k, _ in BAR] + ["groups_touched", "valid", "timed"]:
            if not close(new["figures"].get(k), s["figures"].get(k)):
                msgs.append("%s: recomputed %s, the summary says %s" % (
                    k, fmt(new["figures"].get(k)),
                    fmt(s["figures"].get(k))))
        print("%s: %s" % (p, "; ".join(msgs) if msgs else "ok (" + ", ".join(
            "%s %s" % (k, fmt(new["figures"].get(k))) for k, _ in BAR) +
            ")"))
        failed += bool(msgs)
    return 1 if failed else 0


def main():
    ap = argparse.ArgumentParser(
        description=__doc__.split("\n")[0],
        formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--no-prune", dest="no_prune")
    ap.add_argument("--pruned")
    ap.add_argument("--predict")
    ap.add_argument("--layout-params")
    ap.add_argument("--any-day", action="store_true")
    ap.add_argument("--markdown")
    ap.add_argument("--json")
    ap.add_argument("--raise-bar", action="store_true")
    ap.add_argument("--verify", metavar="DIR")
    a = ap.parse_args()
    try:
        if a.verify:
            if a.no_prune or a.pruned:
                raise BadInput("--verify takes no runs: it reads them from "
                               "the summaries")
            return verify(a.verify)
        if not a.no_prune or not a.pruned:
            raise BadInput("--no-prune FILE and --pruned FILE are needed "
                           "(or --verify DIR)")
        s = compute(a.no_prune, a.pruned, a.predict, a.layout_params,
                    a.any_day)
        old = None
        if a.json and os.path.exists(a.json):
            o = load_json(a.json)
            if not isinstance(o, dict) or o.get("schema") != SCHEMA or \
                    o.get("key") != s["key"]:
                raise BadInput("%s: exists and is not a summary of %s: "
                               "not replaced" % (a.json, s["key"]))
            old = o.get("bar")
    except BadInput as e:
        print("model_check.py: %s" % e, file=sys.stderr)
        return 2
    s["bar"] = bar_of(s, old, a.raise_bar)
    text = markdown(s, [k for k, _ in BAR])
    print(text)
    if a.markdown:
        write(a.markdown, text)
    if a.json:
        write(a.json, json.dumps(s, indent=1) + "\n")
    msgs = problems(s)
    for m in msgs:
        print("model_check.py: %s" % m, file=sys.stderr)
    return 1 if msgs else 0


if __name__ == "__main__":
    sys.exit(main())
