#!/usr/bin/env python3
"""chrome_flow_pairs.py TRACE.json[.gz]: how many flow arrows a Chrome trace
(or JSON lines) holds, read with Python's json: per flow id (id, or id2.local/global), its
starts (s, t) and ends (t, f), each start paired with the next end in file
order; an arrow per pair.  The oracle for tracefold chrome's flow output."""
import gzip, json, sys

p = sys.argv[1]
raw = (gzip.open if p.endswith(".gz") else open)(p, "rb").read().decode("utf-8", "replace")
try:
    d = json.loads(raw)
    ev = d["traceEvents"] if isinstance(d, dict) else d
except ValueError:  # JSON lines (DFTracer .pfw): one event per line, maybe after a "["
    ev = [json.loads(l.strip().rstrip(",")) for l in raw.splitlines() if l.strip() not in ("", "[", "]")]
starts, ends = {}, {}
for e in ev:
    ph = e.get("ph")
    if ph not in ("s", "t", "f") or not isinstance(e, dict) or "ts" not in e:
        continue
    i = e.get("id")
    if i is None and isinstance(e.get("id2"), dict):
        i = e["id2"].get("local", e["id2"].get("global"))
    if i is None:
        continue
    i = str(i)
    if ph in ("t", "f"):
        ends[i] = ends.get(i, 0) + 1
    if ph in ("s", "t"):
        starts[i] = starts.get(i, 0) + 1
print(sum(min(starts.get(i, 0), ends.get(i, 0)) for i in starts))
