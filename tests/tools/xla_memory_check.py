#!/usr/bin/env python3
"""The XLA profiler's memory profile (<host>.memory_profile.json.gz: the
MemoryProfile message of tensorflow/core/profiler/protobuf/memory_profile.proto
in proto3 JSON) against what tracefold made of it.

usage: xla_memory_check.py PROFILE.json.gz [--pprof OUT.pb.gz] [--chrome TIMELINE.json]

From the profile alone (proto3 JSON facts: lowerCamelCase names, int64 as
strings, a field at its default left out, so an absent number is 0; enums
by name), per allocator of memoryProfilePerAllocator, over its
memoryProfileSnapshots (not sampledTimelineSnapshots, a downsampled copy):
ALLOCATION and DEALLOCATION activities, their bytes (allocationBytes, else
requestedBytes), bytes per op (tfOpName), the snapshots and the peak
(the largest aggregationStats.peakBytesInUse, which must also be
profileSummary.peakBytesUsageLifetime).  Prints them, then checks:
  --pprof   `go tool pprof -raw` (through pprof_raw.py): alloc_space and
            alloc_objects per call path = the allocations' bytes and count
            per path ALLOCATOR;FRAMES, FRAMES being tfOpName cut at each '/'
            outside brackets (docs/format-xla-memory.md), empty pieces left out;
  --chrome  the Chrome timeline: per thread (named after its allocator) the
            "[memory]" instants (args.Bytes > 0: allocations, < 0: frees, and
            their bytes), the three counters one sample per snapshot, the
            largest memory:peak_bytes_in_use = the peak, the last
            memory:heap_allocated_bytes = the last snapshot's.
Exits 1 on any difference."""
import gzip, json, os, subprocess, sys
from collections import Counter, defaultdict


def num(d, k):
    return int(d.get(k, "0"))


def frames(op):
    out, cur, depth = [], "", 0
    for c in op:
        if c in "([{":
            depth += 1
        elif c in ")]}" and depth:
            depth -= 1
        elif c == "/" and depth == 0:
            out.append(cur)
            cur = ""
            continue
        cur += c
    out.append(cur)
    return [f for f in out if f]


def expected(path):
    with gzip.open(path, "rt") if path.endswith(".gz") else open(path) as f:
        prof = json.load(f)
    res = {}
    for name, a in prof["memoryProfilePerAllocator"].items():
        snaps = a.get("memoryProfileSnapshots", [])
        r = {"snapshots": len(snaps), "allocs": 0, "alloc_bytes": 0, "frees": 0, "free_bytes": 0,
             "peak": 0, "paths": Counter(), "path_objs": Counter(), "last_heap": 0}
        last_t = None
        for s in snaps:
            m = s.get("activityMetadata", {})
            st = s.get("aggregationStats", {})
            act = m.get("memoryActivity", "UNKNOWN_ACTIVITY")
            b = num(m, "allocationBytes") or num(m, "requestedBytes")
            r["peak"] = max(r["peak"], num(st, "peakBytesInUse"))
            t = num(s, "timeOffsetPs")
            if last_t is None or t >= last_t:  # the last in time (ties: in file order)
                last_t, r["last_heap"] = t, num(st, "heapAllocatedBytes")
            if act == "ALLOCATION":
                r["allocs"] += 1
                r["alloc_bytes"] += b
                p = ";".join([name] + frames(m.get("tfOpName", "")))
                r["paths"][p] += b
                r["path_objs"][p] += 1
            elif act == "DEALLOCATION":
                r["frees"] += 1
                r["free_bytes"] += b
        summ = num(a.get("profileSummary", {}), "peakBytesUsageLifetime")
        if summ != r["peak"]:
            sys.exit("%s: the snapshots' peak %d is not profileSummary's %d" % (name, r["peak"], summ))
        res[name] = r
    return res


def check_pprof(exp, pb):
    here = os.path.dirname(os.path.abspath(__file__))
    out = subprocess.run([sys.executable, os.path.join(here, "pprof_raw.py"), pb], capture_output=True, text=True)
    if out.returncode:
        sys.exit(out.stderr)
    paths = json.loads(out.stdout)["paths"]
    got_b = {p: v.get("alloc_space/bytes", 0) for p, v in paths.items() if v.get("alloc_space/bytes", 0)}
    got_n = {p: v.get("alloc_objects/count", 0) for p, v in paths.items() if v.get("alloc_objects/count", 0)}
    want_b, want_n = {}, {}
    for r in exp.values():
        want_b.update(r["paths"])
        want_n.update(r["path_objs"])
    bad = 0
    for p in sorted(set(want_b) | set(got_b)):
        if want_b.get(p, 0) != got_b.get(p, 0) or want_n.get(p, 0) != got_n.get(p, 0):
            print("pprof: %s: alloc_space %s (want %s), alloc_objects %s (want %s)" % (
                p, got_b.get(p, 0), want_b.get(p, 0), got_n.get(p, 0), want_n.get(p, 0)))
            bad += 1
    print("pprof: %d call paths with allocations, %d differ" % (len(want_b), bad))
    return bad


def check_chrome(exp, tl):
    d = json.load(open(tl))
    evs = d["traceEvents"] if isinstance(d, dict) else d
    tname = {(e["pid"], e["tid"]): e["args"]["name"] for e in evs
             if e.get("ph") == "M" and e.get("name") == "thread_name"}
    got = defaultdict(lambda: {"allocs": 0, "alloc_bytes": 0, "frees": 0, "free_bytes": 0, "peak": 0,
                               "counters": Counter(), "heap": []})
    for e in evs:
        g = got[tname.get((e.get("pid"), e.get("tid")))]
        if e.get("ph") == "i" and e.get("name") == "[memory]":
            b = e["args"]["Bytes"]
            if b > 0:
                g["allocs"] += 1
                g["alloc_bytes"] += b
            elif b < 0:
                g["frees"] += 1
                g["free_bytes"] -= b
        elif e.get("ph") == "C":
            g["counters"][e["name"]] += 1
            v = e["args"]["value"]
            if e["name"] == "memory:peak_bytes_in_use":
                g["peak"] = max(g["peak"], v)
            elif e["name"] == "memory:heap_allocated_bytes":
                g["heap"].append((e["ts"], v))
    bad = 0
    for name, r in exp.items():
        g = got[name]
        heap = g["heap"][-1][1] if g["heap"] else None
        counts = [g["counters"][c] for c in ("memory:heap_allocated_bytes", "memory:stack_reserved_bytes",
                                              "memory:peak_bytes_in_use")]
        ok = all(g[k] == r[k] for k in ("allocs", "alloc_bytes", "frees", "free_bytes", "peak")) and \
            counts == [r["snapshots"]] * 3 and heap == r["last_heap"]
        print("chrome: %s: %d allocations (%d bytes), %d frees (%d bytes), peak %d, counter samples %s, "
              "last heap %s: %s" % (name, g["allocs"], g["alloc_bytes"], g["frees"], g["free_bytes"], g["peak"],
                                    counts, heap, "ok" if ok else "DIFFERS"))
        bad += not ok
    return bad


def main():
    args = sys.argv[1:]
    if not args:
        sys.exit(__doc__)
    exp = expected(args[0])
    for name, r in exp.items():
        print("%s: %d snapshots, %d allocations (%d bytes), %d frees (%d bytes), peak %d" % (
            name, r["snapshots"], r["allocs"], r["alloc_bytes"], r["frees"], r["free_bytes"], r["peak"]))
    bad = 0
    for i in range(1, len(args) - 1, 2):
        if args[i] == "--pprof":
            bad += check_pprof(exp, args[i + 1])
        elif args[i] == "--chrome":
            bad += check_chrome(exp, args[i + 1])
        else:
            sys.exit("unknown option " + args[i])
    sys.exit(1 if bad else 0)


main()
