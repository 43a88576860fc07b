#!/usr/bin/env python3
"""Independent check of the collectives table (docs/schema.md "collectives",
docs/collectives.md "The collectives table"): the rows each trace should
give, computed from the raw trace (no tracefold code), against the rows of
a DuckDB query.

usage:
  coll_table_check.py chrome ROWS.json TRACE...
  coll_table_check.py otf2 ROWS.json ANCHOR      (Debian's python3-otf2: /usr/bin/python3)

ROWS.json: the JSON array of arrays of
  SELECT t.input, c.rank, c.match_id, c.kind, c.communicator, c.root, c.bytes,
         c.bytes_received, c.nelems, c.begin_ns, c.end_ns, c.gpu_begin_ns, c.gpu_end_ns,
         c.slice_id IS NOT NULL   (false: an NCCL kernel with no call)
  FROM collectives c JOIN tracks t USING (track_id)

Chrome (the JSON events): a call is the outermost X region of a CPU thread
that is a collective (name gloo:/nccl:/rccl:/c10d::X, or record_param_comms
with Kineto's args), except gloo:X (gloo's worker-thread work); its facts
are its own and those of the regions in it, the deepest first; the NCCL
kernel (ncclDevKernel_/ncclKernel_/rcclKernel_) whose args.correlation is
that of a region in the call gives gpu begin/end; a kernel with no call is
a row of its own (its times, gpu times the same).  Bytes: In msg nelems (else
Out) x the dtype's size.  The match id is "<Process Group Name>#<n>", n
counting the calls of (rank, group) in the order they end (kernels without
a call after the calls).  Times: ts x 1000 exactly (as Fractions).

OTF2: a call is the region entered last before an MpiCollectiveBegin, up to
its Leave; the MpiCollectiveEnd gives op, communicator (its id), root (a
rank of the communicator's group, as a world rank), sizeSent, sizeReceived;
rank = the location's place in the MPI COMM_LOCATIONS group; times
(t - global offset) * 1e9 / timer resolution, floored.

Prints TAP lines; exits 1 on a mismatch."""
import gzip, json, sys
from fractions import Fraction

# the dtype sizes, normalized kinds and GPU categories: comms_check.py's (beside this file)
from comms_check import DTYPE, GPU_CATS, canon

KERNELS = ("ncclDevKernel_", "ncclKernel_", "rcclKernel_")
FIELDS = ("kind", "pg", "ranks", "bytes", "nelems", "dtype")
fails = 0


def ok(cond, msg):
    global fails
    print(("ok - " if cond else "not ok - ") + msg)
    if not cond:
        fails += 1


def facts(e):
    """A dict of the facts of an X event (None values unknown), None if it is no collective."""
    n, a = e.get("name", ""), e.get("args") or {}
    f, found = dict.fromkeys(FIELDS), False
    for p in ("gloo:", "nccl:", "rccl:", "c10d::"):
        if n.startswith(p) and len(n) > len(p):
            f["kind"], found = canon(n[len(p):]), True
    for p in KERNELS:
        if n.startswith(p) and len(n) > len(p):
            f["kind"], found = canon(n[len(p):].split("_")[0]), True
    if not found and n != "record_param_comms":
        return None
    if "Collective name" in a:
        f["kind"] = canon(str(a["Collective name"]))
    nel = a.get("In msg nelems", a.get("Out msg nelems"))
    if nel is not None:
        f["nelems"] = int(nel)
        if a.get("dtype") in DTYPE:
            f["bytes"] = int(nel) * DTYPE[a["dtype"]]
    if "dtype" in a:
        f["dtype"] = str(a["dtype"])
    if "Process Group Name" in a:
        f["pg"] = str(a["Process Group Name"])
    if "Process Group Ranks" in a:
        r = a["Process Group Ranks"]
        f["ranks"] = (json.dumps(r) if isinstance(r, list) else str(r)).replace(" ", "")
    found = found or any(v is not None for v in f.values())
    return f if found else None


def merge(outer, inner):
    """inner's known facts over outer's; a size (bytes, nelems) as a whole."""
    if outer is None or inner is None:
        return outer or inner
    m = {k: inner[k] if inner[k] is not None else outer[k] for k in FIELDS}
    if inner["bytes"] is not None or inner["nelems"] is not None:
        m["bytes"], m["nelems"] = inner["bytes"], inner["nelems"]
    return m


def ns(v):
    return int(Fraction(str(v)) * 1000)


def chrome_expected(path):
    with (gzip.open(path, "rt") if path.endswith(".gz") else open(path)) as fh:
        d = json.load(fh)
    evs = d if isinstance(d, list) else d.get("traceEvents", [])
    rank = d.get("distributedInfo", {}).get("rank") if isinstance(d, dict) else None
    ev = [e for e in evs if isinstance(e, dict) and e.get("ph") == "X" and "dur" in e and e.get("cat") != "Trace"]
    by_thread = {}
    for e in ev:
        if e.get("cat") not in GPU_CATS + ("gpu_user_annotation",):
            by_thread.setdefault((str(e.get("pid")), str(e.get("tid"))), []).append(e)
    calls, launch = [], {}
    for evs_t in by_thread.values():
        evs_t.sort(key=lambda e: (ns(e["ts"]), -ns(e["dur"])))
        call, stack = None, []  # stack: (end, merged facts of the region and the ones around it in the call)
        for e in evs_t:
            ts, end = ns(e["ts"]), ns(e["ts"]) + ns(e["dur"])
            while stack and stack[-1][0] <= ts:
                stack.pop()
            if call is not None and len(stack) < call["depth"]:
                call = None
            own = facts(e)
            if call is None and own is not None and not e["name"].startswith("gloo:"):
                call = {"begin": ts, "end": end, "inner": [], "own": own, "gpu": None, "depth": len(stack) + 1}
                calls.append(call)
                stack.append((end, own))
                if (e.get("args") or {}).get("correlation") is not None:
                    launch[e["args"]["correlation"]] = call
                continue
            key = merge(stack[-1][1] if stack else None, own)
            if call is not None:
                if own is not None:
                    call["inner"].append((end, -len(stack), key))
                if (e.get("args") or {}).get("correlation") is not None:
                    launch[e["args"]["correlation"]] = call
            stack.append((end, key))
    rows = []
    for c in sorted(calls, key=lambda c: c["end"]):
        acc = None
        for _, _, k in sorted(c["inner"], key=lambda x: x[:2]):  # the order they close: the deepest first
            acc = merge(k, acc)
        c["facts"] = merge(c["own"], acc)
        rows.append(c)
    lone = []
    for e in ev:
        if e.get("cat") not in GPU_CATS or not e.get("name", "").startswith(KERNELS):
            continue
        b, en = ns(e["ts"]), ns(e["ts"]) + ns(e["dur"])
        c = launch.get((e.get("args") or {}).get("correlation"))
        if c is not None:
            g = c["gpu"]
            c["gpu"] = (b, en) if g is None else (min(g[0], b), max(g[1], en))
        else:
            lone.append({"begin": b, "end": en, "facts": facts(e), "gpu": (b, en), "lone": True})
    rows += sorted(lone, key=lambda c: c["end"])
    seq, out = {}, []
    for c in rows:
        f = c["facts"]
        n = seq.get(f["pg"], 0)
        seq[f["pg"]] = n + 1
        g = c["gpu"] or (None, None)
        out.append([rank, "%s#%d" % (f["pg"] or "", n), f["kind"], f["pg"], None, f["bytes"], None, f["nelems"],
                    c["begin"], c["end"], g[0], g[1], not c.get("lone")])
    return out


def otf2_expected(anchor):
    import otf2
    rows = []
    with otf2.reader.open(anchor) as tr:
        res, off = tr.timer_resolution, tr.definitions.clock_properties.global_offset
        t_ns = lambda t: (t - off) * 10**9 // res
        world = [g for g in tr.definitions.groups if g.group_type == otf2.GroupType.COMM_LOCATIONS][0]
        rank_of = {loc: i for i, loc in enumerate(world.members)}
        st, seq = {}, {}
        for loc, ev in tr.events:
            s = st.setdefault(loc, {"enter": [], "coll": None, "facts": None})
            name = type(ev).__name__
            if name == "Enter":
                s["enter"].append((ev.region.name, ev.time))
            elif name == "MpiCollectiveBegin":
                s["coll"] = (len(s["enter"]), s["enter"][-1])
            elif name == "MpiCollectiveEnd":
                comm = ev.communicator
                root = None
                if ev.root < 2**32 - 3:
                    root = rank_of[comm.group.members[ev.root]]
                ops = {"BCAST": "broadcast", "GATHERV": "gather", "SCATTERV": "scatter", "ALLGATHER": "all_gather",
                       "ALLGATHERV": "all_gather", "ALLTOALL": "all_to_all", "ALLTOALLV": "all_to_all",
                       "ALLREDUCE": "all_reduce", "REDUCE_SCATTER": "reduce_scatter"}
                op = str(ev.collective_op).split(".")[-1]
                s["facts"] = (ops.get(op, op.lower()), str(comm._ref), root, ev.size_sent, ev.size_received)
            elif name == "Leave":
                depth = len(s["enter"])
                region, begin = s["enter"].pop()
                if s["coll"] is not None and s["coll"][0] == depth and s["facts"] is not None:
                    kind, comm, root, sent, recv = s["facts"]
                    r = rank_of[loc]
                    n = seq.get((r, comm), 0)
                    seq[(r, comm)] = n + 1
                    rows.append([r, "%s#%d" % (comm, n), kind, comm, root, sent, recv, None,
                                 t_ns(begin), t_ns(ev.time), None, None, True])
                    s["coll"] = s["facts"] = None
    return rows


def compare(exp, got, what):
    exp = sorted(exp, key=json.dumps)
    got = sorted(got, key=json.dumps)
    ok(len(exp) > 0, "%s: the trace has collective calls (%d)" % (what, len(exp)))
    ok(exp == got, "%s: %d rows = the %d the trace says" % (what, len(got), len(exp)))
    if exp != got:
        for r in exp:
            if r not in got:
                print("#   missing: %s" % r)
        for r in got:
            if r not in exp:
                print("#   extra:   %s" % r)


if __name__ == "__main__":
    mode, rows_path, inputs = sys.argv[1], sys.argv[2], sys.argv[3:]
    with open(rows_path) as fh:
        rows = json.load(fh)
    if mode == "chrome":
        for path in inputs:
            compare(chrome_expected(path), [r[1:] for r in rows if r[0] == path], path)
    else:
        compare(otf2_expected(inputs[0]), [r[1:] for r in rows], inputs[0])
    sys.exit(1 if fails else 0)
