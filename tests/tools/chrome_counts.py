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
