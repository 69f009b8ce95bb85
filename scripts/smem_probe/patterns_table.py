"""The pattern table of scripts/smem_probe/patterns.py and the helpers its
sets are built with: Table (collects the patterns, drops duplicates, writes
them), lane and mask helpers, the tile layouts and swizzles as
templates/smem_layout.h computes them.  Python 3 standard library only.
"""

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
