"""ktcompare_report.py -- the table of scripts/kernel_tuner_compare.py: its
figures (kt_compare.json) as markdown, with the end-to-end ratio and the
verdict on the two bests as re-timed alike."""


def fmt_params(p):
    return " ".join("%s=%s" % kv for kv in p.items()) if p else "-"


def verdict(re):
    """Ours against Kernel Tuner's best, as re-timed: the noise is the
    larger half-spread of either's round medians, at least 1%."""
    c = re.get("configs", {})
    if "ours" not in c or "kt" not in c:
        return None, None
    a, b = c["ours"]["median_ms"], c["kt"]["median_ms"]
    noise = max(0.01, c["ours"]["round_spread"], c["kt"]["round_spread"])
    rel = (a - b) / b
    if c["ours"]["params"] == c["kt"]["params"]:
        word = "the same configuration"
    elif rel < -noise:
        word = "faster, beyond noise"
    elif rel <= noise:
        word = "as fast, within noise"
    else:
        word = "slower, beyond noise"
    return word, {"ours_ms": a, "kt_ms": b, "relative": rel,
                  "noise": noise}


def table(d, args, spec):
    """The markdown table of the run's figures d (kt_compare.json's);
    sets d["speedup"] and d["best_verdict"] where it can."""
    st = d["steps"]
    kt, ours, re = st.get("kt") or {}, st.get("ours") or {}, \
        st.get("retime") or {}
    sp = d.get("space", {})
    kc = kt.get("counts") or {}
    lines = [
        "# Kernel Tuner and tuner side by side: %s" % spec.name, "",
        "- config: `%s`, problem %s" % (args.config, " ".join(
            "%s=%s" % kv for kv in spec.dims.items())),
        "- space: %s; %d points, %d meet the constraints (both tools are "
        "given these)" % (sp.get("how"), sp.get("points", 0),
                          sp.get("valid", 0)),
        "- restrictions given to Kernel Tuner: %s" % ", ".join(
            "`%s`" % r for r in spec.restrictions),
        "- device: %s" % (re.get("device") or
                          (ours.get("device") or {}).get("name") or "?"),
        ""]
    kt_best = kt.get("best") or {}
    ours_best = ours.get("best") or {}
    rc = re.get("configs", {})
    kt_time = kt.get("tune_kernel_s")
    ours_time = ours.get("wall_s")
    comp = ours.get("compile") or {}
    rows = [
        ("tool", "Kernel Tuner %s, brute force, %s, its default timing "
         "(7 iterations)" % (kt.get("kernel_tuner", "?"),
                             kt.get("backend", args.kt_lang)),
         "`tuner` (this repository), from an empty compile cache"),
        ("status", kt.get("status", "not run"),
         ours.get("status", "not run")),
        ("end to end", "%s (the tune_kernel call); %s the whole process" %
         (sec(kt_time), sec(kt.get("process_s"))),
         "%s (the whole command)" % sec(ours_time)),
        ("configurations compiled", "%s of %s reached (%s failed to "
         "compile, %s to launch; plus the first compiled again as its "
         "warm-up)" % (kc.get("compiled", "?"), kc.get("reached", "?"),
                       kc.get("compile_failed", "?"),
                       kc.get("launch_failed", "?")),
         "%s (%s from the cache, %s failed) on %s threads" %
         (comp.get("compiled", "?"), comp.get("cached", "?"),
          comp.get("failed", "?"), comp.get("threads", "?"))),
        ("configurations timed", "%s" % kc.get("timed", "?"),
         "%s (%s raced out); statuses %s" %
         (ours.get("timed", "?"), ours.get("raced_out", "?"),
          ", ".join("%s %d" % kv for kv in sorted(
              (ours.get("statuses") or {}).items())))),
        ("compile time inside", "%s (sum of its compile_time)" %
         sec((kt.get("times_from_results") or {}).get("compile_s")),
         "%s of wall, %s of CPU" % (sec(comp.get("wall_s")),
                                    sec(comp.get("cpu_s")))),
        ("best found", fmt_params(kt_best.get("params")),
         fmt_params(ours_best.get("params"))),
        ("its time, as it measured", "%s ms (mean of its iterations)" %
         num(kt_best.get("time")), "%s ms (median)" %
         num(ours_best.get("median_ms"))),
        ("re-timed alike (median [q1, q3] of %s launches)" %
         (args.rounds * args.per_round),
         retimed(rc.get("kt"), re, "kt"),
         retimed(rc.get("ours"), re, "ours")),
    ]
    lines.append("| | Kernel Tuner | tuner |")
    lines.append("| --- | --- | --- |")
    for r in rows:
        lines.append("| %s | %s | %s |" % r)
    lines.append("")
    if kt_time and ours_time:
        whole = kt.get("status") == "done" and ours.get("status") == "done"
        lines.append("**End to end: tuner %.1fx faster**%s (Kernel Tuner's "
                     "tune_kernel call %.1f s / tuner's whole command "
                     "%.1f s)." % (kt_time / ours_time, "" if whole else
                                   ", NOT on the whole space: a tool did "
                                   "not finish", kt_time, ours_time))
        d["speedup"] = kt_time / ours_time
        d["speedup_whole_space"] = whole
    word, v = verdict(re)
    if v:
        d["best_verdict"] = dict(v, word=word)
        lines.append("**Best: tuner's is %s**: %.4f ms against %.4f ms "
                     "(%+.1f%%; noise %.1f%%)." %
                     (word, v["ours_ms"], v["kt_ms"], 100 * v["relative"],
                      100 * v["noise"]))
    lines += [
        "",
        "Re-timing: both bests compiled alike (cupy's NVRTC, Kernel "
        "Tuner's #defines and options), their outputs checked against "
        "the reference, then in one process %d rounds, alternating which "
        "goes first, of %d launches each with a CUDA event pair around "
        "every launch, after %d warm-up launches; the noise is the larger "
        "half-spread of either's round medians, at least 1%%." %
        (args.rounds, args.per_round, 10),
        "Inputs: Kernel Tuner's run and the re-timing share one set, made "
        "from the config's inits with a fixed seed; the tuner makes its own "
        "from the same inits.  The reference is the config's "
        "check.reference, run once through cupy for Kernel Tuner's answer, "
        "and compared as the tuner compares (|x - ref| <= atol + rtol "
        "|ref|)."]
    return "\n".join(lines) + "\n"


def sec(x):
    return "%.1f s" % x if isinstance(x, (int, float)) else "?"


def num(x):
    return "%.4f" % x if isinstance(x, (int, float)) else "?"


def retimed(c, re, who):
    if not c:
        bad = (re.get("failed") or {}).get(who)
        return "failed: %s" % bad["error"] if bad else "-"
    return "%.4f ms [%.4f, %.4f]%s" % (c["median_ms"], c["q1_ms"],
                                       c["q3_ms"], "" if c["correct"]
                                       else " WRONG OUTPUT")
