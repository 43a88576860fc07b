#!/usr/bin/env python3
"""torch_hook_check.py - does a pprof profile hold exactly what a CPU-only
PyTorch profiler trace (Chrome trace JSON, as torch 1.13's legacy exporter
writes it: no Kineto whole-trace span, no GPU events) says?  Written from the
Chrome trace-event format and docs/stack-rules.md, not from tracefold's code.

usage: torch_hook_check.py PROFILE.pb.gz TRACE.json[.gz]...

The trace side: every complete event (ph "X") is one call of
its name as the stable-name rules of docs/stack-rules.md give it
(tests/tools/stable_names.py: ProfilerStep#N -> ProfilerStep); its steps are
the N of its ProfilerStep#N events.  Several traces: the sums and the union.
The profile side, decoded by `go tool pprof -raw` (tests/tools/pprof_raw.py):
the calls of each function (the calls/count of the samples it is the leaf
of) and the values of its `step` label.
Checks: the same set of functions, each with the same calls; the same steps;
a wall total > 0.  Prints the mismatches and exits 1, or prints a summary
line and exits 0."""
import collections, gzip, json, os, sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import pprof_raw  # noqa: E402
from stable_names import normalize  # noqa: E402


def trace_events(path):
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt") as f:
        doc = json.load(f)
    return doc["traceEvents"] if isinstance(doc, dict) else doc


def trace_side(paths):
    calls, steps = collections.Counter(), set()
    for p in paths:
        for e in trace_events(p):
            if e.get("ph") != "X":
                continue
            name = e["name"]
            if name.startswith("ProfilerStep#"):
                steps.add(int(name[len("ProfilerStep#"):]))
            calls[normalize(name)] += 1
    return calls, steps


def profile_side(path):
    d = pprof_raw.summarize(path)
    calls = {n: f["self"].get("calls/count", 0) for n, f in d["funcs"].items()}
    calls = {n: c for n, c in calls.items() if c}
    steps = {int(s) for s in d["labels"].get("step", [])}
    return calls, steps, d["total"].get("wall/nanoseconds", 0)


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    want_calls, want_steps = trace_side(sys.argv[2:])
    got_calls, got_steps, wall = profile_side(sys.argv[1])
    bad = []
    if not want_steps:
        bad.append("the trace has no ProfilerStep#N events")
    if got_steps != want_steps:
        bad.append("steps: profile %s, trace %s" % (sorted(got_steps), sorted(want_steps)))
    for n in sorted(set(want_calls) | set(got_calls)):
        if want_calls.get(n, 0) != got_calls.get(n, 0):
            bad.append("%s: profile %d calls, trace %d" % (n, got_calls.get(n, 0), want_calls.get(n, 0)))
    if wall <= 0:
        bad.append("wall total %d" % wall)
    if bad:
        print("\n".join(bad))
        sys.exit(1)
    print("%d functions, %d calls, steps %s" % (len(want_calls), sum(want_calls.values()), sorted(want_steps)))


main()
