#!/usr/bin/env python3
"""Checks a speedscope JSON file (tests/e2e/speedscope.sh).

Independent of tracefold's C code: the structure is validated against
speedscope's own JSON schema (file-format-schema.json from the speedscope
npm package, interpreted here: $ref, type, required, properties, items,
anyOf, const, enum), then the facts speedscope's importer relies on
(docs/speedscope.md): frame indices in range, each evented profile's O/C
events nested and balanced with the frame its O named, `at` non-decreasing
and within startValue..endValue, samples and weights of the same length.

usage: speedscope_check.py SCHEMA FILE [--total N] [--top TOP.json]
                           [--evented-is-sampled] [--names]
  --total N             the sampled profile's weights add up to N
  --top TOP.json        each function's self time (the sampled leaves'
                        weights by frame name) = `tracefold top --format
                        json`'s self
  --evented-is-sampled  the evented profiles' self time per call path
                        (computed from O/C) = the sampled profile's weights
                        (traces without GPU streams)
  --names               print the profiles' names, one a line
"""
import json
import sys


def fail(msg):
    sys.exit("speedscope_check: " + msg)


def no_const(c):
    raise ValueError("not JSON: " + c)


TYPES = {"object": dict, "array": list, "string": str}


def validate(schema, root, v, where):
    if "$ref" in schema:
        name = schema["$ref"].split("/")[-1]
        return validate(root["definitions"][name], root, v, where)
    if "anyOf" in schema:
        errs = []
        for alt in schema["anyOf"]:
            try:
                validate(alt, root, v, where)
                return
            except ValueError as e:
                errs.append(str(e))
        raise ValueError("%s: matches none of anyOf (%s)" % (where, "; ".join(errs)))
    t = schema.get("type")
    if t == "number":
        if isinstance(v, bool) or not isinstance(v, (int, float)):
            raise ValueError("%s: not a number: %r" % (where, v))
    elif t and not isinstance(v, TYPES[t]):
        raise ValueError("%s: not a %s" % (where, t))
    if "const" in schema and v != schema["const"]:
        raise ValueError("%s: %r is not %r" % (where, v, schema["const"]))
    if "enum" in schema and v not in schema["enum"]:
        raise ValueError("%s: %r not in %r" % (where, v, schema["enum"]))
    for k in schema.get("required", []):
        if k not in v:
            raise ValueError("%s: no %s" % (where, k))
    for k, sub in schema.get("properties", {}).items():
        if isinstance(v, dict) and k in v:
            validate(sub, root, v[k], where + "." + k)
    if "items" in schema and isinstance(v, list):
        for i, x in enumerate(v):
            validate(schema["items"], root, x, "%s[%d]" % (where, i))


def is_int(x):
    return isinstance(x, int) and not isinstance(x, bool)


def check_evented(p, nframes, where):
    stack, last = [], None
    s, e = p["startValue"], p["endValue"]
    if s > e:
        fail("%s: startValue %s > endValue %s" % (where, s, e))
    for i, ev in enumerate(p["events"]):
        f, at = ev["frame"], ev["at"]
        if not is_int(f) or not 0 <= f < nframes:
            fail("%s event %d: frame %r out of range" % (where, i, f))
        if last is not None and at < last:
            fail("%s event %d: at %s before %s" % (where, i, at, last))
        if not s <= at <= e:
            fail("%s event %d: at %s outside %s..%s" % (where, i, at, s, e))
        last = at
        if ev["type"] == "O":
            stack.append((f, at))
        else:
            if not stack:
                fail("%s event %d: C with nothing open" % (where, i))
            if stack[-1][0] != f:
                fail("%s event %d: C of frame %d closes frame %d" % (where, i, f, stack[-1][0]))
            stack.pop()
    if stack:
        fail("%s: %d frames never closed" % (where, len(stack)))


def evented_self(p):
    """Self time per call path (tuple of frame indices) from O/C."""
    out, stack = {}, []   # stack: [frame, start, child time]
    for ev in p["events"]:
        if ev["type"] == "O":
            stack.append([ev["frame"], ev["at"], 0])
            continue
        f, start, child = stack[-1]
        path = tuple(x[0] for x in stack)
        stack.pop()
        dur = ev["at"] - start
        out[path] = out.get(path, 0) + dur - child
        if stack:
            stack[-1][2] += dur
    return out


def main():
    args = sys.argv[1:]
    if len(args) < 2:
        fail(__doc__)
    schema = json.load(open(args[0]))
    doc = json.load(open(args[1], encoding="utf-8"), parse_constant=no_const)
    try:
        validate(schema, schema, doc, "file")
    except ValueError as e:
        fail("schema: " + str(e))
    frames = doc["shared"]["frames"]
    keys = [(f["name"], f.get("file"), f.get("line")) for f in frames]
    if len(set(keys)) != len(keys):
        fail("a frame is listed twice")
    if not doc["profiles"]:
        fail("no profiles")
    api = doc.get("activeProfileIndex", 0)
    if not is_int(api) or not 0 <= api < len(doc["profiles"]):
        fail("activeProfileIndex %r out of range" % api)
    sampled = [p for p in doc["profiles"] if p["type"] == "sampled"]
    if len(sampled) != 1:
        fail("%d sampled profiles, want 1" % len(sampled))
    sp = sampled[0]
    if len(sp["samples"]) != len(sp["weights"]):
        fail("%d samples, %d weights" % (len(sp["samples"]), len(sp["weights"])))
    for i, st in enumerate(sp["samples"]):
        if not st or any(not is_int(f) or not 0 <= f < len(frames) for f in st):
            fail("sample %d: a frame index out of range: %r" % (i, st))
    if len({tuple(s) for s in sp["samples"]}) != len(sp["samples"]):
        fail("a sampled stack is listed twice")
    total = sum(sp["weights"])
    if sp["endValue"] - sp["startValue"] != total:
        fail("sampled endValue - startValue %s != the weights' sum %s" % (sp["endValue"] - sp["startValue"], total))
    for n, p in enumerate(doc["profiles"]):
        if p["type"] == "evented":
            check_evented(p, len(frames), "profile %d (%s)" % (n, p["name"]))
    i = 2
    while i < len(args):
        a = args[i]
        if a == "--total":
            i += 1
            if total != int(args[i]):
                fail("the weights add up to %d, not %s" % (total, args[i]))
        elif a == "--top":
            i += 1
            top = {f["name"]: f["self"] for f in json.load(open(args[i]))["functions"]}
            mine = {}
            for st, w in zip(sp["samples"], sp["weights"]):
                name = frames[st[-1]]["name"]
                mine[name] = mine.get(name, 0) + w
            want = {k: v for k, v in top.items() if v}
            if mine != want:
                diff = sorted(set(mine.items()) ^ set(want.items()))[:6]
                fail("self per function differs from top's: %r" % diff)
        elif a == "--evented-is-sampled":
            ev = {}
            for p in doc["profiles"]:
                if p["type"] == "evented":
                    for k, v in evented_self(p).items():
                        ev[k] = ev.get(k, 0) + v
            ev = {k: v for k, v in ev.items() if v}
            smp = {tuple(s): w for s, w in zip(sp["samples"], sp["weights"])}
            if ev != smp:
                diff = sorted(set(ev.items()) ^ set(smp.items()))[:6]
                fail("the evented profiles' self times differ from the sampled profile: %r" % diff)
        elif a == "--names":
            for p in doc["profiles"]:
                print(p["name"])
        else:
            fail("unknown argument " + a)
        i += 1


main()
