#!/usr/bin/env python3
"""Independent count of a TAU trace's records, straight from the bytes
(24-byte little-endian records, the layout of the fixtures) and the EDF.

usage: tau_count.py TRC EDF [TRC EDF ...]
Prints JSON: records, entry, exit, user (TriggerValue records), tracer
(group TRACER), message (tag -7/-8), other."""
import json, struct, sys

def edf(path):
    defs = {}
    for ln in open(path, errors="replace"):
        ln = ln.rstrip("\r\n")
        if not ln.strip() or ln.lstrip().startswith("#") or ln.split()[1:2] == ["dynamic_trace_events"]:
            continue
        a, b = ln.index('"'), ln.rindex('"')
        eid, group, tag = ln[:a].split()
        defs[int(eid)] = (group, int(tag), ln[a + 1:b], ln[b + 1:].strip())
    return defs

c = dict(records=0, entry=0, exit=0, user=0, tracer=0, message=0, other=0)
args = sys.argv[1:]
for trc, e in zip(args[0::2], args[1::2]):
    d = edf(e)
    data = open(trc, "rb").read()
    for off in range(0, len(data) - len(data) % 24, 24):
        ev, nid, tid, par, ti = struct.unpack_from("<iHHqQ", data, off)
        group, tag, name, kind = d[ev]
        c["records"] += 1
        if tag in (-7, -8):
            c["message"] += 1
        elif group == "TRACER":
            c["tracer"] += 1
        elif kind == "EntryExit":
            c["entry" if par == 1 else "exit" if par == -1 else "other"] += 1
        elif kind == "TriggerValue":
            c["user"] += 1
        else:
            c["other"] += 1
json.dump(c, sys.stdout)
