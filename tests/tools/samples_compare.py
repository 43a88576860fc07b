#!/usr/bin/env python3
"""Compares tracefold's profile of a sampled input with the independent
numbers of its fixture (tests/tools/samples_expected.py wrote expected.json).

For each sample type of the file's entry in expected.json, runs
`TF -q fold --raw-names --sample-type T INPUT -o -` (plus EXTRA arguments)
and computes from the folded lines, by the definitions of
docs/format-samples-notes.md (self: the leaf frame; total: once per distinct
name on the stack), the total per type and the self and total of every
function; all must equal expected.json exactly.  Prints one line per
disagreement (at most 20) and exits 1 if there is any.

Usage: samples_compare.py TF EXPECTED.json FILE-KEY INPUT [EXTRA-ARG...]
       (FILE-KEY: the input's name under "files" in expected.json)
Options (before TF): --types T1,T2  only these sample types;
                     --map EXP=OURS  expected's type EXP is our type OURS;
                     --no-self       compare totals only (no self per function);
                     --scale EXP=N   our values of EXP are expected's times N
                                     (a unit converted: seconds -> ns 1e9).
An entry with "profiles" (speedscope: one per profile) and no sample types
of its own is compared as the sum of its profiles.  A folded line whose
stack is tracefold's "[no region]" alone is a sample with no frame (an empty
stack): it counts in the total and in no function.
Python 3 standard library only.
"""
import json
import subprocess
import sys


def folded(tf, inp, typ, extra):
    cmd = [tf, "-q", "fold", "--raw-names", "--sample-type", typ, inp, "-o", "-"] + extra
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    if p.returncode != 0:
        sys.exit("samples_compare: %s failed (%d): %s" % (" ".join(cmd), p.returncode, p.stderr.decode()[-500:]))
    out = []
    for line in p.stdout.decode("utf-8", "replace").splitlines():
        stack, _, v = line.rpartition(" ")
        frames = stack.split(";")
        out.append(([] if frames == ["[no region]"] else frames, int(v)))
    return out


def merge_profiles(profiles):
    """The sum of several profiles' sample types and functions."""
    out = {"sample_types": {}, "functions": {}}
    for p in profiles:
        for t, v in p["sample_types"].items():
            out["sample_types"][t] = out["sample_types"].get(t, 0) + v
        for name, fn in p["functions"].items():
            o = out["functions"].setdefault(name, {"self": {}, "total": {}})
            for part in ("self", "total"):
                for t, v in fn[part].items():
                    o[part][t] = o[part].get(t, 0) + v
    return out


def main(argv):
    types = None
    tmap = {}
    no_self = False
    scale = {}
    while argv and argv[0].startswith("--"):
        if argv[0] == "--no-self":
            no_self = True
            argv = argv[1:]
            continue
        if argv[0] == "--types":
            types = argv[1].split(",")
        elif argv[0] == "--map":
            a, b = argv[1].split("=", 1)
            tmap[a] = b
        elif argv[0] == "--scale":
            a, b = argv[1].split("=", 1)
            scale[a] = int(float(b))
        else:
            sys.exit(__doc__)
        argv = argv[2:]
    if len(argv) < 4:
        sys.exit(__doc__)
    tf, exp_path, key, inp = argv[:4]
    extra = argv[4:]
    with open(exp_path) as f:
        exp = json.load(f)["files"][key]
    if "sample_types" not in exp and "profiles" in exp:
        exp = merge_profiles(exp["profiles"])
    bad = []
    for t, want_total in sorted(exp["sample_types"].items()):
        if types and t not in types:
            continue
        k = scale.get(t, 1)
        want_total *= k
        lines = folded(tf, inp, tmap.get(t, t), extra)
        total = sum(v for _, v in lines)
        if total != want_total:
            bad.append("type %s: total %d, expected %d" % (t, total, want_total))
        got = {}
        for stack, v in lines:
            if stack:
                got.setdefault(stack[-1], [0, 0])[0] += v
            for name in set(stack):
                got.setdefault(name, [0, 0])[1] += v
        for name, fn in exp["functions"].items():
            ws = fn["self"].get(t, 0) * k
            wt = fn["total"].get(t, 0) * k
            g = got.get(name, [0, 0])
            if (g[0] != ws and not no_self) or g[1] != wt:
                bad.append("type %s: %r self %d total %d, expected %d %d" % (t, name, g[0], g[1], ws, wt))
        for name, g in got.items():
            if name not in exp["functions"] and (g[1] or (g[0] and not no_self)):
                bad.append("type %s: %r self %d total %d, not expected" % (t, name, g[0], g[1]))
    for b in bad[:20]:
        print(b)
    if len(bad) > 20:
        print("... %d more" % (len(bad) - 20))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
