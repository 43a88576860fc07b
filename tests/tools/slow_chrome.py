#!/usr/bin/env python3
"""slow_chrome.py - writes a copy of a Chrome trace (JSON array or object with
traceEvents, complete 'X' events) in which every event named NAME lasts
FACTOR times as long: later events on the same thread move later by the
added time and the events enclosing it grow by it, so nesting stays valid.
NAME's self time grows by (FACTOR - 1) x its inclusive time.

usage: slow_chrome.py NAME FACTOR IN.json OUT.json"""
import json
import sys


def main():
    name, factor, src, dst = sys.argv[1], float(sys.argv[2]), sys.argv[3], sys.argv[4]
    doc = json.load(open(src))
    evs = doc["traceEvents"] if isinstance(doc, dict) else doc
    xs = [e for e in evs if e.get("ph") == "X" and "dur" in e]
    by_thread = {}
    for e in xs:
        by_thread.setdefault((str(e.get("pid")), str(e.get("tid"))), []).append(e)
    n = 0
    for tevs in by_thread.values():
        targets = sorted((e for e in tevs if e.get("name") == name), key=lambda e: e["ts"])
        for t in targets:
            extra = t["dur"] * (factor - 1)
            end = t["ts"] + t["dur"]
            for e in tevs:
                if e is t:
                    continue
                if e["ts"] >= end:
                    e["ts"] += extra
                elif e["ts"] <= t["ts"] and e["ts"] + e["dur"] >= end:
                    e["dur"] += extra
            t["dur"] += extra
            n += 1
    if not n:
        sys.exit("no complete event named %r" % name)
    json.dump(doc, open(dst, "w"))


if __name__ == "__main__":
    main()
