#!/usr/bin/env python3
"""Check the shared-memory plan a config declares for its own kernel against
Nsight Compute, launch by launch, and name each declared access that differs.

On a GPU machine it runs a --no-prune tuning run of the config under ncu,
every candidate's kernel launched exactly twice per problem (the checked
launch and one timed launch: -r 1 --warmup 0 --full-protocol), profiling
only the user's kernel (ncu --kernel-name-base function --kernel-name
regex:^NAME$, which a C++ kernel's mangled symbol matches too).  It
matches the profiled launches, in order, to the candidates of the run's
journal (the reference kernel is profiled too only when it is the same
kernel: the space's default point; each launch's grid and block are
checked against the one expected), and compares, per launch and per kind
(ld, st, ldsm, stsm, ldgsts), the warp-level shared-memory instructions
executed and wavefronts that ncu counts

    smsp__sass_inst_executed_op_shared_ld / _shared_st / _ldsm /
    _shared_stsm / _ldgsts,
    smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_<kind>

with `tuner plan --json` (the model the run prunes with, per declared
access).  Where a kind differs it names each declared access of that kind
(its name and config line).  With the source counters (ncu's
SourceCounters section, the default; the candidates are compiled with
-lineinfo) and a `line` on the plan's accesses, it attributes the counts
to source lines: "access 'tile load' (conv2d.cfg:63): declared 7077888 st
instructions and 9437184 wavefronts per launch at conv2d.cu:36, measured
7077888 and 7077888", "the kernel has no ld at conv2d.cu:44", and the
lines with shared-memory instructions that no declared access names.

Usage (on a GPU machine):
  python3 scripts/plan_vs_ncu.py --tuner build/tuner --config CFG --out DIR
      [--arch sm_90] [--ncu ncu] [--timeout 3000] [--launches FIRST:COUNT]
      [--no-source]
From a recorded profile (no GPU): the same with --raw-csv RAW.csv
--results RESULTS.json [--source-csv SOURCE.csv] instead of running.

--launches FIRST:COUNT profiles only the user kernel's launches FIRST to
FIRST+COUNT-1 (ncu --launch-skip/--launch-count; the others run at full
speed), so that a long space is checked in windows that each fit a time
limit; the run is the same each time (no pruning, no racing, the compile
cache's CUBINs), and each window is compared with its part of the
sequence.

DIR gets: commands.txt (every command run, as run), plan.json, ncu_raw.csv,
ncu_source.csv (when collected), ncu_tuner.log, plan_vs_ncu.tsv (one row
per launch and kind) and report.txt (what is printed).

Exit status: 0 every compared launch equals the plan; 1 some launch
differs; 2 bad input (options, a config without a plan, results that are
not this config's); 3 nothing could be compared (ncu missing or failing,
counters not readable, a timeout, launches that do not line up).
Python 3 standard library only.
"""
import argparse
import csv
import glob
import io
import json
import os
import re
import shlex
import shutil
import signal
import subprocess
import sys

from ncu_csv import number

KINDS = ("ld", "st", "ldsm", "stsm", "ldgsts")
INSTS = {
    "ld": "smsp__sass_inst_executed_op_shared_ld.sum",
    "st": "smsp__sass_inst_executed_op_shared_st.sum",
    "ldsm": "smsp__sass_inst_executed_op_ldsm.sum",
    "stsm": "smsp__sass_inst_executed_op_shared_stsm.sum",
    "ldgsts": "smsp__sass_inst_executed_op_ldgsts.sum",
}
WAVES = {k: "smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_%s.sum"
         % k for k in KINDS}
# recorded beside the others, not compared: the L1 hardware counters also
# count passes repeated after losing arbitration (scripts/model_vs_ncu.py)
HARDWARE = ["l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum",
            "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum"]
METRICS = [INSTS[k] for k in KINDS] + [WAVES[k] for k in KINDS] + HARDWARE
# SASS opcodes (before the first '.') of each kind, for the source page
SASS_KIND = {"LDS": "ld", "STS": "st", "LDSM": "ldsm", "STSM": "stsm",
             "LDGSTS": "ldgsts"}
# a candidate whose bench job failed before its first launch (gpu/bench.c)
NO_LAUNCH_REASON = "too many resources: the kernel's registers allow"

EXIT_EQUAL, EXIT_DIFFER, EXIT_INPUT, EXIT_MEASURE = 0, 1, 2, 3


class Stop(Exception):
    """Ends the check with a message and an exit status."""

    def __init__(self, status, message):
        Exception.__init__(self, message)
        self.status = status


class Out:
    """What the check prints, kept for report.txt as well (echo: printed
    at once)."""

    def __init__(self, echo=True):
        self.lines = []
        self.echo = echo

    def say(self, text=""):
        if self.echo:
            print(text, flush=True)
        self.lines.append(text)


# ------------------------------------------------------------- commands
class Runner:
    """Runs commands with a deadline, each written to commands.txt first."""

    def __init__(self, out_dir, out):
        self.log = os.path.join(out_dir, "commands.txt")
        self.out = out
        open(self.log, "w").close()

    def run(self, cmd, timeout, stdout_path=None, log_path=None):
        """(status, stdout text); stdout also into stdout_path, stdout and
        stderr together into log_path when given.  Stop on a timeout."""
        line = shlex.join(cmd)
        with open(self.log, "a") as f:
            f.write(line + "\n")
        self.out.say("+ " + line)
        try:
            proc = subprocess.Popen(cmd, stdout=subprocess.PIPE,
                                    stderr=subprocess.PIPE, text=True,
                                    errors="replace",
                                    start_new_session=True)
        except OSError as e:
            raise Stop(EXIT_MEASURE, "cannot run %s: %s" % (cmd[0], e))
        try:
            stdout, stderr = proc.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            kill_group(proc)
            stdout, stderr = proc.communicate()
            if log_path:
                write(log_path, stdout + stderr)
            raise Stop(EXIT_MEASURE, "timed out after %d s (killed): %s%s"
                       % (timeout, line, "; its output: " + log_path
                          if log_path else ""))
        if stdout_path:
            write(stdout_path, stdout)
        if log_path:
            write(log_path, stdout + stderr)
        self.stderr = stderr
        return proc.returncode, stdout


def kill_group(proc):
    """SIGTERM to the command's process group, SIGKILL 10 s later."""
    for sig, wait in ((signal.SIGTERM, 10), (signal.SIGKILL, 10)):
        try:
            os.killpg(proc.pid, sig)
        except ProcessLookupError:
            return
        try:
            proc.wait(timeout=wait)
            return
        except subprocess.TimeoutExpired:
            continue


def write(path, text):
    with open(path, "w") as f:
        f.write(text)


# ------------------------------------------------------------- the plan
def load_plan(runner, tuner, config, arch, ids, path, timeout):
    cmd = [tuner, "plan", "--config", config, "--json"]
    if arch:
        cmd += ["--arch", arch]
    if ids is not None:
        cmd += ["--ids", ",".join(str(i) for i in sorted(ids))]
    rc, text = runner.run(cmd, timeout, stdout_path=path)
    if rc != 0:
        raise Stop(EXIT_INPUT if rc == 2 else EXIT_MEASURE,
                   "`tuner plan` failed (status %d): %s"
                   % (rc, runner.stderr.strip()[-2000:] or "no message"))
    try:
        plan = json.loads(text)
    except ValueError as e:
        raise Stop(EXIT_MEASURE, "`tuner plan --json` wrote no JSON: %s" % e)
    if plan.get("schema") != "tuner-plan-1":
        raise Stop(EXIT_MEASURE, "`tuner plan` wrote schema %r, this script "
                   "reads tuner-plan-1" % plan.get("schema"))
    return plan


def where(access):
    return "%s:%d" % (os.path.basename(access["config"]),
                      access["config_line"])


def lines_text(plan, lines):
    return "%s:%s" % (os.path.basename(plan["kernel"]["file"]),
                      ",".join(str(x) for x in sorted(lines)))


# ------------------------------------------------------------- the run
def read_results(path):
    """The results document and its journal's lines, checked enough to be
    used: they come from another host."""
    try:
        with open(path) as f:
            doc = json.load(f)
    except (OSError, ValueError) as e:
        raise Stop(EXIT_INPUT, "%s: %s" % (path, e))
    journal = path[:-len(".json")] + ".jsonl" if path.endswith(".json") \
        else path + ".jsonl"
    entries = []
    try:
        with open(journal) as f:
            for n, line in enumerate(f, 1):
                if not line.strip():
                    continue
                try:
                    e = json.loads(line)
                except ValueError as err:
                    raise Stop(EXIT_INPUT, "%s:%d: %s" % (journal, n, err))
                if not isinstance(e, dict) or "kind" not in e:
                    raise Stop(EXIT_INPUT, "%s:%d: not a journal line"
                               % (journal, n))
                entries.append(e)
    except OSError as e:
        raise Stop(EXIT_INPUT, "%s: %s (the order the candidates ran in is "
                   "the journal's)" % (journal, e))
    if not isinstance(doc, dict) or not isinstance(doc.get("candidates"),
                                                   list):
        raise Stop(EXIT_INPUT, "%s: not a tuner results file" % path)
    return doc, entries


def launch_sig(launch):
    return (tuple(launch["grid"]), tuple(launch["block"]))


def expected_launches(plan, doc, entries):
    """The launches of the user's kernel the run made, in order: dicts with
    what ('candidate', 'reference', 'baseline'), id, problem, step
    ('check', 'timed' or 'reference') and the expected (grid, block)."""
    kernel = plan["kernel"]["name"]
    ref, base = plan["reference"], plan["baseline"]
    nprob = len(plan["problems"])
    ref_seen = ref["kind"] == "default" or ref.get("kernel") == kernel
    base_kernel = base["kind"] == "kernel"
    base_seen = base_kernel and base.get("kernel") == kernel
    starts = (doc.get("run") or {}).get("worker_starts", 1)
    if ref_seen and isinstance(starts, int) and starts > 1:
        raise Stop(EXIT_MEASURE, "the run's GPU worker started %d times: the "
                   "reference (the kernel itself, at the default point) runs "
                   "again after each start, and its launches cannot be "
                   "placed" % starts)
    seq = []
    state = {"last": None}

    def reference(k):
        # gpu/expected.c: the reference runs when the job's problem is not
        # the one it last ran for (a fixed-inputs family's seed is the
        # problem's)
        if state["last"] == k:
            return
        state["last"] = k
        if ref_seen:
            seq.append({"what": "reference", "id": ref.get("id"),
                        "problem": k, "step": "reference",
                        "sig": launch_sig(ref["launch"][k])})

    by_id = {}
    for c in doc["candidates"]:
        if isinstance(c, dict) and isinstance(c.get("id"), int):
            by_id[c["id"]] = c
    for e in entries:
        if e["kind"] == "baseline" and base_kernel:
            if e.get("status") != "ok" and (ref_seen or base_seen):
                raise Stop(EXIT_MEASURE, "the baseline kernel failed (%s): "
                           "how often it ran cannot be told"
                           % e.get("reason", "no reason"))
            for k in range(nprob):
                reference(k)
                if base_seen:
                    for step in ("check", "timed"):
                        seq.append({"what": "baseline", "id": None,
                                    "problem": k, "step": step,
                                    "sig": launch_sig(base["launch"][k])})
        elif e["kind"] == "candidate":
            cid, status = e.get("id"), e.get("status")
            if not isinstance(cid, int) or cid not in by_id:
                raise Stop(EXIT_INPUT, "the journal names candidate %r, which "
                           "the results file lacks" % (cid,))
            if status == "ok":
                timed = e.get("launches")
                if timed is not None and timed != nprob:
                    raise Stop(EXIT_INPUT, "candidate %d was timed %s times "
                               "over %d problems; the check needs one timed "
                               "launch each (-r 1 --warmup 0 "
                               "--full-protocol)" % (cid, timed, nprob))
                for k in range(nprob):
                    reference(k)
                    for step in ("check", "timed"):
                        seq.append({"what": "candidate", "id": cid,
                                    "problem": k, "step": step})
            elif status == "wrong_result" and nprob == 1:
                reference(0)
                seq.append({"what": "candidate", "id": cid, "problem": 0,
                            "step": "check"})
            elif status == "failed" and \
                    str(e.get("reason", "")).startswith(NO_LAUNCH_REASON):
                reference(0)
            else:
                raise Stop(EXIT_MEASURE, "candidate %d ended %s (%s): how "
                           "often its kernel ran cannot be told, so the "
                           "launches after it cannot be matched"
                           % (cid, status, e.get("reason", "no reason")))
    return seq


# ------------------------------------------------------------- ncu CSV
def csv_rows(text):
    """ncu's CSV without its ==PROF== / ==WARNING== lines."""
    keep = [ln for ln in text.splitlines() if not ln.startswith("==")]
    return list(csv.reader(io.StringIO("\n".join(keep))))


def parse_dim3(text):
    m = re.fullmatch(r"\s*\(\s*(\d+)\s*,\s*(\d+)\s*,\s*(\d+)\s*\)\s*",
                     text or "")
    return tuple(int(x) for x in m.groups()) if m else None


def parse_raw(text, kernel):
    """The profiled launches of the raw page, in order: kernel name, grid,
    block, per kind (instructions, wavefronts), the hardware counters."""
    rows = csv_rows(text)
    head = None
    launches = []
    for row in rows:
        if head is None:
            if "Kernel Name" in row and "ID" in row:
                head = {name: i for i, name in enumerate(row)}
                missing = [m for m in METRICS if m not in head]
                if missing:
                    raise Stop(EXIT_MEASURE, "ncu's raw page lacks %s: the "
                               "installed Nsight Compute does not know these "
                               "metrics, or could not collect them"
                               % ", ".join(missing))
            continue
        if len(row) < len(head) or number(row[head["ID"]]) is None:
            continue  # the units row
        name = row[head["Kernel Name"]]
        if name != kernel and not name.startswith(kernel + "("):
            raise Stop(EXIT_MEASURE, "ncu profiled kernel %r (launch ID %s); "
                       "only %r was asked for" % (name, row[head["ID"]],
                                                  kernel))
        got = {}
        for m in METRICS:
            v = number(row[head[m]])
            if v is None:
                raise Stop(EXIT_MEASURE, "ncu could not read %s on launch ID "
                           "%s (%r): are the GPU's performance counters "
                           "readable (ERR_NVGPUCTRPERM)?"
                           % (m, row[head["ID"]], row[head[m]]))
            got[m] = int(v)
        launches.append({
            "ncu_id": row[head["ID"]],
            "name": name,
            "grid": parse_dim3(row[head["Grid Size"]])
            if "Grid Size" in head else None,
            "block": parse_dim3(row[head["Block Size"]])
            if "Block Size" in head else None,
            "counts": {k: (got[INSTS[k]], got[WAVES[k]]) for k in KINDS},
            "hardware": [got[m] for m in HARDWARE],
        })
    if head is None:
        raise Stop(EXIT_MEASURE, "ncu's raw page has no header row (\"ID\", "
                   "..., \"Kernel Name\", ...): nothing was profiled?")
    return launches


def named_lines(plan):
    """The (file, line)s that the plan's accesses of each kind name."""
    kfile = os.path.basename(plan["kernel"]["file"])
    named = {k: set() for k in KINDS}
    for a in plan["accesses"]:
        named[a["kind"]] |= {(kfile, ln) for ln in a["kernel_lines"]}
    return named


def parse_source(text, kfile, named):
    """Blocks of ncu's source page (--print-source cuda,sass or sass), one
    per profiled launch as far as the page shows: each a list of SASS rows
    (file, line, kind, instructions executed, wavefronts), one per address.
    A block starts at a "Kernel Name" row where the page has them, else at
    a "Function Name" row, else at a header row; the caller checks the
    blocks against the raw page before it trusts them.  kfile: the kernel
    file's name, for rows without a "File Path"; named: named_lines()."""
    rows = csv_rows(text)
    starts = ("Kernel Name" if any(r and r[0] == "Kernel Name" for r in rows)
              else "Function Name"
              if any(r and r[0] == "Function Name" for r in rows)
              else None)
    blocks, cur, head, by_address = [], None, None, {}
    file_path, line_no = None, None
    for row in rows:
        if not row:
            continue
        first = row[0].strip()
        if first in ("Kernel Name", "Function Name", "File Path"):
            if first == starts:
                cur = []
                blocks.append(cur)
                by_address = {}
                head = None
                line_no = None
            if first == "File Path":
                file_path = row[1] if len(row) > 1 else None
                line_no = None
            continue
        if "Address" in row and "Source" in row:
            a = row.index("Address")
            sass = [i for i, name in enumerate(row)
                    if name == "Source" and i > a]
            head = {"address": a,
                    "sass": sass[0] if sass else None,
                    "line": row.index("Line No") if "Line No" in row
                    else None,
                    "insts": row.index("Instructions Executed")
                    if "Instructions Executed" in row else None,
                    "waves": row.index("L1 Wavefronts Shared")
                    if "L1 Wavefronts Shared" in row else None}
            if starts is None:
                cur = []
                blocks.append(cur)
                by_address = {}
            continue
        if head is None or cur is None:
            continue

        def cell(i):
            return row[i].strip() if i is not None and i < len(row) else ""

        ln = cell(head["line"])
        if ln.isdigit():
            line_no = int(ln)
        if not cell(head["address"]).lower().startswith("0x"):
            continue
        text_ = cell(head["sass"])
        if text_.startswith("@"):
            text_ = text_.split(None, 1)[1] if " " in text_ else ""
        op = text_.split(None, 1)[0] if text_ else ""
        kind = SASS_KIND.get(op.split(".")[0])
        if kind is None:
            continue
        if head["insts"] is None or head["waves"] is None:
            raise Stop(EXIT_MEASURE, "ncu's source page has no "
                       "\"Instructions Executed\" or \"L1 Wavefronts "
                       "Shared\" column: the SourceCounters section was "
                       "not collected")
        # ncu lists an instruction under each line it stems from (an
        # inlined function's and its call site's), at times twice under
        # one: each address counts once a block, at a line that an access
        # of its kind names if one does, else at the first it is under.
        where_ = (os.path.basename(file_path) if file_path else kfile,
                  line_no)
        address = cell(head["address"]).lower()
        seen = by_address.get(address)
        if seen is not None:
            if where_ in named[kind] and seen["where"] not in named[kind]:
                seen.update(file=file_path, line=line_no, where=where_)
            continue
        by_address[address] = {
            "file": file_path, "line": line_no, "where": where_,
            "kind": kind, "insts": int(number(cell(head["insts"])) or 0),
            "waves": int(number(cell(head["waves"])) or 0), "sass": text_}
        cur.append(by_address[address])
    return blocks


def source_lines_fit(blocks, measured):
    """None when blocks are one per measured launch with the same counts of
    every kind, else why not."""
    if len(blocks) != len(measured):
        return ("the source page shows %d blocks for %d profiled launches"
                % (len(blocks), len(measured)))
    for i, (b, m) in enumerate(zip(blocks, measured)):
        for k in KINDS:
            n = sum(r["insts"] for r in b if r["kind"] == k)
            if n != m["counts"][k][0]:
                return ("launch %d: the source page's %s instructions (%d) "
                        "are not the raw page's (%d)"
                        % (i, k, n, m["counts"][k][0]))
    return None


# ------------------------------------------------------------- compare
def plan_point(plan, cid):
    for p in plan["points"]:
        if p["id"] == cid:
            return p
    return None


def check_model(plan, doc, ids):
    """The plan today must be the model the run priced its candidates with
    (the config may have changed since)."""
    by_id = {c.get("id"): c for c in doc["candidates"] if isinstance(c, dict)}
    for cid in ids:
        point = plan_point(plan, cid)
        c = by_id.get(cid)
        if point is None:
            raise Stop(EXIT_INPUT, "candidate %d of the run is not a valid "
                       "point of %s on %s today" % (cid, plan["config"],
                                                    plan["arch"]))
        if point["params_text"] != c.get("params_text"):
            raise Stop(EXIT_INPUT, "candidate %d: the run has %r, the config "
                       "today %r: these results are not this config's"
                       % (cid, c.get("params_text"), point["params_text"]))
        per = ((c.get("model") or {}).get("per_problem")) or []
        for k, pp in enumerate(point["per_problem"]):
            if k >= len(per):
                break
            kd = pp["kinds"]
            mine = {"ld_insts": kd["ld"]["insts"] + kd["ldsm"]["insts"],
                    "ld_wavefronts": kd["ld"]["wavefronts"] +
                    kd["ldsm"]["wavefronts"],
                    "st_insts": kd["st"]["insts"] + kd["stsm"]["insts"] +
                    kd["ldgsts"]["insts"],
                    "st_wavefronts": kd["st"]["wavefronts"] +
                    kd["stsm"]["wavefronts"] + kd["ldgsts"]["wavefronts"]}
            for key, v in mine.items():
                if key in per[k] and per[k][key] != v:
                    raise Stop(EXIT_INPUT, "candidate %d, problem %d: the run "
                               "modelled %s = %s, the plan today %d: the "
                               "config or the tuner changed since the run"
                               % (cid, k, key, per[k][key], v))


def align(expected, measured, window):
    """Pairs the profiled launches with the expected ones (all, or the
    window FIRST:COUNT of them); Stop when there are not as many, or when
    their grids and blocks say they are not the same launches."""
    first, count = window if window else (0, len(expected))
    want = expected[first:first + count]
    if len(want) != len(measured):
        raise Stop(EXIT_MEASURE, "ncu profiled %d launches%s; the run's "
                   "journal accounts for %d launches of the kernel%s"
                   % (len(measured), " from launch %d on" % first
                      if window else "", len(expected),
                      " (%d in the window)" % len(want) if window else ""))
    for n, (e, m) in enumerate(zip(want, measured)):
        sig = e.get("sig")
        if sig is None or m["grid"] is None or m["block"] is None:
            continue
        if (m["grid"], m["block"]) != sig:
            raise Stop(EXIT_MEASURE, "launch %d (ncu ID %s) has grid %s and "
                       "block %s; the run's order puts %s there, with grid %s "
                       "and block %s: the launches do not line up"
                       % (first + n, m["ncu_id"], m["grid"], m["block"],
                          describe(e), sig[0], sig[1]))
    return want


def describe(e):
    if e["what"] == "candidate":
        return "candidate %d's %s launch on problem %d" % (
            e["id"], e["step"], e["problem"])
    if e["what"] == "reference":
        return "the reference (the default point) on problem %d" % e["problem"]
    return "the baseline's %s launch on problem %d" % (e["step"],
                                                       e["problem"])


def attribute(plan, counts, rows, kind):
    """Messages that tie a kind's differing counts to declared accesses by
    their `line`s and to the source lines ncu attributes instructions to."""
    kfile = os.path.basename(plan["kernel"]["file"])
    accs = [(i, a) for i, a in enumerate(plan["accesses"])
            if a["kind"] == kind]
    measured = {}
    for r in rows:
        if r["kind"] != kind or r["line"] is None:
            continue
        f = os.path.basename(r["file"]) if r["file"] else kfile
        key = (f, r["line"])
        n, w = measured.get(key, (0, 0))
        measured[key] = (n + r["insts"], w + r["waves"])
    # accesses whose lines meet are one group: the instructions of a line
    # cannot be split between them
    groups = []
    for i, a in accs:
        if not a["kernel_lines"]:
            continue
        lines = set(a["kernel_lines"])
        merged = [g for g in groups if g["lines"] & lines]
        g = {"lines": set(lines), "acc": [(i, a)]}
        for m in merged:
            g["lines"] |= m["lines"]
            g["acc"] += m["acc"]
            groups.remove(m)
        groups.append(g)
    msgs = []
    named = set()
    for g in groups:
        decl_n = sum(counts[i]["insts"] for i, _ in g["acc"])
        decl_w = sum(counts[i]["wavefronts"] for i, _ in g["acc"])
        got_n = sum(measured.get((kfile, ln), (0, 0))[0] for ln in g["lines"])
        got_w = sum(measured.get((kfile, ln), (0, 0))[1] for ln in g["lines"])
        named |= {(kfile, ln) for ln in g["lines"]}
        at = lines_text(plan, g["lines"])
        who = ", ".join("'%s' (%s)" % (a["name"], where(a))
                        for _, a in sorted(g["acc"]))
        if got_n == 0 and decl_n > 0:
            msgs.append("the kernel has no %s at %s: access%s %s declare%s "
                        "%d instructions per launch there"
                        % (kind, at, "es" if len(g["acc"]) > 1 else "", who,
                           "" if len(g["acc"]) > 1 else "s", decl_n))
        elif (got_n, got_w) != (decl_n, decl_w):
            msgs.append("access%s %s: declared %d %s instructions and %d "
                        "wavefronts per launch at %s, measured %d and %d"
                        % ("es" if len(g["acc"]) > 1 else "", who, decl_n,
                           kind, decl_w, at, got_n, got_w))
    unlined = [(i, a) for i, a in accs if not a["kernel_lines"]]
    rest = {key: v for key, v in measured.items() if key not in named}
    if unlined:
        decl_n = sum(counts[i]["insts"] for i, _ in unlined)
        decl_w = sum(counts[i]["wavefronts"] for i, _ in unlined)
        got_n = sum(v[0] for v in rest.values())
        got_w = sum(v[1] for v in rest.values())
        if (got_n, got_w) != (decl_n, decl_w):
            msgs.append("access%s %s (no `line`): declared %d %s instructions "
                        "and %d wavefronts per launch, measured %d and %d on "
                        "the lines no access names (%s)"
                        % ("es" if len(unlined) > 1 else "",
                           ", ".join("'%s' (%s)" % (a["name"], where(a))
                                     for _, a in unlined),
                           decl_n, kind, decl_w, got_n, got_w,
                           ", ".join("%s:%d" % key for key in sorted(rest))
                           or "none"))
    else:
        for key in sorted(rest):
            n, w = rest[key]
            if n:
                msgs.append("%s:%d executes %d %s instructions (%d "
                            "wavefronts) per launch that no declared access "
                            "names" % (key[0], key[1], n, kind, w))
    return msgs


def compare(plan, pairs, measured, blocks, out):
    """Rows of the table; the messages of the launches that differ go to
    out (an Out, printed after the table)."""
    table = []
    differ = 0
    seen = {}
    kinds_used = {a["kind"] for a in plan["accesses"]}
    for n, (e, m) in enumerate(pairs):
        index = e["index"]
        pid = e["id"] if e["what"] != "baseline" else None
        point = plan_point(plan, pid) if pid is not None else None
        if point is None:
            table.append((index, e, m, None, None))
            continue
        pp = point["per_problem"][e["problem"]]
        bad = [k for k in KINDS
               if (pp["kinds"][k]["insts"], pp["kinds"][k]["wavefronts"])
               != m["counts"][k]]
        table.append((index, e, m, pp, bad))
        if not bad:
            continue
        differ += 1
        key = (pid, e["problem"], tuple(bad),
               tuple(m["counts"][k] for k in bad))
        head = ("launch %d (%s; %s): differs in %s"
                % (index, describe(e), point["params_text"], ", ".join(bad)))
        if key in seen:
            out.say(head + ": as launch %d" % seen[key])
            continue
        seen[key] = index
        out.say(head)
        for k in bad:
            d, g = pp["kinds"][k], m["counts"][k]
            out.say("  %s: the plan %d instructions and %d wavefronts per "
                    "launch, ncu %d and %d" % (k, d["insts"], d["wavefronts"],
                                               g[0], g[1]))
            accs = [a for a in plan["accesses"] if a["kind"] == k]
            if not accs:
                out.say("    the plan declares no %s access; the kernel "
                        "executes %d %s instructions (%d wavefronts) per "
                        "launch" % (k, g[0], k, g[1]))
            for a in accs:
                c = pp["accesses"][a["index"]]
                out.say("    access '%s' (%s) on array '%s', %s: declared "
                        "%d instructions and %d wavefronts per launch%s"
                        % (a["name"], where(a), a["array"], a["op"],
                           c["insts"], c["wavefronts"],
                           " (none executed)" if g[0] == 0 else ""))
            if blocks is not None:
                for msg in attribute(plan, pp["accesses"], blocks[n], k):
                    out.say("    " + msg)
    return table, differ, kinds_used


def write_table(path, plan, table, kinds_used, out):
    cols = ["launch", "what", "id", "step", "problem", "params", "ncu_id",
            "kind", "plan_insts", "ncu_insts", "plan_wavefronts",
            "ncu_wavefronts", "equal", "hw_ld_wavefronts",
            "hw_st_wavefronts"]
    with open(path, "w") as f:
        f.write("\t".join(cols) + "\n")
        for index, e, m, pp, bad in table:
            for k in KINDS:
                if pp is None:
                    d = {"insts": "", "wavefronts": ""}
                    eq = "not compared"
                else:
                    d = pp["kinds"][k]
                    eq = "no" if k in bad else "yes"
                if k not in kinds_used and m["counts"][k] == (0, 0) and \
                        (pp is None or d["insts"] == 0):
                    continue
                f.write("\t".join(str(x) for x in [
                    index, e["what"], "" if e["id"] is None else e["id"],
                    e["step"], e["problem"],
                    plan_point(plan, e["id"])["params_text"]
                    if pp is not None else "", m["ncu_id"], k, d["insts"],
                    m["counts"][k][0], d["wavefronts"], m["counts"][k][1],
                    eq, m["hardware"][0], m["hardware"][1]]) + "\n")
    # the printed table: a line per launch, plan/ncu per kind used
    used = [k for k in KINDS if k in kinds_used or
            any(m["counts"][k] != (0, 0) for _, _, m, _, _ in table)]
    out.say("%-6s %-9s %-6s %-9s %-4s  %s  %s" % (
        "launch", "what", "id", "step", "prob",
        "  ".join("%-33s" % ("%s insts / wavefronts (plan|ncu)" % k)
                  for k in used), "equal"))
    for index, e, m, pp, bad in table:
        cells = []
        for k in used:
            g = m["counts"][k]
            if pp is None:
                cells.append("%-33s" % ("-|%d / -|%d" % (g[0], g[1])))
            else:
                d = pp["kinds"][k]
                cells.append("%-33s" % ("%d|%d / %d|%d" % (
                    d["insts"], g[0], d["wavefronts"], g[1])))
        out.say("%-6d %-9s %-6s %-9s %-4d  %s  %s" % (
            index, e["what"], "" if e["id"] is None else e["id"],
            e["step"], e["problem"], "  ".join(cells),
            "-" if pp is None else "NO" if bad else "yes"))


# ------------------------------------------------------------- main
def parse_window(text):
    m = re.fullmatch(r"(\d+):(\d+)", text or "")
    if not m or int(m.group(2)) < 1:
        raise Stop(EXIT_INPUT, "--launches: %r is not FIRST:COUNT (COUNT >= 1)"
                   % text)
    return int(m.group(1)), int(m.group(2))


def profile(args, runner, plan, out_dir, out):
    """The tuning run under ncu; returns the raw and source CSV texts and
    the results file."""
    ncu = shutil.which(args.ncu) or (args.ncu if os.path.isfile(args.ncu)
                                     and os.access(args.ncu, os.X_OK)
                                     else None)
    if ncu is None:
        raise Stop(EXIT_MEASURE, "Nsight Compute's ncu not found (%r): install "
                   "it or pass --ncu PATH" % args.ncu)
    kernel = plan["kernel"]["name"]
    if not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", kernel):
        raise Stop(EXIT_INPUT, "kernel name %r is not an identifier" % kernel)
    report = os.path.join(out_dir, "report")
    tune_out = os.path.join(out_dir, "tune")
    if glob.glob(os.path.join(tune_out, "*.json")):
        raise Stop(EXIT_INPUT, "%s already holds results: give a fresh --out"
                   % tune_out)
    cmd = [ncu, "--clock-control", "none", "--target-processes", "all",
           "--kernel-name-base", "function", "--kernel-name",
           "regex:^%s$" % kernel, "--metrics", ",".join(METRICS)]
    if args.launches:
        first, count = parse_window(args.launches)
        cmd += ["--launch-skip", str(first), "--launch-count", str(count)]
    if not args.no_source:
        cmd += ["--section", "SourceCounters", "--import-source", "yes",
                "--source-folders",
                os.path.dirname(os.path.abspath(plan["kernel"]["file"]))]
    cmd += ["-f", "-o", report, args.tuner, "--config", args.config,
            "--device", str(args.device), "-r", "1", "--warmup", "0",
            "--full-protocol", "--no-prune", "-q", "--output", tune_out]
    log = os.path.join(out_dir, "ncu_tuner.log")
    rc, _ = runner.run(cmd, args.timeout, log_path=log)
    text = open(log, errors="replace").read()
    if "ERR_NVGPUCTRPERM" in text:
        raise Stop(EXIT_MEASURE, "ncu may not read the GPU's performance "
                   "counters (ERR_NVGPUCTRPERM): run as root, or allow "
                   "non-admin profiling (NVreg_RestrictProfilingToAdminUsers"
                   "=0); see %s" % log)
    if rc != 0:
        errors = [ln for ln in text.splitlines() if "==ERROR==" in ln]
        raise Stop(EXIT_MEASURE, "ncu or the tuning run failed (status %d)%s; "
                   "its output: %s" % (rc, ": " + " / ".join(errors[:5])
                                       if errors else "", log))
    results = sorted(glob.glob(os.path.join(tune_out, "*.json")))
    if not results:
        raise Stop(EXIT_MEASURE, "the run wrote no results into %s; see %s"
                   % (tune_out, log))
    rep = report + ".ncu-rep"
    if not os.path.isfile(rep):
        raise Stop(EXIT_MEASURE, "ncu wrote no report %s (did the kernel run "
                   "at all?); see %s" % (rep, log))
    raw_path = os.path.join(out_dir, "ncu_raw.csv")
    rc, raw = runner.run([ncu, "--import", rep, "--csv", "--page", "raw"],
                         args.import_timeout, stdout_path=raw_path)
    if rc != 0:
        raise Stop(EXIT_MEASURE, "ncu could not read back its report (status "
                   "%d): %s" % (rc, runner.stderr.strip()[-2000:]))
    source = None
    if not args.no_source:
        src_path = os.path.join(out_dir, "ncu_source.csv")
        rc, source = runner.run(
            [ncu, "--import", rep, "--csv", "--page", "source",
             "--print-source", "cuda,sass", "--resolve-source-file",
             os.path.abspath(plan["kernel"]["file"])],
            args.import_timeout, stdout_path=src_path)
        if rc != 0:
            out.say("note: no source page (ncu status %d: %s): the accesses "
                    "that differ are named by kind only"
                    % (rc, runner.stderr.strip()[-500:]))
            source = None
    return raw, source, results[-1]


def check(args, out):
    os.makedirs(args.out, exist_ok=True)
    runner = Runner(args.out, out)
    offline = args.raw_csv is not None
    if offline and not args.results:
        raise Stop(EXIT_INPUT, "--raw-csv needs --results (the run's results "
                   "file, its journal beside it)")
    if not os.path.isfile(args.tuner) or not os.access(args.tuner, os.X_OK):
        raise Stop(EXIT_INPUT, "--tuner %s: not an executable" % args.tuner)
    if not os.path.isfile(args.config):
        raise Stop(EXIT_INPUT, "--config %s: no such file" % args.config)
    window = parse_window(args.launches) if args.launches else None
    first = window[0] if window else 0
    # before any GPU work: the config declares a plan, and its kernel
    plan = load_plan(runner, args.tuner, args.config, args.arch, None,
                     os.path.join(args.out, "plan-all.json"),
                     args.import_timeout)
    if offline:
        out.say("recorded profile: %s%s; the run: %s" % (
            args.raw_csv, " and " + args.source_csv if args.source_csv
            else "", args.results))
        try:
            raw = open(args.raw_csv, errors="replace").read()
            source = (open(args.source_csv, errors="replace").read()
                      if args.source_csv else None)
        except OSError as e:
            raise Stop(EXIT_INPUT, str(e))
        # beside the table, as a run leaves them
        write(os.path.join(args.out, "ncu_raw.csv"), raw)
        if source is not None:
            write(os.path.join(args.out, "ncu_source.csv"), source)
        results = args.results
    else:
        raw, source, results = profile(args, runner, plan, args.out, out)
    doc, entries = read_results(results)
    arch = (doc.get("device") or {}).get("arch")
    expected = expected_launches(plan, doc, entries)
    for n, e in enumerate(expected):
        e["index"] = n
    ids = sorted({e["id"] for e in expected if e["what"] == "candidate"})
    if arch and arch != plan["arch"]:
        plan = load_plan(runner, args.tuner, args.config, arch, ids,
                         os.path.join(args.out, "plan.json"),
                         args.import_timeout)
    else:
        write(os.path.join(args.out, "plan.json"), json.dumps(plan))
    check_model(plan, doc, ids)
    for e in expected:
        if e["what"] == "candidate":
            pp = plan_point(plan, e["id"])["per_problem"][e["problem"]]
            e["sig"] = launch_sig(pp["launch"])
    measured = parse_raw(raw, plan["kernel"]["name"])
    pairs = list(zip(align(expected, measured, window), measured))
    blocks = None
    if source is not None:
        sblocks = parse_source(source,
                               os.path.basename(plan["kernel"]["file"]),
                               named_lines(plan))
        why = source_lines_fit(sblocks, measured)
        if why:
            out.say("note: the source page cannot be tied to the launches "
                    "(%s): the accesses that differ are named by kind only"
                    % why)
        else:
            blocks = sblocks
    notes = Out(echo=False)
    table, differ, kinds_used = compare(plan, pairs, measured, blocks, notes)
    write_table(os.path.join(args.out, "plan_vs_ncu.tsv"), plan, table,
                kinds_used, out)
    for line in notes.lines:
        out.say(line)
    compared = sum(1 for t in table if t[3] is not None)
    out.say("%s: %d launches of %s profiled (launches %d to %d of the %d the "
            "run made); %d compared with the plan: %d equal, %d differ%s"
            % (plan["config"], len(measured), plan["kernel"]["name"], first,
               first + len(measured) - 1, len(expected), compared,
               compared - differ, differ,
               "" if blocks is not None or source is None
               else "; no attribution to source lines"))
    return EXIT_DIFFER if differ else EXIT_EQUAL


def main(argv):
    ap = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0],
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog="See docs/plan-check.md.")
    ap.add_argument("--tuner", required=True, help="the tuner binary")
    ap.add_argument("--config", required=True,
                    help="a config that describes its kernel with a plan")
    ap.add_argument("--out", required=True, help="folder for what it writes")
    ap.add_argument("--arch", help="for `tuner plan` before the run (default:"
                    " the tuner's; after it, the run's)")
    ap.add_argument("--ncu", default="ncu", help="Nsight Compute's CLI")
    ap.add_argument("--device", type=int, default=0, help="GPU ordinal")
    ap.add_argument("--timeout", type=int, default=3000,
                    help="seconds for the profiled run (default 3000)")
    ap.add_argument("--import-timeout", type=int, default=600,
                    help="seconds for each other command (default 600)")
    ap.add_argument("--launches", metavar="FIRST:COUNT",
                    help="profile only these launches of the kernel")
    ap.add_argument("--no-source", action="store_true",
                    help="no SourceCounters section: faster, no attribution "
                    "to source lines")
    ap.add_argument("--raw-csv", help="a recorded `ncu --import R --csv "
                    "--page raw` (no run)")
    ap.add_argument("--source-csv", help="a recorded `ncu --import R --csv "
                    "--page source --print-source cuda,sass`")
    ap.add_argument("--results", help="the recorded run's results JSON")
    args = ap.parse_args(argv)
    out = Out()
    try:
        status = check(args, out)
    except Stop as e:
        out.say("plan_vs_ncu: %s" % e)
        status = e.status
    try:
        write(os.path.join(args.out, "report.txt"),
              "\n".join(out.lines) + "\n")
    except OSError as e:
        print("plan_vs_ncu: cannot write report.txt: %s" % e, file=sys.stderr)
    return status


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
