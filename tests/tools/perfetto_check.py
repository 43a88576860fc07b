#!/usr/bin/env python3
"""perfetto_check.py PB2_DIR TRACE.pftrace CHROME.json

Reads a Perfetto trace written by `tracefold perfetto` (its compressed
packets inflated by Python's zlib) with Google's own
protobuf runtime (python3-protobuf; PB2_DIR holds perfetto_trace_pb2.py,
made by `protoc --python_out` from proto/perfetto_trace.proto) and checks it
the way trace processor would take it, with its own reading of the rules
(not tracefold's code):

- every packet on a sequence with a TrackEvent comes after that sequence
  cleared its incremental state; interned names and categories are defined
  on the event's sequence before (or in) the packet that uses them; no iid
  is defined twice with two different strings;
- timestamps: the sequence's default clock is 64, incremental, started by
  a ClockSnapshot on that sequence (first delta relative to the snapshot's
  value); a packet naming clock 6 is absolute and leaves clock 64 alone;
- every event's track is described (thread: pid/tid; other: a named track
  with a process parent; counter: a counter track with a thread parent);
  the lanes "NAME (overlap N)" of a GPU stream count as that stream;
- per track, SLICE_BEGIN/END pair up the same way in time order (as trace
  processor matches them, innermost first) as in file order: no slices
  overlap without nesting;
- every flow id is on exactly one event's flow_ids and one event's
  terminating_flow_ids;
- against the Chrome trace of the same input (written by `tracefold chrome`):
  the same number of slices on every track (tracks named by process and
  thread name, else pid and tid), the same instants, counter values and
  arrows."""
import collections, json, re, sys, zlib

sys.path.insert(0, sys.argv[1])
import perfetto_trace_pb2 as pb  # noqa: E402

TE = pb.TrackEvent
errs = []


def err(m):
    if len(errs) < 20:
        errs.append(m)


trace = pb.Trace()
trace.ParseFromString(open(sys.argv[2], "rb").read())
# compressed_packets: a zlib stream of more packets, in order
packets = []
for p in trace.packet:
    if p.HasField("compressed_packets"):
        inner = pb.Trace()
        inner.ParseFromString(zlib.decompress(p.compressed_packets))
        assert not any(q.HasField("compressed_packets") for q in inner.packet), "compressed in compressed"
        packets.extend(inner.packet)
    else:
        packets.append(p)

tracks = {}            # uuid -> descriptor
procs = {}             # process uuid -> (pid, name)
seq_state = {}         # seq -> dict(cleared, clock_last, defaults)
interned = {}          # (seq, kind, iid) -> str
slices = collections.defaultdict(list)   # track uuid -> [(ts, order, type)]
instants = counters = 0
flow_start = collections.Counter()
flow_end = collections.Counter()

for order, p in enumerate(packets):
    seq = p.trusted_packet_sequence_id
    st = seq_state.setdefault(seq, {"cleared": False, "last": None, "track": None, "clock": None})
    if p.sequence_flags & 1:
        st.update(cleared=True, last=None, track=None, clock=None)
    if p.HasField("trace_packet_defaults"):
        d = p.trace_packet_defaults
        st["clock"] = d.timestamp_clock_id if d.HasField("timestamp_clock_id") else None
        st["track"] = d.track_event_defaults.track_uuid if d.HasField("track_event_defaults") else None
    if p.HasField("clock_snapshot"):
        for c in p.clock_snapshot.clocks:
            if c.clock_id == 64:
                if not c.is_incremental:
                    err("clock 64 is not incremental")
                st["last"] = c.timestamp
    if p.HasField("interned_data"):
        for kind, lst in (("name", p.interned_data.event_names), ("cat", p.interned_data.event_categories),
                          ("annot", p.interned_data.debug_annotation_names)):
            for e in lst:
                k = (seq, kind, e.iid)
                if k in interned and interned[k] != e.name:
                    err("iid %d (%s) defined twice on sequence %d" % (e.iid, kind, seq))
                interned[k] = e.name
    if p.HasField("track_descriptor"):
        t = p.track_descriptor
        if t.uuid in tracks:
            err("track %d described twice" % t.uuid)
        tracks[t.uuid] = t
        if t.HasField("process"):
            procs[t.uuid] = (t.process.pid, t.process.process_name)
        continue
    if not p.HasField("track_event"):
        continue
    e = p.track_event
    if not st["cleared"]:
        err("packet %d: a track event before its sequence %d was cleared" % (order, seq))
    if not p.sequence_flags & 2:
        err("packet %d: an event that does not say it needs the incremental state" % order)
    clock = p.timestamp_clock_id if p.HasField("timestamp_clock_id") else st["clock"]
    if clock == 64:
        if st["last"] is None:
            err("packet %d: clock 64 without a snapshot on sequence %d" % (order, seq))
            continue
        st["last"] += p.timestamp
        ts = st["last"]
    elif clock == 6:
        ts = p.timestamp
    else:
        err("packet %d: clock %r" % (order, clock))
        continue
    uuid = e.track_uuid if e.HasField("track_uuid") else st["track"]
    if uuid not in tracks:
        err("packet %d: track %r not described" % (order, uuid))
        continue
    for iid in e.category_iids:
        if (seq, "cat", iid) not in interned:
            err("packet %d: category iid %d not interned" % (order, iid))
    if e.HasField("name_iid") and (seq, "name", e.name_iid) not in interned:
        err("packet %d: name iid %d not interned" % (order, e.name_iid))
    for a in e.debug_annotations:
        if (seq, "annot", a.name_iid) not in interned:
            err("packet %d: annotation name iid %d not interned" % (order, a.name_iid))
    for f in e.flow_ids:
        flow_start[f] += 1
    for f in e.terminating_flow_ids:
        flow_end[f] += 1
    if e.type in (TE.TYPE_SLICE_BEGIN, TE.TYPE_SLICE_END):
        if not (tracks[uuid].HasField("thread") or tracks[uuid].name):
            err("packet %d: a slice on a track that is no thread and has no name" % order)
        slices[uuid].append((ts, order, e.type))
    elif e.type == TE.TYPE_INSTANT:
        if not e.flow_ids and not e.terminating_flow_ids:
            instants += 1
    elif e.type == TE.TYPE_COUNTER:
        if not tracks[uuid].HasField("counter") or tracks[tracks[uuid].parent_uuid].HasField("counter"):
            err("packet %d: a counter value on %d, no counter track with a parent" % (order, uuid))
        counters += 1
    else:
        err("packet %d: event type %d" % (order, e.type))


def key_of(t):
    """(process, thread) as a viewer shows them: names, else ids."""
    p = procs.get(t.parent_uuid, (None, ""))
    pk = p[1] or p[0]
    if t.HasField("thread"):
        pk = p[1] or t.thread.pid
        return (str(pk), str(t.thread.thread_name or t.thread.tid))
    # overlapping GPU activities of one stream go to lanes "NAME (overlap N)"
    return (str(pk), re.sub(r" \(overlap \d+\)$", "", t.name))


def pairs(evs):
    """BEGIN/END pairs matched innermost first, in the order given."""
    st, out = [], set()
    for ts, order, typ in evs:
        if typ == TE.TYPE_SLICE_BEGIN:
            st.append(order)
        elif st:
            out.add((st.pop(), order))
        else:
            return None
    return out if not st else None


per_track = collections.Counter()
for uuid, ev in slices.items():
    by_time = pairs(sorted(ev))          # as trace processor reads them
    by_file = pairs(ev)                  # as they were written
    if by_time is None:
        err("track %d: BEGIN/END do not balance" % uuid)
    elif by_time != by_file:
        err("track %d: ends pair with other begins in time order than in file order (slices overlap)" % uuid)
    for ts, order, typ in ev:
        per_track[key_of(tracks[uuid])] += typ == TE.TYPE_SLICE_BEGIN
for f, n in flow_start.items():
    if n != 1 or flow_end[f] != 1:
        err("flow %d: %d starts, %d ends" % (f, n, flow_end[f]))
for f in flow_end:
    if f not in flow_start:
        err("flow %d ends, never starts" % f)

# the Chrome trace of the same input
d = json.load(open(sys.argv[3]))["traceEvents"]
pname = {e["pid"]: e["args"]["name"] for e in d if e["ph"] == "M" and e["name"] == "process_name"}
tname = {(e["pid"], e["tid"]): e["args"]["name"] for e in d if e["ph"] == "M" and e["name"] == "thread_name"}
chrome = collections.Counter()
for e in d:
    if e["ph"] == "X":
        chrome[(str(pname.get(e["pid"], e["pid"])),
                re.sub(r" \(overlap \d+\)$", "", str(tname.get((e["pid"], e["tid"]), e["tid"]))))] += 1
if chrome != per_track:
    err("slices per track differ from the Chrome trace's: %r vs %r" % (
        sorted(per_track.items())[:5], sorted(chrome.items())[:5]))
ci = sum(e["ph"] == "i" for e in d)
cc = sum(e["ph"] == "C" for e in d)
cs = sum(e["ph"] == "s" for e in d)
if (instants, counters, len(flow_start)) != (ci, cc, cs):
    err("instants, counter values, arrows: %d %d %d, the Chrome trace has %d %d %d" % (
        instants, counters, len(flow_start), ci, cc, cs))
if errs:
    sys.exit("\n".join(errs))
print("ok: %d packets, %d slices on %d tracks, %d instants, %d counter values, %d arrows" % (
    len(packets), sum(per_track.values()), len(per_track), instants, counters, len(flow_start)))
