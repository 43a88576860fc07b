#!/usr/bin/env python3
"""waiting_check.py - the threads that only wait of a Chrome trace JSON file,
from the trace itself and the written rule (docs/stack-rules.md "Threads
that only wait"), not from tracefold's code.

usage: waiting_check.py TRACE.json[.gz]

Prints JSON: {"threads": [{"pid", "tid", "thread", "wall_ns", "leaf_ns",
"waiting"}...], "waiting_wall_ns", "total_wall_ns"}.

The rule, per thread (pid, tid) of the trace:
- every region on it (X events; B/E pairs) has category python_function
  (Kineto's Python frames: no cpu_op, user_annotation, cuda_runtime, no
  GPU activity), none has a correlation id (args "correlation" or
  "External id" of a launch), and no [memory] event is on it;
- its regions nest (by start, longer first, then file order; a region
  starting at or after the open one's end is its sibling); a region's self
  time is its duration less its direct children's, its wall time the sum
  of its regions' self times (the union of their intervals);
- its leaf time is the sum of the durations of its regions that have no
  child and last 1 ms or more; it waits when its leaf time is at least 90%
  of its wall time.
total_wall_ns is the wall time of every thread whose regions are CPU
regions (Kineto's GPU categories and its whole-trace span, category
Trace, left out)."""
import gzip
import json
import sys

PY = "python_function"
GPU_CATS = {"kernel", "gpu_memcpy", "gpu_memset", "gpu_user_annotation", "cuda_sync", "Kernel", "Memcpy", "Memset"}
LEAF_MIN_NS = 1000000
LEAF_PCT = 90


def ns(us):
    return int(round(float(us) * 1000))


def load(path):
    with open(path, "rb") as f:
        raw = f.read()
    if raw[:2] == b"\x1f\x8b":
        raw = gzip.decompress(raw)
    doc = json.loads(raw)
    return doc["traceEvents"] if isinstance(doc, dict) else doc


def regions(events):
    """(pid, tid) -> [(start, end, cat, index)], and the threads' names and
    what disqualifies a thread."""
    per, names, other = {}, {}, set()
    open_b = {}
    for i, e in enumerate(events):
        ph = e.get("ph")
        k = (e.get("pid"), e.get("tid"))
        if ph == "M" and e.get("name") == "thread_name":
            names[k] = (e.get("args") or {}).get("name")
            continue
        if ph in ("i", "I") and e.get("name") == "[memory]":
            other.add(k)
            continue
        if ph == "X":
            s = ns(e["ts"])
            r = (s, s + max(ns(e.get("dur", 0) or 0), 0), e.get("cat"), i, e.get("args") or {})
            per.setdefault(k, []).append(r)
        elif ph == "B":
            open_b.setdefault(k, []).append((ns(e["ts"]), e.get("cat"), i, e.get("args") or {}))
        elif ph == "E" and open_b.get(k):
            s, cat, j, args = open_b[k].pop()
            per.setdefault(k, []).append((s, ns(e["ts"]), cat, j, args))
    return per, names, other


def walk(rs):
    """Wall (sum of self times) and leaf time of one thread's regions."""
    rs = sorted(rs, key=lambda r: (r[0], -(r[1] - r[0]), r[3]))
    stack = []  # [end, children's time, has child, start]
    wall = leaf = 0

    def close(top):
        nonlocal wall, leaf
        dur = top[0] - top[3]
        wall += dur - top[1]
        if not top[2] and dur >= LEAF_MIN_NS:
            leaf += dur
        if stack:
            stack[-1][1] += dur
            stack[-1][2] = True

    for s, e, _cat, _i, _args in rs:
        while stack and s >= stack[-1][0]:
            close(stack.pop())
        if stack and e > stack[-1][0]:
            e = stack[-1][0]  # an overhang: clipped to its parent
        stack.append([e, 0, False, s])
    while stack:
        close(stack.pop())
    return wall, leaf


def main():
    events = load(sys.argv[1])
    per, names, other = regions(events)
    out, waiting_wall, total = [], 0, 0
    for k in sorted(per, key=lambda k: (str(k[0]), str(k[1]))):
        rs = [r for r in per[k] if r[2] != "Trace"]
        if not rs or any(r[2] in GPU_CATS for r in rs):
            continue
        wall, leaf = walk(rs)
        only_py = all(r[2] == PY and "correlation" not in r[4] and "External id" not in r[4] for r in rs)
        waits = only_py and k not in other and wall > 0 and leaf * 100 >= wall * LEAF_PCT
        total += wall
        if waits:
            waiting_wall += wall
        out.append({"pid": k[0], "tid": k[1], "thread": names.get(k), "wall_ns": wall, "leaf_ns": leaf,
                    "waiting": waits})
    json.dump({"threads": out, "waiting_wall_ns": waiting_wall, "total_wall_ns": total}, sys.stdout, indent=1)
    print()


if __name__ == "__main__":
    main()
