"""smem_probe's build and SASS check: compiles OUT/src in parallel with nvcc
and links the program (build), then checks with cuobjdump that every kernel
holds exactly its one intended shared-memory instruction (sass_check ->
OUT/sass_check.tsv, OUT/cuobjdump.sass).  Part of scripts/smem_probe.py;
Python 3 standard library only.
"""

import glob
import os
import re
import subprocess
import threading
import time
from concurrent.futures import ThreadPoolExecutor

from kernels import generate, op_kind
from tools import run_logged, say


# ---------------------------------------------------------------- build
def build(args, pats, baselines, out):
    src_dir = os.path.join(out, "src")
    build_dir = args.build_dir or os.path.join(out, "build")
    for d in (src_dir, build_dir):
        os.makedirs(d, exist_ok=True)
    for old in glob.glob(os.path.join(src_dir, "part*.cu")):
        os.remove(old)
    jobs = args.jobs or os.cpu_count() or 1
    nkern = len(pats) + len(baselines)
    # enough parts to keep every core busy, ~24+ kernels a part at least
    nparts = max(1, min(2 * jobs, (nkern + 23) // 24))
    files, mpath = generate(pats, baselines, src_dir, nparts)
    say("generated %d kernels (%d patterns + %d baselines) in %d files, compiling on %d jobs"
        % (nkern, len(pats), len(baselines), nparts, jobs))
    flags = ["-O3", "-arch=" + args.arch, "-lineinfo"]
    log_path = os.path.join(out, "nvcc.log")
    lock = threading.Lock()
    logs = {}

    def compile_one(src):
        obj = os.path.join(build_dir, os.path.basename(src)[:-3] + ".o")
        cmd = [args.nvcc] + flags + ["-c", src, "-o", obj]
        t0 = time.time()
        r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                           universal_newlines=True)
        with lock:
            logs[src] = "$ %s\n%s[rc=%d, %.1f s]\n\n" % (" ".join(cmd), r.stdout,
                                                       r.returncode, time.time() - t0)
        return r.returncode, obj

    t0 = time.time()
    with ThreadPoolExecutor(max_workers=jobs) as ex:
        results = list(ex.map(compile_one, files + [mpath]))
    with open(log_path, "w") as log:
        for src in files + [mpath]:
            log.write(logs.get(src, ""))
        if any(rc != 0 for rc, _ in results):
            say("nvcc failed, see %s" % log_path)
            return None
        binary = os.path.join(build_dir, "smem_probe_bin")
        r = run_logged([args.nvcc, "-arch=" + args.arch, "-o", binary]
                       + [o for _, o in results], log)
        if r.returncode != 0:
            say("link failed, see %s" % log_path)
            return None
    say("compiled and linked in %.1f s -> %s" % (time.time() - t0, binary))
    return binary


# ---------------------------------------------------------------- SASS check
# Opcodes that touch (or may touch) shared memory in SASS.  Generic LD/ST/ATOM
# may address shared memory; LDG/STG (global) and LDC (constant) may not.
SHARED_SASS = re.compile(r"^(LDS|STS|LDSM|STSM|ATOMS|LD|ST|ATOM|RED|LDGSTS|"
                         r"UBLKCP|UTMALDG|UTMASTG|SYNCS)$")
INST_RE = re.compile(r"/\*([0-9a-f]{4,})\*/\s+(.*?)\s*;")


def parse_sass(text):
    """{function: [(addr, pred, opcode, text)]}"""
    funcs = {}
    cur = None
    for line in text.splitlines():
        m = re.search(r"Function\s*:\s*(\S+)", line)
        if m:
            cur = funcs.setdefault(m.group(1), [])
            continue
        if cur is None:
            continue
        m = INST_RE.search(line)
        if not m:
            continue
        ins = m.group(2).strip()
        pred = ""
        if ins.startswith("@"):
            pred, _, ins = ins.partition(" ")
            ins = ins.strip()
        opcode = ins.split(None, 1)[0] if ins else ""
        cur.append((int(m.group(1), 16), pred, opcode, ins))
    return funcs


def expected_opcode(p):
    """The SASS opcode intended; for cp.async only its stem (the cache,
    width and zero-fill modifiers are noted, not required)."""
    kind = op_kind(p.op)
    if kind == "ldgsts":
        return "LDGSTS"
    if kind in ("ld", "st"):
        base = "LDS" if kind == "ld" else "STS"
        return base + {1: ".U8", 2: ".U16", 4: "", 8: ".64", 16: ".128"}[p.width]
    cnt = p.op.split(".")[1]
    return "%s.16.%s%s" % ("LDSM" if kind == "ldsm" else "STSM",
                           "MT88" if p.op.endswith(".trans") else "M88",
                           {"x1": "", "x2": ".2", "x4": ".4"}[cnt])


def check_kernel_sass(p, insts):
    """(count, ok, note): count is the number of shared-memory SASS
    instructions; ok when it is exactly the intended one, predicated iff the
    pattern has inactive lanes, and inside the loop (a backward branch
    over it)."""
    if insts is None:
        return -1, False, "kernel not found in SASS"
    # "@!PT" never executes (ptxas pads cp.async.wait_all with such LDS)
    shared = [x for x in insts if SHARED_SASS.match(x[2].split(".")[0])
              and x[1] != "@!PT"]
    ops = ";".join((x[1] + " " if x[1] else "") + x[2] for x in shared)
    if len(shared) != 1:
        return len(shared), False, "expected 1 shared instruction, found: " + (ops or "none")
    addr, pred, opcode, _ = shared[0]
    want = expected_opcode(p)
    if opcode != want and not (p.is_async and opcode.split(".")[0] == want):
        return 1, False, "opcode %s, expected %s" % (opcode, want)
    want_pred = p.predicated and not p.matrix
    if want_pred and not re.match(r"^@P[0-6]$", pred):
        return 1, False, "expected a predicate on %s, got %r" % (opcode, pred)
    if not want_pred and pred:
        return 1, False, "unexpected predicate %s on %s" % (pred, opcode)
    in_loop = False
    for a, _, opc, text in insts:
        if opc == "BRA" and a > addr:
            m = re.search(r"\b0x([0-9a-f]+)\b", text)
            if m and int(m.group(1), 16) <= addr:
                in_loop = True
    if not in_loop:
        return 1, False, "%s is not inside a loop" % opcode
    return 1, True, (pred + " " if pred else "") + opcode


def sass_check(args, binary, launches, out):
    path = os.path.join(out, "cuobjdump.sass")
    if not args.cuobjdump:
        say("WARNING: cuobjdump not found; SASS not checked (sass_count = -1)")
        return {p.kernel: (-1, True, "not checked: no cuobjdump") for p in launches}
    t0 = time.time()
    r = subprocess.run([args.cuobjdump, "-sass", binary], stdout=subprocess.PIPE,
                       stderr=subprocess.STDOUT, universal_newlines=True)
    with open(path, "w") as f:
        f.write(r.stdout)
    if r.returncode != 0:
        say("WARNING: cuobjdump failed (rc %d), see %s; SASS not checked" % (r.returncode, path))
        return {p.kernel: (-1, True, "not checked: cuobjdump failed") for p in launches}
    funcs = parse_sass(r.stdout)
    res = {}
    bad = 0
    with open(os.path.join(out, "sass_check.tsv"), "w") as f:
        f.write("kernel\tid\top\twidth\texpected\tsass_count\tok\tnote\n")
        for p in launches:
            cnt, ok, note = check_kernel_sass(p, funcs.get(p.kernel))
            if p.is_async and ok:
                note = [x[3] for x in funcs[p.kernel]
                        if x[2].startswith("LDGSTS")][0]
            res[p.kernel] = (cnt, ok, note)
            bad += not ok
            f.write("%s\t%s\t%s\t%d\t%s\t%d\t%s\t%s\n" % (p.kernel, p.id, p.op, p.width,
                                                        expected_opcode(p), cnt,
                                                        "ok" if ok else "BAD", note))
    say("SASS check (%.1f s): %d kernels, %d with exactly the intended instruction, %d bad"
        " -> %s" % (time.time() - t0, len(launches), len(launches) - bad, bad,
                    os.path.join(out, "sass_check.tsv")))
    for p in launches:
        if not res[p.kernel][1]:
            say("  BAD SASS %s (%s): %s" % (p.kernel, p.id, res[p.kernel][2]))
    return res
