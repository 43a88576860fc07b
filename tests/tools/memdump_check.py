#!/usr/bin/env python3
"""Chrome memory dumps (ph "v": process memory dump, "V": global memory
dump; the Trace Event Format's "Memory Dump Events" and Chrome's
memory-infra dump format) against tracefold's Chrome timeline of the trace.

usage: memdump_check.py TRACE.json TIMELINE.json

From the trace, independently of tracefold: every v/V event's
args.dumps.allocators[NAME].attrs.size.value and every
args.dumps.process_totals[KEY] that is a hex string (memory-infra writes
byte counts as hex strings without "0x") is one sample (process name, ts,
"memory:NAME", int(value, 16)).  The timeline must have exactly these as
"C" events (args.value), matched by process name (tracefold renumbers
nothing here, but the names are what a reader sees).  Prints one line per
process and exits 1 on any difference."""
import json, re, sys
from collections import Counter

HEX = re.compile(r'^(0[xX])?[0-9a-fA-F]{1,16}$')


def events(path):
    d = json.load(open(path))
    return d["traceEvents"] if isinstance(d, dict) else d


def pnames(evs):
    return {e["pid"]: e["args"]["name"] for e in evs if e.get("ph") == "M" and e.get("name") == "process_name"}


def expected(path):
    evs = events(path)
    names = pnames(evs)
    want = Counter()
    for e in evs:
        if e.get("ph") not in ("v", "V"):
            continue
        dumps = (e.get("args") or {}).get("dumps") or {}
        p = names.get(e.get("pid"), str(e.get("pid")))
        for name, a in (dumps.get("allocators") or {}).items():
            v = (((a or {}).get("attrs") or {}).get("size") or {}).get("value")
            if isinstance(v, str) and HEX.match(v):
                want[(p, e["ts"], "memory:" + name, int(v, 16))] += 1
        for key, v in (dumps.get("process_totals") or {}).items():
            if isinstance(v, str) and HEX.match(v):
                want[(p, e["ts"], "memory:" + key, int(v, 16))] += 1
    return want


def got(path):
    evs = events(path)
    names = pnames(evs)
    have = Counter()
    for e in evs:
        if e.get("ph") == "C" and e["name"].startswith("memory:"):
            have[(names.get(e["pid"], str(e["pid"])), e["ts"], e["name"], e["args"]["value"])] += 1
    return have


def main():
    want, have = expected(sys.argv[1]), got(sys.argv[2])
    for p in sorted({k[0] for k in want} | {k[0] for k in have}):
        w = sum(c for k, c in want.items() if k[0] == p)
        h = sum(c for k, c in have.items() if k[0] == p)
        print("%s: %d memory-dump samples in the trace, %d in the timeline" % (p, w, h))
    if want != have:
        for k in sorted((want - have).keys()):
            print("missing:", k)
        for k in sorted((have - want).keys()):
            print("unexpected:", k)
        sys.exit(1)
    if not want:
        sys.exit("no memory-dump samples in the trace")


main()
