#!/usr/bin/env python3
"""Independent checks of tracefold's OTF2 reading, computed from `otf2-print`
(libotf2's own dump tool) output, not from tracefold's code.

usage:
  otf2_expect.py counts ANCHOR DIAG
      DIAG: the "name=value, ..." counters tracefold -v prints.  Compares the
      record counts of otf2-print with tracefold's event accounting.
  otf2_expect.py profile ANCHOR PROFILE.pb.gz [TAU_PROFILE]
      Rebuilds each location's call stack from otf2-print's ENTER/LEAVE lines
      (exact rational seconds from the archive's clock) and compares self
      time, inclusive time and calls per region with the profile (read by
      `go tool pprof -raw`, tests/tools/pprof_raw.py) within 0.1%; with a
      TAU profile.0.0.0 of the same run, compares with TAU's numbers too.
  otf2_expect.py counter ANCHOR PROFILE.pb.gz NAME
      The profile was made with --counters NAME: its last sample type must
      total the sum of the archive's METRIC values of member NAME.
Prints TAP lines ("ok - ...", "not ok - ..."); exits 1 if any check failed."""
import collections, fractions, os, re, subprocess, sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import pprof_raw  # noqa: E402

REL_TOL = 0.001
nfail = 0


def report(ok, desc, detail=""):
    global nfail
    print(("ok - " if ok else "not ok - ") + desc)
    if not ok:
        nfail += 1
        if detail:
            print("#   " + detail)


def otf2_print(anchor, *opts):
    out = subprocess.run(["otf2-print", *opts, anchor], capture_output=True, text=True)
    if out.returncode != 0:
        sys.exit("otf2-print failed: " + out.stderr)
    return out.stdout.splitlines()


EV = re.compile(r'^([A-Z_0-9]+)\s+(\d+)\s+(\d+)\s+(.*)$')
REGION = re.compile(r'Region: "(.*)" <\d+>\s*$')
NVALUES = re.compile(r'Metric: \d+, (\d+) Values?:')
CLOCK = re.compile(r'^CLOCK_PROPERTIES\s+Ticks per Seconds: (\d+), Global Offset: (\d+)')


def parse(anchor):
    """-> (res, offset, {loc: [(kind, ticks, rest)]} in stored order, record counts)"""
    res, off = 1, 0
    locs = collections.OrderedDict()
    counts = collections.Counter()
    in_events = False
    for ln in otf2_print(anchor, "-G"):
        m = CLOCK.match(ln)
        if m:
            res, off = int(m.group(1)), int(m.group(2))
    for ln in otf2_print(anchor):
        if ln.startswith("=== Events"):
            in_events = True
            continue
        if ln.startswith("=== "):
            in_events = False
            continue
        if not in_events:
            continue
        m = EV.match(ln)
        if not m or m.group(1) in ("Event",):
            continue
        kind, loc, t, rest = m.group(1), int(m.group(2)), int(m.group(3)), m.group(4)
        counts[kind] += 1
        if kind == "METRIC":
            v = NVALUES.search(rest)
            counts["METRIC_VALUES"] += int(v.group(1)) if v else 0
        locs.setdefault(loc, []).append((kind, t, rest))
    return res, off, locs, counts


def cmd_counts(anchor, diag):
    _, _, _, c = parse(anchor)
    d = {k: int(v) for k, v in re.findall(r'(\w+)=(\d+)', diag)}
    want = {
        "ev_duration": c["ENTER"] + c["LEAVE"],
        "ev_counter": c["METRIC_VALUES"],
        "ev_message": c["MPI_SEND"] + c["MPI_ISEND"] + c["MPI_RECV"] + c["MPI_IRECV"],
        "ev_other": sum(c[k] for k in ("MPI_COLLECTIVE_BEGIN", "MPI_COLLECTIVE_END", "THREAD_FORK",
                                       "THREAD_JOIN", "CALLING_CONTEXT_ENTER", "CALLING_CONTEXT_LEAVE",
                                       "CALLING_CONTEXT_SAMPLE")),
    }
    want["events_read"] = sum(want.values())
    for k, v in want.items():
        report(d.get(k, 0) == v, "%s: %s=%d, otf2-print says %d" % (os.path.basename(os.path.dirname(anchor)) or anchor,
                                                                   k, d.get(k, 0), v))
    for k in ("missing_location", "unknown_event_id", "bad_event", "truncated_record"):
        report(d.get(k, 0) == 0, "%s: no %s" % (anchor, k), "got %d" % d.get(k, 0))


def expected_profile(anchor):
    """Per region: self and inclusive seconds (exact fractions) and calls."""
    res, off, locs, _ = parse(anchor)
    self_t = collections.defaultdict(fractions.Fraction)
    incl_t = collections.defaultdict(fractions.Fraction)
    calls = collections.Counter()
    for loc, evs in locs.items():
        stack = []  # [name, start, child_time]
        last = None
        for kind, t, rest in evs:
            last = t
            if kind not in ("ENTER", "LEAVE"):
                continue
            name = REGION.search(rest).group(1)
            if kind == "ENTER":
                stack.append([name, t, 0])
                calls[name] += 1
                continue
            if not stack:
                continue  # leave without enter: dropped
            while stack and stack[-1][0] != name and any(f[0] == name for f in stack):
                close(stack, t, self_t, incl_t, res)  # inner regions closed first
            if stack and stack[-1][0] == name:
                close(stack, t, self_t, incl_t, res)
        while stack:
            close(stack, last, self_t, incl_t, res)
    return self_t, incl_t, calls


def close(stack, t, self_t, incl_t, res):
    name, start, child = stack.pop()
    dur = t - start
    self_t[name] += fractions.Fraction(dur - child, res)
    if not any(f[0] == name for f in stack):  # recursion: count the outermost only
        incl_t[name] += fractions.Fraction(dur, res)
    if stack:
        stack[-1][2] += dur


def close_enough(got, want):
    return abs(got - want) <= max(REL_TOL * abs(want), 1000)  # 1 us floor: tick->ns rounding


def cmd_profile(anchor, prof, tau=None):
    self_t, incl_t, calls = expected_profile(anchor)
    got = pprof_raw.summarize(prof)
    funcs = got["funcs"]
    tag = os.path.basename(os.path.dirname(os.path.abspath(anchor)))
    for name in sorted(calls):
        f = funcs.get(name)
        if not f:
            report(False, "%s: region %r in the profile" % (tag, name))
            continue
        ws, wi = float(self_t[name] * 10**9), float(incl_t[name] * 10**9)
        # time on CPU locations is wall, on accelerator locations gpu (docs/gpu.md)
        gs = f["self"]["wall/nanoseconds"] + f["self"].get("gpu/nanoseconds", 0)
        gi = f["cum"]["wall/nanoseconds"] + f["cum"].get("gpu/nanoseconds", 0)
        gc = f["self"]["calls/count"]
        report(close_enough(gs, ws) and close_enough(gi, wi) and gc == calls[name],
               "%s: %s self %d ns (want %.0f), incl %d ns (want %.0f), calls %d (want %d)"
               % (tag, name, gs, ws, gi, wi, gc, calls[name]))
    extra = sorted(set(funcs) - set(calls))
    report(not extra, "%s: no regions that otf2-print does not show" % tag, repr(extra))
    if tau:
        for ln in open(tau, encoding="utf-8", errors="replace"):
            if re.match(r'^\d+ (aggregates|userevents)', ln):
                break  # the user event table follows: not regions
            m = re.match(r'^"(.*)" (\d+) (\d+) ([\d.eE+-]+) ([\d.eE+-]+) ', ln)
            if not m:
                continue
            name, n, excl_us, incl_us = m.group(1).rstrip(), int(m.group(2)), float(m.group(4)), float(m.group(5))
            f = funcs.get(name)
            if not f:
                report(False, "%s: TAU region %r in the profile" % (tag, name))
                continue
            gs, gi, gc = f["self"]["wall/nanoseconds"], f["cum"]["wall/nanoseconds"], f["self"]["calls/count"]
            report(close_enough(gs, excl_us * 1000) and close_enough(gi, incl_us * 1000) and gc == n,
                   "%s vs TAU profile: %s excl %d ns (TAU %.0f us), incl %d ns (TAU %.0f us), calls %d (TAU %d)"
                   % (tag, name, gs, excl_us, gi, incl_us, gc, n))


VALUE = re.compile(r'\("(.*?)" <\d+>; (\w+); ([^)]*)\)')


def cmd_counter(anchor, prof, name):
    """The profile was made with --counters NAME: its sample type
    counter:NAME must total the sum of NAME's metric values in the archive."""
    want = 0.0
    _, _, locs, _ = parse(anchor)
    for evs in locs.values():
        for kind, _, rest in evs:
            if kind == "METRIC":
                for n, _, v in VALUE.findall(rest):
                    if n == name:
                        want += float(v)
    text, _ = pprof_raw.raw(prof)
    types, samples, _ = pprof_raw.parse(text)
    k = types.index("counter:%s/count" % name)
    got = sum(s["values"][k] for s in samples)
    nsamples = len(samples)
    # tolerance: the profile holds int64 values, one rounding per sample
    report(abs(got - want) <= max(1e-9 * abs(want), nsamples),
           "%s: counter %r totals %d in the profile, otf2-print values sum to %.1f" % (anchor, name, got, want))


if __name__ == "__main__":
    if len(sys.argv) >= 4 and sys.argv[1] == "counts":
        cmd_counts(sys.argv[2], sys.argv[3])
    elif len(sys.argv) >= 5 and sys.argv[1] == "counter":
        cmd_counter(sys.argv[2], sys.argv[3], sys.argv[4])
    elif len(sys.argv) >= 4 and sys.argv[1] == "profile":
        cmd_profile(sys.argv[2], sys.argv[3], sys.argv[4] if len(sys.argv) > 4 else None)
    else:
        sys.exit(__doc__)
    sys.exit(1 if nfail else 0)
