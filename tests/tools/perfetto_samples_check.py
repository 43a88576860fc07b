#!/usr/bin/env python3
"""perfetto_samples_check.py PB2_DIR TRACE.pftrace EXPECTED.json FILE-KEY

Reads the PerfSample packets of a Perfetto trace written by `tracefold
perfetto --raw-names` with Google's protobuf runtime (PB2_DIR holds
perfetto_trace_pb2.py from `protoc --python_out`), resolving each
callstack the way trace processor does (its own reading, not tracefold's
code): callstacks, frames, function names and mappings interned on the
sample's packet sequence, in or before the packet that uses them, after
the sequence cleared its incremental state; a frame must name a mapping
that is defined; frame_ids root first.  Then compares with the fixture's
expected.json entry: the number of samples, and per function the self
(leaf frame, perf's inline frames skipped) and total (once per distinct
name) sample counts.  Every sample's pid/tid must be a described thread.
Prints problems (at most 20) and exits 1 if any."""
import collections, json, sys, zlib

sys.path.insert(0, sys.argv[1])
import perfetto_trace_pb2 as pb  # noqa: E402

trace = pb.Trace()
trace.ParseFromString(open(sys.argv[2], "rb").read())
exp = json.load(open(sys.argv[3]))["files"][sys.argv[4]]
packets = []
for p in trace.packet:
    if p.HasField("compressed_packets"):
        inner = pb.Trace()
        inner.ParseFromString(zlib.decompress(p.compressed_packets))
        packets.extend(inner.packet)
    else:
        packets.append(p)
errs = []


def err(m):
    if len(errs) < 20:
        errs.append(m)


threads = set()
cleared = set()
tabs = collections.defaultdict(dict)  # (seq, kind) -> iid -> value
n = 0
self_n, total_n = collections.Counter(), collections.Counter()
for p in packets:
    seq = p.trusted_packet_sequence_id
    if p.HasField("track_descriptor") and p.track_descriptor.HasField("thread"):
        threads.add((p.track_descriptor.thread.pid, p.track_descriptor.thread.tid))
    if p.sequence_flags & 1:
        cleared.add(seq)
        for k in [k for k in tabs if k[0] == seq]:
            del tabs[k]
    d = p.interned_data
    for kind, items in (("fn", d.function_names), ("map_path", d.mapping_paths)):
        for s in items:
            old = tabs[(seq, kind)].get(s.iid)
            if old is not None and old != s.str:
                err("seq %d: %s iid %d defined twice" % (seq, kind, s.iid))
            tabs[(seq, kind)][s.iid] = s.str
    for m in d.mappings:
        if any(i not in tabs[(seq, "map_path")] for i in m.path_string_ids):
            err("seq %d: mapping %d names an undefined path" % (seq, m.iid))
        tabs[(seq, "map")][m.iid] = m
    for f in d.frames:
        if f.mapping_id not in tabs[(seq, "map")]:
            err("seq %d: frame %d without a defined mapping (trace processor drops it)" % (seq, f.iid))
        if f.function_name_id not in tabs[(seq, "fn")]:
            err("seq %d: frame %d names an undefined function name" % (seq, f.iid))
        tabs[(seq, "frame")][f.iid] = f
    for c in d.callstacks:
        tabs[(seq, "stack")][c.iid] = list(c.frame_ids)
    if not p.HasField("perf_sample"):
        continue
    s = p.perf_sample
    n += 1
    if seq not in cleared:
        err("sample on sequence %d before its incremental state was cleared" % seq)
    if (s.pid, s.tid) not in threads:
        err("sample of pid %d tid %d: no such thread track" % (s.pid, s.tid))
    if not s.HasField("callstack_iid"):
        continue
    ids = tabs[(seq, "stack")].get(s.callstack_iid)
    if ids is None:
        err("seq %d: callstack %d undefined" % (seq, s.callstack_iid))
        continue
    names = []
    for fid in ids:
        f = tabs[(seq, "frame")].get(fid)
        if f is None:
            err("seq %d: callstack %d names undefined frame %d" % (seq, s.callstack_iid, fid))
            continue
        names.append(tabs[(seq, "fn")][f.function_name_id].decode())
    leaf = [x for x in names if not x.endswith(" (inlined)")]
    if leaf:
        self_n[leaf[-1]] += 1
    for x in set(names):
        total_n[x] += 1
want = exp["sample_types"]["samples"]
if n != want:
    err("%d PerfSample packets, expected %d samples" % (n, want))
for name, f in exp["functions"].items():
    ws, wt = f["self"].get("samples", 0), f["total"].get("samples", 0)
    if self_n[name] != ws or total_n[name] != wt:
        err("%r: self %d total %d samples, expected %d %d" % (name, self_n[name], total_n[name], ws, wt))
for name in set(self_n) | set(total_n):
    if name not in exp["functions"]:
        err("%r: self %d total %d samples, not expected" % (name, self_n[name], total_n[name]))
for e in errs:
    print(e)
if not errs:
    print("%d samples on %d threads, %d functions: self and total as expected" % (n, len(threads), len(exp["functions"])))
sys.exit(1 if errs else 0)
