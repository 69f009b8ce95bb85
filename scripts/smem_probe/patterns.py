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
    python3 patterns.py --set confirm|sparse|ablate|merge-check   # wide loads
    python3 patterns.py --set ldgsts|ldgsts-map|ldgsts-gemm   # cp.async

cp.async lines (OP cp.async.ca or cp.async.cg) may mark a zero-filled lane
with `z` after its offset and go on with `| G0 .. G31`, the global offsets.

Both sets are deterministic.  Python 3 standard library only.
"""

import argparse
import random
import sys

from patterns_followup import (ablate_set, confirm_set, ldgsts_gemm_set, ldgsts_map_set,
                               ldgsts_set, merge_check_set, sparse_set)
from patterns_table import (MATRIX_COUNTS, MATRIX_KINDS, NLANES, WIDTHS, Table, lanes,
                            log2, masked, random_mask, tile_offset)


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


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--set", choices=("main", "heldout", "confirm", "sparse", "ablate",
                             "merge-check", "ldgsts", "ldgsts-map", "ldgsts-gemm"),
                    default="main",
                    help="which pattern set to print (default: main)")
    ap.add_argument("--count", action="store_true",
                    help="print only the number of patterns per op kind")
    args = ap.parse_args(argv)
    t = {"main": main_set, "heldout": heldout_set,
         "confirm": confirm_set, "sparse": sparse_set,
         "ablate": ablate_set, "merge-check": merge_check_set,
         "ldgsts": ldgsts_set,
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
