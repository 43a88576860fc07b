#!/usr/bin/env python3
"""cmp_top.py - checks `tracefold top --format json -n 0` against
`go tool pprof -top -unit=ns -nodefraction=0 -nodecount=1000000` (pprof's own
numbers) for the same profile: the total and every function's flat (self)
and cum (inclusive) must be equal.

usage: cmp_top.py PPROF_TOP.txt TRACEFOLD_TOP.json"""
import json
import re
import sys

ROW = re.compile(r"^\s*(\S+)\s+(\S+)%\s+(\S+)%\s+(\S+)\s+(\S+)%\s+(.*?)\s*$")


def ns(x):
    if x == "0":
        return 0
    m = re.fullmatch(r"(-?[0-9.]+)(ns)?", x)
    if not m:
        sys.exit("cannot parse pprof value %r (use -unit=ns)" % x)
    return int(round(float(m.group(1))))


def main():
    text = open(sys.argv[1]).read()
    tf = json.load(open(sys.argv[2]))
    m = re.search(r"of (\S+) total", text)
    if not m:
        sys.exit("no total in pprof output")
    ptotal = ns(m.group(1))
    pf = {}
    started = False
    for line in text.splitlines():
        if line.strip().startswith("flat"):
            started = True
            continue
        if not started:
            continue
        r = ROW.match(line)
        if not r:
            sys.exit("cannot parse pprof row %r" % line)
        name = re.sub(r" \(inline\)$", "", r.group(6))
        flat, cum = ns(r.group(1)), ns(r.group(4))
        prev = pf.get(name)
        if prev and prev != (flat, cum):
            sys.exit("pprof lists %s twice" % name)
        pf[name] = (flat, cum)
    # pprof does not list functions whose flat and cum are both 0
    tfm = {f["name"]: (f["self"], f["total"]) for f in tf["functions"] if f["self"] or f["total"] or f["name"] in pf}
    bad = []
    if ptotal != tf["total"]:
        bad.append("total: pprof %d, tracefold %d" % (ptotal, tf["total"]))
    if tf["functions_count"] != len(tf["functions"]):  # -n 0 lists all
        bad.append("tracefold listed %d of %d functions" % (len(tf["functions"]), tf["functions_count"]))
    for name in sorted(set(pf) | set(tfm)):
        a, b = pf.get(name), tfm.get(name)
        if a != b:
            bad.append("%s: pprof flat/cum %s, tracefold self/total %s" % (name, a, b))
    if bad:
        print("\n".join(bad))
        sys.exit(1)
    print("%d functions, total %d: equal" % (len(pf), ptotal))


if __name__ == "__main__":
    main()
