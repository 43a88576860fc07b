#!/usr/bin/env python3
"""chrome_out_check.py TRACE.json[.gz] SLICES COUNTERS INSTANTS FLOWS

Checks a Chrome trace written by `tracefold chrome` with Python's own strict
JSON parser (NaN, Infinity and -Infinity refused): the object form with
traceEvents, displayTimeUnit and otherData; every event with the fields its
phase needs, of the right JSON types; X durations >= 0 (or, with --phases be,
B/E properly nested per thread in file order) and ts >= 0 after the
shift; the counts of X, C and i events equal to the counts given (from
tracefold's aggregate and `tracefold info`, computed independently); every
flow start (s) with exactly one end (f, bp "e") of the same id, and FLOWS
such pairs."""
import gzip, json, sys

def refuse(c):
    raise ValueError("non-JSON constant " + c)

path = sys.argv[1]
want_x, want_c, want_i, want_f = (int(a) for a in sys.argv[2:6])
raw = (gzip.open if path.endswith(".gz") else open)(path, "rb").read()
d = json.loads(raw.decode("utf-8"), parse_constant=refuse)  # strict UTF-8 and JSON
errs = []
if not isinstance(d, dict) or set(d) != {"traceEvents", "displayTimeUnit", "otherData"}:
    sys.exit("not the object form with traceEvents, displayTimeUnit, otherData: %r" % (list(d)[:5],))
od = d["otherData"]
for k in ("tool", "inputs", "input_formats", "clock", "time_shift_ns", "diagnostics"):
    if k not in od:
        errs.append("otherData lacks " + k)
if not isinstance(od.get("time_shift_ns"), int):
    errs.append("time_shift_ns is not an integer")
num = (int, float)
n = {"X": 0, "B": 0, "E": 0, "C": 0, "i": 0, "M": 0, "s": 0, "f": 0}
depth = {}
flows = {}
for k, e in enumerate(d["traceEvents"]):
    ph = e.get("ph")
    if ph not in n:
        errs.append("event %d: phase %r" % (k, ph)); continue
    n[ph] += 1
    if not isinstance(e.get("pid"), (int, str)) or not isinstance(e.get("tid"), (int, str)):
        errs.append("event %d: pid/tid" % k)
    if ph != "E" and not isinstance(e.get("name"), str):
        errs.append("event %d: name" % k)
    if ph in ("B", "E"):  # --phases be: properly nested per thread, in file order
        key = (e.get("pid"), e.get("tid"))
        depth[key] = depth.get(key, 0) + (1 if ph == "B" else -1)
        if depth[key] < 0:
            errs.append("event %d: E without its B" % k)
    if ph == "M":
        if e["name"] == "tracefold_gpu_stream":  # docs/chrome-out.md: a GPU stream's mark
            if e.get("args", {}).get("launches") not in (0, 1):
                errs.append("event %d: tracefold_gpu_stream args %r" % (k, e.get("args")))
        elif e["name"] not in ("process_name", "process_sort_index", "thread_name", "thread_sort_index"):
            errs.append("event %d: metadata %r" % (k, e["name"]))
        continue
    if not isinstance(e.get("ts"), num) or isinstance(e.get("ts"), bool):
        errs.append("event %d: ts" % k)
    elif e["ts"] < 0:
        errs.append("event %d: ts %r before the shifted start" % (k, e["ts"]))
    if ph == "E":
        a = e.get("args", {})
        if not isinstance(a.get("self_us"), num) or a["self_us"] < 0:
            errs.append("event %d: self_us %r" % (k, a.get("self_us")))
    if ph == "X":
        if not isinstance(e.get("dur"), num) or e["dur"] < 0:
            errs.append("event %d: dur %r" % (k, e.get("dur")))
        a = e.get("args", {})
        if not isinstance(a.get("self_us"), num) or a["self_us"] > e["dur"] or a["self_us"] < 0:
            errs.append("event %d: self_us %r of dur %r" % (k, a.get("self_us"), e.get("dur")))
    if ph in ("s", "f"):
        if not isinstance(e.get("id"), int):
            errs.append("event %d: flow id %r" % (k, e.get("id")))
        elif ph == "f" and e.get("bp") != "e":
            errs.append("event %d: flow end without bp e" % k)
        else:
            flows.setdefault(e["id"], []).append(e)
    if ph == "C":
        v = e.get("args", {}).get("value")
        if not isinstance(v, num):
            errs.append("event %d: counter value %r" % (k, v))
for i, ends in flows.items():
    if sorted(x["ph"] for x in ends) != ["f", "s"]:
        errs.append("flow id %d: %r" % (i, [x["ph"] for x in ends]))
if any(depth.values()):
    errs.append("B without its E: %r" % {k: v for k, v in depth.items() if v})
if n["X"] and n["B"]:
    errs.append("both X and B/E regions")
got = (n["X"] + n["B"], n["C"], n["i"], len(flows))
if got != (want_x, want_c, want_i, want_f):
    errs.append("X (or B/E pairs), C, i events, flow pairs: %r, want %r" % (got, (want_x, want_c, want_i, want_f)))
if errs:
    sys.exit("\n".join(errs[:20]))
print("ok: %d X, %d C, %d i, %d M events, %d flows" % (n["X"], n["C"], n["i"], n["M"], len(flows)))
