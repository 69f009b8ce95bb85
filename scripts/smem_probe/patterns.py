#!/usr/bin/env python3
"""Generate the table of warp-wide shared-memory access patterns to measure.

Output format (shared with `tuner conflicts`), one pattern a line:

    OP WIDTH A0 A1 ... A31

OP is ld, st, ldmatrix.x{1,2,4}[.trans] or stmatrix.x{1,2,4}[.trans];
WIDTH the access width in bytes; Ai lane i's byte offset into shared memory
or `-` for an inactive lane (never for ldmatrix/stmatrix).  Every pattern is
preceded by a comment line `# id: <short-name>`.

    python3 patterns.py                 # the main (fitting) set, seed 1
    python3 patterns.py --set heldout   # the held-out set, seed 2
    python3 patterns.py --set confirm|sparse|ablate           # wide loads
    python3 patterns.py --set ldgsts|ldgsts-map|ldgsts-gemm   # cp.async

cp.async lines (OP cp.async.ca or cp.async.cg) may mark a zero-filled lane
with `z` after its offset and go on with `| G0 .. G31`, the global offsets.

Both sets are deterministic.  Python 3 standard library only.
"""

import argparse
import random
import sys

NLANES = 32
WIDTHS = (1, 2, 4, 8, 16)
MATRIX_KINDS = ("ldmatrix", "stmatrix")
MATRIX_COUNTS = ("x1", "x2", "x4")
# Lanes whose row address an ldmatrix/stmatrix .xN uses.
MATRIX_USED_LANES = {"x1": 8, "x2": 16, "x4": 32}


class Table:
    """Collects patterns, rejecting duplicates (same op, width and the
    addresses the instruction actually uses) and malformed ones."""

    def __init__(self):
        self.rows = []
        self.seen = set()
        self.ids = set()
        self.extra = {}

    def add(self, pid, op, width, addrs, gaddrs=None, zfill=0):
        """gaddrs, zfill: cp.async only (global offsets, zero-fill lanes)."""
        assert len(addrs) == NLANES, (pid, len(addrs))
        assert (gaddrs is None and not zfill) or op.startswith("cp.async"), pid
        assert pid not in self.ids, pid
        matrix = "matrix" in op
        if matrix:
            assert width == 16 and all(a is not None for a in addrs), pid
            used = MATRIX_USED_LANES[op.split(".")[1]]
            key = (op, width, tuple(addrs[:used]))
        else:
            assert any(a is not None for a in addrs), pid
            key = (op, width, tuple(addrs),
                   tuple(gaddrs) if gaddrs else None, zfill)
        for a in addrs:
            if a is not None:
                assert a >= 0 and a % width == 0, (pid, a, width)
                assert a + width <= 49152, (pid, a)
        if key in self.seen:
            return False
        self.seen.add(key)
        self.ids.add(pid)
        self.rows.append((pid, op, width, list(addrs)))
        self.extra[pid] = (gaddrs, zfill)
        return True

    def write(self, out):
        for pid, op, width, addrs in self.rows:
            gaddrs, zfill = self.extra[pid]
            out.write("# id: %s\n" % pid)
            fields = ["-" if a is None else
                      "%d%s" % (a, "z" if zfill >> i & 1 else "")
                      for i, a in enumerate(addrs)]
            line = "%s %d %s" % (op, width, " ".join(fields))
            if gaddrs is not None:
                line += " | " + " ".join("-" if a is None else str(g)
                                         for a, g in zip(addrs, gaddrs))
            out.write(line + "\n")


def lanes(fn):
    return [fn(i) for i in range(NLANES)]


def masked(addrs, mask):
    return [a if (mask >> i) & 1 else None for i, a in enumerate(addrs)]


def swizzle(off, b, m, s):
    """CuTe Swizzle<b, m, s> of an offset (same as tn_swizzle)."""
    return off ^ ((off >> s) & (((1 << b) - 1) << m)) if b > 0 else off


def tile_offset(row, col, width, pad, b=0, m=0, s=0):
    """Element offset of (row, col), as tn_smem_offset in smem_layout.h."""
    off = swizzle(row * width + col, b, m, s)
    return (off // width) * (width + pad) + off % width


def log2(x):
    return x.bit_length() - 1


def random_mask(rng, p):
    while True:
        m = 0
        for i in range(NLANES):
            if rng.random() < p:
                m |= 1 << i
        if m:
            return m


# --------------------------------------------------------------------------
# main set


def ldst_patterns(t, rng):
    strides = (0, 1, 2, 3, 4, 8, 16, 17, 32, 33, 64)
    for op in ("ld", "st"):
        for w in WIDTHS:
            pre = "%s%d" % (op, w)
            # strides in units of the access width
            for s in strides:
                t.add("%s-stride%d" % (pre, s), op, w, lanes(lambda i: i * s * w))
            # strides in 4-byte words (new patterns only for 1/2-byte ones;
            # for 8/16 bytes they coincide with the strides above)
            for s in strides[1:]:
                if w == 1 or (4 * s) % w == 0 and w != 2:
                    t.add("%s-wstride%d" % (pre, s), op, w,
                          lanes(lambda i: i * 4 * s))
            # odd strides of 8- and 16-byte accesses
            if w >= 8:
                for s in ((5, 7, 9, 15) if w == 8 else (5, 7)):
                    t.add("%s-stride%d" % (pre, s), op, w,
                          lanes(lambda i: i * s * w))
            # all lanes on one address (stride 0 is address 0)
            if w in (4, 16):
                t.add("%s-same-hi" % pre, op, w, lanes(lambda i: 200 * w))
            # pairs of lanes sharing an address: i and i^k
            for k in ((1, 16) if w < 4 else (1, 8, 16)):
                t.add("%s-pair-xor%d" % (pre, k), op, w,
                      lanes(lambda i: (i & ~k) * w))
            t.add("%s-pair-dense" % pre, op, w, lanes(lambda i: (i >> 1) * w))
            # i and i+16 share; the 16 addresses are all in one bank
            t.add("%s-pair16-bank0" % pre, op, w, lanes(lambda i: (i % 16) * 128))
            # half-warps on the same 128 bytes
            t.add("%s-half-same128" % pre, op, w,
                  lanes(lambda i: ((i % 16) * w) % 128))
            if w >= 4:
                t.add("%s-half-rev128" % pre, op, w,
                      lanes(lambda i: (((i % 16) if i < 16 else 15 - (i % 16)) * w) % 128))
            if w >= 4:
                t.add("%s-half-lines" % pre, op, w,
                      lanes(lambda i: ((i % 16) * w) % 128 + (i // 16) * 128))
            # lanes permuted randomly within a contiguous 512 bytes
            slots = rng.sample(range(512 // w), NLANES)
            t.add("%s-perm512" % pre, op, w, [x * w for x in slots])
            # random addresses within 4 KB and 48 KB
            for kb in (4, 48):
                t.add("%s-rand%dk" % (pre, kb), op, w,
                      lanes(lambda i: rng.randrange(kb * 1024 // w) * w))
            # inactive lanes
            unit = lanes(lambda i: i * w)
            t.add("%s-even-lanes" % pre, op, w, masked(unit, 0x55555555))
            t.add("%s-lane0-only" % pre, op, w, masked(unit, 0x1))
            t.add("%s-upper-half" % pre, op, w, masked(unit, 0xFFFF0000))
            t.add("%s-randmask" % pre, op, w, masked(unit, random_mask(rng, 0.5)))
            if w >= 4:
                t.add("%s-even-bank0" % pre, op, w,
                      masked(lanes(lambda i: i * 128), 0x55555555))


def wide_patterns(t, rng):
    """8- and 16-byte accesses: half-warp and quarter-warp overlaps."""
    for op in ("ld", "st"):
        # 8 bytes: lanes 0-15 vs 16-31
        w = 8
        t.add("%s8-halves-one-addr-each" % op, op, w, lanes(lambda i: (i // 16) * 8))
        t.add("%s8-halves-diff-bank-same" % op, op, w,
              lanes(lambda i: (i % 16) * 8 + (i // 16) * 256))
        t.add("%s8-halves-swapped" % op, op, w,
              lanes(lambda i: ((i % 16) + (16 if i < 16 else 0)) * 8))
        t.add("%s8-halves-interleave" % op, op, w,
              lanes(lambda i: ((i % 16) * 2 + (i // 16)) * 8))
        t.add("%s8-stride2-upper-shared" % op, op, w,
              lanes(lambda i: (i * 2 * 8) if i < 16 else (i % 16) * 2 * 8))
        # 16 bytes: quarter-warps (lanes 8q..8q+7)
        w = 16
        q_layouts = {
            "q-all-same": lambda i: (i % 8) * 16,
            "q01-same-q23-diff": lambda i: (i % 8) * 16 + (0 if i < 16 else (i // 8) * 128),
            "q02-q13": lambda i: (i % 8) * 16 + ((i // 8) % 2) * 128,
            "q-reversed": lambda i: (7 - i % 8) * 16 + (i // 8) * 128,
            "q-half-overlap": lambda i: ((i % 8) + 4 * (i // 8)) * 16,
            "q-same-bank-other-line": lambda i: (i % 8) * 16 + (i // 8) * 512,
            "q-two-addrs": lambda i: ((i // 8) % 2) * 16,
            "q-bcast-each": lambda i: (i // 8) * 16,
        }
        for name, fn in q_layouts.items():
            t.add("%s16-%s" % (op, name), op, w, lanes(fn))
        # quarter-warps permuted randomly within 128 bytes
        perm = lanes(lambda i: 0)
        for q in range(4):
            p = rng.sample(range(8), 8)
            for j in range(8):
                perm[8 * q + j] = p[j] * 16
        t.add("%s16-q-perm128" % op, op, w, perm)


def tile_patterns(t):
    """Row and column reads/writes of fp32 (and float2/float4) tiles."""
    for op in ("ld", "st"):
        for n in (32, 64):
            variants = [("pad%d" % p, p, 0, 0, 0) for p in (0, 1, 2, 4)]
            # col ^ row swizzle = Swizzle<log2(min(n,32)), 0, log2(n)>
            variants.append(("xor", 0, log2(min(n, 32)), 0, log2(n)))
            for name, pad, b, m, s in variants:
                def at(r, c):
                    return 4 * tile_offset(r, c, n, pad, b, m, s)
                pre = "%s4-t%d-%s" % (op, n, name)
                t.add(pre + "-row0", op, 4, lanes(lambda i: at(0, i)))
                t.add(pre + "-col0", op, 4, lanes(lambda i: at(i, 0)))
                if n == 64:
                    # second half of a row, lower rows of a column
                    t.add(pre + "-row5", op, 4, lanes(lambda i: at(5, 32 + i)))
                    t.add(pre + "-col7", op, 4, lanes(lambda i: at(32 + i, 7)))
        # Hopper 128/64/32-byte swizzles of a 32-wide fp32 tile: Swizzle<3|2|1,2,3>
        for name, b, m, s in (("sw128", 3, 2, 3), ("sw64", 2, 2, 3), ("sw32", 1, 2, 3)):
            def at_sw(r, c):
                return 4 * tile_offset(r, c, 32, 0, b, m, s)
            t.add("%s4-t32-%s-row3" % (op, name), op, 4, lanes(lambda i: at_sw(3, i)))
            t.add("%s4-t32-%s-col0" % (op, name), op, 4, lanes(lambda i: at_sw(i, 0)))
        # float2 / float4 accesses of a padded fp32 tile: lane i takes the
        # vector at (row, vw*i) (a row), at (i, 0) (a column of vectors) or
        # 8 lanes a row over 4 rows
        for w in (8, 16):
            vw = w // 4
            for n in (32, 64):
                for pad in (0, vw):
                    def at_v(r, c):
                        return 4 * tile_offset(r, c, n, pad)
                    pre = "%s%d-t%d-pad%d" % (op, w, n, pad)
                    per = n // vw
                    t.add(pre + "-rows", op, w,
                          lanes(lambda i: at_v(1 + i // per, vw * (i % per))))
                    t.add(pre + "-col0", op, w, lanes(lambda i: at_v(i, 0)))
                    t.add(pre + "-8x4", op, w, lanes(lambda i: at_v(i // 8, vw * (i % 8))))


def matrix_ops():
    for kind in MATRIX_KINDS:
        for n in MATRIX_COUNTS:
            for trans in ("", ".trans"):
                yield "%s.%s%s" % (kind, n, trans)


def hopper_swz(addr, mask):
    """16-byte chunk index (bits 4-6) ^= bits 7-9 masked: 128B (7), 64B (3),
    32B (1) swizzles as CuTe Swizzle<3|2|1, 4, 3> on byte addresses."""
    return addr ^ (((addr >> 7) & mask) << 4)


def matrix_patterns(t, rng):
    for op in matrix_ops():
        n = op.split(".")[1]
        trans = op.endswith(".trans")
        pre = op.replace("matrix.", "m-").replace(".trans", "t")
        pitches = (16, 32, 64, 128, 144, 256)
        for p in pitches:
            t.add("%s-pitch%d" % (pre, p), op, 16, lanes(lambda i: i * p))
        # 16x16 tile as used for mma fragments: lanes 0-15 rows, 16-31 next
        # 16-byte column
        if n == "x4":
            for p in ((128,) if trans else (64, 128, 144)):
                t.add("%s-mma-pitch%d" % (pre, p), op, 16,
                      lanes(lambda i: (i % 16) * p + (i // 16) * 16))
        # Hopper / CuTe swizzles: 128B (pitch 128), 64B (pitch 64), 32B (32)
        swz = ((128, 7), (64, 3), (32, 1))
        for p, mask in swz:
            t.add("%s-swz%d" % (pre, p), op, 16,
                  lanes(lambda i: hopper_swz(i * p, mask)))
            if n == "x4":
                t.add("%s-mma-swz%d" % (pre, p), op, 16,
                      lanes(lambda i: hopper_swz((i % 16) * p + (i // 16) * 16, mask)))
        if not trans:
            t.add("%s-swz128-chunk5" % pre, op, 16,
                  lanes(lambda i: hopper_swz(i * 128 + 5 * 16, 7)))
            # 128-byte swizzle applied to a 256-byte pitch (wrong pairing)
            t.add("%s-swz128-pitch256" % pre, op, 16,
                  lanes(lambda i: hopper_swz(i * 256, 7)))
        # all row addresses equal
        t.add("%s-same" % pre, op, 16, lanes(lambda i: 0))
        # random rows within 4 KB
        for k in range(2 if n == "x4" and not trans else 1):
            t.add("%s-rand%d" % (pre, k), op, 16,
                  lanes(lambda i: rng.randrange(256) * 16))


def main_set():
    rng = random.Random(1)
    t = Table()
    ldst_patterns(t, rng)
    wide_patterns(t, rng)
    tile_patterns(t)
    matrix_patterns(t, rng)
    return t


# --------------------------------------------------------------------------
# held-out set: random but structured


def heldout_set():
    rng = random.Random(2)
    t = Table()

    def aligned_base(w, limit=8192):
        return rng.randrange(limit // w) * w

    def maybe_mask(addrs, p=0.25):
        if rng.random() < p:
            return masked(addrs, random_mask(rng, rng.choice((0.3, 0.5, 0.8))))
        return addrs

    families = []

    def fam(fn):
        families.append(fn)
        return fn

    @fam
    def stride(k):
        op = rng.choice(("ld", "st"))
        w = rng.choice(WIDTHS)
        s = rng.choice((0, 1, 2, 3, 5, 6, 7, 9, 12, 15, 18, 24, 31, 48, 65, 96, 127, 129))
        base = aligned_base(w)
        a = lanes(lambda i: base + i * s * w)
        if a[-1] + w > 49152:
            a = lanes(lambda i: i * s * w)
        t.add("h-%s%d-stride%d-%d" % (op, w, s, k), op, w, maybe_mask(a))

    @fam
    def groups(k):
        # lanes share among g distinct addresses
        op = rng.choice(("ld", "st"))
        w = rng.choice(WIDTHS)
        g = rng.choice((2, 3, 4, 6, 8, 12, 16))
        addrs = [rng.randrange(1024 // w) * w for _ in range(g)]
        t.add("h-%s%d-groups%d-%d" % (op, w, g, k), op, w,
              maybe_mask(lanes(lambda i: addrs[rng.randrange(g)])))

    @fam
    def perm(k):
        op = rng.choice(("ld", "st"))
        w = rng.choice(WIDTHS)
        span = rng.choice((128, 256, 512, 1024, 2048))
        nslot = span // w
        if nslot >= NLANES:
            slots = rng.sample(range(nslot), NLANES)
        else:
            slots = [rng.randrange(nslot) for _ in range(NLANES)]
        t.add("h-%s%d-perm%d-%d" % (op, w, span, k), op, w,
              maybe_mask([x * w for x in slots]))

    @fam
    def rand(k):
        op = rng.choice(("ld", "st"))
        w = rng.choice(WIDTHS)
        kb = rng.choice((1, 4, 16, 48))
        t.add("h-%s%d-rand%dk-%d" % (op, w, kb, k), op, w,
              maybe_mask(lanes(lambda i: rng.randrange(kb * 1024 // w) * w)))

    @fam
    def tile(k):
        op = rng.choice(("ld", "st"))
        n = rng.choice((16, 32, 64, 128))
        w = rng.choice((4, 4, 8, 16))
        vw = w // 4
        pad = rng.choice([p for p in range(0, 9) if (p * 4) % w == 0])
        sw = rng.random() < 0.4
        if sw:
            b, m, s = log2(min(n, 32)) - log2(vw), log2(vw), log2(n)
            pad = 0 if rng.random() < 0.5 else pad
        else:
            b = m = s = 0
        r0 = rng.randrange(n)
        c0 = rng.randrange(max(1, n // vw)) * vw
        how = rng.choice(("row", "col", "block"))
        rows = min(n, 49152 // (4 * (n + pad)))

        def at(r, c):
            r %= rows
            c %= n
            return 4 * tile_offset(r, c, n, pad, b, m, s)
        if how == "row":
            a = lanes(lambda i: at(r0 + (c0 + vw * i) // n, c0 + vw * i))
        elif how == "col":
            a = lanes(lambda i: at(r0 + i, c0))
        else:
            bw = rng.choice((2, 4, 8))
            a = lanes(lambda i: at(r0 + i // bw, c0 + vw * (i % bw)))
        t.add("h-%s%d-t%d-p%d%s-%s-%d" % (op, w, n, pad, "-xor" if sw else "", how, k),
              op, w, maybe_mask(a, 0.15))

    @fam
    def xorpat(k):
        op = rng.choice(("ld", "st"))
        w = rng.choice(WIDTHS)
        s = rng.choice((1, 2, 4, 8, 16, 32))
        sh = rng.choice((0, 1, 2, 3))
        mk = rng.choice((1, 3, 7, 15, 31))
        a = lanes(lambda i: (((i * s) ^ ((i >> sh) & mk)) * w) % 16384)
        t.add("h-%s%d-xor-s%d-sh%d-m%d-%d" % (op, w, s, sh, mk, k), op, w, maybe_mask(a))

    @fam
    def matrix(k):
        op = rng.choice(list(matrix_ops()))
        how = rng.choice(("pitch", "pitch", "swz", "rand", "mma"))
        p = rng.choice((16, 32, 48, 64, 80, 96, 128, 144, 160, 192, 256, 272, 512))
        base = rng.randrange(64) * 16
        if how == "pitch":
            a = lanes(lambda i: base + i * p)
            name = "pitch%d" % p
        elif how == "mma":
            p = max(p, 32)
            a = lanes(lambda i: base + (i % 16) * p + (i // 16) * 16)
            name = "mma%d" % p
        elif how == "swz":
            p, mask = rng.choice(((128, 7), (64, 3), (32, 1), (256, 7), (128, 3)))
            c = rng.randrange(p // 16)
            mma = rng.random() < 0.5
            base = rng.randrange(8) * 1024
            if mma:
                a = lanes(lambda i: base + hopper_swz((i % 16) * p + ((c + i // 16) % (p // 16)) * 16, mask))
            else:
                a = lanes(lambda i: base + hopper_swz(i * p + c * 16, mask))
            name = "swz%d-m%d-c%d%s" % (p, mask, c, "-mma" if mma else "")
        else:
            span = rng.choice((256, 1024, 8192))
            a = lanes(lambda i: rng.randrange(span // 16) * 16)
            name = "rand%d" % span
        pre = op.replace("matrix.", "m-").replace(".trans", "t")
        t.add("h-%s-%s-%d" % (pre, name, k), op, 16, a)

    weights = {stride: 3, groups: 2, perm: 2, rand: 2, tile: 3, xorpat: 2, matrix: 4}
    pool = [f for f in families for _ in range(weights[f])]
    k = 0
    while len(t.rows) < 160:
        before = len(t.rows)
        rng.choice(pool)(k)
        if len(t.rows) > before:
            k += 1
    return t


def confirm_set():
    """A third set, written after the main and held-out sets had been used
    to find the rule for 8- and 16-byte loads (phases merge when lanes 2k
    and 2k+1 share addresses): structured-random wide loads and stores,
    with pairs that share or almost share addresses, and inactive lanes,
    to test that rule on patterns nobody looked at before measuring.
    Seed 3."""
    rng = random.Random(3)
    t = Table()
    k = 0
    while len(t.rows) < 120:
        op = rng.choice(("ld", "ld", "ld", "st"))
        w = rng.choice((8, 16))
        span = rng.choice((128, 256, 512, 4096))
        base = [rng.randrange(span // w) * w for _ in range(NLANES)]
        how = rng.choice(("pairs", "pairs-broken", "quads", "pairs-half",
                          "random"))
        addrs = list(base)
        if how in ("pairs", "pairs-broken", "pairs-half"):
            for i in range(0, NLANES, 2):
                addrs[i + 1] = addrs[i]
            if how == "pairs-broken":
                i = rng.randrange(NLANES // 2) * 2 + 1
                addrs[i] = (addrs[i] + w) % span
            if how == "pairs-half":
                lo = rng.choice((0, 16))
                for i in range(lo, lo + 16):
                    addrs[i] = base[i]
        elif how == "quads":
            for i in range(NLANES):
                addrs[i] = base[i & ~3]
        p = rng.choice((0.0, 0.0, 0.25, 0.5))
        if p > 0:
            for i in range(NLANES):
                if rng.random() < p:
                    addrs[i] = None
            if all(a is None for a in addrs):
                addrs[0] = base[0]
        if t.add("c-%s%d-%s-%d" % (op, w, how, k), op, w, addrs):
            k += 1
    return t


def sparse_set():
    """A fourth set, after the confirmation set showed one 16-byte load with
    few active, unpaired lanes served in fewer phases than the rule said:
    8- and 16-byte loads with 1 to 24 active lanes at random places, their
    addresses unpaired, paired or mixed, in spans of 128 bytes to 4 KB.
    Seed 4."""
    rng = random.Random(4)
    t = Table()
    k = 0
    while len(t.rows) < 100:
        w = rng.choice((8, 16, 16))
        active = rng.choice((1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 12, 14, 16, 20, 24))
        span = rng.choice((128, 256, 512, 4096))
        lanes_on = sorted(rng.sample(range(NLANES), active))
        how = rng.choice(("unpaired", "unpaired", "paired", "mixed"))
        addrs = [None] * NLANES
        for i in lanes_on:
            addrs[i] = rng.randrange(span // w) * w
        if how in ("paired", "mixed"):
            for i in lanes_on:
                if i % 2 == 1 and addrs[i - 1] is not None and (
                        how == "paired" or rng.random() < 0.5):
                    addrs[i] = addrs[i - 1]
        if t.add("s-ld%d-%s-a%d-%d" % (w, how, active, k), "ld", w, addrs):
            k += 1
    return t


# Rows of the earlier sets where 8/16-byte loads with one broken pair (lanes
# 2k and 2k+1 active on different addresses) were served in merged phases
# (the first seven) or in separate phases (the others).
ABLATE_BASES = [
    ("c-ld16-pairs-broken-9", 16, "- 64 32 - 16 - - 0 - - 112 0 - - 80 80 - - - 0 - - - - - - - - - - - -"),
    ("s-ld8-unpaired-a5-0", 8, "- - - - 96 72 - - - 8 - - - - - - - - - - - - - - - 56 - - - - 88 -"),
    ("s-ld16-unpaired-a12-4", 16, "- 448 288 - 128 - - - - 256 384 - - 160 - - - - - 336 0 368 - - 32 - - - - 464 160 -"),
    ("s-ld16-unpaired-a9-72", 16, "- 160 64 - - - - 80 - - 192 - - - - - - - 160 - - 144 16 - - - - - 240 224 - -"),
    ("s-ld16-unpaired-a9-77", 16, "96 - - - - - - - 112 208 - - - - - - - - 112 - 64 128 - - - - - 64 208 - - 80"),
    ("s-ld16-unpaired-a6-83", 16, "- - - - - - - - - - 224 - - - - - - - - - - - 320 16 - - 64 - - 368 320 -"),
    ("s-ld8-unpaired-a4-86", 8, "- - - - - - - - - - - - 440 - - - - - - - - - 328 344 - - - - - - 280 -"),
    ("s-ld16-unpaired-a8-38", 16, "- - 176 - - - - - 16 - - - - 464 - - - - 304 128 - 32 - 0 - 224 - - - - - -"),
    ("s-ld16-mixed-a8-66", 16, "- - - - - - - - - 336 - - 64 432 400 - - - - - - 16 - 128 - - - 16 - - 496 -"),
    ("s-ld16-unpaired-a10-91", 16, "- 176 - - 128 128 - 32 - - - - - - - 80 - 112 160 224 - - - 128 - 192 - - - - - -"),
    ("s-ld16-unpaired-a10-25", 16, "- - 160 144 128 - 48 - - - - 352 - - - 80 - 48 144 - - - - - - 176 - - - - - 256"),
    ("s-ld16-unpaired-a12-11", 16, "496 - 64 112 - 176 - - - 480 - 224 - - - - 304 - - 400 240 - - - - - - 496 224 - 304 -"),
    ("s-ld16-mixed-a16-1", 16, "112 - 80 - - 112 240 - 128 128 144 144 - - - - - - - - 144 - - - 144 96 208 208 - 144 208 208"),
    ("s-ld8-unpaired-a7-15", 8, "16 - - - - - - - 40 24 - - - - - - - - - - - 0 - - - - - 56 56 - 0 -"),
    ("s-ld8-unpaired-a10-36", 8, "- 88 - 240 - - - - - 112 176 - - - - - 216 224 - - 208 56 - - 248 - - 0 - - - -"),
    ("c-ld8-pairs-broken-97", 8, "- - 56 56 0 0 - - - 64 8 - 64 72 - 96 - - - 0 - - 24 24 - 96 - 88 - - 8 -"),
]


def ablate_set():
    """A fifth set, to find when 8- and 16-byte loads with a broken pair
    merge phases: each base row of ABLATE_BASES, that row with one active
    lane removed (every lane in turn) and with its broken pairs repaired;
    then a grid over one half-warp with conflict-free addresses: a broken
    pair at each place with lanes of the other phase single or paired."""
    t = Table()
    for name, w, text in ABLATE_BASES:
        base = [None if x == "-" else int(x) for x in text.split()]
        t.add("a-%s" % name, "ld", w, base)
        for lane in range(NLANES):
            if base[lane] is not None:
                v = list(base)
                v[lane] = None
                if any(a is not None for a in v):
                    t.add("a-%s-drop%d" % (name, lane), "ld", w, v)
        fixed = list(base)
        for lane in range(0, NLANES, 2):
            if fixed[lane] is not None and fixed[lane + 1] is not None:
                fixed[lane + 1] = fixed[lane]
        t.add("a-%s-repaired" % name, "ld", w, fixed)
    # the grid: 16-byte loads in lanes 0-15 (8-byte: 0-31); slot j is the
    # address j * width, so distinct slots never share a bank
    for w in (16, 8):
        span = 16 if w == 16 else 32      # lanes of the two merged phases
        half = span // 2
        slots = 128 // w                  # distinct conflict-free slots
        for pair in range(span // 2):
            for others in (1, 2, 3, 4):
                for paired in (False, True):
                    v = [None] * NLANES
                    v[2 * pair], v[2 * pair + 1] = 0, w
                    other_side = half if 2 * pair < half else 0
                    nxt = 2
                    placed = 0
                    for k in range(others):
                        lane = other_side + 2 * k
                        if nxt >= slots:
                            break
                        v[lane] = nxt * w
                        if paired:
                            v[lane + 1] = nxt * w
                        nxt += 1
                        placed += 1
                    if placed == others:
                        t.add("g-ld%d-brk%d-o%d%s" % (w, 2 * pair, others,
                                                      "p" if paired else "s"),
                              "ld", w, v)
        # a broken pair whose two lanes share banks (conflict) + one lane
        v = [None] * NLANES
        v[0], v[1], v[half] = 0, 128, 2 * w
        t.add("g-ld%d-brk0-conflict" % w, "ld", w, v)
        # two broken pairs, one per phase
        v = [None] * NLANES
        v[0], v[1], v[half], v[half + 1] = 0, w, 2 * w, 3 * w
        t.add("g-ld%d-brk0-brk%d" % (w, half), "ld", w, v)
    return t


def ldgsts_set():
    """cp.async (LDGSTS): the shared-memory wavefronts of the copies the
    GEMM template makes, and around them: shared offsets linear, padded,
    swizzled and conflicting; global offsets linear, in rows, scattered and
    all on one address; zero-filled and inactive lanes; .cg 16 bytes and .ca
    4, 8 and 16 bytes."""
    rng = random.Random(6)
    t = Table()
    lin16 = lanes(lambda i: 16 * i)

    def gemm_rows(pitch, w=16, per_row=4):
        return lanes(lambda i: (i // per_row) * pitch + (i % per_row) * w)

    globals_ = [
        ("glin", lambda w: lanes(lambda i: w * i)),
        ("gsame", lambda w: [0] * NLANES),
        ("gstride128", lambda w: lanes(lambda i: 128 * i)),
        ("grows160", lambda w: gemm_rows(160, w)),
        ("grows16k", lambda w: gemm_rows(16384, w)),
        ("grand", lambda w: [rng.randrange(262144 // w) * w for _ in range(NLANES)]),
        ("goff16", lambda w: lanes(lambda i: 16 + w * i)),
    ]
    for op, w in (("cp.async.cg", 16), ("cp.async.ca", 16), ("cp.async.ca", 8),
                  ("cp.async.ca", 4)):
        tag = "%s%d" % (op.split(".")[2], w)
        lin = lanes(lambda i: w * i)
        for gname, gfn in globals_:
            t.add("l-%s-slin-%s" % (tag, gname), op, w, lin, gfn(w))
        # shared-side conflicts and layouts, global linear
        smem = [
            ("sstride2", lanes(lambda i: 2 * w * i)),
            ("sstride4", lanes(lambda i: 4 * w * i)),
            ("sstride8", lanes(lambda i: 8 * w * i)),
            ("sstride32", lanes(lambda i: 32 * w * i % 49152)),
            ("ssame", [0] * NLANES),
            ("spairs", lanes(lambda i: w * (i // 2))),
            ("srev", lanes(lambda i: w * (31 - i))),
        ]
        if w == 16:
            # GEMM tiles of 16 floats a row, 4 lanes a row: padded by 4
            # floats (80-byte pitch), xor-swizzled, the 128-byte CuTe
            # swizzle of a 32-float row
            smem += [
                ("spad4", gemm_rows(80)),
                ("sxor", lanes(lambda i: (i // 4) * 64 + 16 * ((i % 4) ^ (i // 4 % 4)))),
                ("scute", lanes(lambda i: (i // 8) * 128 + 16 * ((i % 8) ^ (i // 8 % 8)))),
            ]
        for sname, s in smem:
            t.add("l-%s-%s-glin" % (tag, sname), op, w, s, lanes(lambda i: w * i))
        # zero-filled and inactive lanes, shared and global linear
        masks = [("all", 0xFFFFFFFF), ("lo16", 0x0000FFFF), ("hi16", 0xFFFF0000),
                 ("even", 0x55555555), ("one", 0x00000001), ("q0", 0x000000FF),
                 ("rows2", 0x00FF00FF)]
        for mname, m in masks:
            t.add("l-%s-slin-glin-z%s" % (tag, mname), op, w, lin,
                  lanes(lambda i: w * i), m)
            if m != 0xFFFFFFFF:
                act = [a if m >> i & 1 else None for i, a in enumerate(lin)]
                t.add("l-%s-slin-glin-on%s" % (tag, mname), op, w, act,
                      lanes(lambda i: w * i))
    # the GEMM tile copy itself (16 floats a row, 4 lanes a row), with the
    # edge rows zero-filled, for both row pitches of the model config
    for pitch in (160, 1056):
        for zrows, m in (("none", 0), ("last4", 0xFFFF0000), ("all", 0xFFFFFFFF)):
            t.add("l-gemm-p%d-z%s" % (pitch, zrows), "cp.async.cg", 16,
                  gemm_rows(64), gemm_rows(pitch), m)
    return t


def ldgsts_map_set():
    """cp.async follow-up: how the 16-byte chunks of one global line may be
    scattered over shared memory in one wavefront.  Lanes 8-31 copy lines
    1-3 to shared rows 3-5 unchanged (3 wavefronts); lanes 0-7 copy line 0,
    chunk j to shared chunk map[j] of rows 0-1, for permutations (xor,
    rotation, sector swaps, random) and other maps.  Then .ca copies whose
    global and shared sides both conflict.  Seed 7."""
    rng = random.Random(7)
    t = Table()

    def add_map(name, m, op="cp.async.cg"):
        s = [16 * m[j] for j in range(8)] + [16 * i + 256 for i in range(8, 32)]
        g = lanes(lambda i: 16 * i)
        t.add("m-%s-%s" % (op.split(".")[2], name), op, 16, s, g)

    add_map("id", list(range(8)))
    for c in range(1, 8):
        add_map("xor%d" % c, [j ^ c for j in range(8)])
    for r in range(1, 8):
        add_map("rot%d" % r, [(j + r) % 8 for j in range(8)])
    for r in range(1, 8):
        add_map("rowshift%d" % r, [j + r for j in range(8)])   # into row 1
    add_map("sector-swap01", [2, 3, 0, 1, 4, 5, 6, 7])
    add_map("sector-rev", [6, 7, 4, 5, 2, 3, 0, 1])
    add_map("half-swap-s0", [1, 0, 2, 3, 4, 5, 6, 7])
    add_map("stride2", [0, 2, 4, 6, 8, 10, 12, 14])
    add_map("stride2-odd", [1, 3, 5, 7, 9, 11, 13, 15])
    add_map("spread-rows", [0, 9, 2, 11, 4, 13, 6, 15])
    add_map("pairs-compress", [0, 1, 0, 1, 2, 3, 2, 3])
    for k in range(24):
        m = list(range(8))
        rng.shuffle(m)
        add_map("perm%d" % k, m)
    for k in range(8):
        add_map("inj%d" % k, rng.sample(range(16), 8))
    # the same maps once more as .ca copies (global offsets all in L1 banks)
    for name, m in (("xor3", [j ^ 3 for j in range(8)]),
                    ("rot1", [(j + 1) % 8 for j in range(8)]),
                    ("stride2", [0, 2, 4, 6, 8, 10, 12, 14])):
        add_map(name, m, "cp.async.ca")
    # .ca: global side (L1 banks) and shared side both conflicting
    for gs, ss in ((2, 2), (2, 4), (4, 2), (4, 4), (8, 2), (2, 8)):
        for w in (16, 8, 4):
            g = lanes(lambda i: gs * w * i % 65536)
            s = lanes(lambda i: ss * w * i % 49152)
            t.add("c-ca%d-g%d-s%d" % (w, gs, ss), "cp.async.ca", w, s, g)
    # .cg global rows as the GEMM's B tile reads them (512-byte rows) and
    # its A tile with 32-byte rows (bk = 8), into padded and swizzled rows
    for per_row, pitch in ((2, 160), (2, 4096), (8, 4096), (32, 4096)):
        g = lanes(lambda i: (i // per_row) * pitch + (i % per_row) * 16)
        for sname, s in (("lin", lanes(lambda i: 16 * i)),
                         ("pad16", lanes(lambda i: (i // per_row) * (16 * per_row + 16)
                                         + (i % per_row) * 16)),
                         ("xor", lanes(lambda i: (i // 8) * 128
                                       + 16 * ((i % 8) ^ (i // 8 % 8))))):
            t.add("r-cg-row%d-p%d-s%s" % (per_row, pitch, sname), "cp.async.cg", 16,
                  s, g)
    return t


def ldgsts_gemm_set():
    """cp.async follow-up: the copies of the GEMM template's A tile (rows of
    BK floats, 4 or 2 lanes a row, row pitch K floats) one warp at a time,
    at the k-tile offsets 0, 64 and 128 bytes into a line, and the edge
    tiles whose zero-filled lanes all read the matrix's first address."""
    t = Table()
    for per_row, pitches in ((4, (256, 160, 16384, 512)), (2, (256, 160, 4096))):
        for pitch in pitches:
            for off in (0, 32, 64, 96, 128):
                g = lanes(lambda i: off + (i // per_row) * pitch + (i % per_row) * 16)
                s = lanes(lambda i: 16 * i)
                t.add("gA-r%d-p%d-o%d" % (per_row, pitch, off), "cp.async.cg", 16, s, g)
    # zero-filled lanes reading offset 0: last rows, upper half, all
    for zname, zmask in (("z-hi16", 0xFFFF0000), ("z-all", 0xFFFFFFFF),
                         ("z-q3", 0xFF000000), ("z-odd-rows", 0xF0F0F0F0)):
        for pitch in (256, 160):
            g = lanes(lambda i: 0 if zmask >> i & 1 else (i // 4) * pitch + (i % 4) * 16)
            t.add("gA-%s-p%d" % (zname, pitch), "cp.async.cg", 16, lanes(lambda i: 16 * i),
                  g, zmask)
    # the same lanes all reading offset 0 without zero-fill
    t.add("gA-same0-nozfill", "cp.async.cg", 16, lanes(lambda i: 16 * i), [0] * NLANES)
    return t


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--set", choices=("main", "heldout", "confirm", "sparse", "ablate",
                             "ldgsts", "ldgsts-map", "ldgsts-gemm"),
                    default="main",
                    help="which pattern set to print (default: main)")
    ap.add_argument("--count", action="store_true",
                    help="print only the number of patterns per op kind")
    args = ap.parse_args(argv)
    t = {"main": main_set, "heldout": heldout_set,
         "confirm": confirm_set, "sparse": sparse_set,
         "ablate": ablate_set, "ldgsts": ldgsts_set,
         "ldgsts-map": ldgsts_map_set,
         "ldgsts-gemm": ldgsts_gemm_set}[args.set]()
    if args.count:
        counts = {}
        for _, op, w, _ in t.rows:
            key = "%s w%d" % (op, w)
            counts[key] = counts.get(key, 0) + 1
        for key in sorted(counts):
            print("%-24s %d" % (key, counts[key]))
        print("%-24s %d" % ("total", len(t.rows)))
        return 0
    sys.stdout.write("# smem_probe patterns, set=%s, %d patterns\n"
                     "# format: OP WIDTH A0 .. A31 (byte offsets, '-' = inactive lane)\n"
                     % (args.set, len(t.rows)))
    t.write(sys.stdout)
    return 0


if __name__ == "__main__":
    sys.exit(main())
