#!/usr/bin/env python3
"""Independent check of the collective labels (docs/collectives.md).

usage: comms_check.py [--top TOP.json] [--duckdb ROWS.json] PROFILE.pb.gz TRACE...

Reads the Chrome/Kineto traces itself (no tracefold code) and computes, per
collective kind and message size (collective, comm_bytes):
  - gpu: the summed duration and the count of the GPU kernels of the
    collective (by their own name and args, or by those of the CPU
    collective region around the runtime call that launched them, matched
    by args.correlation);
  - wall: the summed duration of the outermost collective regions of each
    thread (the self time of everything inside them is labelled);
  - calls: the number of regions (X events) inside collective regions
    (themselves included) plus the kernels;
  - per (frame, collective, comm_bytes): the calls of each collective region name.
and compares them with the profile as `go tool pprof -raw` shows it
(tests/tools/pprof_raw.py); with --top, with `tracefold top --by-label
collective,comm_bytes --format json`'s rows; with --duckdb, with the rows
[kind, bytes, wall, gpu] of a DuckDB query over the Parquet collectives
table (one row per call: the wall time of the calls, the GPU time of their
kernels).  Facts of a region: its name
(gloo:X, nccl:X, rccl:X, c10d::X, ncclDevKernel_X_..., ncclKernel_X_...)
and Kineto's args (Collective name, In/Out msg nelems, dtype); a region
inside another collective region takes the outer one's facts where it has
none of its own.  Prints TAP lines; exits 1 on a mismatch."""
import gzip, json, os, sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import pprof_raw  # noqa: E402

DTYPE = {"Byte": 1, "Char": 1, "Short": 2, "Int": 4, "Long": 8, "Half": 2, "Float": 4, "Double": 8,
         "Bool": 1, "BFloat16": 2, "ComplexFloat": 8, "ComplexDouble": 16}
CANON = [("allreduce", "all_reduce", 1), ("allgather", "all_gather", 1), ("reducescatter", "reduce_scatter", 1),
         ("alltoall", "all_to_all", 1), ("sendrecv", "send_recv", 0), ("broadcast", "broadcast", 1),
         ("barrier", "barrier", 0), ("reduce", "reduce", 0), ("gather", "gather", 0),
         ("scatter", "scatter", 0), ("send", "send", 0), ("recv", "recv", 1)]
GPU_CATS = ("kernel", "gpu_memcpy", "gpu_memset")
fails = 0


def ok(cond, msg):
    global fails
    print(("ok - " if cond else "not ok - ") + msg)
    if not cond:
        fails += 1


def canon(s):
    c = "".join(ch.lower() for ch in s if ch not in "_ ")
    for compact, name, prefix in CANON:
        if (c.startswith(compact) if prefix else c == compact):
            return name
    return c


def facts(e):
    """(collective, bytes) of an event, None where unknown; None if no facts."""
    n, a = e.get("name", ""), e.get("args") or {}
    coll, nbytes, found = None, None, False
    for p in ("gloo:", "nccl:", "rccl:", "c10d::"):
        if n.startswith(p) and len(n) > len(p):
            coll, found = canon(n[len(p):]), True
    for p in ("ncclDevKernel_", "ncclKernel_", "rcclKernel_"):
        if n.startswith(p) and len(n) > len(p):
            coll, found = canon(n[len(p):].split("_")[0]), True
    if not found and n != "record_param_comms":
        return None
    if "Collective name" in a:
        coll, found = canon(str(a["Collective name"])), True
    nel = a.get("In msg nelems", a.get("Out msg nelems"))
    if nel is not None and a.get("dtype") in DTYPE:
        nbytes = int(nel) * DTYPE[a["dtype"]]
    if any(k in a for k in ("In msg nelems", "Out msg nelems", "dtype")):
        found = True
    return (coll, nbytes) if found else None


def merge(outer, inner):
    if outer is None:
        return inner
    if inner is None:
        return outer
    return (inner[0] or outer[0], inner[1] if inner[1] is not None else outer[1])


def load(path):
    with (gzip.open(path, "rt") if path.endswith(".gz") else open(path)) as f:
        d = json.load(f)
    return d if isinstance(d, list) else d.get("traceEvents", [])


def expected(paths):
    gpu, wall, calls, frames = {}, {}, {}, {}
    add = lambda m, k, v: m.__setitem__(k, m.get(k, 0) + v)
    for path in paths:
        ev = [e for e in load(path) if isinstance(e, dict) and e.get("ph") == "X" and "dur" in e
              and e.get("cat") != "Trace"]
        cpu = [e for e in ev if e.get("cat") not in GPU_CATS + ("gpu_user_annotation",)]
        by_thread = {}
        for e in cpu:
            by_thread.setdefault((str(e.get("pid")), str(e.get("tid"))), []).append(e)
        launch = {}
        for evs in by_thread.values():
            evs.sort(key=lambda e: (float(e["ts"]), -float(e["dur"])))
            stack = []  # (end, merged facts or None)
            for e in evs:
                ts, end = float(e["ts"]), float(e["ts"]) + float(e["dur"])
                while stack and stack[-1][0] <= ts:
                    stack.pop()
                outer = stack[-1][1] if stack else None
                own = facts(e)
                key = merge(outer, own)
                if own is not None and outer is None:
                    add(wall, key, round(float(e["dur"]) * 1000))
                if key is not None:
                    add(calls, key, 1)
                    if own is not None:
                        add(frames, (e["name"],) + key, 1)
                    corr = (e.get("args") or {}).get("correlation")
                    if corr is not None:
                        launch[corr] = key
                stack.append((end, key))
        for e in ev:
            if e.get("cat") not in GPU_CATS:
                continue
            corr = (e.get("args") or {}).get("correlation")
            key = merge(launch.get(corr), facts(e))
            if key is None:
                continue
            add(gpu, key, round(float(e["dur"]) * 1000))
            add(calls, key, 1)
            add(frames, (e["name"],) + key, 1)
    return gpu, wall, calls, frames


def observed(profile):
    text, _ = pprof_raw.raw(profile)
    types, samples, locs = pprof_raw.parse(text)
    gpu, wall, calls, frames, stray = {}, {}, {}, {}, 0
    for s in samples:
        v = dict(zip(types, s["values"]))
        lab = s["labels"]
        b = lab.get("comm_bytes")
        key = (lab.get("collective"), int(b.split()[0]) if b else None)
        if key == (None, None):
            continue
        leaf = locs[s["locs"][0]][0]
        for m, t in ((gpu, "gpu/nanoseconds"), (wall, "wall/nanoseconds"), (calls, "calls/count")):
            m[key] = m.get(key, 0) + v.get(t, 0)
        frames[(leaf,) + key] = frames.get((leaf,) + key, 0) + v.get("calls/count", 0)
    return gpu, wall, calls, frames, stray


def compare(what, exp, obs, tol_per=0):
    keys = sorted(set(exp) | set(obs), key=str)
    for k in keys:
        e, o = exp.get(k, 0), obs.get(k, 0)
        tol = tol_per * max(1, calls_exp.get(k[-2:] if len(k) == 3 else k, 1))
        ok(abs(e - o) <= tol, "%s %s: tracefold %d, trace %d%s" % (what, k, o, e, " (tol %d)" % tol if tol else ""))


if __name__ == "__main__":
    args = sys.argv[1:]
    top = duck = None
    while args[:1] in (["--top"], ["--duckdb"]):
        if args[0] == "--top":
            top = args[1]
        else:
            duck = args[1]
        args = args[2:]
    profile, traces = args[0], args[1:]
    gpu_e, wall_e, calls_exp, frames_e = expected(traces)
    gpu_o, wall_o, calls_o, frames_o, _ = observed(profile)
    ok(len(calls_exp) > 0, "the traces have collectives (%d kinds and sizes)" % len(calls_exp))
    compare("gpu ns", gpu_e, gpu_o)
    # the legacy profiler cuts start and end to whole microseconds: a child
    # may end 1 us after its parent, and tracefold clips it (child_clipped)
    compare("wall ns", wall_e, wall_o, tol_per=1000)
    compare("calls", calls_exp, calls_o)
    compare("frame calls", frames_e, {k: v for k, v in frames_o.items() if k in frames_e})
    if top:
        with open(top) as f:
            rows = json.load(f)["rows"]
        tot = {}
        for r in rows:
            b = r["labels"].get("comm_bytes")
            key = (r["labels"].get("collective"), int(b) if b is not None else None)
            if key != (None, None):
                tot[key] = tot.get(key, 0) + r["value"]
        exp = wall_e if json.load(open(top)).get("sample_type") == "wall" else gpu_e
        compare("top rows", exp, tot, tol_per=1000 if exp is wall_e else 0)
    if duck:
        # rows [kind, bytes, wall, gpu] of the Parquet collectives table
        with open(duck) as f:
            rows = json.load(f)
        for what, col, exp, tol in (("parquet wall", 2, wall_e, 1000), ("parquet gpu", 3, gpu_e, 0)):
            compare(what, {k: v for k, v in exp.items() if v}, {(r[0], r[1]): r[col] for r in rows if r[col]}, tol)
    sys.exit(1 if fails else 0)
