#!/usr/bin/env python3
"""gpu_oracle.py TRACE.json[.gz]

What a Kineto / HTA / rocprofiler trace says about GPU time, computed from
the JSON with Python's own parser and exact decimal arithmetic (not
tracefold's code): prints JSON with

  gpu_ns        the sum of the durations of the GPU activities: every X
                event on a GPU stream but the GPU annotations
                (gpu_user_annotation); a stream is GPU when it has a kernel,
                gpu_memcpy or gpu_memset event (Kineto's categories, and
                the capitalized ones of 2021), or its process is named or
                labelled GPU... and it has no CPU work (Python frames,
                operators, runtime calls)
  cpu_union_ns  per CPU thread, the length of the union of its X events'
                intervals (Kineto's whole-trace span left out), summed
  gpu_with_launch_ns  the GPU time whose correlation id is also on an X
                event of a CPU thread
  streams       per GPU stream ("pid/tid"): its activities' time and how
                long they kept it busy (the union of their intervals)
  alloc_bytes, alloc_n  the bytes and the number of Kineto's [memory]
                events with Bytes > 0 (allocations)
  kernels       up to 6 GPU activities with their expected call path: the
                X events of the launch's thread that enclose the launch
                (outermost first; ties: longer first), the launch, the
                activity, each named by its stable name (stable_names.py)"""
import gzip, json, sys
from stable_names import normalize
from decimal import Decimal

GPU_CATS = {"kernel", "gpu_memcpy", "gpu_memset", "Kernel", "Memcpy", "Memset", "cuda_sync"}
p = sys.argv[1]
d = json.load((gzip.open if p.endswith(".gz") else open)(p, "rb"), parse_float=Decimal)
ev = d["traceEvents"] if isinstance(d, dict) else d


def ns(v):
    return int(Decimal(str(v)) * 1000)


gpu_pids = set()
for e in ev:
    if e.get("ph") == "M" and e.get("name") in ("process_name", "process_labels"):
        a = e.get("args", {})
        text = str(a.get("name", a.get("labels", "")))
        if text.startswith("GPU"):
            gpu_pids.add(str(e.get("pid")))
xs = [e for e in ev if e.get("ph") == "X" and "dur" in e and e.get("cat") != "Trace"]
CPU_CATS = {"python_function", "cpu_op", "user_annotation", "Operator", "cuda_runtime",
            "cuda_driver", "Runtime", "hip_runtime"}
gpu_tracks = {(str(e["pid"]), str(e["tid"])) for e in xs if e.get("cat") in GPU_CATS | {"gpu_user_annotation"}}
cpu_work = {(str(e["pid"]), str(e["tid"])) for e in xs if e.get("cat") in CPU_CATS}
gpu_tracks |= {(str(e["pid"]), str(e["tid"])) for e in xs if str(e["pid"]) in gpu_pids} - cpu_work


def key(e):
    return (str(e["pid"]), str(e["tid"]))


gpu = [e for e in xs if key(e) in gpu_tracks and e.get("cat") != "gpu_user_annotation"]
cpu = [e for e in xs if key(e) not in gpu_tracks]
corr_of = lambda e: (e.get("args") or {}).get("correlation")
launches = {}
for e in cpu:
    c = corr_of(e)
    if c is not None:
        launches[c] = e
# union of busy time per CPU thread
by_thread = {}
for e in cpu:
    by_thread.setdefault(key(e), []).append((ns(e["ts"]), ns(e["ts"]) + ns(e["dur"])))


def union_ns(iv):
    """The length of the union of [start, end) intervals."""
    total, cur_s, cur_e = 0, None, None
    for s, t in sorted(iv):
        if cur_e is None or s > cur_e:
            if cur_e is not None:
                total += cur_e - cur_s
            cur_s, cur_e = s, t
        else:
            cur_e = max(cur_e, t)
    return total + (cur_e - cur_s if cur_e is not None else 0)


union = sum(union_ns(iv) for iv in by_thread.values())
# expected call paths of a few kernels with distinct names
names = {}
for e in gpu:
    names.setdefault(e["name"], []).append(e)
kernels = []
for name, lst in sorted(names.items()):
    k = lst[0]
    launch = launches.get(corr_of(k))
    if launch is None:
        continue
    ls, le = ns(launch["ts"]), ns(launch["ts"]) + ns(launch["dur"])
    enclosing = [e for e in cpu if key(e) == key(launch) and e is not launch
                 and ns(e["ts"]) <= ls and ns(e["ts"]) + ns(e["dur"]) >= le]
    enclosing.sort(key=lambda e: (ns(e["ts"]), -ns(e["dur"])))
    path = [normalize(e["name"]) for e in enclosing] + [normalize(launch["name"]), normalize(k["name"])]
    kernels.append({"name": name, "path": path, "gpu_ns": sum(ns(e["dur"]) for e in lst)})
    if len(kernels) == 6:
        break
# per GPU stream: its activities' time and the union of their intervals
streams = {}
for e in gpu:
    streams.setdefault(key(e), []).append((ns(e["ts"]), ns(e["ts"]) + ns(e["dur"])))
stream_stats = {}
for k, iv in streams.items():
    stream_stats["/".join(k)] = {"gpu_ns": sum(t - s for s, t in iv), "busy_ns": union_ns(iv)}
mem = [e["args"]["Bytes"] for e in ev if isinstance(e, dict) and e.get("name") == "[memory]"
       and e.get("ph") in ("i", "I") and isinstance(e.get("args"), dict) and "Bytes" in e["args"]]
print(json.dumps({
    "alloc_bytes": int(sum(b for b in mem if b > 0)),
    "alloc_n": sum(1 for b in mem if b > 0),
    "streams": stream_stats,
    "gpu_ns": sum(ns(e["dur"]) for e in gpu),
    "cpu_union_ns": union,
    "gpu_with_launch_ns": sum(ns(e["dur"]) for e in gpu if corr_of(e) in launches),
    "kernels": kernels,
}))
