#!/usr/bin/python3
"""nsys_check.py EXPORT.sqlite - what tracefold must make of an Nsight
Systems SQLite export, computed with SQL over the file itself (independent
of tracefold's code; the rules are docs/format-nsys.md's).

Prints JSON:
  gpu_ns           the sum of end - start of every kernel, memcpy and memset
  streams          {"PID/GPU D stream S": ns}: the same per process, device, stream
  attributed_ns    GPU time whose runtime call (same correlationId, same
                   process) is in the export; unattributed_ns the rest
  gpu_fold         {folded path: ns}: NVTX stack + runtime call + activity,
                   or [unattributed gpu] + activity
  wall_fold        {folded path: self ns} of the CPU calls (NVTX ranges,
                   runtime calls, "[sync] KIND" under the runtime call of its
                   correlationId), nested per thread by their intervals
  calls            {frame: n} of the CPU calls and GPU activities
"""
import json
import os
import re
import sqlite3
import sys
from collections import defaultdict

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from stable_names import normalize  # noqa: E402

db = sqlite3.connect("file:%s?mode=ro" % sys.argv[1], uri=True)
q = lambda s, *a: db.execute(s, a).fetchall()  # noqa: E731
strings = dict(q("SELECT id, value FROM StringIds"))
pid = lambda g: (g >> 24) & 0xFFFFFF  # noqa: E731


def frame(name):
    return normalize(name).replace(";", ":").replace("\n", " ")


def api(name):
    return re.sub(r"_v\d+$", "", name)


# the CPU calls per thread: (start, end, order, name, corr)
threads = defaultdict(list)
runtime = {}  # (pid, corr) -> (globalTid, start, end, name)
for s, e, g, c, n in q("SELECT start, end, globalTid, correlationId, nameId FROM CUPTI_ACTIVITY_KIND_RUNTIME"):
    name = api(strings[n])
    threads[g].append([s, e, 1, name, c])
    runtime[(pid(g), c)] = g
for s, e, g, t, text, tid in q("SELECT start, end, globalTid, eventType, text, textId FROM NVTX_EVENTS"):
    assert t in (59, 60), t  # push/pop and start/end ranges only in the fixture
    threads[g].append([s, e, 0, text if text is not None else strings[tid], None])
sync_label = dict(q("SELECT id, label FROM ENUM_CUPTI_SYNC_TYPE"))
for s, e, gp, c, st in q("SELECT start, end, globalPid, correlationId, syncType FROM CUPTI_ACTIVITY_KIND_SYNCHRONIZATION"):
    g = runtime[(pid(gp), c)]
    threads[g].append([s, e, 2, "[sync] " + sync_label[st], None])

# nest: by start, longer first, NVTX around runtime calls around syncs
wall = defaultdict(int)
calls = defaultdict(int)
launch_path = {}  # (pid, corr) -> folded path of the runtime call
for g, evs in threads.items():
    evs.sort(key=lambda x: (x[0], -x[1], x[2]))
    stack = []  # [end, path, child time]
    for s, e, _, name, c in evs:
        while stack and stack[-1][0] <= s:
            top = stack.pop()
            wall[top[1]] += top[3] - top[2]
        if stack:
            assert e <= stack[-1][0], ("not nested", g, s, e, name, stack[-1])
            stack[-1][2] += e - s
        path = (stack[-1][1] + ";" if stack else "") + frame(name)
        stack.append([e, path, 0, e - s])
        calls[frame(name)] += 1
        if c is not None:
            launch_path[(pid(g), c)] = path
    while stack:
        top = stack.pop()
        wall[top[1]] += top[3] - top[2]

copy = {r[0]: r[1].split("KIND_", 1)[1] for r in q("SELECT id, name FROM ENUM_CUDA_MEMCPY_OPER")}
copy = {k: v[0] + "to" + v[3] if len(v) == 4 and v[1:3] == "TO" else "Unknown" for k, v in copy.items()}
mem = dict(q("SELECT id, label FROM ENUM_CUDA_MEM_KIND"))
acts = []
for s, e, gp, d, st, c, dn in q("SELECT start, end, globalPid, deviceId, streamId, correlationId, demangledName "
                                "FROM CUPTI_ACTIVITY_KIND_KERNEL"):
    acts.append((s, e, gp, d, st, c, strings[dn]))
for s, e, gp, d, st, c, k, a, b in q("SELECT start, end, globalPid, deviceId, streamId, correlationId, copyKind, "
                                     "srcKind, dstKind FROM CUPTI_ACTIVITY_KIND_MEMCPY"):
    acts.append((s, e, gp, d, st, c, "Memcpy %s (%s -> %s)" % (copy[k], mem[a], mem[b])))
for s, e, gp, d, st, c, k in q("SELECT start, end, globalPid, deviceId, streamId, correlationId, memKind "
                               "FROM CUPTI_ACTIVITY_KIND_MEMSET"):
    acts.append((s, e, gp, d, st, c, "Memset (%s)" % mem[k]))

out = {"gpu_ns": 0, "streams": defaultdict(int), "attributed_ns": 0, "unattributed_ns": 0,
       "gpu_fold": defaultdict(int), "activities": len(acts)}
for s, e, gp, d, st, c, name in acts:
    out["gpu_ns"] += e - s
    out["streams"]["%d/GPU %d stream %d" % (pid(gp), d, st)] += e - s
    lp = launch_path.get((pid(gp), c))
    out["attributed_ns" if lp else "unattributed_ns"] += e - s
    out["gpu_fold"][(lp if lp else "[unattributed gpu]") + ";" + frame(name)] += e - s
    calls[frame(name)] += 1
out["wall_fold"] = {k: v for k, v in wall.items() if v}
out["wall_ns"] = sum(wall.values())
out["calls"] = calls
json.dump(out, sys.stdout, indent=1, sort_keys=True)
print()
