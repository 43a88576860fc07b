#!/usr/bin/env python3
"""coverage_check.py TRACE.json[.gz] | EXPORT.sqlite

How much GPU time of a trace has its launch in the trace, and why the rest
has not, computed from the file with Python's own parsers (not tracefold's
code; docs/gpu.md "Coverage").  Prints JSON:

  gpu_ns, activities      every GPU activity (kernel, memcpy, memset, sync)
  attributed              {"activities", "ns"}: its correlation id is on a
                          CPU call (a launch) of the same file (Nsight: of
                          the same process)
  no_correlation_id       no correlation id at all (rocprofiler's traces)
  launch_before_trace     an id below every launch's id: CUPTI numbers the
                          ids in launch order, so its launch came before
                          the first one the trace has
  launch_not_in_trace     any other id that no launch has

Chrome JSON (Kineto, HTA, TraceLens, rocprofiler): a GPU activity is an X
event on a GPU stream but a GPU annotation; a stream is GPU when it has a
kernel / gpu_memcpy / gpu_memset (or 2021's Kernel / Memcpy / Memset)
event, or its process is named or labelled "GPU..." and it has no CPU work;
the id is args.correlation; a launch is an X event with that argument on any
other thread.  Nsight Systems SQLite export: the rows of
CUPTI_ACTIVITY_KIND_KERNEL / MEMCPY / MEMSET, launched by the
CUPTI_ACTIVITY_KIND_RUNTIME row of the same correlationId and process
(globalPid / globalTid >> 24: ids are numbered per process)."""
import gzip, json, sqlite3, sys
from collections import defaultdict
from decimal import Decimal

p = sys.argv[1]
acts = []          # (numbering, id or None, ns)
launches = defaultdict(set)  # numbering -> ids

if p.endswith(".sqlite"):
    db = sqlite3.connect(p)
    for t in ("KERNEL", "MEMCPY", "MEMSET"):
        for s, e, gp, c in db.execute("SELECT start, end, globalPid, correlationId FROM CUPTI_ACTIVITY_KIND_" + t):
            acts.append((gp >> 24, c or None, e - s))
    for g, c in db.execute("SELECT globalTid, correlationId FROM CUPTI_ACTIVITY_KIND_RUNTIME"):
        if c:
            launches[g >> 24].add(c)
else:
    d = json.load((gzip.open if p.endswith(".gz") else open)(p, "rb"), parse_float=Decimal)
    ev = d["traceEvents"] if isinstance(d, dict) else d
    GPU_CATS = {"kernel", "gpu_memcpy", "gpu_memset", "Kernel", "Memcpy", "Memset", "cuda_sync"}
    CPU_CATS = {"python_function", "cpu_op", "user_annotation", "Operator", "cuda_runtime", "cuda_driver",
                "Runtime", "hip_runtime"}
    gpu_pids = set()
    for e in ev:
        if e.get("ph") == "M" and e.get("name") in ("process_name", "process_labels"):
            a = e.get("args", {})
            if str(a.get("name", a.get("labels", ""))).startswith("GPU"):
                gpu_pids.add(str(e.get("pid")))
    xs = [e for e in ev if e.get("ph") == "X" and "dur" in e and e.get("cat") != "Trace"]
    key = lambda e: (str(e["pid"]), str(e["tid"]))
    gpu = {key(e) for e in xs if e.get("cat") in GPU_CATS | {"gpu_user_annotation"}}
    cpu = {key(e) for e in xs if e.get("cat") in CPU_CATS}
    gpu |= {key(e) for e in xs if str(e["pid"]) in gpu_pids} - cpu
    for e in xs:
        c = e.get("args", {}).get("correlation")
        c = int(c) if c not in (None, "", 0) else None
        if key(e) not in gpu:
            if c is not None:
                launches[0].add(c)
        elif e.get("cat") != "gpu_user_annotation":
            acts.append((0, c, int(Decimal(str(e["dur"])) * 1000)))

out = {"gpu_ns": 0, "activities": len(acts)}
for k in ("attributed", "no_correlation_id", "launch_before_trace", "launch_not_in_trace"):
    out[k] = {"activities": 0, "ns": 0}
for num, c, ns in acts:
    out["gpu_ns"] += ns
    if c is None:
        k = "no_correlation_id"
    elif c in launches[num]:
        k = "attributed"
    elif launches[num] and c < min(launches[num]):
        k = "launch_before_trace"
    else:
        k = "launch_not_in_trace"
    out[k]["activities"] += 1
    out[k]["ns"] += ns
print(json.dumps(out, indent=1))
