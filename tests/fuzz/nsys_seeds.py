#!/usr/bin/python3
"""nsys_seeds.py DIR - small Nsight-like SQLite files (page size 512, under
8 KiB) as seeds of tests/fuzz/fuzz_nsys.c: the tables tracefold reads with
a few rows, a kernel-only one, one with a column missing, one with NULLs
and text where integers belong, one that is no Nsight export, one cut."""
import os
import sqlite3
import sys

out = sys.argv[1]
os.makedirs(out, exist_ok=True)
G = (111 << 24) | (1 << 48)  # a globalPid; a globalTid adds the tid


def make(name, tables, rows):
    p = os.path.join(out, name)
    if os.path.exists(p):
        os.remove(p)
    c = sqlite3.connect(p)
    c.execute("PRAGMA page_size = 512")
    for t in tables:
        c.execute(t)
    for sql, vals in rows:
        c.executemany(sql, vals)
    c.commit()
    c.execute("VACUUM")
    c.close()
    return p


full = [
    "CREATE TABLE StringIds (id INTEGER PRIMARY KEY, value TEXT)",
    "CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL (start INT, end INT, deviceId INT, streamId INT, correlationId INT,"
    " globalPid INT, demangledName INT, shortName INT)",
    "CREATE TABLE CUPTI_ACTIVITY_KIND_MEMCPY (start INT, end INT, deviceId INT, streamId INT, correlationId INT,"
    " globalPid INT, copyKind INT, srcKind INT, dstKind INT)",
    "CREATE TABLE CUPTI_ACTIVITY_KIND_RUNTIME (start INT, end INT, globalTid INT, correlationId INT, nameId INT)",
    "CREATE TABLE NVTX_EVENTS (start INT, end INT, eventType INT, text TEXT, globalTid INT, textId INT)",
    "CREATE TABLE CUPTI_ACTIVITY_KIND_SYNCHRONIZATION (start INT, end INT, deviceId INT, streamId INT,"
    " correlationId INT, globalPid INT, syncType INT)",
    "CREATE TABLE ENUM_CUPTI_SYNC_TYPE (id INT, name TEXT, label TEXT)",
    "CREATE TABLE ThreadNames (nameId INT, priority INT, globalTid INT)",
    "CREATE TABLE PROCESSES (globalPid INT, pid INT, name TEXT)",
]
rows = [
    ("INSERT INTO StringIds VALUES (?, ?)", [(1, "gemm"), (2, "cudaLaunchKernel_v7000"), (3, "python3"),
                                            (4, "cudaMemcpyAsync_v3020"), (5, "cudaStreamSynchronize_v3020")]),
    ("INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES (?,?,?,?,?,?,?,?)",
     [(150, 250, 0, 7, 1, G, 1, 1), (260, 300, 0, 7, 9, G, 1, 1)]),
    ("INSERT INTO CUPTI_ACTIVITY_KIND_MEMCPY VALUES (?,?,?,?,?,?,?,?,?)", [(310, 400, 0, 7, 2, G, 1, 1, 2)]),
    ("INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES (?,?,?,?,?)",
     [(110, 120, G + 111, 1, 2), (130, 140, G + 111, 2, 4), (150, 420, G + 111, 3, 5)]),
    ("INSERT INTO NVTX_EVENTS VALUES (?,?,?,?,?,?)",
     [(100, 430, 59, "aten::mm, op_id = 5", G + 111, None), (105, 145, 59, "aten::mul, seq = 2", G + 111, None),
      (106, None, 34, "mark", G + 111, None)]),
    ("INSERT INTO CUPTI_ACTIVITY_KIND_SYNCHRONIZATION VALUES (?,?,?,?,?,?,?)", [(160, 410, 0, 7, 3, G, 3)]),
    ("INSERT INTO ENUM_CUPTI_SYNC_TYPE VALUES (?,?,?)", [(3, "STREAM", "Stream sync")]),
    ("INSERT INTO ThreadNames VALUES (?,?,?)", [(3, 0, G + 111)]),
    ("INSERT INTO PROCESSES VALUES (?,?,?)", [(G, 111, "python3")]),
]
p = make("full.sqlite", full, rows)
make("kernels.sqlite", full[:2], rows[:2])
make("nocolumn.sqlite", [full[0], full[1].replace(", correlationId INT", "")],
     [rows[0], ("INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES (?,?,?,?,?,?,?)", [(1, 2, 0, 7, G, 1, 1)])])
make("nulls.sqlite", full[:5], [rows[0],
     ("INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES (?,?,?,?,?,?,?,?)",
      [(None, 5, 0, 7, 1, G, 99, None), ("x", "y", "z", 7, 1, G, 1, 1), (10, 5, 0, -1, 0, -1, 1, 1)]),
     ("INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES (?,?,?,?,?)", [(1, None, G, 1, None), (1, 3, None, 1, 2)]),
     ("INSERT INTO NVTX_EVENTS VALUES (?,?,?,?,?,?)", [(1, 9, 60, None, G + 111, 42), (2, 3, 99, "x", G, None)])])
make("other.sqlite", ["CREATE TABLE t (x)"], [("INSERT INTO t VALUES (?)", [(1,)])])
data = open(p, "rb").read()
open(os.path.join(out, "cut.sqlite"), "wb").write(data[:len(data) // 2])
for f in sorted(os.listdir(out)):
    assert os.path.getsize(os.path.join(out, f)) <= 8192, f
