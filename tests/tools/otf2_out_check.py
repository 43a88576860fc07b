#!/usr/bin/python3
"""Reads an OTF2 archive written by `tracefold otf2` with Debian's python3-otf2
(the OTF2 project's own Python reader, over libotf2; independent of
tracefold's reader and writer) and checks it against `tracefold info` and
`tracefold top` of the same input.

usage: otf2_out_check.py ARCHIVE/traces.otf2 INFO.json TOP.json [--expect FILE]

Checks:
  - every location's events are in time order, its Enter and Leave nest
    (each Leave names the region of the innermost Enter), and its event
    count is the one its definition states;
  - CPU threads are in process location groups, GPU streams in accelerator
    groups created by a process group, every process group has a CPU thread;
  - Enter events = the regions of the input (top's calls_total) plus the
    GPU annotations (an Enter with attribute tracefold::gpu = 2: the GPU-side
    copy of a record_function range, no call, docs/gpu.md), Metric
    events = info's counter samples, MpiSend / MpiRecv = info's messages
    sent / received; metric names = info's counter names;
  - regions and strings are defined once (no two regions of one name and
    paradigm);
  - with --expect FILE: the archive's events, one "LOCATION KIND TIME NAME"
    line each in file order per location, equal FILE's lines.
Prints "locations N enter N leave N metric N send N recv N" and exits 0, or
prints the problems and exits 1. Use /usr/bin/python3 (Debian's otf2)."""
import json, sys
import otf2


def main():
    args = sys.argv[1:]
    expect = None
    if "--expect" in args:
        i = args.index("--expect")
        expect = open(args[i + 1]).read().splitlines()
        del args[i:i + 2]
    anchor, info_path, top_path = args
    info = json.load(open(info_path))
    top = json.load(open(top_path))
    bad = []
    counts = {"Enter": 0, "Leave": 0, "Metric": 0, "MpiSend": 0, "MpiRecv": 0}
    annotations = 0
    lines = []
    with otf2.reader.open(anchor) as tr:
        d = tr.definitions
        per_loc = {}
        for l in d.locations:
            per_loc[l] = {"n": 0, "last": None, "stack": []}
            g = l.group
            if l.type == otf2.LocationType.CPU_THREAD and g.location_group_type != otf2.LocationGroupType.PROCESS:
                bad.append("CPU location %r in a group of type %s" % (l.name, g.location_group_type))
            if l.type == otf2.LocationType.ACCELERATOR_STREAM:
                if g.location_group_type != otf2.LocationGroupType.ACCELERATOR:
                    bad.append("GPU location %r in a group of type %s" % (l.name, g.location_group_type))
                elif g.creating_location_group is None or \
                        g.creating_location_group.location_group_type != otf2.LocationGroupType.PROCESS:
                    bad.append("accelerator group %r not created by a process" % g.name)
        for g in d.location_groups:
            if g.location_group_type == otf2.LocationGroupType.PROCESS and \
                    not any(l.group == g and l.type == otf2.LocationType.CPU_THREAD for l in d.locations):
                bad.append("process group %r without a CPU thread" % g.name)
        seen = set()
        for r in d.regions:
            k = (r.name, r.paradigm)
            if k in seen:
                bad.append("region %r defined twice" % (r.name,))
            seen.add(k)
        strings = [s for s in d.strings]
        if len(set(strings)) != len(strings):
            bad.append("%d strings defined twice" % (len(strings) - len(set(strings))))
        for loc, ev in tr.events:
            kind = type(ev).__name__
            st = per_loc[loc]
            st["n"] += 1
            if st["last"] is not None and ev.time < st["last"]:
                bad.append("%s: %s at %d after an event at %d" % (loc.name, kind, ev.time, st["last"]))
            st["last"] = ev.time
            if kind in counts:
                counts[kind] += 1
            name = ""
            if kind == "Enter":
                at = ev.attributes
                if at and any(a.name == "tracefold::gpu" and v == 2 for a, v in at.items()):
                    annotations += 1
                st["stack"].append(ev.region.name)
                name = ev.region.name
            elif kind == "Leave":
                name = ev.region.name
                if not st["stack"] or st["stack"][-1] != ev.region.name:
                    bad.append("%s: Leave %r at %d, innermost open is %r" %
                               (loc.name, ev.region.name, ev.time, st["stack"][-1] if st["stack"] else None))
                else:
                    st["stack"].pop()
            elif kind == "Metric":
                name = ev.metric.members[0].name if hasattr(ev.metric, "members") else ""
            if expect is not None:
                lines.append("%s %s %d %s" % (loc.name, kind, ev.time, name))
        for l, st in per_loc.items():
            if st["n"] != l.number_of_events:
                bad.append("%s: %d events read, %d defined" % (l.name, st["n"], l.number_of_events))
            if st["stack"]:
                bad.append("%s: %d regions never left" % (l.name, len(st["stack"])))
        metric_names = sorted({m.name for m in d.metric_members})
    want_names = sorted({c["name"] for c in info["counters"]})
    if metric_names != want_names:
        bad.append("metrics %s, info's counters %s" % (metric_names[:5], want_names[:5]))
    calls = top.get("calls_total")
    if calls is not None and counts["Enter"] - annotations != calls:
        bad.append("%d Enter events (%d GPU annotations), the input has %d regions"
                   % (counts["Enter"], annotations, calls))
    if counts["Enter"] != counts["Leave"]:
        bad.append("%d Enter, %d Leave" % (counts["Enter"], counts["Leave"]))
    samples = sum(c["samples"] for c in info["counters"])
    if counts["Metric"] != samples:
        bad.append("%d Metric events, info has %d counter samples" % (counts["Metric"], samples))
    if counts["MpiSend"] != info["messages"]["sent"] or counts["MpiRecv"] != info["messages"]["received"]:
        bad.append("%d MpiSend, %d MpiRecv; info: %d sent, %d received" %
                   (counts["MpiSend"], counts["MpiRecv"], info["messages"]["sent"], info["messages"]["received"]))
    if expect is not None and lines != expect:
        bad.append("events differ from the expected ones:\n  got:  %s\n  want: %s" %
                   ("\n        ".join(lines), "\n        ".join(expect)))
    for b in bad[:20]:
        print(b)
    if bad:
        return 1
    print("locations %d enter %d leave %d metric %d send %d recv %d" % (
        len(per_loc), counts["Enter"], counts["Leave"], counts["Metric"], counts["MpiSend"], counts["MpiRecv"]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
