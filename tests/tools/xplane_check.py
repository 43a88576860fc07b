#!/usr/bin/env python3
"""xplane_check.py FILE.xplane.pb[.gz]: the GPU time of an XLA profiler
XPlane (jax.profiler.trace, TensorFlow's profiler), computed from the
protobuf itself, independently of tracefold (docs/format-xplane.md).

The protobuf wire format is decoded here from its specification
(protobuf.dev "Encoding": varint keys field << 3 | wire type; 0 varint,
1 eight bytes, 2 length-delimited, 5 four bytes), with the field numbers
of tensorflow/tsl's xplane.proto and XLA's hlo.proto:
  XSpace.planes 1; XPlane name 2, lines 3, event_metadata 4 and
  stat_metadata 5 (maps: entry key 1, value 2); XLine id 1, name 2,
  timestamp_ns 3, events 4, display_name 11; XEvent metadata_id 1,
  offset_ps 2, duration_ps 3, stats 4, num_occurrences 5; XStat metadata_id
  1, double 2, uint64 3, int64 4, str 5, bytes 6, ref 7 (a string: the name
  of that stat metadata); XEventMetadata id 1, name 2, display_name 4,
  stats 5; XStatMetadata id 1, name 2.  HloProto hlo_module 1;
  HloModuleProto name 1, computations 3, entry_computation_id 6;
  HloComputationProto instructions 2, id 5; HloInstructionProto name 1,
  metadata 7 (OpMetadata op_name 2).

Facts used: planes /host:CPU (lines = host threads) and /device:GPU:N
(lines = streams: every event a GPU activity); xprof's derived lines (ids
from 0xdeadbeef, names "XLA Ops", "Steps", ...) and other planes are no
timeline.  Times: line timestamp_ns + offset_ps, start and end each rounded
to ns half to even.  An event's name: its metadata's display_name, else
name.  A host call and the activities it launched share a correlation_id
stat.  Host regions nest by time on their line (a region holds the later
ones that start inside it and end at most 1 us after it).  The op of an
activity: its tf_op stat unless empty or "XlaModule:..."; else the op_name
of the HLO instruction (of the module named by its hlo_module stat, in the
HloProto stats "Hlo Proto" of /host:metadata) named by its hlo_op stat, or
whose name with '.' and '-' written '_' is the kernel's name (the entry
computation first).  The host events MemoryAllocation / MemoryDeallocation
(zero length) are left out, as the trace JSON leaves them out.

Prints JSON as tests/tools/jax_check.py does (gpu_ns, streams, by_launch,
by_correlation, kernels, paths: folded call paths launch path + op +
activity, ';' inside a name written ':'), plus by_op (the GPU time per op)
and op_unknown {activities, gpu_ns}."""
import gzip, json, os, struct, sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from pbwire import fields  # noqa: E402  (the protobuf wire format, shared with record_check.py)

CLIP_NS = 1000
DERIVED = {"XLA Modules", "XLA Ops", "XLA TraceMe", "Steps", "TensorFlow Ops", "TensorFlow Name Scope",
           "Framework Ops", "Framework Name Scope", "Source code", "Launch Stats", "Async XLA Ops"}


def signed(v):
    return v - (1 << 64) if v >= 1 << 63 else v


def ps_to_ns(ps):
    q, r = divmod(ps, 1000)  # floor
    return q + 1 if r > 500 or (r == 500 and q % 2) else q


def entry(b):
    d = dict((f, v) for f, _, v in fields(b))
    return signed(d.get(1, 0)), d.get(2, b"")


def stat(b, smeta):
    mid, val = 0, None
    for f, w, v in fields(b):
        if f == 1:
            mid = signed(v)
        elif f == 2:
            val = struct.unpack("<d", v)[0]
        elif f in (3, 4):
            val = v if f == 3 else signed(v)
        elif f in (5, 6):
            val = v
        elif f == 7:
            val = smeta.get(signed(v), b"")
    return smeta.get(mid, b"").decode(), val


def hlo_ops(b, ops):
    for f, _, mod in fields(b):
        if f != 1:
            continue
        name, entry_id, comps = b"", None, []
        for g, _, v in fields(mod):
            if g == 1:
                name = v
            elif g == 6:
                entry_id = v
            elif g == 3:
                comps.append(v)
        cid = lambda c: dict((g, v) for g, w, v in fields(c) if w == 0).get(5)
        # the entry computation first, the others in file order
        ordered = [c for c in comps if cid(c) == entry_id] + [c for c in comps if cid(c) != entry_id]
        for c in ordered:
            for g, _, ins in fields(c):
                if g != 2:
                    continue
                iname, opn = b"", b""
                for h, _, v in fields(ins):
                    if h == 1:
                        iname = v
                    elif h == 7:
                        for k, _, m in fields(v):
                            if k == 2:
                                opn = m
                if iname and opn:
                    m, i = name.decode(), iname.decode()
                    ops.setdefault((m, i), opn.decode())
                    ops.setdefault((m, i.replace(".", "_").replace("-", "_")), opn.decode())


def main(path):
    raw = open(path, "rb").read()
    if raw[:2] == b"\x1f\x8b":
        raw = gzip.decompress(raw)
    planes = [v for f, _, v in fields(raw) if f == 1]
    ops = {}
    parsed = []
    for p in planes:
        name, lines, emeta, smeta = "", [], {}, {}
        for f, _, v in fields(p):
            if f == 2:
                name = v.decode()
            elif f == 3:
                lines.append(v)
            elif f == 4:
                emeta[entry(v)[0]] = entry(v)[1]
            elif f == 5:
                k, m = entry(v)
                smeta[k] = dict((g, x) for g, _, x in fields(m)).get(2, b"")
        parsed.append((name, lines, emeta, smeta))
        if name == "/host:metadata":
            for m in emeta.values():
                for f, _, v in fields(m):
                    if f == 5:
                        sn, val = stat(v, smeta)
                        if sn == "Hlo Proto" and isinstance(val, bytes):
                            hlo_ops(val, ops)
    acts, host = [], []
    for name, lines, emeta, smeta in parsed:
        gpu = name.startswith("/device:GPU:")
        if not gpu and name != "/host:CPU":
            continue
        for lb in lines:
            lid, lname, dname, ts, evs = 0, "", "", 0, []
            for f, _, v in fields(lb):
                if f == 1:
                    lid = signed(v)
                elif f == 2:
                    lname = v.decode()
                elif f == 11:
                    dname = v.decode()
                elif f == 3:
                    ts = signed(v)
                elif f == 4:
                    evs.append(v)
            if 0xDEADBEEF <= lid < 0xDEADBEEF + 64 or lname in DERIVED:
                continue
            xs = []
            for eb in evs:
                mid, off, dur, agg, st = 0, 0, 0, False, {}
                for f, _, v in fields(eb):
                    if f == 1:
                        mid = signed(v)
                    elif f == 2:
                        off = signed(v)
                    elif f == 3:
                        dur = signed(v)
                    elif f == 5:
                        agg = True
                    elif f == 4:
                        k, val = stat(v, smeta)
                        st.setdefault(k, val)
                if agg or mid not in emeta:
                    continue
                md = dict((f, v) for f, _, v in fields(emeta[mid]) if f in (2, 4))
                for f, _, v in fields(emeta[mid]):
                    if f == 5:
                        k, val = stat(v, smeta)
                        st.setdefault(k, val)
                en = (md.get(4) or md.get(2) or b"[unnamed]").decode()
                if not gpu and dur == 0 and en in ("MemoryAllocation", "MemoryDeallocation"):
                    continue
                s, t = ts + ps_to_ns(off), ts + ps_to_ns(off + dur)
                x = {"name": en, "s": s, "t": t, "st": st,
                     "stream": name + "/" + (dname or lname or str(lid))}
                xs.append(x)
            (acts.extend(xs) if gpu else host.append(xs))
    text = lambda v: v.decode() if isinstance(v, bytes) else None if v is None else str(v)
    launch = {}
    for xs in host:
        xs.sort(key=lambda e: (e["s"], -(e["t"] - e["s"])))
        stack = []
        for e in xs:
            while stack and (stack[-1][1] <= e["s"] or stack[-1][1] + CLIP_NS < e["t"]):
                stack.pop()
            path = [x[2] for x in stack] + [e["name"]]
            c = e["st"].get("correlation_id")
            if c is not None:
                launch[text(c)] = path
            stack.append((e["s"], e["t"], e["name"]))
    out = {"gpu_ns": 0, "activities": len(acts), "streams": {}, "by_launch": {}, "by_correlation": {},
           "by_op": {}, "op_unknown": {"activities": 0, "gpu_ns": 0}, "kernels": {}, "paths": {},
           "unattributed_ns": 0}
    add = lambda d, k, v: d.__setitem__(k, d.get(k, 0) + v)
    frame = lambda n: n.replace(";", ":")
    for e in acts:
        d = e["t"] - e["s"]
        out["gpu_ns"] += d
        s = out["streams"].setdefault(e["stream"], {"gpu_ns": 0, "activities": 0})
        s["gpu_ns"] += d
        s["activities"] += 1
        k = out["kernels"].setdefault(e["name"], {"gpu_ns": 0, "calls": 0})
        k["gpu_ns"] += d
        k["calls"] += 1
        tf_op, mod, hop = (text(e["st"].get(x)) for x in ("tf_op", "hlo_module", "hlo_op"))
        op = tf_op if tf_op and not tf_op.startswith("XlaModule:") else \
            ops.get((mod, hop)) or ops.get((mod, e["name"]))
        if op:
            add(out["by_op"], op, d)
        else:
            out["op_unknown"]["activities"] += 1
            out["op_unknown"]["gpu_ns"] += d
        c = text(e["st"].get("correlation_id"))
        lp = launch.get(c) if c is not None else None
        tail = ([frame(op)] if op else []) + [frame(e["name"])]
        if lp is None:
            out["unattributed_ns"] += d
            add(out["paths"], ";".join(["[unattributed gpu]"] + tail), d)
            continue
        add(out["by_launch"], lp[-1], d)
        add(out["by_correlation"], c, d)
        add(out["paths"], ";".join([frame(x) for x in lp] + tail), d)
    json.dump(out, sys.stdout, indent=1, sort_keys=True)
    print()


if __name__ == "__main__":
    main(sys.argv[1])
