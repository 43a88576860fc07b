#!/usr/bin/env python3
"""Writes a large TAU trace (24-byte little-endian records) by repeating the
body of a real trace with shifted timestamps.

usage: gen_tau.py SRC_TRC SRC_EDF OUT_DIR TARGET_BYTES
The first two records (EV_INIT, WALL_CLOCK) and the last two (FLUSH_CLOSE,
WALL_CLOCK) are written once; everything between is repeated, each copy
shifted past the previous one, so every copy nests like the original."""
import array, os, shutil, sys

src, edf, out, target = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
data = open(src, "rb").read()
assert len(data) % 24 == 0 and sys.byteorder == "little"
head, body, tail = data[:48], data[48:-48], data[-48:]
q = array.array("q", body)          # 3 int64 per record: (ev|nid|tid), par, ti
ti = q[2::3]
span = max(ti) - min(ti) + 10
copies = max(1, (target - 96) // len(body))
os.makedirs(out, exist_ok=True)
shutil.copy(edf, os.path.join(out, "events.0.edf"))
with open(os.path.join(out, "tautrace.0.0.0.trc"), "wb") as f:
    f.write(head)
    cur = array.array("q", body)
    for k in range(copies):
        shift = k * span
        cur[2::3] = array.array("q", [t + shift for t in ti])
        cur.tofile(f)
    last = bytearray(tail)
    for r in range(2):   # keep the closing records after the last copy
        t = int.from_bytes(last[r * 24 + 16:r * 24 + 24], "little") + (copies - 1) * span
        last[r * 24 + 16:r * 24 + 24] = t.to_bytes(8, "little")
    f.write(last)
print("%d copies, %d records, %d bytes" % (copies, 4 + copies * len(body) // 24, 96 + copies * len(body)))
