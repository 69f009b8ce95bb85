#!/usr/bin/env python3
"""Measure shared-memory wavefronts of warp-wide access patterns with Nsight Compute.

    python3 scripts/smem_probe.py --patterns FILE --out DIR [--arch sm_90] [--reps 64]

For every pattern of FILE (format of scripts/smem_probe/patterns.py: one
`OP WIDTH A0 .. A31` a line, for cp.async optionally followed by
`| G0 .. G31`, the global offsets; `# id: NAME` naming the next pattern) this
generates one `extern "C"` kernel that executes the pattern's shared-memory
instruction exactly REPS times in a loop (one warp, one block), builds them
all into one program with nvcc, checks with cuobjdump that each kernel holds
exactly that one shared-memory SASS instruction, profiles the whole program
in one Nsight Compute run and writes DIR/measured.tsv:

    id op width addresses reps inst_executed wavefronts wavefronts_per_inst
    bank_conflicts sass_count status

status is ok, bad_count (executed instructions != REPS), bad_sass (the
kernel's SASS is not the one instruction intended), bad_wavefronts (fewer
wavefronts than instructions), non_integer (wavefronts per instruction not
whole), missing (no ncu row), not_measured (the run stopped at --deadline
before reaching it), ncu_failed or no_ncu.  See scripts/smem_probe/README.md.

Exit status: 0 all rows ok, 1 some rows bad (or a build/profile failure),
2 usage or pattern-file error.  Python 3 standard library only.
"""

import argparse
import os
import re
import sys
import tarfile
import time

# The probe's modules live in scripts/smem_probe/ (a plain folder, not a
# package): kernels (the pattern file, the CUDA sources), build (nvcc and the
# SASS check), ncu (metrics, the profiling run, its CSV), tools (finding the
# tools, logs, progress lines).
sys.path.insert(0, os.path.join(os.path.dirname(os.path.realpath(__file__)), "smem_probe"))

from build import build, sass_check
from kernels import PatternError, baseline_kernels, op_kind, parse_patterns
from ncu import (MINIMAL_METRICS, choose_metrics, import_csv, metric_candidates, profile,
                 read_ncu_csv)
from tools import find_tool, say


# ---------------------------------------------------------------- results
def fmt(x):
    if x is None:
        return "NA"
    if abs(x - round(x)) < 1e-9:
        return str(int(round(x)))
    return "%.4f" % x


def pick(vals, names, require_positive=True):
    """First metric of names present in vals (and > 0 if any is)."""
    present = [n for n in names if vals.get(n) is not None]
    for n in present:
        if not require_positive or vals[n] > 0:
            return n, vals[n]
    if present:
        return present[0], vals[present[0]]
    return None, None


def write_results(out, pats, baselines, ncu_vals, sass, metrics, stopped, reps):
    base_vals = {}
    for b in baselines:
        base_vals[(b.op, b.width)] = ncu_vals.get(b.kernel)
    with open(os.path.join(out, "baseline.tsv"), "w") as f:
        f.write("kernel\top\twidth\treps\t%s\n" % "\t".join(metrics))
        for b in baselines:
            v = ncu_vals.get(b.kernel) or {}
            f.write("%s\t%s\t%d\t0\t%s\n" % (b.kernel, b.op, b.width,
                                             "\t".join(fmt(v.get(m)) for m in metrics)))
    nbad = 0
    counts = {}
    cols = ["id", "op", "width", "addresses", "reps", "inst_executed", "wavefronts",
            "wavefronts_per_inst", "bank_conflicts", "sass_count", "status"]
    dcols = ["id", "kernel", "op", "width", "reps", "smem_bytes", "sass_note",
             "inst_metric", "wavefront_metric", "conflict_metric"]
    dcols += metrics + ["baseline:" + m for m in metrics]
    with open(os.path.join(out, "measured.tsv"), "w") as f, \
            open(os.path.join(out, "measured_detail.tsv"), "w") as fd:
        f.write("\t".join(cols) + "\n")
        fd.write("\t".join(dcols) + "\n")
        for p in pats:
            vals = ncu_vals.get(p.kernel)
            bvals = base_vals.get((p.op, p.width)) or {}
            cnt, sass_ok, note = sass[p.kernel]
            inst = wf = bc = per = None
            im = wm = cm = ""
            if vals is None:
                status = "not_measured" if stopped else "missing"
            else:
                inames, wnames, cnames = metric_candidates(op_kind(p.op))
                im, inst = pick(vals, inames)
                wm, wf = pick(vals, wnames)
                cm, bc = pick(vals, cnames)
                # subtract the REPS=0 baseline of this op kind (expected 0)
                if inst is not None and bvals.get(im) is not None:
                    inst -= bvals[im]
                if wf is not None and bvals.get(wm) is not None:
                    wf -= bvals[wm]
                if bc is not None and bvals.get(cm) is not None:
                    bc -= bvals[cm]
                if inst is None or wf is None:
                    status = "missing"
                elif abs(inst - reps) > 1e-6:   # one warp: expected exactly REPS
                    status = "bad_count"
                elif not sass_ok:
                    status = "bad_sass"
                elif wf < inst:
                    # every executed instruction takes at least one wavefront:
                    # the metric does not count this op
                    status = "bad_wavefronts"
                elif abs(wf / inst - round(wf / inst)) > 1e-6:
                    status = "non_integer"
                else:
                    status = "ok"
                if inst:
                    per = wf / inst if wf is not None else None
            nbad += status != "ok"
            counts[status] = counts.get(status, 0) + 1
            f.write("\t".join([p.id, p.op, str(p.width), p.addr_text(), str(reps),
                               fmt(inst), fmt(wf), fmt(per), fmt(bc), str(cnt), status]) + "\n")
            v = vals or {}
            fd.write("\t".join([p.id, p.kernel, p.op, str(p.width), str(reps),
                                str(p.smem_bytes()), note, im or "", wm or "", cm or ""]
                               + [fmt(v.get(m)) for m in metrics]
                               + [fmt(bvals.get(m)) for m in metrics]) + "\n")
    say("measured.tsv: %s" % ", ".join("%s %d" % kv for kv in sorted(counts.items())))
    return nbad


def write_unmeasured(out, pats, sass, reps, status):
    with open(os.path.join(out, "measured.tsv"), "w") as f:
        f.write("id\top\twidth\taddresses\treps\tinst_executed\twavefronts\t"
                "wavefronts_per_inst\tbank_conflicts\tsass_count\tstatus\n")
        for p in pats:
            cnt = sass[p.kernel][0] if sass else -1
            f.write("\t".join([p.id, p.op, str(p.width), p.addr_text(), str(reps),
                               "NA", "NA", "NA", "NA", str(cnt), status]) + "\n")


# ---------------------------------------------------------------- main
class ArgParser(argparse.ArgumentParser):
    def error(self, message):
        self.print_usage(sys.stderr)
        sys.stderr.write("%s: error: %s\n" % (self.prog, message))
        sys.exit(2)


def main(argv=None):
    ap = ArgParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--patterns", required=True, help="pattern file")
    ap.add_argument("--out", required=True, help="output directory")
    ap.add_argument("--arch", default="sm_90", help="nvcc -arch (default sm_90)")
    ap.add_argument("--reps", type=int, default=64,
                    help="executions of the instruction per kernel (default 64)")
    ap.add_argument("--limit", type=int, default=0, help="measure only the first N patterns")
    ap.add_argument("--build-only", action="store_true",
                    help="stop after nvcc and the cuobjdump SASS check")
    ap.add_argument("--build-dir", help="objects and binary (default OUT/build)")
    ap.add_argument("--jobs", type=int, default=0, help="parallel nvcc jobs (default: cores)")
    ap.add_argument("--deadline", type=int, default=400,
                    help="seconds after this script's start after which the profiled"
                         " program launches no further kernel; the rest is reported"
                         " not_measured (default 400)")
    ap.add_argument("--grace", type=int, default=60,
                    help="seconds after the deadline before ncu is killed (default 60)")
    ap.add_argument("--metrics", help="comma-separated ncu metrics (skips the query)")
    ap.add_argument("--bundle", help="also pack OUT (without the build folder) into this"
                    " .tar.gz when done, whatever the outcome")
    ap.add_argument("--nvcc", help="path of nvcc")
    ap.add_argument("--cuobjdump", help="path of cuobjdump")
    ap.add_argument("--ncu", help="path of ncu")
    args = ap.parse_args(argv)
    if args.reps < 1 or args.reps > 1000000:
        ap.error("--reps must be in 1..1000000")
    if args.limit < 0:
        ap.error("--limit must be >= 0")
    if not re.match(r"^(sm|compute)_[0-9]+[af]?$", args.arch):
        ap.error("bad --arch %r" % args.arch)

    rc = run(args)
    if args.bundle:
        out = os.path.abspath(args.out)
        build_dir = os.path.abspath(args.build_dir or os.path.join(out, "build"))
        try:
            with tarfile.open(args.bundle, "w:gz") as tar:
                tar.add(out, arcname=os.path.basename(out),
                        filter=lambda ti: None if os.path.join(
                            os.path.dirname(out), ti.name) == build_dir else ti)
            say("bundle: %s" % args.bundle)
        except (IOError, OSError) as e:
            say("WARNING: could not write the bundle %s: %s" % (args.bundle, e))
    return rc


def run(args):
    t_start = args.t_start = time.time()
    try:
        pats = parse_patterns(args.patterns)
    except PatternError as e:
        sys.stderr.write("smem_probe: %s\n" % e)
        return 2
    if args.limit:
        pats = pats[:args.limit]
    for i, p in enumerate(pats, 1):
        p.kernel = "p%04d" % i
        p.reps = args.reps
    baselines = baseline_kernels(pats)
    out = os.path.abspath(args.out)
    os.makedirs(out, exist_ok=True)
    say("%d patterns from %s, reps %d, arch %s, out %s"
        % (len(pats), args.patterns, args.reps, args.arch, out))

    args.nvcc = find_tool("nvcc", args.nvcc)
    if not args.nvcc:
        sys.stderr.write("smem_probe: nvcc not found (use --nvcc)\n")
        return 2
    args.cuobjdump = find_tool("cuobjdump", args.cuobjdump, args.nvcc)
    say("nvcc: %s; cuobjdump: %s" % (args.nvcc, args.cuobjdump or "NOT FOUND"))

    binary = build(args, pats, baselines, out)
    if binary is None:
        return 1
    launches = baselines + pats
    sass = sass_check(args, binary, launches, out)
    nbad_sass = sum(1 for p in launches if not sass[p.kernel][1])
    if args.build_only:
        say("--build-only: done in %.1f s" % (time.time() - t_start))
        return 1 if nbad_sass or not args.cuobjdump else 0

    args.ncu = find_tool("ncu", args.ncu, args.nvcc)
    if not args.ncu:
        sys.stderr.write("smem_probe: ncu not found (use --ncu)\n")
        write_unmeasured(out, pats, sass, args.reps, "no_ncu")
        return 1
    say("ncu: %s" % args.ncu)
    metrics, dropped = choose_metrics(args, out)
    with open(os.path.join(out, "metrics_used.txt"), "w") as f:
        f.write("# kept\n%s\n# dropped (not known to this ncu/GPU)\n%s\n"
                % ("\n".join(metrics), "\n".join(dropped)))

    ncu_vals = {}
    stopped = False
    for attempt, mset in enumerate((metrics, MINIMAL_METRICS)):
        if attempt == 1:
            if sorted(mset) == sorted(metrics):
                break
            if args.deadline - (time.time() - args.t_start) < 60:
                say("no time left for a retry with the minimal metric set")
                break
            say("retrying with the minimal metric set")
        tag = "" if attempt == 0 else "_minimal"
        rc, report, stopped = profile(args, binary, mset, out, len(launches), tag)
        csv_path = import_csv(args, report, out, tag) if os.path.exists(report) else None
        if csv_path:
            ncu_vals = read_ncu_csv(csv_path, [p.kernel for p in launches])
            say("ncu CSV: %d kernels -> %s" % (len(ncu_vals), csv_path))
        if ncu_vals:
            metrics = mset
            break
        say("WARNING: ncu produced no results (rc %d); see ncu_log%s.txt" % (rc, tag))
        with open(os.path.join(out, "ncu_log%s.txt" % tag)) as f:
            ncu_text = f.read()
        if "ERR_NVGPUCTRPERM" in ncu_text:
            say("ncu has no permission for GPU performance counters (ERR_NVGPUCTRPERM)")
            break
        if "LibraryNotLoaded" in ncu_text or "Failed to initialize the profiler" in ncu_text:
            say("ncu cannot initialize the profiler on this machine (no hardware counters"
                " here, e.g. a gVisor runtime); nothing can be measured")
            break
    if not ncu_vals:
        write_unmeasured(out, pats, sass, args.reps, "ncu_failed")
        return 1
    nbad = write_results(out, pats, baselines, ncu_vals, sass, metrics, stopped, args.reps)
    say("done in %.1f s: %d of %d rows ok -> %s"
        % (time.time() - t_start, len(pats) - nbad, len(pats), os.path.join(out, "measured.tsv")))
    return 1 if nbad else 0


if __name__ == "__main__":
    sys.exit(main())
