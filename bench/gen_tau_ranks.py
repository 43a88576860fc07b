#!/usr/bin/env python3
"""Writes a TAU trace directory of N ranks (tautrace.R.0.0.trc + events.R.edf)
from one large single-rank trace (bench/gen_tau.py's): each rank's file is a
copy with its records' node id (nid, u16 at byte 4 of each 24-byte record)
set to the rank, so that every file is one MPI rank, as TAU writes them.

usage: gen_tau_ranks.py SRC_DIR OUT_DIR N"""
import os, shutil, sys

src, out, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
data = bytearray(open(os.path.join(src, "tautrace.0.0.0.trc"), "rb").read())
assert len(data) % 24 == 0
count = len(data) // 24
os.makedirs(out, exist_ok=True)
for r in range(n):
    data[4::24] = bytes([r & 0xff]) * count
    data[5::24] = bytes([r >> 8]) * count
    with open(os.path.join(out, "tautrace.%d.0.0.trc" % r), "wb") as f:
        f.write(data)
    shutil.copy(os.path.join(src, "events.0.edf"), os.path.join(out, "events.%d.edf" % r))
