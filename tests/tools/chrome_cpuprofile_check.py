#!/usr/bin/env python3
"""Independent check of tracefold's reading of the V8 CPU profile inside a
Chrome trace (Profile / ProfileChunk events, docs/format-chrome-cpuprofile.md).

Written from the format facts, not from tracefold's C code:
  - a profile is keyed by (pid, id); its `Profile` event names the profiled
    thread (its pid, tid) and args.data.startTime (us on the trace clock);
  - its `ProfileChunk` events, in file order, carry args.data.cpuProfile.nodes
    ({id, callFrame, parent} or {id, callFrame, children}),
    args.data.cpuProfile.samples (node ids) and args.data.timeDeltas (us; the
    first relative to startTime, each next to the previous sample);
  - samples are sorted by time (stable), as DevTools does; each one weighs the
    time to the next sample of its profile (the last: 0);
  - a frame is "functionName url:line" (line = callFrame.lineNumber + 1;
    "(anonymous)" for an empty name; the name alone when url is empty); the
    parentless "(root)" node is no frame.

Computes per profile: sample count, cpu ns, the self and total (samples and
ns) of every function, and, per trace region name R of the profiled thread
(X events and B/E pairs), the samples whose time falls inside an instance of
R ([ts, ts+dur)), the samples inside no region, and of those the ones on a
thread that has regions (samples_outside, against `TF info --format json`).  Then
runs `TF -q fold --raw-names --sample-type T TRACE -o -` for T = cpu and
samples and compares: the JS part of each folded stack (the longest suffix
that is a stack of the profile) gives the functions; the frames above it the
regions.  Prints the numbers; exits 1 on any difference.

Usage: chrome_cpuprofile_check.py TF TRACE [--expect-samples N]
Python 3 standard library only.
"""
import collections
import gzip
import json
import subprocess
import sys


def load(path):
    op = gzip.open if path.endswith(".gz") else open
    with op(path, "rt", encoding="utf-8") as f:
        d = json.load(f)
    return d["traceEvents"] if isinstance(d, dict) else d


def frame(cf):
    name = cf.get("functionName") or "(anonymous)"
    url = cf.get("url") or ""
    if not url:
        return name
    ln = cf.get("lineNumber")
    if isinstance(ln, int) and ln >= 0:
        return "%s %s:%d" % (name, url, ln + 1)
    return "%s %s" % (name, url)


def profiles(events):
    profs = collections.OrderedDict()
    for e in events:
        if e.get("ph") != "P" or e.get("name") not in ("Profile", "ProfileChunk"):
            continue
        p = profs.setdefault((str(e.get("pid")), str(e.get("id"))),
                             {"nodes": {}, "kids": {}, "samples": [], "start": None, "thread": None})
        data = (e.get("args") or {}).get("data") or {}
        if e["name"] == "Profile":
            p["start"] = data["startTime"]
            p["thread"] = (e.get("pid"), e.get("tid"))
            continue
        cp = data.get("cpuProfile") or {}
        for n in cp.get("nodes") or []:
            p["nodes"][n["id"]] = n
            for k in n.get("children") or []:
                p["kids"][k] = n["id"]
        for s, d in zip(cp.get("samples") or [], data.get("timeDeltas") or []):
            p["samples"].append((s, d))
    return profs


def stack_of(p, nid, memo):
    if nid in memo:
        return memo[nid]
    chain = []
    cur, seen = nid, set()
    while cur is not None and cur in p["nodes"] and cur not in seen:
        seen.add(cur)
        n = p["nodes"][cur]
        par = n.get("parent", p["kids"].get(cur))
        if par is None and n["callFrame"].get("functionName") == "(root)" and not n["callFrame"].get("url"):
            break
        chain.append(frame(n["callFrame"]))
        cur = par
    st = tuple(reversed(chain)) or ("(root)",)
    memo[nid] = st
    return st


def timed_samples(p):
    """[(ts_us, stack, weight_ns)] sorted by time."""
    t, out, memo = p["start"], [], {}
    for i, (nid, d) in enumerate(p["samples"]):
        t += d
        out.append((t, i, stack_of(p, nid, memo)))
    out.sort(key=lambda x: (x[0], x[1]))
    res = []
    for k, (ts, _, st) in enumerate(out):
        w = round((out[k + 1][0] - ts) * 1000) if k + 1 < len(out) else 0
        res.append((ts, st, w))
    return res


def regions(events, thread):
    """{name: [(begin_us, end_us)]} of the X and B/E regions on thread."""
    r = collections.defaultdict(list)
    open_ = []
    for e in sorted((e for e in events if (e.get("pid"), e.get("tid")) == thread and e.get("ph") in "XBE"),
                    key=lambda e: e.get("ts", 0)):
        ph = e["ph"]
        if ph == "X" and "dur" in e:
            r[e["name"]].append((e["ts"], e["ts"] + e["dur"]))
        elif ph == "B":
            open_.append(e)
        elif ph == "E" and open_:
            b = open_.pop()
            r[b["name"]].append((b["ts"], e["ts"]))
    return r


def func_stats(items):
    """items: [(stack, count, ns)] -> {func: [self_n, total_n, self_ns, total_ns]}"""
    f = collections.defaultdict(lambda: [0, 0, 0, 0])
    for st, c, ns in items:
        f[st[-1]][0] += c
        f[st[-1]][2] += ns
        for name in set(st):
            f[name][1] += c
            f[name][3] += ns
    return f


def fold(tf, trace, typ):
    cmd = [tf, "-q", "fold", "--raw-names", "--sample-type", typ, trace, "-o", "-"]
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    if p.returncode != 0:
        sys.exit("chrome_cpuprofile_check: %s failed: %s" % (" ".join(cmd), p.stderr.decode()[-400:]))
    out = []
    for line in p.stdout.decode("utf-8").splitlines():
        st, _, v = line.rpartition(" ")
        out.append((st.split(";"), int(v)))
    return out


def info_diag(tf, trace):
    p = subprocess.run([tf, "-q", "info", "--format", "json", trace], stdout=subprocess.PIPE)
    return json.loads(p.stdout.decode("utf-8"))["diagnostics"] if p.returncode == 0 else {}


def split(frames, js_stacks):
    for k in range(len(frames)):
        if tuple(frames[k:]) in js_stacks:
            return frames[:k], tuple(frames[k:])
    return None, None


def main(argv):
    if len(argv) < 2:
        sys.exit(__doc__)
    tf, trace = argv[0], argv[1]
    events = load(trace)
    bad = []
    exp_items, exp_regions, exp_outside, exp_top, nsamp = [], collections.Counter(), 0, 0, 0
    js_stacks = set()
    for key, p in profiles(events).items():
        if p["start"] is None:
            continue
        ts = timed_samples(p)
        nsamp += len(ts)
        regs = regions(events, p["thread"])
        has_regions = bool(regs)
        for t, st, w in ts:
            exp_items.append((st, 1, w))
            js_stacks.add(st)
            inside = [name for name, iv in regs.items() if any(b <= t < e for b, e in iv)]
            for name in inside:
                exp_regions[name] += 1
            if not inside:
                exp_top += 1
                exp_outside += has_regions
        print("profile pid %s id %s: thread %s, %d samples, %d cpu ns" %
              (key[0], key[1], p["thread"], len(ts), sum(w for _, _, w in ts)))
    got = {}
    for typ, col in (("samples", 0), ("cpu", 1)):
        items, reg = [], collections.Counter()
        outside = 0
        for frames, v in fold(tf, trace, typ):
            above, st = split(frames, js_stacks)
            if st is None:
                bad.append("%s: a folded stack with no profile stack at its end: %s" % (typ, ";".join(frames)[:200]))
                continue
            items.append((st, v, v))
            for name in set(above):
                reg[name] += v
            if not above:
                outside += v
        got[typ] = (func_stats(items), reg, outside, sum(v for _, v, _ in items))
    want = func_stats(exp_items)
    print("samples: expected %d, tracefold %d; cpu ns: expected %d, tracefold %d" %
          (nsamp, got["samples"][3], sum(w for _, _, w in exp_items), got["cpu"][3]))
    if got["samples"][3] != nsamp:
        bad.append("sample count %d, expected %d" % (got["samples"][3], nsamp))
    if got["cpu"][3] != sum(w for _, _, w in exp_items):
        bad.append("cpu ns %d, expected %d" % (got["cpu"][3], sum(w for _, _, w in exp_items)))
    gs, gc = got["samples"][0], got["cpu"][0]
    for name in sorted(set(want) | set(gs) | set(gc)):
        w = want.get(name, [0, 0, 0, 0])
        g = [gs.get(name, [0, 0])[0], gs.get(name, [0, 0])[1], gc.get(name, [0, 0])[0], gc.get(name, [0, 0])[1]]
        if w != g:
            bad.append("%s: self/total samples, self/total ns %s, expected %s" % (name, g, list(w)))
    print("functions: %d" % len(want))
    for name in sorted(set(exp_regions) | set(got["samples"][1])):
        if exp_regions[name] != got["samples"][1][name]:
            bad.append("region %s: %d samples under it, expected %d" % (name, got["samples"][1][name], exp_regions[name]))
    top = sorted(exp_regions.items(), key=lambda kv: -kv[1])[:5]
    print("samples under regions (top 5): %s" % ", ".join("%s %d" % kv for kv in top))
    print("samples under no region: expected %d, tracefold %d" % (exp_top, got["samples"][2]))
    if exp_top != got["samples"][2]:
        bad.append("samples under no region %d, expected %d" % (got["samples"][2], exp_top))
    diag = info_diag(tf, trace)
    print("samples_outside (on threads with regions): expected %d, tracefold info %d" %
          (exp_outside, diag.get("samples_outside", -1)))
    if exp_outside != diag.get("samples_outside"):
        bad.append("samples_outside %s, expected %d" % (diag.get("samples_outside"), exp_outside))
    if len(argv) > 3 and argv[2] == "--expect-samples" and int(argv[3]) != nsamp:
        bad.append("the trace has %d samples, the caller expected %s" % (nsamp, argv[3]))
    for b in bad[:20]:
        print("DIFF " + b)
    print("ok" if not bad else "%d differences" % len(bad))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
