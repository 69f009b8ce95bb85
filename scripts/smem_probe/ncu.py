"""smem_probe's Nsight Compute side: which metrics to collect (the lists
below, choose_metrics after `ncu --query-metrics`) and which of them count
an op kind (metric_candidates), the one profiling run under a deadline
(profile), and the import of its report as CSV (import_csv, read_ncu_csv).
Part of scripts/smem_probe.py; Python 3 standard library only.
"""

import csv
import os
import re
import signal
import subprocess
import threading
import time

from tools import run_logged, say

# ---------------------------------------------------------------- metrics
CORE_METRICS = [
    "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum",
    "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum",
    "smsp__sass_inst_executed_op_shared_ld.sum",
    "smsp__sass_inst_executed_op_shared_st.sum",
    "smsp__sass_inst_executed_op_ldsm.sum",
    "smsp__sass_inst_executed_op_stsm.sum",
    "smsp__sass_inst_executed_op_shared_stsm.sum",
    "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum",
    "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum",
]
# Names also worth recording when the installed ncu knows them.
EXTRA_PREFIXES = (
    "l1tex__data_pipe_lsu_wavefronts_mem_shared",       # all of them
    "l1tex__data_bank_conflicts_pipe_lsu_mem_shared",
    "smsp__sass_inst_executed_op_shared",
    "smsp__sass_inst_executed_op_ldsm",
    "smsp__sass_inst_executed_op_stsm",
    "smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared",
    "smsp__sass_l1tex_data_bank_conflicts_pipe_lsu_mem_shared",
    "smsp__sass_inst_executed_op_ldgsts",
    "smsp__inst_executed_op_ldgsts",
)
# Only the wavefront family is recorded whole; the others skip atomics.
EXTRA_SKIP = re.compile(r"atom|_red\b|_red_")
# Used when `ncu --query-metrics` fails: names seen in public ncu scripts.
FALLBACK_METRICS = [
    "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum",
    "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum",
    "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ldsm.sum",
    "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum",
    "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum",
    "smsp__sass_inst_executed_op_shared_ld.sum",
    "smsp__sass_inst_executed_op_shared_st.sum",
    "smsp__sass_inst_executed_op_ldsm.sum",
]
# Used when a profile run with the chosen set yields nothing.
MINIMAL_METRICS = [
    "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum",
    "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum",
    "smsp__sass_inst_executed_op_shared_ld.sum",
    "smsp__sass_inst_executed_op_shared_st.sum",
]
ARCH_CHIP = {"sm_70": "gv100", "sm_75": "tu102", "sm_80": "ga100", "sm_86": "ga102",
             "sm_87": "ga10b", "sm_89": "ad102", "sm_90": "gh100", "sm_90a": "gh100",
             "sm_100": "gb100", "sm_120": "gb202"}


def metric_candidates(kind):
    """(instruction metrics, wavefront metrics, bank-conflict metrics) to try
    in order for an op kind; the first present and non-zero one is used."""
    w = "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_%s.sum"
    b = "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_%s.sum"
    if kind == "ld":
        return (["smsp__sass_inst_executed_op_shared_ld.sum"], [w % "ld"], [b % "ld"])
    if kind == "st":
        return (["smsp__sass_inst_executed_op_shared_st.sum"], [w % "st"], [b % "st"])
    if kind == "ldgsts":
        # the instruction-level counts first, as the whole-launch
        # comparison (scripts/model_vs_ncu.py) uses
        return (["smsp__sass_inst_executed_op_ldgsts.sum",
                 "smsp__inst_executed_op_ldgsts.sum"],
                ["smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_ldgsts.sum",
                 w % "ldgsts"],
                ["smsp__sass_l1tex_data_bank_conflicts_pipe_lsu_mem_shared_op_ldgsts.sum",
                 b % "ldgsts"])
    if kind == "ldsm":
        return (["smsp__sass_inst_executed_op_ldsm.sum",
                 "smsp__sass_inst_executed_op_shared_ld.sum"],
                [w % "ldsm", w % "ld"], [b % "ldsm", b % "ld"])
    # On sm_90 ncu names the STSM count op_shared_stsm (seen on the H200).
    return (["smsp__sass_inst_executed_op_stsm.sum",
             "smsp__sass_inst_executed_op_shared_stsm.sum",
             "smsp__sass_inst_executed_op_shared_st.sum"],
            [w % "stsm", w % "st"], [b % "stsm", b % "st"])


# ---------------------------------------------------------------- ncu
def query_metrics(args, out):
    """Names (without rollup suffix) the installed ncu lists, or None."""
    path = os.path.join(out, "ncu_query_metrics.txt")
    with open(path, "w") as log:
        tries = [[args.ncu, "--query-metrics"]]
        chip = ARCH_CHIP.get(args.arch)
        if chip:
            tries.append([args.ncu, "--query-metrics", "--chips", chip])
        for cmd in tries:
            try:
                r = run_logged(cmd, log, timeout=60)
            except subprocess.TimeoutExpired:
                log.write("[timed out]\n")
                continue
            names = set(re.findall(r"\b([a-z][a-z0-9]*__[a-z0-9_]+)\b", r.stdout))
            if r.returncode == 0 and len(names) > 50:
                return names
    return None


def choose_metrics(args, out):
    if args.metrics:
        return [m.strip() for m in args.metrics.split(",") if m.strip()], []
    t0 = time.time()
    names = query_metrics(args, out)
    if names is None:
        say("WARNING: `ncu --query-metrics` failed (see ncu_query_metrics.txt); "
            "using the fallback metric list")
        return list(FALLBACK_METRICS), []
    want = list(CORE_METRICS) + list(FALLBACK_METRICS)
    for n in sorted(names):
        if n.startswith(EXTRA_PREFIXES):
            if n.startswith("l1tex__data_pipe_lsu_wavefronts_mem_shared") \
                    or not EXTRA_SKIP.search(n):
                want.append(n + ".sum")
    keep, drop = [], []
    for m in want:
        if m in keep or m in drop:
            continue
        # the minimal set is kept even if unlisted: without it nothing is measured
        (keep if m.split(".")[0] in names or m in MINIMAL_METRICS else drop).append(m)
    say("metrics (query %.1f s): %d kept, %d dropped (not on this ncu/GPU): %s"
        % (time.time() - t0, len(keep), len(drop), ", ".join(drop) or "none"))
    return keep, drop


def profile(args, binary, metrics, out, nlaunch, tag):
    """One ncu run over the whole program.  Returns (rc, report path, stopped)."""
    report = os.path.join(out, "ncu_report" + tag)
    stop = os.path.join(out, "STOP")
    if os.path.exists(stop):
        os.remove(stop)
    host_log = os.path.join(out, "host_log%s.txt" % tag)
    cmd = [args.ncu, "--clock-control", "none", "--cache-control", "none",
           "--target-processes", "all", "--metrics", ",".join(metrics),
           "-f", "-o", report, binary, stop, host_log]
    log_path = os.path.join(out, "ncu_log%s.txt" % tag)
    say("ncu: profiling %d kernels with %d metrics (%.0f s left before the deadline)"
        % (nlaunch, len(metrics), args.deadline - (time.time() - args.t_start)))
    t0 = time.time()
    stopped = [False]
    with open(log_path, "w") as log:
        log.write("$ %s\n" % " ".join(cmd))
        log.flush()
        # own process group, so that ncu and the program it runs can be
        # killed together if they outlive the deadline
        proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                universal_newlines=True, bufsize=1, start_new_session=True)

        def watchdog():
            while proc.poll() is None:
                el = time.time() - args.t_start     # the deadline counts from our start
                if el > args.deadline and not stopped[0]:
                    stopped[0] = True
                    open(stop, "w").close()
                    say("deadline of %d s reached: asking the program to stop launching"
                        % args.deadline)
                if el > args.deadline + args.grace:
                    say("ncu still running %d s after the deadline: killing it" % args.grace)
                    try:
                        os.killpg(proc.pid, signal.SIGKILL)
                    except OSError:
                        proc.kill()
                    return
                time.sleep(1)
        wd = threading.Thread(target=watchdog)
        wd.daemon = True
        wd.start()
        nprof = nwarn = 0
        last = t0
        for line in proc.stdout:
            log.write(line)
            if "==PROF== Profiling" in line:
                nprof += 1
                now = time.time()
                if nprof in (1, 10) or nprof % 50 == 0 or now - last > 30:
                    last = now
                    el = now - t0
                    say("ncu: %d/%d kernels profiled, %.0f s, %.2f s/kernel, ~%.0f s to go"
                        % (nprof, nlaunch, el, el / nprof, (nlaunch - nprof) * el / nprof))
            elif "==ERROR==" in line or "==WARNING==" in line:
                nwarn += 1
                if nwarn <= 20:
                    say("ncu: " + line.strip())
                elif nwarn == 21:
                    say("ncu: (further warnings only in the log)")
        rc = proc.wait()
        wd.join(2)
        log.write("[rc=%d, %.1f s]\n" % (rc, time.time() - t0))
    say("ncu finished: rc %d, %d kernels profiled in %.1f s (log %s)"
        % (rc, nprof, time.time() - t0, log_path))
    return rc, report + ".ncu-rep", stopped[0]


def import_csv(args, report, out, tag):
    path = os.path.join(out, "ncu_raw%s.csv" % tag)
    with open(os.path.join(out, "ncu_import%s.log" % tag), "w") as log:
        for extra in (["--print-units", "base"], []):
            cmd = [args.ncu, "--import", report, "--csv", "--page", "raw"] + extra
            log.write("$ %s\n" % " ".join(cmd))
            r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               universal_newlines=True)
            log.write(r.stderr + "[rc=%d]\n" % r.returncode)
            if r.returncode == 0 and '"ID"' in r.stdout:
                with open(path, "w") as f:
                    f.write(r.stdout)
                return path
    return None


def parse_number(s):
    s = (s or "").strip().replace(",", "").replace(" ", "")
    if not s or s.lower() in ("n/a", "nan", "-"):
        return None
    try:
        return float(s)
    except ValueError:
        return None


def read_ncu_csv(path, launch_names=None):
    """{kernel name: {metric: value}} from ncu CSV: the raw page (one row a
    kernel, one column a metric) or the long form (Metric Name / Metric
    Value columns).  Without a Kernel Name column, the launch order
    (ncu's ID) maps rows to launch_names."""
    with open(path) as f:
        lines = f.read().splitlines()
    start = next((i for i, l in enumerate(lines) if l.startswith('"ID"')), None)
    if start is None:
        return {}
    rows = list(csv.reader(lines[start:]))
    header = rows[0]
    kcol = header.index("Kernel Name") if "Kernel Name" in header else None
    long_form = "Metric Name" in header and "Metric Value" in header
    if long_form:
        ncol = header.index("Metric Name")
        vcol = header.index("Metric Value")

    def kname(row):
        if kcol is not None:
            m = re.match(r"\s*([A-Za-z_][A-Za-z0-9_]*)", row[kcol])
            return m.group(1) if m else None
        i = int(row[0])
        return launch_names[i] if launch_names and i < len(launch_names) else None

    res = {}
    for row in rows[1:]:
        if len(row) != len(header) or not row[0].strip().isdigit():
            continue   # the units row, or junk
        name = kname(row)
        if not name:
            continue
        vals = res.setdefault(name, {})
        if long_form:
            vals.setdefault(row[ncol].strip(), parse_number(row[vcol]))
        else:
            for h, v in zip(header, row):
                if "__" in h:
                    vals.setdefault(h, parse_number(v))
    return res
