"""smem_probe's pattern file and kernel sources: the op and width rules, the
parser of the pattern file (Pattern, PatternError, parse_patterns), one
kernel's CUDA source per pattern (kernel_source), the REPS = 0 baseline
kernels, and the part files and host program written to OUT/src
(generate).  Part of scripts/smem_probe.py; Python 3 standard library only.
"""

import os
import re

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


def op_kind(op):
    """'ld', 'st', 'ldsm', 'stsm' or 'ldgsts'."""
    if op.startswith("cp.async"):
        return "ldgsts"
    if op.startswith("ldmatrix"):
        return "ldsm"
    if op.startswith("stmatrix"):
        return "stsm"
    return op


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
