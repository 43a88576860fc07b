#!/usr/bin/env python3
"""Independent event accounting of a Chrome trace, written from
docs/format-chrome.md (not from src/read/chrome.c): the counters tracefold's
reader must report for it.

usage: chrome_counts.py TRACE.json[.gz]
Prints one "name=value" per non-zero counter, sorted by name."""
import gzip, json, sys
from decimal import Decimal, InvalidOperation

def load(path):
    op = gzip.open if open(path, "rb").read(2) == b"\x1f\x8b" else open
    with op(path, "rt", encoding="utf-8") as f:
        text = f.read()
    t = text.rstrip().rstrip(",")
    try:
        data = json.loads(t, parse_float=Decimal)
    except json.JSONDecodeError:
        data = json.loads(t + "]", parse_float=Decimal)   # unterminated array
    return data["traceEvents"] if isinstance(data, dict) else data

def is_time(v):
    if isinstance(v, bool) or v is None:
        return False
    if isinstance(v, (int, Decimal)):
        return True
    if isinstance(v, str):
        # the decimal forms only: "-Infinity", "+inf", "sNaN", "1_000" are
        # not times (Decimal() accepts them)
        return is_number(v)
    return False

def is_number(v):
    if isinstance(v, bool) or v is None:
        return False
    if isinstance(v, int):
        return True
    if isinstance(v, Decimal):
        return v.is_finite()
    if isinstance(v, str):
        import re
        return re.fullmatch(r"[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?", v) is not None
    return False

def is_hex(v):
    if not isinstance(v, str):
        return False
    h = v[2:] if v[:2] in ("0x", "0X") else v
    return h != "" and all(ch in "0123456789abcdefABCDEF" for ch in h)


def dump_values(args):
    """the values of a v/V memory dump: allocators' attrs.size.value and
    process_totals, hex strings"""
    d = args.get("dumps") if isinstance(args, dict) else None
    if not isinstance(d, dict):
        return 0
    n = 0
    allocs = d.get("allocators")
    if isinstance(allocs, dict):
        for a in allocs.values():
            attrs = a.get("attrs") if isinstance(a, dict) else None
            size = attrs.get("size") if isinstance(attrs, dict) else None
            if isinstance(size, dict) and is_hex(size.get("value")):
                n += 1
    totals = d.get("process_totals")
    if isinstance(totals, dict):
        n += sum(1 for v in totals.values() if is_hex(v))
    return n


def main():
    c = {}
    def add(k, n=1):
        c[k] = c.get(k, 0) + n
    for e in load(sys.argv[1]):
        if not isinstance(e, dict) or not isinstance(e.get("ph"), str) or e["ph"] == "":
            add("bad_event"); continue
        ph = e["ph"]
        kind = {"X": "ev_duration", "B": "ev_duration", "E": "ev_duration", "i": "ev_instant",
                "I": "ev_instant", "C": "ev_counter", "M": "ev_metadata", "s": "ev_flow", "t": "ev_flow",
                "f": "ev_flow"}.get(ph)
        if ph in ("b", "n", "e", "S", "T", "p", "F"):
            kind = "ev_async"
        if ph in ("v", "V"):
            # memory-infra dumps: one counter per allocator size and per
            # process total, values as hex strings (docs/format-chrome.md)
            n = dump_values(e.get("args"))
            if n == 0:
                add("ev_other"); continue
            if not is_time(e.get("ts")):
                add("bad_event"); continue
            add("ev_counter", n); continue
        if ph == "P" and e.get("name") in ("Profile", "ProfileChunk"):
            # V8's CPU profile (docs/format-chrome-cpuprofile.md): the Profile
            # event is metadata; a chunk counts as its samples (one per
            # samples/timeDeltas pair), one with no samples as metadata, one
            # whose two arrays differ in length once as bad_event more
            data = (e.get("args") or {}).get("data") or {}
            if e["name"] == "Profile":
                add("ev_metadata" if is_number(data.get("startTime")) else "bad_event"); continue
            s = (data.get("cpuProfile") or {}).get("samples") or []
            d = data.get("timeDeltas") or []
            if len(s) != len(d):
                add("bad_event")
            if min(len(s), len(d)):
                add("ev_sample", min(len(s), len(d)))
            elif len(s) == len(d):
                add("ev_metadata")
            continue
        if len(ph) != 1 or kind is None:
            add("ev_other"); continue
        if ph == "X" and e.get("cat") == "Trace":   # Kineto's whole-trace span, left out
            add("trace_span"); continue
        # an X without dur (or with null) runs to the end of its track
        if kind != "ev_metadata" and (not is_time(e.get("ts")) or
                                      (ph == "X" and e.get("dur") is not None and not is_time(e.get("dur")))):
            add("bad_event"); continue
        if ph == "C":
            args = e.get("args") if isinstance(e.get("args"), dict) else {}
            # numbers, also written as strings ("8.395"), finite only
            n = sum(1 for v in args.values() if is_number(v))
            if n == 0:
                add("bad_event"); continue
            add(kind, n); continue
        add(kind)
    c["events_read"] = sum(c.values())
    for k in sorted(c):
        print("%s=%d" % (k, c[k]))

main()
