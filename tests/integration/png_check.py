#!/usr/bin/env python3
"""png_check.py PNG WIDTH HEIGHT -- the PNG is WIDTH x HEIGHT and not
blank: its pixels (decoded with zlib, every filter undone) hold at least
8 distinct colours and under 99.5% of them are the background's."""
import struct
import sys
import zlib
from collections import Counter


def pixels(path):
    data = open(path, "rb").read()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        sys.exit("%s: not a PNG" % path)
    pos, idat, hdr = 8, b"", None
    while pos < len(data):
        n, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + n]
        if kind == b"IHDR":
            hdr = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            idat += body
        pos += 12 + n
    w, h, depth, ctype = hdr[:4]
    if depth != 8 or ctype not in (2, 6):
        sys.exit("%s: colour type %d depth %d not handled" % (path, ctype,
                                                              depth))
    bpp = 3 if ctype == 2 else 4
    raw, stride, prev, out = zlib.decompress(idat), w * bpp, None, []
    for y in range(h):
        f = raw[y * (stride + 1)]
        line = bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        up = prev or bytearray(stride)
        for i in range(stride):
            a = line[i - bpp] if i >= bpp else 0
            b, c = up[i], (up[i - bpp] if i >= bpp else 0)
            if f == 1:
                line[i] = (line[i] + a) & 255
            elif f == 2:
                line[i] = (line[i] + b) & 255
            elif f == 3:
                line[i] = (line[i] + (a + b) // 2) & 255
            elif f == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                pr = a if pa <= pb and pa <= pc else b if pb <= pc else c
                line[i] = (line[i] + pr) & 255
        prev = line
        if y % 4 == 0:  # every fourth row is enough to count colours
            out.extend(bytes(line[i:i + 3]) for i in range(0, stride,
                                                           bpp * 2))
    return w, h, out


def main():
    path, want_w, want_h = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    w, h, px = pixels(path)
    colours = Counter(px)
    top = colours.most_common(1)[0][1] / len(px)
    print("%s: %dx%d, %d colours, background %.1f%%" % (
        path, w, h, len(colours), 100 * top))
    if (w, h) != (want_w, want_h):
        sys.exit("%s: %dx%d, expected %dx%d" % (path, w, h, want_w, want_h))
    if len(colours) < 8 or top > 0.995:
        sys.exit("%s: blank" % path)


if __name__ == "__main__":
    main()
