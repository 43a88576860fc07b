#!/usr/bin/env python3
"""Compares a tracefold profile of a Chrome trace with an independent
computation (chrome_expect.py) and, optionally, PyTorch's own key_averages.csv
and hand-computed expectations.  Prints TAP-style "ok - ..." / "not ok - ..." lines.

usage: compare_chrome.py TRACE PROFILE.pb.gz [ORACLE.csv] [--keep-trace-span]
         [--clip-tolerance T] [--info INFO.json] [--expect EXPECT.json: hand-computed expectations (default: expect/STEM.json
  in TRACE's folder if it exists, STEM = TRACE's name less .gz and its last
  extension).  Top level: the expectation without --keep-trace-span;
  "keep_trace_span": the one with it (default: the top level).  Keys, all
  optional: funcs {name: {calls, self_ns, incl_ns}} (the exact set of
  functions), paths {"a;b": {calls, self_ns}} (the exact set of call paths),
  nfuncs, total_ns, total_s (a decimal string: total rounded to its digits),
  raw_union_ns, calls, diag {counter: n} (the oracle's counters; listed ones
  exact, repair counts not listed must be 0), comment {key: n} (values on
  the profile's "events:" comment line; 0 = absent), counters {name:
  {samples, min, max, sum}} (against tracefold info, with --info).
  The oracle is checked against them first, then the profile."""
import csv, json, os, subprocess, sys
from decimal import Decimal, ROUND_HALF_EVEN
here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, here)
import pprof_raw

REPAIRS = ["end_without_begin", "begin_unclosed", "child_clipped", "overlap_cut", "negative_duration"]
REPAIR_KEYS = [k for r in REPAIRS for k in (r, r + "_ns")]

args = sys.argv[1:]
opts, pos, info_path, expect_path, oracle_only = [], [], None, None, False
i = 0
while i < len(args):
    a = args[i]
    if a == "--keep-trace-span":
        opts.append(a)
    elif a == "--clip-tolerance":
        opts += [a, args[i + 1]]
        i += 1
    elif a == "--oracle-only":
        oracle_only = True
    elif a == "--info":
        info_path = args[i + 1]
        i += 1
    elif a == "--expect":
        expect_path = args[i + 1]
        i += 1
    else:
        pos.append(a)
    i += 1
if len(pos) not in ((1,) if oracle_only else (2, 3)):
    sys.exit(__doc__)
trace = pos[0]
prof = pos[1] if len(pos) > 1 else None
oracle = pos[2] if len(pos) > 2 else None
keep = "--keep-trace-span" in opts
if expect_path is None and "--clip-tolerance" not in opts:   # expectations are for the default tolerance
    stem = os.path.basename(trace)
    stem = os.path.splitext(stem[:-3] if stem.endswith(".gz") else stem)[0]
    cand = os.path.join(os.path.dirname(trace), "expect", stem + ".json")
    if os.path.exists(cand):
        expect_path = cand

exp = json.loads(subprocess.run([sys.executable, os.path.join(here, "chrome_expect.py"), trace] + opts,
                                capture_output=True, text=True, check=True).stdout)
name = os.path.basename(trace) + "".join(" (%s)" % o for o in opts if o.startswith("--")).replace(
    "(--clip-tolerance)", "(--clip-tolerance %s)" % (opts[opts.index("--clip-tolerance") + 1] if "--clip-tolerance" in opts else ""))
fails = 0


def check(cond, what):
    global fails
    print(("ok - " if cond else "not ok - ") + name + ": " + what)
    if not cond:
        fails += 1


def short(bad, n=5):
    return "; ".join(bad[:n]) + (" ...%d more" % (len(bad) - n) if len(bad) > n else "")


def sp(p):
    """a call path, shortened to its last 3 frames for messages"""
    f = p.split(";")
    return p if len(f) <= 3 else "...;" + ";".join(f[-3:])


def comment_line(path):
    """key=value pairs of the profile's comment line starting 'events: '."""
    env = dict(os.environ)
    env.setdefault("GOCACHE", "/tmp/tf-gocache")
    out = subprocess.run(["go", "tool", "pprof", "-comments", path], capture_output=True, text=True, env=env)
    lines = [l for l in out.stdout.splitlines() if l.startswith("events: ")]
    kv = {}
    if lines:
        for part in lines[0][len("events: "):].split(", "):
            k, _, v = part.partition("=")
            try:
                kv[k.strip()] = int(v)
            except ValueError:
                kv[k.strip()] = v
    return kv, len(lines)


def check_expect(e, what):
    """The oracle against hand-computed expectations."""
    bad = []
    if "funcs" in e:
        for fn, w in e["funcs"].items():
            o = exp["funcs"].get(fn)
            if o is None:
                bad.append("%s missing" % fn)
                continue
            for k, v in w.items():
                if o.get(k) != v:
                    bad.append("%s %s %s != %s" % (fn, k, o.get(k), v))
        extra = set(exp["funcs"]) - set(e["funcs"])
        if extra:
            bad.append("unexpected functions " + ", ".join(sorted(extra)))
    if "paths" in e:
        for p, w in e["paths"].items():
            o = exp["paths"].get(p)
            if o is None:
                bad.append("path %s missing" % p)
            elif o["calls"] != w["calls"] or o["self_ns"] != w["self_ns"]:
                bad.append("path %s calls %d self %d != %d, %d" % (p, o["calls"], o["self_ns"], w["calls"], w["self_ns"]))
        extra = set(exp["paths"]) - set(e["paths"])
        if extra:
            bad.append("unexpected paths " + ", ".join(sorted(extra)))
    for k in ("total_ns", "raw_union_ns", "calls"):
        if k in e and exp[k] != e[k]:
            bad.append("%s %s != %s" % (k, exp[k], e[k]))
    if "nfuncs" in e and len(exp["funcs"]) != e["nfuncs"]:
        bad.append("%d functions != %d" % (len(exp["funcs"]), e["nfuncs"]))
    if "total_s" in e:
        q = Decimal(e["total_s"])
        got_s = (Decimal(exp["total_ns"]) / Decimal(10**9)).quantize(q, rounding=ROUND_HALF_EVEN)
        if got_s != q:
            bad.append("total %s s != %s s" % (got_s, q))
    if "diag" in e:
        for k in set(REPAIRS) | set(e["diag"]):
            if exp["diag"].get(k, 0) != e["diag"].get(k, 0):
                bad.append("%s %s != %s" % (k, exp["diag"].get(k, 0), e["diag"].get(k, 0)))
    check(not bad, "oracle equals the expectations of %s%s" % (what, ": " + short(bad) if bad else ""))


def cpu_profile_samples(path):
    """Whether the trace has V8 CPU profile samples (ProfileChunk events with
    samples): tracefold then adds samples/count and cpu/nanoseconds."""
    import gzip
    op = gzip.open if open(path, "rb").read(2) == b"\x1f\x8b" else open
    with op(path, "rt", encoding="utf-8") as f:
        text = f.read()
    if '"ProfileChunk"' not in text:
        return False
    d = json.loads(text)
    evs = d["traceEvents"] if isinstance(d, dict) else d
    return any(isinstance(e, dict) and e.get("ph") == "P" and e.get("name") == "ProfileChunk" and
               (((e.get("args") or {}).get("data") or {}).get("cpuProfile") or {}).get("samples")
               for e in evs)


expect = None
if expect_path:
    allx = json.load(open(expect_path))
    expect = allx.get("keep_trace_span") if keep else allx
    if keep and expect is None:
        expect = {k: v for k, v in allx.items() if k != "keep_trace_span"}
    if expect is not None:
        check_expect(expect, os.path.join(os.path.basename(os.path.dirname(expect_path)), os.path.basename(expect_path)))

if oracle_only:
    if expect is None:
        check(True, "oracle runs (no expectations to check)")
    sys.exit(1 if fails else 0)
got = pprof_raw.summarize(prof)
warn = [l for l in got["stderr"].splitlines() if l.strip() and "Main binary filename not available" not in l]
check(not warn, "go tool pprof reads it without warnings" + ("" if not warn else ": " + "; ".join(warn[:3])))
# made as they are first needed: GPU time, allocations (docs/gpu.md)
want_types = ["calls/count", "wall/nanoseconds"] + (["gpu/nanoseconds"] if exp["gpu_activities"] else []) + \
    (["alloc_space/bytes", "alloc_objects/count"] if exp["diag"].get("allocations") else []) + \
    (["free_space/bytes", "free_objects/count"] if exp["diag"].get("frees") else []) + \
    (["inuse_space/bytes", "inuse_objects/count"] if exp["diag"].get("allocations_addr") else []) + \
    (["samples/count", "cpu/nanoseconds"] if cpu_profile_samples(trace) else [])
check(got["types"][:2] == want_types[:2] and sorted(got["types"]) == sorted(want_types),
      "sample types %s (%s)" % (", ".join(want_types), got["types"]))
gtot = got["total"].get("gpu/nanoseconds", 0)
check(gtot == exp["gpu_ns"], "gpu total %d ns == the GPU activities' durations %d ns" % (gtot, exp["gpu_ns"]))
tot = got["total"].get("wall/nanoseconds", 0)
calls = got["total"].get("calls/count", 0)
cm, ncm = comment_line(prof)
check(ncm == 1, "one 'events: ' comment line (%d)" % ncm)

check(tot == exp["total_ns"], "profile total %d ns == union of the post-repair root frames %d ns" % (tot, exp["total_ns"]))
clip_ns = cm.get("child_clipped_ns", 0)
if clip_ns == 0:
    check(tot == exp["raw_union_ns"], "no child clipped: total %d ns == raw union %d ns (cuts lose no time)"
          % (tot, exp["raw_union_ns"]))
else:
    check(tot >= exp["raw_union_ns"] - clip_ns, "total %d ns >= raw union %d ns - child_clipped_ns %d"
          % (tot, exp["raw_union_ns"], clip_ns))
check(calls == exp["calls"], "calls %d == region instances (X, B/E pairs, unclosed B) %d" % (calls, exp["calls"]))

bad = []
for k in REPAIR_KEYS:
    if cm.get(k, 0) != exp["diag"].get(k, 0):
        bad.append("%s=%s, oracle %s" % (k, cm.get(k, 0), exp["diag"].get(k, 0)))
check(not bad, "repairs on the comment line equal the oracle's (%s)%s"
      % (", ".join("%s=%d" % (k, exp["diag"][k]) for k in REPAIR_KEYS if exp["diag"].get(k)) or "none",
         ": " + short(bad, 10) if bad else ""))

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
    if g["cum"]["wall/nanoseconds"] != e["incl_ns"]:
        bad.append("%s inclusive %d != %d" % (fn, g["cum"]["wall/nanoseconds"], e["incl_ns"]))
    if g["self"].get("gpu/nanoseconds", 0) != e["gpu_self_ns"] or g["cum"].get("gpu/nanoseconds", 0) != e["gpu_incl_ns"]:
        bad.append("%s gpu self %d incl %d != %d, %d" % (fn, g["self"].get("gpu/nanoseconds", 0),
                   g["cum"].get("gpu/nanoseconds", 0), e["gpu_self_ns"], e["gpu_incl_ns"]))
def memory_only(v):  # docs/memory.md: a memory event outside any region is at [no region]
    return not any(v.get(t, 0) for t in ("calls/count", "wall/nanoseconds", "gpu/nanoseconds"))
def samples_only(v):  # the CPU profile's frames (chrome_cpuprofile_check.py checks them): no region time
    return v.get("samples/count", 0) > 0 and memory_only(v)
extra = set(got["funcs"]) - set(exp["funcs"])
extra -= {f for f in extra if samples_only(got["funcs"][f]["cum"])}
extra -= {f for f in extra if f == "[no region]" and memory_only(got["funcs"][f]["cum"])}
check(not bad and not extra, "%d functions: calls, self and inclusive time equal the independent computation%s"
      % (len(exp["funcs"]), ("; " + short(bad)) if bad else "")
      + ("; unexpected: " + ", ".join(sorted(extra)[:5]) if extra else ""))

bad = []
for p, e in exp["paths"].items():
    g = got["paths"].get(p)
    if not g:
        bad.append("%s missing" % sp(p))
    elif g["calls/count"] != e["calls"] or g["wall/nanoseconds"] != e["self_ns"] or \
            g.get("gpu/nanoseconds", 0) != e["gpu_ns"]:
        bad.append("%s calls %d self %d gpu %d != %d, %d, %d" % (sp(p), g["calls/count"], g["wall/nanoseconds"],
                   g.get("gpu/nanoseconds", 0), e["calls"], e["self_ns"], e["gpu_ns"]))
extra = set(got["paths"]) - set(exp["paths"])
extra -= {p for p in extra if samples_only(got["paths"][p])}
extra -= {p for p in extra if sp(p) == "[no region]" and memory_only(got["paths"][p])}
check(not bad and not extra, "%d call paths: calls and self time equal the independent computation%s"
      % (len(exp["paths"]), ("; " + short(bad, 3)) if bad else "")
      + ("; unexpected: " + ", ".join(sp(x) for x in sorted(extra)[:3]) if extra else ""))

if expect is not None:
    bad = []
    for k, v in expect.get("comment", {}).items():
        if cm.get(k, 0) != v:
            bad.append("%s=%s, want %s" % (k, cm.get(k, 0), v))
    if "comment" in expect:
        check(not bad, "comment line has the expected %s%s"
              % (", ".join("%s=%s" % kv for kv in expect["comment"].items()), ": " + short(bad) if bad else ""))

if info_path:
    info = json.load(open(info_path))
    ic = {c["name"]: c for c in info.get("counters", [])}
    bad = []
    if info["diagnostics"].get("ev_counter", 0) != exp["diag"].get("counter_events", 0):
        bad.append("ev_counter %s != %s" % (info["diagnostics"].get("ev_counter", 0), exp["diag"].get("counter_events", 0)))
    for cn, c in exp["counters"].items():
        if cn not in ic or ic[cn]["samples"] != c["samples"]:
            bad.append("%s samples %s != %s" % (cn, ic.get(cn, {}).get("samples"), c["samples"]))
    if expect is not None:
        for cn, c in expect.get("counters", {}).items():
            for k, v in c.items():
                o = exp["counters"].get(cn, {}).get(k)
                if o is None or abs(o - v) > 1e-9 * max(1, abs(v)):
                    bad.append("oracle %s %s %s != %s" % (cn, k, o, v))
                g = ic.get(cn, {}).get(k)
                if g is None or abs(g - v) > 1e-9 * max(1, abs(v)):
                    bad.append("info %s %s %s != %s" % (cn, k, g, v))
    check(not bad, "counters in tracefold info equal the oracle's (%d C events, %d counters)%s"
          % (exp["diag"].get("counter_events", 0), len(exp["counters"]), ": " + short(bad) if bad else ""))

if oracle:
    cbad, ibad, nclip_only, n = [], [], [], 0
    for r in csv.DictReader(open(oracle)):
        fn = r["name"]
        if fn not in exp["funcs"]:
            continue   # e.g. [memory]: no trace event
        n += 1
        g = got["funcs"].get(fn)
        c = g["self"]["calls/count"] if g else 0
        if c != int(r["count"]):
            cbad.append("%s %d != %s" % (fn, c, r["count"]))
        if exp["funcs"][fn]["recursive"]:
            continue
        want = int(r["cpu_total_us"]) * 1000
        incl = g["cum"]["wall/nanoseconds"] if g else 0
        # clipping an overhanging child removes at most 1 us per clipped call
        # (oracle/README.md); otherwise the totals agree within 1%
        clip = exp["funcs"][fn]["clipped"] * 1000
        if abs(incl - want) > max(want * 0.01, clip):
            ibad.append("%s %d != %d" % (fn, incl, want))
        elif abs(incl - want) > want * 0.01:
            nclip_only.append(fn)
    check(n > 0 and not cbad, "calls of %d ops equal PyTorch's key_averages counts %s" % (n, "; ".join(cbad[:5])))
    check(n > 0 and not ibad, "inclusive time of %d ops within 1%% of PyTorch's CPU total (%d ops within 1 us per clipped overhang: %s) %s"
          % (n, len(nclip_only), ", ".join(nclip_only), "; ".join(ibad[:5])))
sys.exit(1 if fails else 0)
