#!/usr/bin/env python3
"""gpuside_check.py: the GPU side of a Kineto trace, from the trace JSON
itself (not tracefold's code), and checks of tracefold's timelines of it.

    gpuside_check.py facts TRACE.json[.gz]           -> JSON facts on stdout
    gpuside_check.py chrome FACTS.json OUT.json      -> exit 1 with reasons
    gpuside_check.py perfetto FACTS.json PB2_DIR OUT.pftrace

Facts of the format relied on (PyTorch profiler / Kineto Chrome trace
export): events are objects of "traceEvents"; a complete event has ph "X",
ts and dur in microseconds (decimals, read exactly here); GPU work is on a
(pid, tid) of the device with cat "kernel", "gpu_memcpy" or "gpu_memset"
(the activities), and Kineto copies each record_function range of the CPU
(cat "user_annotation") onto the stream it launched work on as cat
"gpu_user_annotation" with the same name; a thread's name is the M event
"thread_name" (args.name); a CPU-to-GPU arrow is a flow of cat "ac2g":
ph "s" on the launch, ph "f" with bp "e" on the stream at the activity's
start, its id the activity's args.correlation.

facts: per stream ("pid/tid"): its name, activities, annotations, whether
two activities overlap (one starts before an earlier one ended), how many
activities lie inside an annotation, the ac2g finishes on it and how many
of them fall inside the activity with their correlation id; per annotation
name: its GPU copies and its CPU-side calls (the X and B events of that name
on the other threads: user_annotation).

chrome (tracefold's Chrome JSON of that trace): a stream with no overlap has
all its activities on one thread named as the stream and no thread
"NAME (overlap N)", a stream with overlap as many lanes past its own as
it has activities at once past one; no thread holds both activities and annotations; the
annotations are all kept; every ac2g finish on a stream's thread lies inside
an activity of that thread (where Chrome binds the arrow, bp "e").

perfetto (tracefold's Perfetto trace, read with Google's protobuf runtime
and perfetto_trace_pb2.py made by protoc in PB2_DIR): the same for tracks
(named tracks of the process), by the slices' interned categories."""
import collections, gzip, json, sys
from decimal import Decimal

ACT = {"kernel", "gpu_memcpy", "gpu_memset"}
ANN = "gpu_user_annotation"


def load(path):
    op = gzip.open if path.endswith(".gz") else open
    with op(path, "rt") as f:
        d = json.load(f, parse_float=Decimal)
    return d["traceEvents"] if isinstance(d, dict) else d


def ns(v):
    return int(Decimal(v) * 1000)


def facts(path):
    ev = load(path)
    names = {(e["pid"], e["tid"]): e.get("args", {}).get("name") for e in ev
             if e.get("ph") == "M" and e.get("name") == "thread_name"}
    acts, anns = collections.defaultdict(list), collections.defaultdict(list)
    for e in ev:
        if e.get("ph") != "X":
            continue
        k = (e["pid"], e["tid"])
        if e.get("cat") in ACT:
            a = e.get("args") or {}
            acts[k].append((ns(e["ts"]), ns(e["ts"]) + ns(e.get("dur", 0)), a.get("correlation")))
        elif e.get("cat") == ANN:
            anns[k].append((ns(e["ts"]), ns(e["ts"]) + ns(e.get("dur", 0)), e["name"]))
    streams = {}
    for k in sorted(set(acts) | set(anns), key=str):
        xs = sorted(acts[k])
        overlap, end = False, None
        for s, t, _ in xs:
            if end is not None and s < end:
                overlap = True
            end = t if end is None else max(end, t)
        # the most activities running at once: the lanes a timeline needs
        pts = sorted([(s, 1) for s, t, _ in xs] + [(t, -1) for s, t, _ in xs], key=lambda p: (p[0], p[1]))
        most = cur = 0
        for _, d in pts:
            cur += d
            most = max(most, cur)
        inside = sum(1 for s, t, _ in xs if any(a <= s and t <= b for a, b, _ in anns[k]))
        fin = [e for e in ev if e.get("ph") == "f" and e.get("cat") == "ac2g" and (e["pid"], e["tid"]) == k]
        on_act = sum(1 for f in fin if any(s <= ns(f["ts"]) <= t and c == f.get("id") for s, t, c in xs))
        streams["%s/%s" % k] = {"name": names.get(k, str(k[1])), "activities": len(xs),
                                "gpu_ns": sum(t - s for s, t, _ in xs),
                                "annotations": len(anns[k]), "overlap": overlap, "most_at_once": most,
                                "activities_in_annotations": inside, "flows": len(fin),
                                "flows_on_their_activity": on_act}
    gpu_keys = set(acts) | set(anns)
    copies = collections.Counter(n for k in anns for _, _, n in anns[k])
    cpu = collections.Counter(e["name"] for e in ev if e.get("name") in copies
                              and e.get("ph") in ("X", "B") and (e["pid"], e["tid"]) not in gpu_keys)
    return {"streams": streams,
            "annotations": {n: {"gpu_copies": copies[n], "cpu_calls": cpu[n]} for n in sorted(copies)}}


def check_lanes(fx, threads, errs):
    """threads: name -> {"act": n, "ann": n}, every thread or track of the output."""
    for key, s in fx["streams"].items():
        lanes = [n for n in threads if n.startswith(s["name"] + " (overlap")]
        if not s["overlap"]:
            if lanes:
                errs.append("%s (%r): no activities overlap in the input, yet lanes %s" % (key, s["name"], lanes))
            got = threads.get(s["name"], {}).get("act", 0)
            if got != s["activities"]:
                errs.append("%s (%r): %d of its %d activities on its own thread"
                            % (key, s["name"], got, s["activities"]))
        elif len(lanes) != s["most_at_once"] - 1:
            errs.append("%s (%r): at most %d activities at once in the input, yet lanes %s"
                        % (key, s["name"], s["most_at_once"], lanes))
    for n, c in threads.items():
        if c["act"] and c["ann"]:
            errs.append("thread %r holds %d activities and %d annotations" % (n, c["act"], c["ann"]))
    want = sum(s["annotations"] for s in fx["streams"].values())
    got = sum(c["ann"] for c in threads.values())
    if got != want:
        errs.append("%d annotations written, %d in the input" % (got, want))


def chrome(fx, path):
    ev = load(path)
    names = {(e["pid"], e["tid"]): e["args"]["name"] for e in ev
             if e.get("ph") == "M" and e.get("name") == "thread_name"}
    threads = collections.defaultdict(lambda: {"act": 0, "ann": 0})
    acts = collections.defaultdict(list)
    for e in ev:
        if e.get("ph") != "X":
            continue
        k = (e["pid"], e["tid"])
        n = names.get(k, "%s/%s" % k)
        if e.get("cat") in ACT:
            threads[n]["act"] += 1
            acts[k].append((ns(e["ts"]), ns(e["ts"]) + ns(e["dur"])))
        elif e.get("cat") == ANN:
            threads[n]["ann"] += 1
    errs = []
    check_lanes(fx, threads, errs)
    stream_names = {s["name"] for s in fx["streams"].values()}
    fin = [e for e in ev if e.get("ph") == "f" and e.get("cat") == "ac2g"
           and names.get((e["pid"], e["tid"])) in stream_names]
    landed = sum(1 for f in fin if any(s <= ns(f["ts"]) <= t for s, t in acts[(f["pid"], f["tid"])]))
    want = sum(s["flows_on_their_activity"] for s in fx["streams"].values())
    if landed != want or len(fin) != sum(s["flows"] for s in fx["streams"].values()):
        errs.append("ac2g arrows: %d of %d land inside an activity of their thread, %d in the input"
                    % (landed, len(fin), want))
    return errs


def perfetto(fx, pb2_dir, path):
    import zlib
    sys.path.insert(0, pb2_dir)
    import perfetto_trace_pb2 as pb
    tr = pb.Trace()
    tr.ParseFromString(open(path, "rb").read())
    packets = []
    for p in tr.packet:
        if p.HasField("compressed_packets"):
            inner = pb.Trace()
            inner.ParseFromString(zlib.decompress(p.compressed_packets))
            packets.extend(inner.packet)
        else:
            packets.append(p)
    tnames, cats, default = {}, {}, {}
    threads = collections.defaultdict(lambda: {"act": 0, "ann": 0})
    for p in packets:
        seq = p.trusted_packet_sequence_id
        if p.sequence_flags & pb.TracePacket.SEQ_INCREMENTAL_STATE_CLEARED:
            cats = {k: v for k, v in cats.items() if k[0] != seq}
        if p.HasField("trace_packet_defaults") and p.trace_packet_defaults.HasField("track_event_defaults"):
            default[seq] = p.trace_packet_defaults.track_event_defaults.track_uuid
        if p.HasField("interned_data"):
            for c in p.interned_data.event_categories:
                cats[(seq, c.iid)] = c.name
        if p.HasField("track_descriptor"):
            td = p.track_descriptor
            tnames[td.uuid] = td.thread.thread_name if td.HasField("thread") and td.thread.thread_name else td.name
        if p.HasField("track_event") and p.track_event.type == pb.TrackEvent.TYPE_SLICE_BEGIN:
            e = p.track_event
            cs = [cats.get((seq, i)) for i in e.category_iids] + list(e.categories)
            u = e.track_uuid if e.HasField("track_uuid") else default.get(seq, 0)
            n = tnames.get(u, str(u))
            if any(c in ACT for c in cs):
                threads[n]["act"] += 1
            elif ANN in cs:
                threads[n]["ann"] += 1
    errs = []
    check_lanes(fx, threads, errs)
    return errs


def main():
    if len(sys.argv) == 3 and sys.argv[1] == "facts":
        json.dump(facts(sys.argv[2]), sys.stdout, indent=1, sort_keys=True)
        print()
        return 0
    if len(sys.argv) == 4 and sys.argv[1] == "chrome":
        errs = chrome(json.load(open(sys.argv[2])), sys.argv[3])
    elif len(sys.argv) == 5 and sys.argv[1] == "perfetto":
        errs = perfetto(json.load(open(sys.argv[2])), sys.argv[3], sys.argv[4])
    else:
        sys.exit(__doc__)
    for e in errs[:20]:
        print("gpuside_check.py:", e, file=sys.stderr)
    return 1 if errs else 0


if __name__ == "__main__":
    sys.exit(main())
