#!/usr/bin/env python3
"""record_check.py TRACE [--summary OUT.json] [--any-order]

An independent reader of a Perfetto protobuf trace (as libtracefold-record
writes them; tracefold's own `perfetto` output reads too), written from the
format's facts alone: the protobuf wire format decoded by hand (no protobuf
runtime, none of tracefold's code), field numbers as in
proto/perfetto_trace.proto.

Wire format: a message is a run of (tag varint = field << 3 | wire type,
value): wire 0 a varint, 1 eight bytes little-endian (fixed64, double),
2 a varint length then that many bytes (strings, nested messages, packed
fields), 5 four bytes.  A length may be written with redundant bytes
(0x85 0x80 0x80 0x00 is 5): every parser takes it, and so does this one.

Trace: field 1, repeated TracePacket (one with compressed_packets, field
50, holds a zlib stream of a Trace: more packets, read in its place).  TracePacket: timestamp 8, timestamp_clock_id
58, trusted_packet_sequence_id 10, track_event 11, interned_data 12,
sequence_flags 13 (1 incremental state cleared, 2 needs incremental state),
clock_snapshot 6, trace_packet_defaults 59 (timestamp_clock_id 58,
track_event_defaults 11 -> track_uuid 11), track_descriptor 60,
previous_packet_dropped 42.  ClockSnapshot: clocks 1 (clock_id 1,
timestamp 2, is_incremental 3, unit_multiplier_ns 4); clock ids 64..127 are
the sequence's own, an incremental one counting from the snapshot's value,
each packet's timestamp adding to the previous one.  InternedData:
event_names 2 (EventName: iid 1, name 2), debug_annotation_names 3.
TrackDescriptor: uuid 1, name 2, process 3 (pid 1, process_name 6), thread
4 (pid 1, tid 2, thread_name 5), parent_uuid 5, counter 8.  TrackEvent:
type 9 (1 slice begin, 2 slice end, 3 instant, 4 counter), name_iid 10,
name 23, track_uuid 11, counter_value 30, double_counter_value 44,
flow_ids 47 (fixed64; old 36), terminating_flow_ids 48 (fixed64; old 42),
debug_annotations 4 (DebugAnnotation: name_iid 1, name 10, bool 2, uint 3,
int 4, double 5, string 6, dict_entries 11, array_values 12).

Checks (exit 1 with the first errors on stderr): every event's track has a
descriptor before it; a sequence's packets that use incremental state (an
interned name, SEQ_NEEDS, an incremental clock) come after one that
cleared it; timestamps never go back on a sequence (libtracefold-record
writes each thread's events in time order; --any-order leaves this out for
other writers: trace processor sorts packets by time); begins and ends balance
on every track (an end with nothing open, a slice left open); a flow's
events in time order (as trace processor sorts them: a file holds each
thread's packets in the order its buffers were written, so a flow's step
may come before its begin) start with a non-terminating one and end with
at most one terminating one; no interned iid redefined differently.

The summary (JSON on stdout, or into --summary): per track (its path of
names below its process: "worker 1", "devices/dev 0", a thread's counter
"worker 1/tracefold.dropped_events") the slices and instants by name;
per name the slices' count and total duration in ns; counters' values per
track; flows; annotations by type; dropped (the sum of the
tracefold.dropped_events counters), packets marked previous_packet_dropped,
sequences, processes."""
import json
import os
import struct
import sys
import zlib
from collections import defaultdict

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from pbwire import fields  # noqa: E402  (the wire format, shared with xplane_check.py)

errs = []


def err(m):
    if len(errs) < 30:
        errs.append(m)


def one(fs, f, default=None):
    v = default
    for ff, _, x in fs:
        if ff == f:
            v = x  # the last one wins, as protobuf's
    return v


def many(fs, f):
    return [x for ff, _, x in fs if ff == f]


def u64(v):
    return struct.unpack("<Q", v)[0] if isinstance(v, bytes) else v


def s64(v):
    return v - (1 << 64) if v >= 1 << 63 else v


def dbl(v):
    return struct.unpack("<d", v)[0]


def packets(buf):
    """The Trace's packets, those of compressed_packets (TracePacket field
    50: a zlib stream of a Trace) in their place."""
    for f, w, v in fields(buf):
        if f != 1 or w != 2:
            continue
        z = [x for ff, ww, x in fields(v) if ff == 50 and ww == 2]
        if z:
            for c in z:
                yield from packets(zlib.decompress(c))
        else:
            yield v


class Seq:
    def __init__(self):
        self.cleared = False
        self.names = {}   # event name iid -> name
        self.anames = {}  # debug annotation name iid -> name
        self.clock = None
        self.track = None
        self.clocks = {}  # seq clock id -> [incremental, value, ref clock, ref ts, mult, snap]
        self.last = None


class Reader:
    def __init__(self, ordered=True):
        self.ordered = ordered
        self.seqs = defaultdict(Seq)
        self.tracks = {}  # uuid -> descriptor dict
        self.offsets = {}  # builtin clock id -> offset to BOOTTIME (6)
        self.open = defaultdict(list)  # uuid -> [(name, ts)]
        self.slices = defaultdict(lambda: defaultdict(int))  # uuid -> name -> n
        self.instants = defaultdict(lambda: defaultdict(int))
        self.counters = defaultdict(list)
        self.names = defaultdict(lambda: [0, 0])
        self.flows = {}
        self.flow_n = {"begun": 0, "steps": 0, "ended": 0}
        self.args = defaultdict(int)
        self.prev_dropped = 0
        self.events = 0
        self.npackets = 0

    # ---- clocks ----
    def snapshot(self, s, seqid, fs):
        clocks = [fields(c) for c in many(fs, 1)]
        builtin = [(one(c, 1, 0), one(c, 2, 0)) for c in clocks if one(c, 1, 0) < 64]
        ref = None
        for cid, ts in builtin:
            if ref is None or cid == 6:
                ref = (cid, ts)
        if ref:
            for cid, ts in builtin:
                # offsets between built-in clocks: to BOOTTIME when it is here
                if ref[0] == 6:
                    self.offsets[cid] = ref[1] - ts
        for c in clocks:
            cid = one(c, 1, 0)
            if 64 <= cid <= 127:
                if ref is None:
                    err("seq %d: clock %d snapshot with no built-in clock" % (seqid, cid))
                    continue
                ts = one(c, 2, 0)
                s.clocks[cid] = [bool(one(c, 3, 0)), ts, ref[0], ref[1], one(c, 4, 1) or 1, ts]

    def to_global(self, cid, ts):
        return ts + self.offsets.get(cid, 0)

    def packet_ts(self, s, seqid, fs):
        if one(fs, 8) is None:
            return None
        ts = one(fs, 8)
        cid = one(fs, 58, s.clock if s.clock is not None else 6)
        if cid >= 64:
            c = s.clocks.get(cid)
            if c is None:
                err("seq %d: timestamp on clock %d with no snapshot" % (seqid, cid))
                return None
            if c[0]:
                if not s.cleared:
                    err("seq %d: incremental clock before the state was cleared" % seqid)
                c[1] = (c[1] + ts) & ((1 << 64) - 1)
                v = c[1]
            else:
                v = ts
            return self.to_global(c[2], c[3] + (s64(v) - s64(c[5])) * c[4])
        return self.to_global(cid, ts)

    # ---- descriptors ----
    def descriptor(self, fs):
        uuid = one(fs, 1)
        if uuid is None:
            err("track descriptor with no uuid")
            return
        d = self.tracks.setdefault(uuid, {"uuid": uuid})
        name = one(fs, 2)
        if name is not None:
            d["name"] = name.decode()
        if one(fs, 5) is not None:
            d["parent"] = one(fs, 5)
        p = one(fs, 3)
        if p is not None:
            pf = fields(p)
            d["kind"] = "process"
            d["pid"] = s64(one(pf, 1, 0))
            if one(pf, 6) is not None:
                d["name"] = one(pf, 6).decode()
        t = one(fs, 4)
        if t is not None:
            tf = fields(t)
            d["kind"] = "thread"
            d["pid"], d["tid"] = s64(one(tf, 1, 0)), s64(one(tf, 2, 0))
            if one(tf, 5) is not None:
                d["name"] = one(tf, 5).decode()
        if one(fs, 8) is not None:
            d["kind"] = "counter"

    def path(self, uuid):
        parts, t, hops = [], self.tracks.get(uuid), 0
        while t and t.get("kind") != "process" and hops < 64:
            parts.append(t.get("name", "track %d" % t["uuid"]))
            t = self.tracks.get(t.get("parent"))
            hops += 1
        return "/".join(reversed(parts))

    def process_of(self, uuid):
        t, hops = self.tracks.get(uuid), 0
        while t and hops < 64:
            if t.get("kind") == "process":
                return t.get("name", str(t.get("pid")))
            if t.get("kind") == "thread":
                for x in self.tracks.values():
                    if x.get("kind") == "process" and x.get("pid") == t["pid"]:
                        return x.get("name", str(x["pid"]))
                return str(t["pid"])
            t = self.tracks.get(t.get("parent"))
            hops += 1
        return "?"

    # ---- annotations ----
    def annotation(self, s, b, depth):
        fs = fields(b)
        if one(fs, 1) is not None and one(fs, 1) not in s.anames:
            err("annotation name iid %d not interned" % one(fs, 1))
        for f, kind in ((2, "bool"), (3, "uint"), (4, "int"), (5, "double"), (6, "string")):
            if one(fs, f) is not None:
                self.args[kind] += 1
        for f, kind in ((11, "dict"), (12, "array")):
            sub = many(fs, f)
            if sub:
                self.args[kind] += 1
            for x in sub:
                self.annotation(s, x, depth + 1)

    # ---- events ----
    def event(self, s, seqid, fs, b, ts):
        self.events += 1
        uuid = one(b, 11, s.track)
        if uuid is None:
            err("seq %d: an event with no track" % seqid)
            return
        if uuid not in self.tracks:
            err("seq %d: event on track %d before its descriptor" % (seqid, uuid))
        if ts is None:
            err("seq %d: an event with no timestamp" % seqid)
            ts = 0
        typ = one(b, 9, 0)
        name = None
        if one(b, 10) is not None:
            if not s.cleared:
                err("seq %d: interned name before the state was cleared" % seqid)
            name = s.names.get(one(b, 10))
            if name is None:
                err("seq %d: name iid %d not interned" % (seqid, one(b, 10)))
        elif one(b, 23) is not None:
            name = one(b, 23).decode()
        for a in many(b, 4):
            self.annotation(s, a, 1)
        flows = [u64(v) for v in many(b, 47)] + [v for v in many(b, 36)]
        terms = [u64(v) for v in many(b, 48)] + [v for v in many(b, 42)]
        for fid in flows:  # ordered by time at the end (trace processor sorts)
            self.flows.setdefault(fid, []).append((ts, self.events, 0))
        for fid in terms:
            self.flows.setdefault(fid, []).append((ts, self.events, 1))
        if typ == 1:
            self.open[uuid].append((name or "", ts))
        elif typ == 2:
            if not self.open[uuid]:
                err("seq %d: an end on track %d with nothing open" % (seqid, uuid))
            else:
                n, t0 = self.open[uuid].pop()
                if ts < t0:
                    err("slice %s ends before it begins" % n)
                self.slices[uuid][n] += 1
                self.names[n][0] += 1
                self.names[n][1] += ts - t0
        elif typ == 3:
            if not flows and not terms:
                self.instants[uuid][name or ""] += 1
        elif typ == 4:
            if one(b, 44) is not None:
                v = dbl(one(b, 44))
            elif one(b, 30) is not None:
                v = s64(one(b, 30))
            else:
                err("a counter event with no value")
                return
            if self.tracks.get(uuid, {}).get("kind") != "counter":
                err("a counter event on track %d, no counter track" % uuid)
            self.counters[uuid].append(v)
        else:
            err("seq %d: event of type %d" % (seqid, typ))

    def packet(self, pk):
        self.npackets += 1
        fs = fields(pk)
        seqid = one(fs, 10, 0)
        s = self.seqs[seqid]
        flags = one(fs, 13, 0)
        if flags & 1:
            s.cleared = True
            s.names, s.anames = {}, {}
            s.clock = s.track = None
            s.clocks = {}
        if flags & 2 and not s.cleared:
            err("seq %d: a packet needs incremental state before it was cleared" % seqid)
        if one(fs, 42):
            self.prev_dropped += 1
        d = one(fs, 59)
        if d is not None:
            df = fields(d)
            s.clock = one(df, 58, s.clock)
            ed = one(df, 11)
            if ed is not None:
                s.track = one(fields(ed), 11, s.track)
        cs = one(fs, 6)
        if cs is not None:
            self.snapshot(s, seqid, fields(cs))
        idata = one(fs, 12)
        if idata is not None:
            if not s.cleared:
                err("seq %d: interned data before the state was cleared" % seqid)
            idf = fields(idata)
            for kind, table in ((2, s.names), (3, s.anames)):
                for en in many(idf, kind):
                    ef = fields(en)
                    iid, nm = one(ef, 1), (one(ef, 2) or b"").decode()
                    if iid in table and table[iid] != nm:
                        err("seq %d: iid %d redefined" % (seqid, iid))
                    table[iid] = nm
        td = one(fs, 60)
        if td is not None:
            self.descriptor(fields(td))
        ts = self.packet_ts(s, seqid, fs)
        if ts is not None:
            if self.ordered and s.last is not None and ts < s.last:
                err("seq %d: timestamp goes back (%d < %d)" % (seqid, ts, s.last))
            s.last = ts
        te = one(fs, 11)
        if te is not None:
            self.event(s, seqid, fs, fields(te), ts)

    def summary(self):
        for uuid, st in self.open.items():
            if st:
                err("track %s: %d slices left open (%s)" % (self.path(uuid), len(st), st[-1][0]))
        tracks = defaultdict(lambda: {"slices": {}, "instants": {}})
        for uuid, m in self.slices.items():
            t = tracks[self.path(uuid)]["slices"]
            for n, c in m.items():
                t[n] = t.get(n, 0) + c
        for uuid, m in self.instants.items():
            t = tracks[self.path(uuid)]["instants"]
            for n, c in m.items():
                t[n] = t.get(n, 0) + c
        # flows in time order (file order among equal times): the first
        # event of an id begins it, a terminating one must be its last
        for fid, evs in self.flows.items():
            evs.sort()
            kinds = [k for _, _, k in evs]
            if kinds[0] == 1:
                err("flow %x ends before it begins" % fid)
            if 1 in kinds[:-1]:
                err("flow %x goes on after its end" % fid)
            self.flow_n["begun"] += kinds[0] == 0
            self.flow_n["steps"] += kinds[1:].count(0)
            self.flow_n["ended"] += kinds.count(1)
        counters, dropped = defaultdict(list), 0
        for uuid, vals in self.counters.items():
            counters[self.path(uuid)] += vals
            if self.tracks.get(uuid, {}).get("name") == "tracefold.dropped_events":
                dropped += sum(vals)
        procs = defaultdict(lambda: {"slices": 0, "events": 0})
        for uuid, m in self.slices.items():
            procs[self.process_of(uuid)]["slices"] += sum(m.values())
        drop_evs = sum(len(v) for u, v in self.counters.items()
                       if self.tracks.get(u, {}).get("name") == "tracefold.dropped_events")
        return {
            "tracks": tracks,
            "names": {n: {"count": c, "total_ns": t} for n, (c, t) in self.names.items()},
            "counters": counters,
            "flows": self.flow_n,
            "args": dict(self.args),
            "dropped": int(dropped),
            "events": self.events - drop_evs,
            "previous_packet_dropped": self.prev_dropped,
            "sequences": sorted(k for k in self.seqs if k),
            "processes": {p: v for p, v in procs.items()},
            "process_names": sorted(t.get("name", "") for t in self.tracks.values() if t.get("kind") == "process"),
            "packets": self.npackets,
        }


def main():
    a = sys.argv[1:]
    if not a or a[0].startswith("-"):
        sys.exit(__doc__)
    out = None
    if "--summary" in a:
        out = a[a.index("--summary") + 1]
    r = Reader(ordered="--any-order" not in a)
    try:
        for pk in packets(open(a[0], "rb").read()):
            r.packet(pk)
    except ValueError as e:
        err("damaged: %s" % e)
    s = r.summary()
    text = json.dumps(s, indent=1, sort_keys=True)
    if out:
        open(out, "w").write(text + "\n")
    else:
        print(text)
    if errs:
        sys.stderr.write("record_check: %s\n" % a[0] + "".join("  %s\n" % e for e in errs))
        sys.exit(1)


main()
