"""The follow-up pattern sets of scripts/smem_probe/patterns.py, each written
after the measurements before it: wide loads and stores (--set confirm,
sparse, ablate) and cp.async copies (--set ldgsts, ldgsts-map,
ldgsts-gemm).  Python 3 standard library only.
"""

import random

from patterns_table import NLANES, Table, lanes, masked, tile_offset


# --------------------------------------------------------------------------
# wide loads and stores: the rule for 8- and 16-byte accesses


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


def merge_check_set():
    """A sixth set, written with the rule that reproduces every wide-load row
    of the sets before it (tuner/model/model.c: a load's phases merge when
    every lane l and l ^ 1 share an address or one is inactive, or else
    every l and l ^ 2 do), its predictions committed before measuring
    (tests/fixtures/model-validation/merge-check-predicted-before-
    measuring.txt): wide loads whose lanes l and l ^ 2 pair up (whole
    warps; every other pair of lanes active, on distinct addresses; the
    fp64 transpose's edge reads), with conflicts inside the merged phases
    (where Nsight Compute's per-instruction count and the L1's parted on
    the transpose), a test of which lanes a merged 16-byte phase holds, and
    controls the rule does not merge (l ^ 1 pairs in some quads and l ^ 2
    in others, one pair broken, l ^ 3, lanes 0 and 2 apart).  Seed 7."""
    rng = random.Random(7)
    t = Table()

    def cls(i):
        return (i >> 2) * 2 + (i & 1)  # 0..15: lanes l and l ^ 2 share it

    def pair2(fn):
        return lanes(lambda i: fn(cls(i)))

    for w in (8, 16):
        # whole warps paired by l ^ 2.  x2-lin: a merged 16-byte phase of
        # lanes 0-15 is clear, one of lanes 0-7 and 16-23 would not be
        t.add("mc-ld%d-x2-lin" % w, "ld", w, pair2(lambda c: w * c))
        for stride in (3, 5):
            t.add("mc-ld%d-x2-stride%d" % (w, stride), "ld", w,
                  pair2(lambda c: w * stride * c))
        # 2-way conflicts inside each phase and each merged phase
        t.add("mc-ld%d-x2-conflict2" % w, "ld", w,
              pair2(lambda c: w * (c // 2) % 128 + 128 * (c % 2)
                    + 256 * (c // 8)))
        for span in (128, 256, 512, 4096):
            base = [rng.randrange(span // w) * w for _ in range(16)]
            t.add("mc-ld%d-x2-rand%d" % (w, span), "ld", w,
                  pair2(lambda c: base[c]))
        # one pair of lanes of each quad active, on distinct addresses
        dense = pair2(lambda c: w * c)
        for name, mask in (("lo", 0x33333333), ("hi", 0xcccccccc),
                           ("mixed", 0x3c3cc3c3)):
            t.add("mc-ld%d-%s-pairs" % (w, name), "ld", w,
                  masked(dense, mask))
        for k in range(3):
            base = [rng.randrange(512 // w) * w for _ in range(NLANES)]
            mask = 0
            for q in range(8):
                mask |= rng.choice((0x3, 0xc, 0x1, 0x8, 0x0)) << (4 * q)
            t.add("mc-ld%d-quad-halves-%d" % (w, k), "ld", w,
                  masked(base, mask or 0x3))
        t.add("mc-ld%d-lo-pairs-conflict2" % w, "ld", w,
              masked(lanes(lambda i: 128 * (i & 1) + w * (i >> 1)),
                     0x33333333))
        t.add("mc-ld%d-lo-pairs-conflict4" % w, "ld", w,
              masked(lanes(lambda i: 128 * (i % 4) + w * (i // 4) % 128),
                     0x33333333))
    # the reverse of x2-lin: lanes 0-15 conflict, lanes 0-7 with 16-23
    # would not (the rule: as today's model)
    t.add("mc-ld16-x2-group-quarters", "ld", 16,
          pair2(lambda c: 16 * (c % 4) + 64 * (c // 8) + 128 * (c // 4 % 2)))
    # the fp64 transpose's edge reads as tuner/family/transpose_plan.c lists
    # them (tile 32, rows_per_thread 4, vec 2, 5 valid rows): column 1 and
    # 3 of rows r and r + 1 in lanes 0, 1, 16, 17, pad 0 (2-way
    # conflicts), pad 1 and xor; and columns 0, 2, 4 (lanes 0-2, 16-18),
    # which the rule does not merge
    for name, pad, xor in (("pad0", 0, False), ("pad1", 1, False),
                           ("xor", 0, True)):
        b, m, sh = (4, 0, 5) if xor else (0, 0, 0)
        for row in (0, 2, 6):
            t.add("mc-ld8-transpose-edge-%s-r%d" % (name, row), "ld", 8,
                  masked(lanes(lambda i: 8 * tile_offset(
                      2 * (i % 16) + 1, i // 16 + row, 32, pad, b, m, sh)),
                      0x00030003))
    t.add("mc-ld8-transpose-edge-k0", "ld", 8,
          masked(lanes(lambda i: 8 * tile_offset(2 * (i % 16), i // 16, 32,
                                                 1)), 0x00070007))
    # controls the rule does not merge
    for w in (8, 16):
        t.add("mc-ld%d-ctl-x1-then-x2" % w, "ld", w,
              lanes(lambda i: w * (i >> 1) if i < 16 else w * (8 + cls(i))))
        one = pair2(lambda c: w * c)
        one[2] = w * 31
        t.add("mc-ld%d-ctl-x2-one-broken" % w, "ld", w, one)
        t.add("mc-ld%d-ctl-x3" % w, "ld", w,
              lanes(lambda i: w * ((i >> 2) * 2 + ((i ^ (i >> 1)) & 1))))
        apart = masked(pair2(lambda c: w * c), 0x33333337)
        apart[2] = w * 31
        t.add("mc-ld%d-ctl-lo-pairs-plus-lane2" % w, "ld", w, apart)
    return t


# --------------------------------------------------------------------------
# cp.async (LDGSTS)


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
