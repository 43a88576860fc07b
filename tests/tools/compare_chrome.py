#!/usr/bin/env python3
"""Compares a tracefold profile of a Chrome trace with an independent
computation (chrome_expect.py) and, optionally, PyTorch's own key_averages.csv.
Prints TAP-style "ok - ..." / "not ok - ..." lines.

usage: compare_chrome.py TRACE PROFILE.pb.gz [ORACLE.csv]"""
import csv, json, os, subprocess, sys
here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, here)
import pprof_raw

trace, prof = sys.argv[1], sys.argv[2]
oracle = sys.argv[3] if len(sys.argv) > 3 else None
exp = json.loads(subprocess.run([sys.executable, os.path.join(here, "chrome_expect.py"), trace],
                                capture_output=True, text=True, check=True).stdout)
got = pprof_raw.summarize(prof)
name = os.path.basename(trace)
fails = 0

def check(cond, what):
    global fails
    print(("ok - " if cond else "not ok - ") + name + ": " + what)
    if not cond:
        fails += 1

warn = [l for l in got["stderr"].splitlines() if l.strip() and "Main binary filename not available" not in l]
check(not warn, "go tool pprof reads it without warnings" + ("" if not warn else ": " + "; ".join(warn[:3])))
check(got["types"] == ["calls/count", "wall/nanoseconds"], "sample types calls/count, wall/nanoseconds (%s)" % got["types"])
tot = got["total"].get("wall/nanoseconds", 0)
u = exp["union_ns"]
check(abs(tot - u) <= max(1, u) * 0.001, "profile total %d ns == union of busy time per thread %d ns (0.1%%)" % (tot, u))
bad = []
for fn, e in exp["funcs"].items():
    g = got["funcs"].get(fn)
    if not g:
        bad.append("%s missing" % fn)
        continue
    if g["self"]["calls/count"] != e["calls"]:
        bad.append("%s calls %d != %d" % (fn, g["self"]["calls/count"], e["calls"]))
    if g["self"]["wall/nanoseconds"] != e["self_ns"]:
        bad.append("%s self %d != %d" % (fn, g["self"]["wall/nanoseconds"], e["self_ns"]))
    if not e["recursive"] and g["cum"]["wall/nanoseconds"] != e["incl_ns"]:
        bad.append("%s inclusive %d != %d" % (fn, g["cum"]["wall/nanoseconds"], e["incl_ns"]))
extra = set(got["funcs"]) - set(exp["funcs"])
check(not bad and not extra, "%d functions: calls, self and inclusive time equal the independent computation%s"
      % (len(exp["funcs"]), ("; " + "; ".join(bad[:5]) + (" ...%d more" % (len(bad) - 5) if len(bad) > 5 else "")) if bad else "")
      + ("; unexpected: " + ", ".join(sorted(extra)[:5]) if extra else ""))
if oracle:
    cbad, ibad, nclip_only, n = [], [], [], 0
    for r in csv.DictReader(open(oracle)):
        fn = r["name"]
        if fn not in exp["funcs"]:
            continue   # e.g. [memory]: no trace event
        n += 1
        g = got["funcs"].get(fn)
        calls = g["self"]["calls/count"] if g else 0
        if calls != int(r["count"]):
            cbad.append("%s %d != %s" % (fn, calls, r["count"]))
        if exp["funcs"][fn]["recursive"]:
            continue
        want = int(r["cpu_total_us"]) * 1000
        incl = g["cum"]["wall/nanoseconds"] if g else 0
        # clipping an overhanging child removes at most 1 us per clipped call
        # (oracle/README.md); otherwise the totals agree within 1%
        clip_ns = exp["funcs"][fn]["clipped"] * 1000
        if abs(incl - want) > max(want * 0.01, clip_ns):
            ibad.append("%s %d != %d" % (fn, incl, want))
        elif abs(incl - want) > want * 0.01:
            nclip_only.append(fn)
    check(n > 0 and not cbad, "calls of %d ops equal PyTorch's key_averages counts %s" % (n, "; ".join(cbad[:5])))
    check(n > 0 and not ibad, "inclusive time of %d ops within 1%% of PyTorch's CPU total (%d ops within 1 us per clipped overhang: %s) %s"
          % (n, len(nclip_only), ", ".join(nclip_only), "; ".join(ibad[:5])))
sys.exit(1 if fails else 0)
