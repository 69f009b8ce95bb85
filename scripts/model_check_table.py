"""model_check_table.py -- scripts/model_check.py's summary as markdown:
the pruning table, the groups that pruning touched, the prediction and the
bar (tests/fixtures/model-check/<config>.md)."""


def fmt(x, digits=3):
    if x is None:
        return "n/a"
    if isinstance(x, bool):
        return "yes" if x else "no"
    if isinstance(x, float):
        return "%.*f" % (digits, x)
    return str(x)


def pct(x):
    return "n/a" if x is None else "%+.1f%%" % x


def markdown(s, bar_keys):
    """The summary s as the markdown of <config>.md, its bar in bar_keys'
    order."""
    f = s["figures"]
    out = ["## %s (%s) on %s, %s" % (s["key"], s["config"], s["device"],
                                      s["day"]), ""]
    out.append("Runs: `%s` (--no-prune), `%s` (pruned)%s.  Layout "
               "parameters: %s (from %s)." % (
                   s["inputs"]["no_prune"], s["inputs"]["pruned"],
                   ", prediction `%s`" % s["inputs"]["predict"]
                   if s["inputs"]["predict"] else "",
                   ", ".join(s["layout_params"]), s["layout_params_from"]))
    out += ["", "### Pruning", "",
            "| valid space | timed by the pruned run | pruned | sibling "
            "groups | touched by pruning | losing beyond noise | losing by "
            "> 1% | sizes losing their best | pruned run's winner against "
            "the best |",
            "| --- | --- | --- | --- | --- | --- | --- | --- | --- |"]
    kinds = ", ".join("%s %d" % kv for kv in sorted(f["pruned_by"].items()))
    out.append("| %d | %d (%s) | %s | %d | %d | %d | %d | %d of %d | %s |"
               % (f["valid"], f["timed"],
                  "n/a" if f["timed_fraction"] is None
                  else "%.1f%%" % (100 * f["timed_fraction"]),
                  kinds or "none", f["groups"], f["groups_touched"],
                  f["groups_losing"], f["groups_losing_1pct"],
                  f["sizes_losing"], f["sizes"],
                  pct(f["pruned_winner_gap_pct"])))
    out += ["", "Noise: " + s["rules"]["noise"] + ".  Sizes: " +
            s["rules"]["sizes"] + ".  Timed: " + s["rules"]["timed"] + "."]
    notes = []
    if f["pruned_unmeasured"]:
        notes.append("%d pruned layouts have no time in the --no-prune run"
                     % f["pruned_unmeasured"])
    if f["valid_only_in_pruned_run"] or f["valid_only_in_no_prune_run"]:
        notes.append("the valid spaces differ: %d candidates valid only in "
                     "the pruned run, %d only in the --no-prune run (the "
                     "config changed between them?)" % (
                         f["valid_only_in_pruned_run"],
                         f["valid_only_in_no_prune_run"]))
    if notes:
        out += ["", "Note: " + "; ".join(notes) + "."]
    if s["groups"]:
        out += ["", "| group (its other parameters) | best pruned layout | "
                "ms | best kept layout | ms | pruned faster by | noise | "
                "lost |", "| --- | --- | --- | --- | --- | --- | --- | --- |"]
        for r in s["groups"]:
            out.append("| %s | %s | %s | %s | %s | %s | %s | %s |" % (
                r["group"], r.get("best_pruned", "-"),
                fmt(r.get("best_pruned_ms"), 4), r.get("best_kept", "-"),
                fmt(r.get("best_kept_ms"), 4), pct(r.get("faster_pct")),
                "n/a" if r.get("noise") is None
                else "%.1f%%" % (100 * r["noise"]),
                ("**yes**" if r["lost"] else "no") +
                (" (%s)" % r["why"] if "why" in r else "")))
    if len(s["sizes"]) > 1:
        out += ["", "| size | best pruned there | ms | best kept there | ms "
                "| pruned faster by | noise | lost |",
                "| --- | --- | --- | --- | --- | --- | --- | --- |"]
        for r in s["sizes"]:
            out.append("| %s | %s | %s | %s | %s | %s | %s | %s |" % (
                " x ".join(str(x) for x in r["size"] or []) or r["problem"],
                r.get("best_pruned", "-"), fmt(r.get("best_pruned_ms"), 4),
                r.get("best_kept", "-"), fmt(r.get("best_kept_ms"), 4),
                pct(r.get("faster_pct")),
                "n/a" if r.get("noise") is None
                else "%.1f%%" % (100 * r["noise"]),
                ("**yes**" if r["lost"] else "no") +
                (" (%s)" % r["why"] if "why" in r else "")))
    out += ["", "### Prediction", "",
            "| predicted winner | from | measured rank | slower than the "
            "best by | top 10% holds the best (k) | Spearman |",
            "| --- | --- | --- | --- | --- | --- |"]
    rank = "n/a"
    if f["predicted_winner_rank"] is not None:
        rank = "%d of %d" % (f["predicted_winner_rank"], f["predicted_timed"])
    elif f["predicted_winner"] is not None:
        rank = "not timed (%s)" % f["predicted_winner_status"]
    out.append("| %s | %s | %s | %s | %s | %s |" % (
        f["predicted_winner"] or "n/a", f["source"] or "n/a", rank,
        pct(f["predicted_winner_gap_pct"]),
        "n/a" if f["top10_holds_best"] is None
        else "%s (%d)" % (fmt(f["top10_holds_best"]), f["top10_k"]),
        fmt(f["spearman"])))
    out += ["", "Top 10%: " + s["rules"]["top10"] + "."]
    if f["ranked_by"]:
        out.append("Ranked by " + f["ranked_by"] + ".")
    out += ["", "Bar (figures that must not get worse): " + ", ".join(
        "%s %s" % (k, fmt(s["bar"].get(k))) for k in bar_keys) + ".", ""]
    return "\n".join(out)
