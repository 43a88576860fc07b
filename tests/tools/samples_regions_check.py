#!/usr/bin/env python3
"""Independent expected numbers for samples placed under the regions of a
trace (docs/samples.md, "Samples under regions").

Reads a Chrome trace-event JSON (its X events: pid, tid, ts and dur in
microseconds) and a perf script text (parsed by samples_expected.py's perf
parser, by perf's own rules), shifts each sample's time by --offset-ns, and
puts every sample under the regions open on its thread (same pid and tid)
at its time: a region of [ts, ts + dur) holds a sample at t when
ts <= t < ts + dur (times in integer nanoseconds: ts x 1000 rounded).  It
prints JSON: per region name, the samples and the weight (the perf period)
under it (counted once per sample however often the name is open), the
samples on threads that have regions but none open ("outside"), and the
samples of threads without regions, and per region name the samples whose
innermost open region it is (the `slice_id` of the Parquet samples table).

With --check TF, it runs `TF -q fold --raw-names --sample-type T TRACE PERF
-o -` for T = samples and the perf event, adds each folded line's value to
every region name on its stack once, and compares; `TF -q info --format json`
must count the same samples_outside.  Exits 1 on a disagreement.

Usage: samples_regions_check.py [--offset-ns N] [--check TF] TRACE.json PERF
Python 3 standard library only.
"""
import json
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import samples_expected  # noqa: E402  (its perf parser: perf's rules, not tracefold's)


def expected(trace_path, perf_path, offset):
    with open(trace_path) as f:
        d = json.load(f)
    evs = d["traceEvents"] if isinstance(d, dict) else d
    regions = {}
    for e in evs:
        if e.get("ph") != "X":
            continue
        key = (str(e["pid"]), str(e["tid"]))
        start = round(e["ts"] * 1000)
        regions.setdefault(key, []).append((start, start + round(e["dur"] * 1000), e["name"]))
    samples = samples_expected.parse_perf(samples_expected.read_text(perf_path), perf_path)
    out = {"samples": 0, "outside": 0, "no_regions": 0, "regions": {}, "innermost": {}, "event": None}
    for s in samples:
        sec, frac = s["time"].split(".")
        t = int(sec) * 10**9 + int((frac + "000000000")[:9]) + offset
        out["samples"] += 1
        out["event"] = s["event"]
        key = (str(s["pid"]), str(s["tid"]))
        if key not in regions:
            out["no_regions"] += 1
            continue
        opened = [(a, -b, name) for (a, b, name) in regions[key] if a <= t < b]
        open_names = {name for (_, _, name) in opened}
        if not open_names:
            out["outside"] += 1
        else:  # the innermost: the latest start (the shorter on a tie)
            inner = max(opened)[2]
            out["innermost"][inner] = out["innermost"].get(inner, 0) + 1
        for name in open_names:
            r = out["regions"].setdefault(name, {"samples": 0, "weight": 0})
            r["samples"] += 1
            r["weight"] += s["period"]
    return out


def fold_by_region(tf, trace, perf, typ, names, offset):
    cmd = [tf, "-q", "fold", "--raw-names", "--sample-type", typ, trace, perf, "-o", "-"]
    if offset:
        cmd[3:3] = ["--clock-offset", "%dns" % offset]
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    if p.returncode:
        sys.exit("%s: %s" % (" ".join(cmd), p.stderr.decode()))
    got = {}
    for line in p.stdout.decode().splitlines():
        stack, _, v = line.rpartition(" ")
        for name in set(stack.split(";")) & names:
            got[name] = got.get(name, 0) + int(v)
    return got


def main(argv):
    offset, tf = 0, None
    while argv and argv[0].startswith("--"):
        if argv[0] == "--offset-ns":
            offset = int(argv[1])
        elif argv[0] == "--check":
            tf = argv[1]
        else:
            sys.exit(__doc__)
        argv = argv[2:]
    if len(argv) != 2:
        sys.exit(__doc__)
    exp = expected(argv[0], argv[1], offset)
    if not tf:
        json.dump(exp, sys.stdout, indent=1, sort_keys=True)
        print()
        return 0
    bad = []
    names = set(exp["regions"])
    for typ, key in (("samples", "samples"), (exp["event"], "weight")):
        got = fold_by_region(tf, argv[0], argv[1], typ, names, offset)
        for name, r in sorted(exp["regions"].items()):
            if got.get(name, 0) != r[key]:
                bad.append("%s under %r: %d, expected %d" % (typ, name, got.get(name, 0), r[key]))
    cmd = [tf, "-q", "info", "--format", "json", argv[0], argv[1]]
    if offset:
        cmd[3:3] = ["--clock-offset", "%dns" % offset]
    info = json.loads(subprocess.run(cmd, stdout=subprocess.PIPE, check=True).stdout)
    if info["diagnostics"]["samples_outside"] != exp["outside"]:
        bad.append("samples_outside %d, expected %d" % (info["diagnostics"]["samples_outside"], exp["outside"]))
    for b in bad:
        print(b)
    print("%d samples: %d under regions' threads outside them, %d on threads without regions; %d region names" %
          (exp["samples"], exp["outside"], exp["no_regions"], len(names)), file=sys.stderr)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
