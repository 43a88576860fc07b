#!/usr/bin/env python3
"""jax_check.py TRACE.json[.gz]: the GPU time of an XLA/JAX profiler trace
(jax.profiler.trace(..., create_perfetto_trace=True)), computed from the
JSON itself with exact decimals, independently of tracefold
(docs/format-jax.md).

Facts of the format used: process_name metadata names the planes
("/host:CPU", "/device:GPU:N"); the threads of a /device:GPU:N process are
its streams ("Stream #14(Compute,Memset)"); every X event there is a GPU
activity (kernel, memset, memcpy) of `dur` microseconds; args.correlation_id
is on the activity and on the host call that launched it (cuLaunchKernel,
cuGraphLaunch ...); args.hlo_module, hlo_op, tf_op say which XLA module and
op the activity belongs to.  ts and dur are microseconds (decimals).  The launch's enclosing regions are
nested by time: a region holds the later ones that start inside it and end
at most 1 us after it (tracefold's default clip tolerance).

Prints JSON: gpu_ns; per device and stream {gpu_ns, activities}; per
launching host event name and per correlation id the GPU time of its
activities; per hlo_op and tf_op; per kernel name {gpu_ns, calls}; and
"paths": the gpu time per call path as folded stacks write it: the host
regions enclosing the launch (nested by time on the launch's thread),
the launch, the activity's name."""
import gzip, json, sys
from decimal import Decimal, ROUND_HALF_EVEN

CLIP_NS = 1000  # a child that overhangs its parent by at most 1 us stays its child


def ns(v):
    # the profiler writes microseconds as 17-digit doubles (43.095999999999997):
    # to nanoseconds, the digits below one rounded half to even
    return int((Decimal(str(v)) * 1000).quantize(Decimal(1), rounding=ROUND_HALF_EVEN))


def main(path):
    op = gzip.open if path.endswith(".gz") else open
    with op(path, "rt") as f:
        doc = json.load(f, parse_float=Decimal)
    evs = doc["traceEvents"] if isinstance(doc, dict) else doc
    pname, tname = {}, {}
    for e in evs:
        if e.get("ph") == "M" and e.get("name") == "process_name":
            pname[e["pid"]] = e["args"]["name"]
        if e.get("ph") == "M" and e.get("name") == "thread_name":
            tname[(e["pid"], e["tid"])] = e["args"]["name"]
    gpu_pids = {p for p, n in pname.items() if n.startswith("/device:GPU:")}
    acts, host = [], {}
    for e in evs:
        if e.get("ph") != "X":
            continue
        if e["pid"] in gpu_pids:
            acts.append(e)
        else:
            host.setdefault((e["pid"], e["tid"]), []).append(e)
    # host launches by correlation id, with the regions around them
    launch = {}
    for key, xs in host.items():
        xs.sort(key=lambda e: (ns(e["ts"]), -ns(e["dur"])))
        stack = []
        for e in xs:
            s, t = ns(e["ts"]), ns(e["ts"]) + ns(e["dur"])
            # the regions open around it: those that end after it starts and
            # hold its end (one that ends before its end, by more than the
            # clip tolerance, was cut where it started: a sibling, not a parent)
            while stack and (stack[-1][1] <= s or stack[-1][1] + CLIP_NS < t):
                stack.pop()
            c = (e.get("args") or {}).get("correlation_id")
            path = [x[2] for x in stack] + [e["name"]]
            if c is not None:
                launch[str(c)] = path
            stack.append((s, t, e["name"]))
    out = {"gpu_ns": 0, "activities": len(acts), "streams": {}, "by_launch": {}, "by_correlation": {},
           "by_hlo_op": {}, "by_tf_op": {}, "kernels": {}, "paths": {}, "unattributed_ns": 0}
    add = lambda d, k, v: d.__setitem__(k, d.get(k, 0) + v)
    for e in acts:
        d = ns(e["dur"])
        a = e.get("args") or {}
        out["gpu_ns"] += d
        st = out["streams"].setdefault(pname[e["pid"]] + "/" + tname.get((e["pid"], e["tid"]), str(e["tid"])),
                                       {"gpu_ns": 0, "activities": 0})
        st["gpu_ns"] += d
        st["activities"] += 1
        k = out["kernels"].setdefault(e["name"], {"gpu_ns": 0, "calls": 0})
        k["gpu_ns"] += d
        k["calls"] += 1
        add(out["by_hlo_op"], a.get("hlo_op", ""), d)
        add(out["by_tf_op"], a.get("tf_op", ""), d)
        c = a.get("correlation_id")
        lp = launch.get(str(c)) if c is not None else None
        if lp is None:
            out["unattributed_ns"] += d
            add(out["paths"], "[unattributed gpu];" + e["name"], d)
            continue
        add(out["by_launch"], lp[-1], d)
        add(out["by_correlation"], str(c), d)
        add(out["paths"], ";".join(lp + [e["name"]]), d)
    json.dump(out, sys.stdout, indent=1, sort_keys=True)
    print()


if __name__ == "__main__":
    main(sys.argv[1])
