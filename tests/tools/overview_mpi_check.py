#!/usr/bin/python3
"""The MPI numbers of `tracefold overview` (docs: the overview spec, "MPI"
and "Collectives") computed again from OTF2 archives read with Debian's
python3-otf2 (the OTF2 project's own reader over libotf2), independent of
tracefold's reader and of its overview code.  Scalasca's wait-state patterns
are the model: Late Sender, Late Receiver, Wait at N x N (MPI.pattern of
Scalasca 2.x; scalasca_patterns-2.4.html).

usage: overview_mpi_check.py ARCHIVE/traces.otf2...            prints the expected JSON
       overview_mpi_check.py --compare OVERVIEW.json ARCHIVE... TAP lines, exit 1 on a mismatch
       overview_mpi_check.py --expect HAND.json ARCHIVE...       the same against a hand table
Use /usr/bin/python3 (Debian's python3-otf2).

What it computes, literally from the spec (one input; the ranks are the
trace's own, no --step-region: every rank is one step 0, the whole run):
  - time: ns = floor((ticks - globalOffset) * 1e9 / timerResolution), exact
    integers (docs/format-otf2.md "Clock");
  - ranks: a location's rank is its index in the MPI paradigm's
    COMM_LOCATIONS group; a location group's rank the lowest of its
    locations'; every location of a group has the group's rank;
  - messages: MpiSend/MpiIsend are sends, MpiRecv/MpiIrecv receives; the
    peer is a rank of the event's communicator, its world rank the index in
    COMM_LOCATIONS of the communicator group's member (COMM_SELF: the
    location's own rank); a message's call is the innermost region open on
    its location when it fired; sends and receives match in order by
    (sender, receiver, communicator, tag);
      late sender   (receiver, receive call's path) = min(s0, r1) - r0 if s0 > r0
      late receiver (sender, send call's path)      = r0 - s0 if r0 > s0 and s1 > r0
  - collectives: outermost MPI collective regions on a thread (not inside
    another collective), keyed by name, the n-th of a key on each rank
    matched; matched when >= 2 ranks; wait = min(last arrival, end) -
    arrival when positive (Scalasca's Wait at N x N);
  - mpi_ns: the time of the outermost MPI_* regions of each thread, summed
    over the rank's threads;
  - where: per (kind, call path) the sum over ranks, kinds late_sender,
    late_receiver, coll_wait; only rows with ns > 0.
  - late_ns of the step: the max over the rank's matched collectives of
    arrival - median arrival (an even count: the mean of the two middle
    ones, rounded down); 0 without a collective.
The expected JSON is the spec's "mpi" object plus "steps": {rank: {"0":
{"mpi_ns", "comm_wait_ns", "late_ns"}}} (the ranks[].steps[] fields it also
fixes) and "counts" (messages matched and not, collectives matched, calls
of unmatched collectives), compared with the tool's "mpi.messages" and
"run.collectives" where it has them."""
import glob, json, os, re, struct, sys
import otf2

MPI_COLL = {
    "MPI_Allreduce": "all_reduce", "MPI_Reduce": "reduce", "MPI_Bcast": "broadcast",
    "MPI_Barrier": "barrier", "MPI_Allgather": "all_gather", "MPI_Allgatherv": "all_gatherv",
    "MPI_Alltoall": "all_to_all", "MPI_Alltoallv": "all_to_allv", "MPI_Alltoallw": "all_to_allw",
    "MPI_Gather": "gather", "MPI_Gatherv": "gatherv", "MPI_Scatter": "scatter",
    "MPI_Scatterv": "scatterv", "MPI_Reduce_scatter": "reduce_scatter",
    "MPI_Reduce_scatter_block": "reduce_scatter_block", "MPI_Scan": "scan", "MPI_Exscan": "exscan",
}
SENDS = ("MpiSend", "MpiIsend")


def coll_name(name):
    """The collective key of a region name, or None.  TAU's MPI wrapper names
    its timers "MPI_Allreduce()": the "()" is dropped (a reading of the spec,
    which names the MPI functions bare)."""
    return MPI_COLL.get(name[:-2] if name.endswith("()") else name)


RECVS = ("MpiRecv", "MpiIrecv")


class Call:
    """One region instance on a location: name, path (root first), start, end."""
    __slots__ = ("name", "path", "start", "end", "depth", "in_coll", "in_mpi")

    def __init__(self, name, path, start, depth, in_coll, in_mpi):
        self.name, self.path, self.start, self.end = name, path, start, None
        self.depth, self.in_coll, self.in_mpi = depth, in_coll, in_mpi


def read(anchor):
    """-> (rank of each location ref, calls per location ref in order, sends, recvs).
    A send/recv: (time_ns, order, location ref, own rank, peer rank, comm ref, tag, Call)."""
    with otf2.reader.open(anchor) as tr:
        d = tr.definitions
        cp = d.clock_properties
        res, off = cp.timer_resolution, cp.global_offset

        def ns(t):
            return (t - off) * 10**9 // res

        world = None
        for g in d.groups:
            if g.group_type == otf2.GroupType.COMM_LOCATIONS and g.paradigm == otf2.Paradigm.MPI:
                world = [m._ref for m in g.members]
        loc_rank = {}
        if world is not None:
            grank = {}
            for r, lref in enumerate(world):
                for l in d.locations:
                    if l._ref == lref:
                        g = l.group._ref
                        grank[g] = min(grank.get(g, r), r)
            for l in d.locations:
                loc_rank[l._ref] = grank.get(l.group._ref, -1)
        else:
            for l in d.locations:
                loc_rank[l._ref] = -1
        stacks, calls, sends, recvs = {}, {}, [], []
        order = 0
        for loc, ev in tr.events:
            kind = type(ev).__name__
            lr = loc._ref
            st = stacks.setdefault(lr, [])
            t = ns(ev.time)
            order += 1
            if kind == "Enter":
                name = ev.region.name
                top = st[-1] if st else None
                c = Call(name, (top.path + ";" if top else "") + name, t, len(st) + 1,
                         bool(top and (top.in_coll or coll_name(top.name))),
                         bool(top and (top.in_mpi or top.name.startswith("MPI_"))))
                st.append(c)
                calls.setdefault(lr, []).append(c)
            elif kind == "Leave":
                if not st or st[-1].name != ev.region.name:
                    sys.exit("%s: location %d: Leave %r does not close the innermost region"
                             % (anchor, lr, ev.region.name))
                st.pop().end = t
            elif kind in SENDS or kind in RECVS:
                peer = ev.receiver if kind in SENDS else ev.sender
                comm = ev.communicator
                me = loc_rank[lr]
                if comm is None:
                    cref, prank = -1, peer
                elif comm.group.group_type == otf2.GroupType.COMM_SELF:
                    cref, prank = comm._ref, me
                else:
                    cref = comm._ref
                    members = comm.group.members
                    prank = world.index(members[peer]._ref) if world and peer < len(members) \
                        and members[peer]._ref in world else peer
                rec = (t, order, lr, me, prank, cref, ev.msg_tag, st[-1] if st else None)
                (sends if kind in SENDS else recvs).append(rec)
        for lr, st in stacks.items():
            if st:
                sys.exit("%s: location %d: %d regions never left" % (anchor, lr, len(st)))
    return loc_rank, calls, sends, recvs


def tau_edf(path):
    """EDF lines -> {id: (group, tag, name trimmed of trailing blanks, kind)}."""
    defs = {}
    for ln in open(path, errors="replace"):
        ln = ln.rstrip("\r\n")
        if not ln.strip() or ln.lstrip().startswith("#") or ln.split()[1:2] == ["dynamic_trace_events"]:
            continue
        a, b = ln.index('"'), ln.rindex('"')
        eid, group, tag = ln[:a].split()
        defs[int(eid)] = (group, int(tag), ln[a + 1:b].rstrip(" \t"), ln[b + 1:].strip())
    return defs


def read_tau(folder):
    """A TAU trace folder (tautrace.N.C.T.trc with events.N.edf; 24-byte
    little-endian records as the fixtures are): -> as read().  The thread is
    the (node, thread) pair, its rank the node; times are microseconds.
    Entry/exit: EntryExit definitions with parameter 1 / -1; messages: tags
    -7 (send) / -8 (receive), the parameter unpacked as docs/format-tau.md
    ("Messages") gives TAU's packing."""
    loc_rank, calls, sends, recvs = {}, {}, [], []
    order = 0
    for trc in sorted(glob.glob(os.path.join(folder, "tautrace.*.trc"))):
        node = int(os.path.basename(trc).split(".")[1])
        defs = tau_edf(os.path.join(folder, "events.%d.edf" % node))
        data = open(trc, "rb").read()
        stacks = {}
        for off in range(0, len(data) - len(data) % 24, 24):
            ev, nid, tid, par, ti = struct.unpack_from("<iHHqQ", data, off)
            if ev not in defs:
                continue
            group, tag, name, kind = defs[ev]
            lr = (nid, tid)
            loc_rank[lr] = nid
            st = stacks.setdefault(lr, [])
            t = ti * 1000
            order += 1
            if tag in (-7, -8):
                u = par & (2**64 - 1)
                mtag = ((u >> 16) & 0xFF) | ((u >> 48) & 0xFF) << 8
                peer = ((u >> 24) & 0xFF) | ((u >> 56) & 0xFF) << 8
                comm = (u >> 42) & 0x3F
                rec = (t, order, lr, nid, peer, comm, mtag, st[-1] if st else None)
                (sends if tag == -7 else recvs).append(rec)
            elif group == "TRACER" or kind != "EntryExit":
                continue
            elif par == 1:
                top = st[-1] if st else None
                c = Call(name, (top.path + ";" if top else "") + name, t, len(st) + 1,
                         bool(top and (top.in_coll or coll_name(top.name))),
                         bool(top and (top.in_mpi or top.name.startswith("MPI_"))))
                st.append(c)
                calls.setdefault(lr, []).append(c)
            elif par == -1:
                if not st or st[-1].name != name:
                    sys.exit("%s: thread %s: exit of %r does not close the innermost region" % (trc, lr, name))
                st.pop().end = t
        for lr, st in stacks.items():
            if st:
                sys.exit("%s: thread %s: %d regions never left" % (trc, lr, len(st)))
    return loc_rank, calls, sends, recvs


def compute(anchors):
    loc_rank, calls, sends, recvs = {}, {}, [], []
    for i, a in enumerate(anchors):
        lrk, c, s, r = read_tau(a) if os.path.isdir(a) else read(a)
        # a location without a rank of the trace's takes its input's index (one input: 0)
        for lref, rk in lrk.items():
            loc_rank[(i, lref)] = rk if rk >= 0 else i
        calls.update({(i, k): v for k, v in c.items()})
        sends += [(x[0], x[1], (i, x[2])) + x[3:] for x in s]
        recvs += [(x[0], x[1], (i, x[2])) + x[3:] for x in r]
    ranks = sorted(set(loc_rank.values()))
    acc = {r: {"mpi_ns": 0, "late_sender_ns": 0, "late_receiver_ns": 0, "coll_wait_ns": 0} for r in ranks}
    where = {}

    def add(kind, rank, path, v):
        acc[rank][kind + "_ns"] += v
        where[(kind, path)] = where.get((kind, path), 0) + v

    # point to point: the n-th send of a key with the n-th receive of that key
    q = {}
    for x in sorted(sends):
        t, o, lr, me, peer, comm, tag, call = x
        q.setdefault((me, peer, comm, tag), []).append(call)
    pairs = 0
    seen = {}
    # a call that completes several messages (MPI_Waitall) waits once: the
    # largest of its messages' waits (Scalasca's rule), not their sum
    callmax = {}

    def waited(kind, rank, call, v):
        k = (kind, rank, id(call))
        if k not in callmax or v > callmax[k][2]:
            callmax[k] = (call.path, rank, v)
    for x in sorted(recvs):
        t, o, lr, me, peer, comm, tag, rcall = x
        k = (peer, me, comm, tag)
        n = seen.get(k, 0)
        seen[k] = n + 1
        if n >= len(q.get(k, [])):
            continue
        scall = q[k][n]
        if scall is None or rcall is None:
            continue
        pairs += 1
        s0, s1, r0, r1 = scall.start, scall.end, rcall.start, rcall.end
        if s0 > r0:
            waited("late_sender", me, rcall, min(s0, r1) - r0)
        if r0 > s0 and s1 > r0:
            waited("late_receiver", peer, scall, r0 - s0)
    for (kind, _, _), (path, rank, v) in sorted(callmax.items(), key=lambda kv: (kv[0][0], kv[0][1], kv[1][0], kv[1][2])):
        add(kind, rank, path, v)
    # collectives: per rank, outermost collective calls of every thread in order of arrival
    percoll = {r: {} for r in ranks}
    for lr, cs in calls.items():
        rk = loc_rank[lr]
        for c in cs:
            if c.name.startswith("MPI_") and not c.in_mpi:
                acc[rk]["mpi_ns"] += c.end - c.start
            if coll_name(c.name) and not c.in_coll:
                percoll[rk].setdefault(coll_name(c.name), []).append(c)
    keys = set(k for r in ranks for k in percoll[r])
    ncoll = unmatched_calls = 0
    late = {}  # rank -> late_ns of its one step (max of arrival - median arrival)
    for key in sorted(keys):
        n = max(len(percoll[r].get(key, [])) for r in ranks)
        for i in range(n):
            inst = {r: sorted(percoll[r][key], key=lambda c: c.start)[i]
                    for r in ranks if len(percoll[r].get(key, [])) > i}
            if len(inst) < 2:
                unmatched_calls += len(inst)
                continue
            ncoll += 1
            last = max(c.start for c in inst.values())
            arr = sorted(c.start for c in inst.values())
            k = len(arr)
            med = arr[k // 2] if k % 2 else (arr[k // 2 - 1] + arr[k // 2]) // 2
            for r, c in inst.items():
                late[r] = max(late.get(r, c.start - med), c.start - med)
                w = min(last, c.end) - c.start
                if w > 0:
                    add("coll_wait", r, c.path, w)
    out = {
        "late_sender_ns": sum(a["late_sender_ns"] for a in acc.values()),
        "late_receiver_ns": sum(a["late_receiver_ns"] for a in acc.values()),
        "coll_wait_ns": sum(a["coll_wait_ns"] for a in acc.values()),
        "ranks": [dict(rank=r, **acc[r]) for r in ranks],
        "where": [{"kind": k, "path": p, "ns": v} for (k, p), v in
                  sorted(where.items(), key=lambda kv: (-kv[1], kv[0][0], kv[0][1])) if v > 0],
        "steps": {str(r): {"0": {"mpi_ns": acc[r]["mpi_ns"], "comm_wait_ns": acc[r]["coll_wait_ns"],
                                 "late_ns": late.get(r, 0)}}
                  for r in ranks},
        "counts": {"messages_matched": pairs, "messages_unmatched": len(sends) + len(recvs) - 2 * pairs,
                   "collectives_matched": ncoll, "collective_calls_unmatched": unmatched_calls},
    }
    return out


def compare(got, want, label):
    """TAP lines: the mpi totals, each rank's fields, the where rows (as a set),
    each rank-step's mpi_ns and comm_wait_ns.  -> number of failures."""
    bad = 0

    def line(ok, what):
        nonlocal bad
        print(("ok - " if ok else "not ok - ") + "%s: %s" % (label, what))
        bad += not ok

    m = got.get("mpi")
    if m is None:
        line(False, "no \"mpi\" object in the overview JSON")
        return 1
    for f in ("late_sender_ns", "late_receiver_ns", "coll_wait_ns"):
        line(m.get(f) == want[f], "mpi.%s %s (want %s)" % (f, m.get(f), want[f]))
    gr = {x.get("rank"): x for x in m.get("ranks", [])}
    line(sorted(gr) == [x["rank"] for x in want["ranks"]],
         "mpi.ranks %s (want %s)" % (sorted(gr), [x["rank"] for x in want["ranks"]]))
    for w in want["ranks"]:
        g = gr.get(w["rank"], {})
        diff = ["%s %s (want %s)" % (f, g.get(f), w[f]) for f in
                ("mpi_ns", "late_sender_ns", "late_receiver_ns", "coll_wait_ns") if g.get(f) != w[f]]
        line(not diff, "mpi.ranks rank %d: %s" % (w["rank"], "; ".join(diff) if diff else
                                                   "mpi_ns, late_sender_ns, late_receiver_ns, coll_wait_ns"))
    gw = {(x.get("kind"), x.get("path")): x.get("ns") for x in m.get("where", [])}
    ww = {(x["kind"], x["path"]): x["ns"] for x in want["where"]}
    # rows the tool has of a kind the checker does not compute are not judged
    kinds = {k for k, _ in ww} | {"late_sender", "late_receiver"}
    gw = {k: v for k, v in gw.items() if k[0] in kinds and v}
    miss = sorted(set(ww) - set(gw))
    extra = sorted(set(gw) - set(ww))
    neq = sorted(k for k in set(ww) & set(gw) if ww[k] != gw[k])
    line(not (miss or extra or neq), "mpi.where: %d rows%s" % (len(ww), "" if not (miss or extra or neq) else
         "; missing %s; extra %s; differ %s" % (miss, [(k, gw[k]) for k in extra],
                                                [(k, gw[k], ww[k]) for k in neq])))
    steps = {}
    for r in got.get("ranks", []):
        for s in r.get("steps", []):
            steps[(str(r.get("rank")), str(s.get("step")))] = s
    for rk, ss in want["steps"].items():
        for st, w in ss.items():
            g = steps.get((rk, st))
            if g is None:
                line(False, "ranks[%s].steps[%s] missing" % (rk, st))
                continue
            # late_ns: absent or 0 when the step has no collective
            diff = ["%s %s (want %s)" % (f, g.get(f), w[f]) for f in ("mpi_ns", "comm_wait_ns", "late_ns")
                    if f in w and g.get(f, 0 if f == "late_ns" else None) != w[f]]
            line(not diff, "rank %s step %s: %s" % (rk, st, "; ".join(diff) if diff else
                                                    "mpi_ns, comm_wait_ns, late_ns"))
    # counts the tool reports beside the spec's fields, where it does
    c = want.get("counts")
    msgs = m.get("messages")
    if c and isinstance(msgs, dict) and "matched" in msgs:
        line((msgs.get("matched"), msgs.get("unmatched")) == (c["messages_matched"], c["messages_unmatched"]),
             "mpi.messages matched %s unmatched %s (want %d, %d)" % (msgs.get("matched"), msgs.get("unmatched"),
                                                                     c["messages_matched"], c["messages_unmatched"]))
    colls = got.get("run", {}).get("collectives")
    if c and isinstance(colls, dict) and "matched" in colls:
        line((colls.get("matched"), colls.get("unmatched_calls")) == (c["collectives_matched"],
                                                                      c["collective_calls_unmatched"]),
             "run.collectives matched %s unmatched_calls %s (want %d, %d)" % (
                 colls.get("matched"), colls.get("unmatched_calls"), c["collectives_matched"],
                 c["collective_calls_unmatched"]))
    return bad


def main():
    args = sys.argv[1:]
    mode = None
    if args and args[0] in ("--compare", "--expect"):
        mode, path = args[0], args[1]
        args = args[2:]
    if not args:
        sys.exit(__doc__)
    want = compute(args)
    if mode is None:
        json.dump(want, sys.stdout, indent=1)
        print()
        return 0
    got = json.load(open(path))
    if mode == "--expect":
        # a hand table: the checker's numbers must be the hand-computed ones (its own format)
        c = want["counts"]
        mine = {"mpi": dict(want, messages={"matched": c["messages_matched"], "unmatched": c["messages_unmatched"]}),
                "run": {"collectives": {"matched": c["collectives_matched"],
                                        "unmatched_calls": c["collective_calls_unmatched"]}},
                "ranks": [{"rank": int(r), "steps": [dict(step=int(s), **v) for s, v in ss.items()]}
                          for r, ss in want["steps"].items()]}
        return 1 if compare(mine, got, "checker vs hand table") else 0
    return 1 if compare(got, want, args[0]) else 0


if __name__ == "__main__":
    sys.exit(main())
