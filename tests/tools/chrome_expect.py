#!/usr/bin/env python3
"""Independent computation of what a profile of a Chrome trace must contain,
written from docs/stack-rules.md (not from tracefold's C code).

usage: chrome_expect.py TRACE.json[.gz] [--rule clip|pytorch]
Prints JSON: {"funcs": {name: {"calls", "self_ns", "incl_ns", "recursive"}},
"union_ns": busy time (union of intervals) summed over threads, "events": N}

Times are converted from decimal microsecond text to integer ns exactly.
--rule clip (tracefold): a child ending after its parent is clipped to it.
--rule pytorch (PyTorch 1.13 EventList._populate_cpu_children): such a child
pops the parent, so later siblings go to the grandparent."""
import gzip, json, sys
from decimal import Decimal

def ns(v):
    return int((Decimal(str(v)) * 1000).to_integral_value())

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

def key(v):
    return str(v)

def main():
    path = sys.argv[1]
    rule = sys.argv[sys.argv.index("--rule") + 1] if "--rule" in sys.argv else "clip"
    evs = load(path)
    tracks = {}
    for i, e in enumerate(evs):
        ph = e.get("ph")
        if ph not in ("X", "B", "E") or "ts" not in e:
            continue
        tr = tracks.setdefault((key(e.get("pid")), key(e.get("tid"))), {"spans": [], "marks": []})
        ts = ns(e["ts"])
        if ph == "X":
            d = max(0, ns(e.get("dur", 0)))
            tr["spans"].append((ts, ts + d, e.get("name", ""), i))
        else:
            tr["marks"].append((ts, 0 if ph == "E" else 1, i, e.get("name", "")))
    funcs = {}
    union = 0
    def f(name):
        return funcs.setdefault(name, {"calls": 0, "self_ns": 0, "incl_ns": 0, "recursive": False, "clipped": 0})
    for tr in tracks.values():
        spans = tr["spans"]
        last = max([s[1] for s in spans] + [m[0] for m in tr["marks"]], default=0)
        stack = []
        for ts, is_begin, i, name in sorted(tr["marks"]):
            if is_begin:
                stack.append((ts, name, i))
            elif stack:
                b = stack.pop()
                spans.append((b[0], ts, b[1], b[2]))
        for b in stack:
            spans.append((b[0], last, b[1], b[2]))
        spans.sort(key=lambda s: (s[0], -s[1], s[3]))
        st = []  # [start, end, name, child_ns]
        def close():
            s0, e0, n0, c0 = st.pop()
            r = f(n0)
            r["calls"] += 1
            r["self_ns"] += (e0 - s0) - c0
            if any(x[2] == n0 for x in st):
                r["recursive"] = True
            else:
                r["incl_ns"] += e0 - s0
            if st:
                st[-1][3] += e0 - s0
        for s0, e0, name, i in spans:
            if rule == "pytorch":
                while st and (s0 >= st[-1][1] or e0 > st[-1][1]):
                    close()
            else:
                while st and st[-1][1] <= s0:
                    close()
                if st and e0 > st[-1][1]:
                    e0 = st[-1][1]
                    f(name)["clipped"] += 1
            if not st:
                union += e0 - s0
            st.append([s0, e0, name, 0])
        while st:
            close()
    json.dump({"funcs": funcs, "union_ns": union, "events": len(evs)}, sys.stdout, indent=1, sort_keys=True)

main()
