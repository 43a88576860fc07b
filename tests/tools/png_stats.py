#!/usr/bin/env python3
"""Is a screenshot blank?  Decodes a PNG (8-bit RGB or RGBA, not interlaced:
what headless Chromium writes) with zlib alone, and counts the pixels that
are not near-white and the distinct colors among them.

usage: png_stats.py SHOT.png [MIN_SHARE_PCT] [MIN_COLORS]
Prints "inked PCT% colors N" and exits 0 when at least MIN_SHARE_PCT percent
(default 1) of the pixels are inked with at least MIN_COLORS (default 8)
distinct colors, else 1 (a blank or nearly blank picture)."""
import struct, sys, zlib


def decode(path):
    data = open(path, "rb").read()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        sys.exit("%s: not a PNG" % path)
    pos, idat, hdr = 8, b"", None
    while pos < len(data):
        n, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + n]
        pos += 12 + n
        if kind == b"IHDR":
            hdr = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            idat += body
        elif kind == b"IEND":
            break
    w, h, depth, ctype, _, _, interlace = hdr
    if depth != 8 or ctype not in (2, 6) or interlace:
        sys.exit("%s: unsupported PNG (depth %d, color type %d, interlace %d)" % (path, depth, ctype, interlace))
    bpp = 3 if ctype == 2 else 4
    raw = zlib.decompress(idat)
    stride = w * bpp
    prev = bytearray(stride)
    rows = []
    i = 0
    for _ in range(h):
        f = raw[i]
        line = bytearray(raw[i + 1:i + 1 + stride])
        i += 1 + stride
        for x in range(stride):
            a = line[x - bpp] if x >= bpp else 0
            b = prev[x]
            c = prev[x - bpp] if x >= bpp else 0
            if f == 1:
                line[x] = (line[x] + a) & 255
            elif f == 2:
                line[x] = (line[x] + b) & 255
            elif f == 3:
                line[x] = (line[x] + (a + b) // 2) & 255
            elif f == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[x] = (line[x] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        rows.append(bytes(line))
        prev = line
    return w, h, bpp, rows


def main():
    path = sys.argv[1]
    min_share = float(sys.argv[2]) if len(sys.argv) > 2 else 1.0
    min_colors = int(sys.argv[3]) if len(sys.argv) > 3 else 8
    w, h, bpp, rows = decode(path)
    inked, colors = 0, set()
    for r in rows:
        for x in range(0, w * bpp, bpp):
            px = r[x:x + 3]
            if min(px) < 235:
                inked += 1
                colors.add(px)
    share = 100.0 * inked / (w * h)
    print("inked %.2f%% colors %d" % (share, len(colors)))
    return 0 if share >= min_share and len(colors) >= min_colors else 1


if __name__ == "__main__":
    sys.exit(main())
