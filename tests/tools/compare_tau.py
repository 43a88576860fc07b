#!/usr/bin/env python3
"""Compares a tracefold profile of a TAU trace with TAU's own profile files.

usage: compare_tau.py ORACLE_DIR PROFILE.pb.gz [TREE_FILE]

ORACLE_DIR holds TAU's profile.<node>.<context>.<thread> files (written by the
same run as the trace: the oracle).  PROFILE.pb.gz is read back with
`go tool pprof -raw` (pprof's own decoder).  For every thread (labels
rank=<node>, thread="thread <thread>") it checks:
  * the functions are exactly the profile's (names trimmed of TAU's trailing blanks);
  * calls are exact; exclusive and inclusive time within 0.5% (or 1 us);
  * subrs: the calls of each function's direct children add up to the profile's Subrs;
  * for each counter sample type present: the sum over the thread equals the
    user event's numevents x mean (the trace stores values truncated to
    integers, so the trace's sum may be lower by less than 1 per event);
  * with TREE_FILE (lines "rank|thread|calls|path;of;frames"): the thread's call
    paths and their call counts are exactly the listed ones.
Prints TAP-style "ok - ..." / "not ok - ..." lines; exits 1 if any failed."""
import glob, os, re, sys
here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, here)
import pprof_raw

FUNC = re.compile(r'^"(.*)" (\S+) (\S+) (\S+) (\S+) (\S+) GROUP="(.*)"\s*$')
UEV = re.compile(r'^"(.*)" (\S+) (\S+) (\S+) (\S+) (\S+)\s*$')


def read_oracle(path):
    """TAU profile.N.C.T -> ({name: {calls, subrs, excl, incl}}, {event: {n, max, min, mean}})"""
    funcs, events = {}, {}
    with open(path, errors="replace") as f:
        lines = f.read().splitlines()
    nfunc = int(lines[0].split()[0])
    i = 1
    while lines[i].startswith("#"):
        i += 1
    for ln in lines[i:i + nfunc]:
        m = FUNC.match(ln)
        if not m:
            sys.exit("cannot parse %s: %r" % (path, ln))
        name = m.group(1).rstrip(" \t")
        funcs[name] = {"calls": int(float(m.group(2))), "subrs": int(float(m.group(3))),
                       "excl": float(m.group(4)), "incl": float(m.group(5))}
    i += nfunc
    while i < len(lines):
        ln = lines[i]
        i += 1
        if ln.endswith("userevents"):
            n = int(ln.split()[0])
            while lines[i].startswith("#"):
                i += 1
            for ue in lines[i:i + n]:
                m = UEV.match(ue)
                if not m:
                    sys.exit("cannot parse %s: %r" % (path, ue))
                events[m.group(1)] = {"n": int(float(m.group(2))), "max": float(m.group(3)),
                                      "min": float(m.group(4)), "mean": float(m.group(5))}
            break
    return funcs, events


def parse_raw(text):
    """go tool pprof -raw -> (types, samples[(values, [frames leaf first], labels)])"""
    lines = text.splitlines()
    i = 0
    while lines[i].strip() != "Samples:":
        i += 1
    i += 1
    types, cur = [], []
    for tok in lines[i].split():   # counter names may hold spaces: join up to the "/unit" token
        cur.append(tok)
        if "/" in tok:
            types.append(" ".join(cur).replace("[dflt]", ""))
            cur = []
    i += 1
    samples = []
    while lines[i].strip() != "Locations":
        ln = lines[i]
        m = re.match(r'^\s*([-\d ]+):((?: \d+)*)\s*$', ln)
        if m:
            samples.append([[int(v) for v in m.group(1).split()], [int(v) for v in m.group(2).split()], {}])
        elif samples and ":[" in ln:
            for k, v in re.findall(r'(\S+):\[([^\]]*)\]', ln):
                samples[-1][2][k] = v
        i += 1
    i += 1
    locs = {}
    while i < len(lines) and lines[i].strip() != "Mappings":
        m = pprof_raw.LOC.match(lines[i])
        if m:
            locs[int(m.group(1))] = pprof_raw.loc_name(m.group(2), m.group(4))
        i += 1
    return types, [(v, [locs[l] for l in ls], lab) for v, ls, lab in samples]


fails = 0


def check(cond, what):
    global fails
    print(("ok - " if cond else "not ok - ") + what)
    if not cond:
        fails += 1


def close(got, want):
    return abs(got - want) <= max(1.0, abs(want) * 0.005)


def main():
    odir, prof = sys.argv[1], sys.argv[2]
    tree = sys.argv[3] if len(sys.argv) > 3 else None
    text, err = pprof_raw.raw(prof)
    warn = [l for l in err.splitlines() if l.strip() and "Main binary filename not available" not in l]
    check(not warn, "%s: go tool pprof reads it without warnings %s" % (prof, "; ".join(warn[:3])))
    types, samples = parse_raw(text)
    ti = {t: k for k, t in enumerate(types)}
    check("calls/count" in ti and "wall/nanoseconds" in ti, "sample types %s" % types)
    # group samples by (rank, thread) label
    threads = {}
    for vals, frames, lab in samples:
        threads.setdefault((lab.get("rank"), lab.get("thread")), []).append((vals, frames))
    files = sorted(glob.glob(os.path.join(odir, "profile.*.*.*")))
    check(len(files) > 0, "%s: oracle profile files found" % odir)
    want_keys = set()
    for pf in files:
        node, _ctx, thr = os.path.basename(pf).split(".")[1:4]
        key = (node, "thread " + thr)
        want_keys.add(key)
        what = "%s rank=%s thread=%s" % (os.path.basename(odir.rstrip("/")), key[0], key[1])
        funcs, events = read_oracle(pf)
        got = {}
        subrs = {}
        ctr = {}
        for vals, frames in threads.get(key, []):
            v = dict(zip(types, vals))
            leaf = frames[0]
            g = got.setdefault(leaf, {"calls": 0, "excl": 0, "incl": 0})
            g["calls"] += v["calls/count"]
            g["excl"] += v["wall/nanoseconds"]
            for fn in set(frames):
                got.setdefault(fn, {"calls": 0, "excl": 0, "incl": 0})["incl"] += v["wall/nanoseconds"]
            if len(frames) > 1:
                subrs[frames[1]] = subrs.get(frames[1], 0) + v["calls/count"]
            for t in types:
                if t not in ("calls/count", "wall/nanoseconds"):
                    ctr[t] = ctr.get(t, 0) + v[t]
        check(sorted(got) == sorted(funcs), "%s: functions %s == TAU's %s" % (what, sorted(got), sorted(funcs)))
        bad = []
        for fn, o in funcs.items():
            g = got.get(fn)
            if not g:
                continue
            if g["calls"] != o["calls"]:
                bad.append("%s calls %d != %d" % (fn, g["calls"], o["calls"]))
            if not close(g["excl"] / 1000.0, o["excl"]):
                bad.append("%s exclusive %.3f us != %.3f" % (fn, g["excl"] / 1000.0, o["excl"]))
            if not close(g["incl"] / 1000.0, o["incl"]):
                bad.append("%s inclusive %.3f us != %.3f" % (fn, g["incl"] / 1000.0, o["incl"]))
            if subrs.get(fn, 0) != o["subrs"]:
                bad.append("%s subrs %d != %d" % (fn, subrs.get(fn, 0), o["subrs"]))
        check(not bad, "%s: %d functions: calls, subrs exact; exclusive, inclusive within 0.5%% of TAU's profile %s"
              % (what, len(funcs), "; ".join(bad[:6])))
        for t, total in sorted(ctr.items()):
            name = t.rsplit("/", 1)[0]
            if name.startswith("counter:"):   # counters' own sample types
                name = name[len("counter:"):]
            e = events.get(name)
            if e is None:
                check(total == 0, "%s: counter %s not in TAU's profile and zero here (%d)" % (what, name, total))
                continue
            want = e["n"] * e["mean"]
            check(want - e["n"] - 1e-6 <= total <= want + 1e-6,
                  "%s: counter %s sum %d == TAU's %d x %g (less < 1 per event for truncated values)"
                  % (what, name, total, e["n"], e["mean"]))
    check(set(threads) == want_keys, "labels (rank, thread) %s == oracle files %s" % (sorted(threads), sorted(want_keys)))
    if tree:
        want = {}
        with open(tree) as f:
            for ln in f:
                ln = ln.rstrip("\n")
                if not ln or ln.startswith("#"):
                    continue
                r, t, calls, path = ln.split("|", 3)
                want.setdefault((r, t), {})[path] = int(calls)
        for key, paths in sorted(want.items()):
            got = {}
            for vals, frames in threads.get(key, []):
                p = ";".join(reversed(frames))
                got[p] = got.get(p, 0) + dict(zip(types, vals))["calls/count"]
            diff = sorted(set(got.items()) ^ set(paths.items()))
            check(not diff, "rank=%s thread=%s: call tree (%d paths) as expected %s" % (key[0], key[1], len(paths), diff[:6]))
    sys.exit(1 if fails else 0)


main()
