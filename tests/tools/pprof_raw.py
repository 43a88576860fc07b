#!/usr/bin/env python3
"""Parse `go tool pprof -raw PROFILE` output (pprof's own decoding, independent
of tracefold) into per-function numbers.

usage: pprof_raw.py PROFILE.pb.gz [--json]
Prints JSON: {"types": [...], "total": {type: sum}, "funcs": {name: {"self": {...},
"cum": {...}}}, "labels": {key: sorted values}, "samples": N, "paths": {"a;b;c": {...}}}
"self" sums a sample's values into its leaf function; "cum" into every
distinct function on its stack (once per sample, like pprof's cum)."""
import json, os, re, subprocess, sys

# "ID: 0xADDR M=MAP NAME FILE:LINE s=START" and "(SYSTEM_NAME)" when that
# differs from NAME (pprof's Location.string); NAME and FILE may both hold
# spaces ("<frozen os>(808): getenv" in file "<frozen os>")
LOC = re.compile(r'^\s*(\d+): 0x[0-9a-f]+(?: M=\d+)? (.*) s=(\d+)(?:\((.*)\))?\s*$')
PYFRAME = re.compile(r'^(.*?)\((\d+)\): ')


def loc_name(rest, sysname):
    """The frame of a location line: its system name when it has one (older
    tracefold profiles: the whole frame text there, the short name in NAME),
    else NAME out of "NAME FILE:LINE"."""
    if sysname:
        return sysname
    m = PYFRAME.match(rest)
    if m:  # a Python frame "FILE(LINE): fn" has file FILE
        tail = " %s:%s" % (m.group(1), m.group(2))
        if rest.endswith(tail):
            return rest[:-len(tail)]
    return rest[:rest.rindex(" ")] if " " in rest else rest

def raw(path):
    env = dict(os.environ)
    env.setdefault("GOCACHE", "/tmp/tf-gocache")
    out = subprocess.run(["go", "tool", "pprof", "-raw", path], capture_output=True, text=True, env=env)
    if out.returncode != 0:
        sys.exit("go tool pprof -raw failed: " + out.stderr)
    return out.stdout, out.stderr

def parse(text):
    lines = text.splitlines()
    i = 0
    while i < len(lines) and lines[i].strip() != "Samples:":
        i += 1
    i += 1
    # "calls/count wall/nanoseconds[dflt]": a type name may contain spaces,
    # each entry ends in "/<unit>" followed by a space or the end of line
    types = [t.replace("[dflt]", "") for t in re.findall(r'(.+?/\S+?)(?:\[dflt\])?(?: |$)', lines[i].strip())]
    types = [t.strip() for t in types]
    i += 1
    samples = []
    while i < len(lines) and lines[i].strip() not in ("Locations",):
        ln = lines[i]
        m = re.match(r'^\s*([-\d ]+):((?: \d+)*)\s*$', ln)
        if m:
            vals = [int(v) for v in m.group(1).split()]
            locs = [int(v) for v in m.group(2).split()]
            samples.append({"values": vals, "locs": locs, "labels": {}})
        elif samples and ln.strip() and ":[" in ln:
            # key:[value] pairs; a value may itself contain ']' (e.g. HIP[0:0]),
            # so a value ends at the "]" that is followed by a space and the next key or the end
            for k, v in re.findall(r'(\S+?):\[(.*?)\](?=\s+\S+?:\[|\s*$)', ln):
                samples[-1]["labels"][k] = v
        i += 1
    i += 1
    locs = {}
    cur = None
    while i < len(lines) and lines[i].strip() != "Mappings":
        ln = lines[i]
        m = LOC.match(ln)
        if m:
            cur = int(m.group(1))
            name = loc_name(m.group(2), m.group(4))
            locs[cur] = [name]
        i += 1
    return types, samples, locs

def summarize(path):
    text, err = raw(path)
    types, samples, locs = parse(text)
    funcs, total, labels, paths = {}, {t: 0 for t in types}, {}, {}
    for s in samples:
        names = [locs[l][0] for l in s["locs"]]
        vals = dict(zip(types, s["values"]))
        for t, v in vals.items():
            total[t] += v
        leaf = names[0]
        f = funcs.setdefault(leaf, {"self": {t: 0 for t in types}, "cum": {t: 0 for t in types}})
        for t, v in vals.items():
            f["self"][t] += v
        for n in set(names):
            f = funcs.setdefault(n, {"self": {t: 0 for t in types}, "cum": {t: 0 for t in types}})
            for t, v in vals.items():
                f["cum"][t] += v
        p = ";".join(reversed(names))
        pp = paths.setdefault(p, {t: 0 for t in types})
        for t, v in vals.items():
            pp[t] += v
        for k, v in s["labels"].items():
            labels.setdefault(k, set()).add(v)
    return {"types": types, "total": total, "funcs": funcs, "samples": len(samples),
            "labels": {k: sorted(v) for k, v in labels.items()}, "paths": paths, "stderr": err}

if __name__ == "__main__":
    json.dump(summarize(sys.argv[1]), sys.stdout, indent=1, sort_keys=True)
