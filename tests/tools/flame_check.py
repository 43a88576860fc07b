#!/usr/bin/env python3
"""Check a tracefold flame graph SVG against `go tool pprof -raw` of a profile.

usage: flame_check.py SVG PROFILE [--type T] [--by KEY] [--min-width PX] [--width PX]

The SVG is parsed as XML (any markup error fails).  Each frame is a <g
class="f"> with a <title> (first line: the frame's name) and a <rect>; its
depth comes from its row (the row of 'all' is depth 0, flame or icicle
alike) and its call path from the frame of the row below that contains it.
pprof's samples give every call path's inclusive value; then:
  - every frame's width is its path's value times (width - 20) / total, to
    within one pixel, and a frame's children lie inside it;
  - every call path at least --min-width wide whose parent is drawn is
    drawn, unless it went into the parent's "[...]" box, whose width is the
    sum of the parent's narrower children (to within one pixel).
With --by KEY the root's children are the label's values, as tracefold
names them ("rank 0"; for thread: "rank R thread T" or the thread label).
Prints "frames N paths M" and exits 0, or prints the mismatches and exits 1."""
import os, sys, xml.etree.ElementTree as ET
sys.path.insert(0, os.path.dirname(__file__))
import pprof_raw

NS = "{http://www.w3.org/2000/svg}"


def frames_of(svg):
    root = ET.parse(svg).getroot()
    out = []
    for g in root.iter(NS + "g"):
        if "f" not in (g.get("class") or "").split():
            continue
        t, r = g.find(NS + "title"), g.find(NS + "rect")
        nm = t.text.split("\n")[0]
        out.append({"name": "[...]" if nm.startswith("[...] ") else nm, "x": float(r.get("x")), "y": float(r.get("y")),
                    "w": float(r.get("width")), "title": t.text, "fill": r.get("fill"),
                    "cls": g.get("class").split()})
    return root, out


def group(labels, by):
    if by == "rank":
        return "rank " + labels["rank"] if "rank" in labels else "(no rank)"
    if by == "thread":
        if "thread" not in labels:
            return "(no thread)"
        if "rank" in labels:
            return "rank %s %s" % (labels["rank"], labels["thread"])
        if "pid" in labels:
            return "pid %s %s" % (labels["pid"], labels["thread"])
        return labels["thread"]
    return "%s=%s" % (by, labels[by]) if by in labels else "(no %s)" % by


def main():
    a = sys.argv[1:]
    opt = {"--type": None, "--by": None, "--min-width": "0.5", "--width": "1200"}
    pos = []
    i = 0
    while i < len(a):
        if a[i] in opt:
            opt[a[i]] = a[i + 1]
            i += 2
        else:
            pos.append(a[i])
            i += 1
    svg, prof = pos
    W, minw = float(opt["--width"]), float(opt["--min-width"])
    text, _ = pprof_raw.raw(prof)
    types, samples, locs = pprof_raw.parse(text)
    names = [t.split("/")[0] for t in types]
    ti = names.index(opt["--type"]) if opt["--type"] else names.index("wall")
    total = {}
    for s in samples:
        v = s["values"][ti]
        if v <= 0:
            continue
        path = tuple(locs[l][0] for l in reversed(s["locs"]))
        if opt["--by"]:
            path = (group(s["labels"], opt["--by"]),) + path
        for k in range(len(path) + 1):
            total[path[:k]] = total.get(path[:k], 0) + v
    root_total = total[()]
    scale = (W - 20) / root_total
    _, fr = frames_of(svg)
    bad = []
    alls = [f for f in fr if f["name"] == "all"]
    if len(alls) != 1:
        print("want one 'all' frame, found %d" % len(alls))
        return 1
    y0 = alls[0]["y"]
    by_depth = {}
    for f in fr:
        d = abs(f["y"] - y0) / 16
        if d != int(d):
            bad.append("frame %r at y=%g: not on a row" % (f["name"], f["y"]))
            continue
        f["d"] = int(d)
        by_depth.setdefault(f["d"], []).append(f)
    alls[0]["path"] = ()
    drawn = {(): alls[0]}
    more = {}
    for d in sorted(by_depth):
        if d == 0:
            continue
        for f in by_depth[d]:
            par = [p for p in by_depth.get(d - 1, []) if "path" in p and p["name"] != "[...]"
                   and p["x"] <= f["x"] + 0.02 and f["x"] + f["w"] <= p["x"] + p["w"] + 0.05]
            if len(par) != 1:
                bad.append("frame %r at depth %d: %d frames below contain it" % (f["name"], d, len(par)))
                continue
            pp = par[0]["path"]
            if f["name"] == "[...]":
                more[pp] = f
                continue
            f["path"] = pp + (f["name"],)
            drawn[f["path"]] = f
    for p, f in drawn.items():
        want = total.get(p, 0) * scale
        if abs(f["w"] - want) > 1.0:
            bad.append("%s: width %.2f, pprof says %.2f px (%d)" % (";".join(p) or "all", f["w"], want, total.get(p, 0)))
    children = {}
    for p in total:
        if p:
            children.setdefault(p[:-1], []).append(p)
    for pp in drawn:
        narrow = 0.0
        for c in children.get(pp, []):
            w = total[c] * scale
            if w < minw:
                narrow += w
            elif c not in drawn:
                bad.append("%s: %.2f px wide but not drawn" % (";".join(c), w))
        if pp in more and abs(more[pp]["w"] - narrow) > 1.0:
            bad.append("%s: [...] is %.2f px, its narrow children %.2f px" % (";".join(pp), more[pp]["w"], narrow))
        if narrow >= minw and pp not in more:
            bad.append("%s: narrow children of %.2f px but no [...]" % (";".join(pp) or "all", narrow))
    for b in bad[:30]:
        print(b)
    if bad:
        print("%d mismatches" % len(bad))
        return 1
    print("frames %d paths %d" % (len(fr), len(total)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
