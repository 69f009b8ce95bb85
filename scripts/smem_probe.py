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
import csv
import glob
import os
import re
import shutil
import signal
import subprocess
import sys
import tarfile
import threading
import time
from concurrent.futures import ThreadPoolExecutor

NLANES = 32
LDST_WIDTHS = (1, 2, 4, 8, 16)
MATRIX_OPS = tuple("%s.%s%s" % (k, n, t)
                   for k in ("ldmatrix", "stmatrix")
                   for n in ("x1", "x2", "x4")
                   for t in ("", ".trans"))
# cp.async copies global memory straight to shared memory (LDGSTS in SASS);
# .ca takes 4, 8 or 16 bytes a lane, .cg only 16.
ASYNC_OPS = ("cp.async.ca", "cp.async.cg")
ASYNC_WIDTHS = {"cp.async.ca": (4, 8, 16), "cp.async.cg": (16,)}
VALID_OPS = ("ld", "st") + MATRIX_OPS + ASYNC_OPS
GLOBAL_BYTES = 256 * 1024        # the cp.async source buffer, per part file
MAX_OFFSET = 200 * 1024          # sm_90 allows 227 KB of shared memory a block
SMEM_ALIGN = 1024                # the pattern offsets start at a 1 KB boundary
OPT_IN_LIMIT = 48 * 1024         # above this a kernel needs the opt-in attribute

# Opcodes that touch (or may touch) shared memory in SASS.  Generic LD/ST/ATOM
# may address shared memory; LDG/STG (global) and LDC (constant) may not.
SHARED_SASS = re.compile(r"^(LDS|STS|LDSM|STSM|ATOMS|LD|ST|ATOM|RED|LDGSTS|"
                         r"UBLKCP|UTMALDG|UTMASTG|SYNCS)$")

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


def op_kind(op):
    """'ld', 'st', 'ldsm', 'stsm' or 'ldgsts'."""
    if op.startswith("cp.async"):
        return "ldgsts"
    if op.startswith("ldmatrix"):
        return "ldsm"
    if op.startswith("stmatrix"):
        return "stsm"
    return op


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


# ---------------------------------------------------------------- patterns
class Pattern(object):
    def __init__(self, pid, op, width, addrs, line, gaddrs=None, zfill=0):
        self.id = pid
        self.op = op
        self.width = width
        self.addrs = addrs          # list of 32 ints or None (inactive)
        self.line = line
        # cp.async only: lane i copies from global byte offset gaddrs[i]
        # (default: its shared offset); bit i of zfill: src-size 0, the
        # lane's bytes are zero-filled instead of read
        self.gaddrs = gaddrs if gaddrs is not None else \
            [0 if a is None else a for a in addrs]
        self.zfill = zfill
        self.kernel = None
        self.reps = 0
        self.baseline = False

    @property
    def matrix(self):
        return "matrix" in self.op

    @property
    def mask(self):
        m = 0
        for i, a in enumerate(self.addrs):
            if a is not None:
                m |= 1 << i
        return m

    @property
    def predicated(self):
        return self.mask != 0xFFFFFFFF

    @property
    def is_async(self):
        return self.op in ASYNC_OPS

    def addr_text(self):
        toks = []
        for i, a in enumerate(self.addrs):
            z = "z" if self.zfill >> i & 1 else ""
            toks.append("-" if a is None else "%d%s" % (a, z))
        text = " ".join(toks)
        if self.is_async:
            text += " | " + " ".join("-" if a is None else str(g)
                                     for a, g in zip(self.addrs, self.gaddrs))
        return text

    def smem_bytes(self):
        top = max(a for a in self.addrs if a is not None) + self.width
        return top + SMEM_ALIGN


class PatternError(Exception):
    pass


def parse_patterns(path):
    try:
        with open(path) as f:
            text = f.read()
    except (IOError, OSError) as e:
        raise PatternError("%s: %s" % (path, e))
    pats = []
    ids = set()
    pending = None
    for lineno, raw in enumerate(text.splitlines(), 1):
        line = raw.strip()
        where = "%s:%d: " % (path, lineno)
        if not line:
            continue
        if line.startswith("#"):
            m = re.match(r"#\s*id:\s*(\S+)\s*$", line)
            if m:
                if pending is not None:
                    raise PatternError(where + "id %r follows id %r with no pattern between"
                                       % (m.group(1), pending))
                pending = m.group(1)
                if not re.match(r"^[A-Za-z0-9_.+:-]+$", pending):
                    raise PatternError(where + "bad id %r (letters, digits, _.+:- only)"
                                       % pending)
            continue
        if "#" in line:
            line = line.split("#", 1)[0].strip()
        line, bar, gpart = line.partition("|")
        f = line.split()
        if len(f) != 2 + NLANES:
            raise PatternError(where + "expected OP WIDTH and %d addresses, got %d fields"
                               % (NLANES, len(f)))
        op = f[0]
        if op not in VALID_OPS:
            raise PatternError(where + "unknown op %r" % op)
        is_async = op in ASYNC_OPS
        if bar and not is_async:
            raise PatternError(where + "'|' and global offsets are for cp.async only")
        if not re.match(r"^[0-9]+$", f[1]):
            raise PatternError(where + "bad width %r" % f[1])
        width = int(f[1])
        matrix = "matrix" in op
        if matrix and width != 16:
            raise PatternError(where + "%s needs width 16, got %d" % (op, width))
        if is_async and width not in ASYNC_WIDTHS[op]:
            raise PatternError(where + "%s takes widths %s, got %d"
                               % (op, ASYNC_WIDTHS[op], width))
        if not matrix and width not in LDST_WIDTHS:
            raise PatternError(where + "width must be one of %s, got %d"
                               % (LDST_WIDTHS, width))
        addrs = []
        zfill = 0
        for i, tok in enumerate(f[2:]):
            if is_async and tok.endswith("z"):
                tok = tok[:-1]
                zfill |= 1 << i
            if tok == "-":
                if matrix:
                    raise PatternError(where + "lane %d: %s executes on all lanes, "
                                       "'-' not allowed" % (i, op))
                addrs.append(None)
                continue
            if not re.match(r"^[0-9]+$", tok):
                raise PatternError(where + "lane %d: bad address %r" % (i, tok))
            a = int(tok)
            if a % width:
                raise PatternError(where + "lane %d: address %d not a multiple of width %d"
                                   % (i, a, width))
            if a + width > MAX_OFFSET:
                raise PatternError(where + "lane %d: address %d beyond %d bytes"
                                   % (i, a, MAX_OFFSET))
            addrs.append(a)
        if all(a is None for a in addrs):
            raise PatternError(where + "no active lane")
        gaddrs = None
        if bar:
            g = gpart.split()
            if len(g) != NLANES:
                raise PatternError(where + "expected %d global offsets after '|', got %d"
                                   % (NLANES, len(g)))
            gaddrs = []
            for i, tok in enumerate(g):
                if tok == "-" and addrs[i] is None:
                    gaddrs.append(0)
                    continue
                if not re.match(r"^[0-9]+$", tok) or addrs[i] is None:
                    raise PatternError(where + "lane %d: bad global offset %r (a number for"
                                       " an active lane, '-' for an inactive one)" % (i, tok))
                ga = int(tok)
                if ga % width or ga + width > GLOBAL_BYTES:
                    raise PatternError(where + "lane %d: global offset %d not a multiple of"
                                       " %d below %d" % (i, ga, width, GLOBAL_BYTES))
                gaddrs.append(ga)
        pid = pending if pending is not None else "line%d" % lineno
        pending = None
        if pid in ids:
            raise PatternError(where + "duplicate id %r" % pid)
        ids.add(pid)
        pats.append(Pattern(pid, op, width, addrs, lineno, gaddrs, zfill))
    if pending is not None:
        raise PatternError("%s: id %r at end of file names no pattern" % (path, pending))
    if not pats:
        raise PatternError("%s: no patterns" % path)
    return pats


# ---------------------------------------------------------------- codegen
KERNEL_HEAD = """extern "C" __global__ void __launch_bounds__(32)
%(name)s(const unsigned* __restrict__ tab, unsigned* __restrict__ out, int reps, unsigned zmask)
{
  /* %(desc)s */
  const unsigned lane = threadIdx.x & 31u;
  const unsigned sbase = ((unsigned)__cvta_generic_to_shared(smem_dyn) + %(am1)du) & ~%(am1)du;
  const unsigned addr0 = sbase + tab[lane];
"""

LD_VARS = {1: ["v0"], 2: ["v0"], 4: ["v0"], 8: ["v0", "v1"], 16: ["v0", "v1", "v2", "v3"]}
PTX_TYPE = {1: "u8", 2: "u16", 4: "u32", 8: "v2.u32", 16: "v4.u32"}
MATRIX_NREGS = {"x1": 1, "x2": 2, "x4": 4}


def asm_str(lines):
    return '"' + "\\n\\t".join(lines) + '"'


def kernel_source(p):
    desc = "%s: %s %d (id %s)" % (p.kernel, p.op, p.width, p.id.replace("*/", "* /"))
    src = [KERNEL_HEAD % {"name": p.kernel, "desc": desc, "am1": SMEM_ALIGN - 1}]
    kind = op_kind(p.op)
    if kind in ("ld", "st"):
        pred = p.predicated
        if pred:
            src.append("  const unsigned act = (tab[32] >> lane) & 1u;\n")
        ty = PTX_TYPE[p.width]
        n = len(LD_VARS[p.width])
        if kind == "ld":
            vs = LD_VARS[p.width]
            src.append("  unsigned acc = 0u, %s;\n" % ", ".join(v + " = 0u" for v in vs))
            regs = ", ".join("%%%d" % i for i in range(n))
            regs = regs if n == 1 else "{" + regs + "}"
            if pred:
                body = ["{", ".reg .pred p;", "setp.ne.u32 p, %%%d, 0;" % n,
                        "@p ld.volatile.shared.%s %s, [%%%d];" % (ty, regs, n + 1), "}"]
                ins = '"r"(act), "r"(addr0)'
            else:
                body = ["ld.volatile.shared.%s %s, [%%%d];" % (ty, regs, n)]
                ins = '"r"(addr0)'
            outs = ", ".join('"+r"(%s)' % v for v in vs)
            src.append("#pragma unroll 1\n  for (int r = 0; r < reps; ++r) {\n")
            src.append('    asm volatile(%s : %s : %s : "memory");\n' % (asm_str(body), outs, ins))
            src.append("    acc += %s;\n  }\n" % " + ".join(vs))
            src.append("  out[lane] = acc;\n}\n")
        else:
            regs = ", ".join("%%%d" % (i + 2) for i in range(n))
            regs = regs if n == 1 else "{" + regs + "}"
            if pred:
                body = ["{", ".reg .pred p;", "setp.ne.u32 p, %0, 0;",
                        "@p st.volatile.shared.%s [%%1], %s;" % (ty, regs), "}"]
                ins = ['"r"(act)', '"r"(addr0)']
            else:
                regs = ", ".join("%%%d" % (i + 1) for i in range(n))
                regs = regs if n == 1 else "{" + regs + "}"
                body = ["st.volatile.shared.%s [%%0], %s;" % (ty, regs)]
                ins = ['"r"(addr0)']
            ins += ['"r"(d + %du)' % i for i in range(n)]
            src.append("#pragma unroll 1\n  for (int r = 0; r < reps; ++r) {\n")
            src.append("    const unsigned d = (unsigned)r * 0x01010101u + lane;\n")
            src.append('    asm volatile(%s : : %s : "memory");\n' % (asm_str(body), ", ".join(ins)))
            src.append("  }\n  out[lane] = (unsigned)reps;\n}\n")
    elif kind == "ldgsts":
        # the form the GEMM template uses: src-size in a register (0 for a
        # zero-filled lane); one wait per copy keeps one group in flight
        if p.predicated:
            src.append("  const unsigned act = (tab[32] >> lane) & 1u;\n")
        src.append("  const unsigned char* gp = gsrc + tab[33 + lane];\n")
        src.append("  const unsigned ssize = (tab[65] >> lane) & 1u ? 0u : %du;\n" % p.width)
        cp = "%s.shared.global [%%1], [%%2], %d, %%3;" % (p.op, p.width)
        if p.predicated:
            body = ["{", ".reg .pred p;", "setp.ne.u32 p, %0, 0;", "@p " + cp, "}"]
        else:
            # operand %0 unused: the same numbering as the predicated form
            body = ["{", ".reg .u32 unused;", "mov.u32 unused, %0;", cp, "}"]
        body.append("cp.async.wait_all;")
        ins = ['"r"(%s)' % ("act" if p.predicated else "0u"), '"r"(addr0)', '"l"(gp)',
               '"r"(ssize)']
        src.append("#pragma unroll 1\n  for (int r = 0; r < reps; ++r) {\n")
        src.append('    asm volatile(%s : : %s : "memory");\n' % (asm_str(body), ", ".join(ins)))
        src.append("  }\n  out[lane] = (unsigned)reps;\n}\n")
    else:
        cnt = p.op.split(".")[1]
        nr = MATRIX_NREGS[cnt]
        shape = "m8n8.%s%s" % (cnt, ".trans" if p.op.endswith(".trans") else "")
        if kind == "ldsm":
            ds = ["d%d" % i for i in range(nr)]
            src.append("  unsigned acc = 0u, a = addr0, %s;\n" % ", ".join(d + " = 0u" for d in ds))
            regs = "{" + ", ".join("%%%d" % i for i in range(nr)) + "}"
            body = ["ldmatrix.sync.aligned.%s.shared.b16 %s, [%%%d];" % (shape, regs, nr)]
            outs = ", ".join('"=r"(%s)' % d for d in ds)
            src.append("#pragma unroll 1\n  for (int r = 0; r < reps; ++r) {\n")
            src.append('    asm volatile(%s : %s : "r"(a) : "memory");\n' % (asm_str(body), outs))
            src.append("    acc += %s;\n" % " + ".join(ds))
            src.append("    /* zmask is 0 at run time: the next address depends on this load */\n")
            src.append("    a = addr0 ^ (d0 & zmask);\n  }\n")
            src.append("  out[lane] = acc;\n}\n")
        else:
            regs = "{" + ", ".join("%%%d" % (i + 1) for i in range(nr)) + "}"
            body = ["stmatrix.sync.aligned.%s.shared.b16 [%%0], %s;" % (shape, regs)]
            ins = ['"r"(addr0 ^ ((unsigned)r & zmask))'] + ['"r"(d + %du)' % i for i in range(nr)]
            src.append("#pragma unroll 1\n  for (int r = 0; r < reps; ++r) {\n")
            src.append("    const unsigned d = (unsigned)r * 0x00010001u + lane;\n")
            src.append("    /* zmask is 0 at run time: the address is opaque to the compiler */\n")
            src.append('    asm volatile(%s : : %s : "memory");\n' % (asm_str(body), ", ".join(ins)))
            src.append("  }\n  out[lane] = (unsigned)reps;\n}\n")
    return "".join(src)


PART_HEAD = """/* generated by scripts/smem_probe.py -- do not edit */
extern __shared__ __align__(1024) unsigned char smem_dyn[];
/* the cp.async source */
static __device__ __align__(1024) unsigned char gsrc[%d];

""" % GLOBAL_BYTES

MAIN_SRC = r"""/* generated by scripts/smem_probe.py -- do not edit */
#include <cstdio>
#include <cstdlib>
#include <unistd.h>
#include <cuda_runtime.h>

#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { \
  fprintf(stderr, "smem_probe: %%s:%%d: %%s: %%s\n", __FILE__, __LINE__, #x, \
          cudaGetErrorString(e_)); exit(3); } } while (0)

%(part_decls)s

struct Launch { const char* name; int part; int index; int reps; unsigned smem; };
static const Launch launches[] = {
%(launches)s
};
/* per launch: 32 shared offsets, the active mask, 32 global offsets (cp.async),
 * the zero-fill mask (cp.async) */
static const unsigned tabs[][66] = {
%(tabs)s
};
static const int nlaunch = (int)(sizeof launches / sizeof launches[0]);

int main(int argc, char** argv)
{
  const char* stop = argc > 1 ? argv[1] : 0;
  FILE* log = argc > 2 ? fopen(argv[2], "w") : stdout;
  if (!log) { perror(argv[2]); return 3; }
  unsigned *dtab = 0, *dout = 0;
  CK(cudaSetDevice(0));
  CK(cudaMalloc((void**)&dtab, sizeof tabs));
  CK(cudaMemcpy(dtab, tabs, sizeof tabs, cudaMemcpyHostToDevice));
  CK(cudaMalloc((void**)&dout, (size_t)nlaunch * 64 * sizeof(unsigned)));
  CK(cudaMemset(dout, 0, (size_t)nlaunch * 64 * sizeof(unsigned)));
  int done = 0;
  for (int k = 0; k < nlaunch; ++k) {
    if (stop && access(stop, F_OK) == 0) {
      fprintf(log, "STOP before %%s (%%d of %%d launched)\n", launches[k].name, k, nlaunch);
      fprintf(stderr, "smem_probe: stop file seen, %%d of %%d kernels launched\n", k, nlaunch);
      break;
    }
    const Launch& L = launches[k];
    const void* fn = parts[L.part][L.index];
    if (L.smem > %(opt_in)d)
      CK(cudaFuncSetAttribute(fn, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)L.smem));
    const unsigned* t = dtab + (size_t)k * 66;
    unsigned* o = dout + (size_t)k * 64;
    int reps = L.reps;
    unsigned zmask = 0u;
    void* args[] = { (void*)&t, (void*)&o, (void*)&reps, (void*)&zmask };
    CK(cudaLaunchKernel(fn, dim3(1), dim3(32), args, (size_t)L.smem, 0));
    CK(cudaGetLastError());
    CK(cudaDeviceSynchronize());
    fprintf(log, "launched %%s reps=%%d smem=%%u\n", L.name, L.reps, L.smem);
    ++done;
  }
  unsigned* h = (unsigned*)malloc((size_t)nlaunch * 64 * sizeof(unsigned));
  CK(cudaMemcpy(h, dout, (size_t)nlaunch * 64 * sizeof(unsigned), cudaMemcpyDeviceToHost));
  for (int k = 0; k < done; ++k) {
    unsigned s = 0;
    for (int i = 0; i < 32; ++i) s = s * 31u + h[k * 64 + i];
    fprintf(log, "result %%s checksum=%%08x\n", launches[k].name, s);
  }
  fprintf(log, "done %%d of %%d\n", done, nlaunch);
  if (log != stdout) fclose(log);
  CK(cudaFree(dtab));
  CK(cudaFree(dout));
  free(h);
  return 0;
}
"""


def sanitize(s):
    return re.sub(r"[^A-Za-z0-9]", "_", s)


def baseline_kernels(pats):
    """One REPS=0 kernel per (op, width) in the table: its counters are the
    fixed per-kernel overhead (expected 0) subtracted from each pattern's."""
    seen = []
    for p in pats:
        if (p.op, p.width) not in seen:
            seen.append((p.op, p.width))
    out = []
    for op, w in seen:
        step = 16 if "matrix" in op else w
        b = Pattern("baseline-%s-w%d" % (op, w), op, w,
                    [i * step for i in range(NLANES)], 0)
        b.kernel = "z_%s_w%d" % (sanitize(op), w)
        b.baseline = True
        b.reps = 0
        out.append(b)
    return out


def generate(pats, baselines, src_dir, nparts):
    launches = baselines + pats
    parts = [[] for _ in range(nparts)]
    for i, p in enumerate(launches):
        parts[i * nparts // len(launches)].append(p)
    files = []
    for k, group in enumerate(parts):
        text = [PART_HEAD]
        for p in group:
            text.append(kernel_source(p))
            text.append("\n")
        text.append('extern "C" const void* const smem_probe_part%d[] = {\n' % k)
        for p in group:
            text.append("  (const void*)%s,\n" % p.kernel)
        text.append("};\n")
        path = os.path.join(src_dir, "part%02d.cu" % k)
        with open(path, "w") as f:
            f.write("".join(text))
        files.append(path)
    loc = {}
    for k, group in enumerate(parts):
        for j, p in enumerate(group):
            loc[p.kernel] = (k, j)
    decls = ['extern "C" const void* const smem_probe_part%d[];' % k for k in range(nparts)]
    decls.append("static const void* const* const parts[] = { %s };"
                 % ", ".join("smem_probe_part%d" % k for k in range(nparts)))
    lrows, trows = [], []
    for p in launches:
        k, j = loc[p.kernel]
        lrows.append('  { "%s", %d, %d, %d, %du },' % (p.kernel, k, j, p.reps, p.smem_bytes()))
        offs = [0 if a is None else a for a in p.addrs]
        trows.append("  { %s, 0x%08xu,\n    %s, 0x%08xu }," % (
            ", ".join("%du" % a for a in offs), p.mask,
            ", ".join("%du" % g for g in p.gaddrs), p.zfill))
    main = MAIN_SRC % {"part_decls": "\n".join(decls), "launches": "\n".join(lrows),
                       "tabs": "\n".join(trows), "opt_in": OPT_IN_LIMIT}
    mpath = os.path.join(src_dir, "main.cu")
    with open(mpath, "w") as f:
        f.write(main)
    return files, mpath


# ---------------------------------------------------------------- tools
def find_tool(name, explicit, nvcc=None):
    if explicit:
        return explicit if os.path.isfile(explicit) and os.access(explicit, os.X_OK) else None
    cands = []
    w = shutil.which(name)
    if w:
        cands.append(w)
    for env in ("CUDA_HOME", "CUDA_PATH"):
        if os.environ.get(env):
            cands.append(os.path.join(os.environ[env], "bin", name))
    if nvcc:
        cands.append(os.path.join(os.path.dirname(os.path.realpath(nvcc)), name))
    cands.append("/usr/local/cuda/bin/" + name)
    if name == "ncu":
        cands += sorted(glob.glob("/usr/local/cuda/nsight-compute*/ncu"), reverse=True)
        cands += sorted(glob.glob("/usr/local/cuda-*/bin/ncu"), reverse=True)
        cands += sorted(glob.glob("/opt/nvidia/nsight-compute/*/ncu"), reverse=True)
    else:
        cands += sorted(glob.glob("/usr/local/cuda-*/bin/" + name), reverse=True)
        # the PyPI wheels (nvidia-cuda-cuobjdump) install under site-packages
        for d in sys.path:
            cands += sorted(glob.glob(os.path.join(d, "nvidia", "*", "bin", name)))
    for c in cands:
        if os.path.isfile(c) and os.access(c, os.X_OK):
            return c
    return None


def run_logged(cmd, log, **kw):
    """Runs cmd, appends command and output to the open file log."""
    log.write("$ %s\n" % " ".join(cmd))
    log.flush()
    t0 = time.time()
    r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                       universal_newlines=True, **kw)
    log.write(r.stdout)
    log.write("[rc=%d, %.1f s]\n\n" % (r.returncode, time.time() - t0))
    log.flush()
    return r


def say(msg):
    sys.stdout.write("[smem_probe %s] %s\n" % (time.strftime("%H:%M:%S"), msg))
    sys.stdout.flush()


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
