#!/usr/bin/env python3
"""Checks of the HTML page of `tracefold overview` (tests/e2e/overview_html.sh).

usage:
  overview_html_check.py expect INPUT...   -> "RANKS CELLS": what the page must
      draw, from the traces themselves (docs/overview.md "Ranks", "Steps"):
      a track's rank is Kineto's distributedInfo.rank, else the input's file
      name (the last rank[-_]?N of the base name, when every input has one
      and they differ), else the input's index; a rank's steps are its
      distinct ProfilerStep#N, or one step (the whole run) when it has none.
  overview_html_check.py probe DOM          -> the lines the probe script
      wrote into the page (<pre id="ovprobe">), one a line
  overview_html_check.py tips PAGE JSON     -> compares every heat-map cell's
      tooltip and every bar's segments with the numbers of the command's JSON
      output, formatted as tracefold formats durations (src/base/fmt.c:
      0, "N ns", "N.NN us", "N.NN ms", "N.NNN s"), and the cells marked
      and outlined as stragglers with the JSON's stragglers; exits 1 on a
      difference.
Python only (json, gzip, re), independent of the C code."""
import gzip, html, json, os, re, sys


def load(path):
    with open(path, "rb") as f:
        data = f.read()
    if data[:2] == b"\x1f\x8b":
        data = gzip.decompress(data)
    d = json.loads(data)
    return d if isinstance(d, dict) else {"traceEvents": d}


def expect(paths):
    traces = [load(p) for p in paths]
    names = []
    for p in paths:
        m = re.findall(r"rank[-_]?([0-9]+)", os.path.basename(p), re.I)
        names.append(int(m[-1]) if m else None)
    by_name = None not in names and len(set(names)) == len(names)
    steps = {}
    for i, t in enumerate(traces):
        di = t.get("distributedInfo")
        if isinstance(di, dict) and "rank" in di:
            rank = int(di["rank"])
        else:
            rank = names[i] if by_name else i
        s = steps.setdefault(rank, set())
        for e in t.get("traceEvents", []):
            m = re.fullmatch(r"ProfilerStep#([0-9]+)", str(e.get("name", "")))
            if m and e.get("ph") in ("X", "B"):
                s.add(int(m.group(1)))
    print(len(steps), sum(max(len(s), 1) for s in steps.values()))


def probe(dom):
    m = re.search(r'<pre id="ovprobe">(.*?)</pre>', open(dom, encoding="utf-8").read(), re.S)
    print(html.unescape(m.group(1)) if m else "no probe output")


def fmt_ns(v):
    a = abs(v)
    if a == 0:
        return "0"
    if a < 1e3:
        return "%.0f ns" % v
    if a < 1e6:
        return "%.2f us" % (v / 1e3)
    if a < 1e9:
        return "%.2f ms" % (v / 1e6)
    return "%.3f s" % (v / 1e9)


FIELDS = {"time": "time_ns", "cpu": "cpu_ns", "GPU compute": "gpu_compute_ns", "GPU comm": "gpu_comm_ns",
          "GPU memcpy": "gpu_memcpy_ns", "GPU memset": "gpu_memset_ns", "GPU idle": "gpu_idle_ns",
          "comm exposed": "comm_exposed_ns", "comm wait": "comm_wait_ns", "late": "late_ns", "MPI": "mpi_ns"}


def tips(page, js):
    s = open(page, encoding="utf-8").read()
    j = json.load(open(js))
    want = {(r["rank"], st["step"]): st for r in j["ranks"] for st in r["steps"]}
    bad = []
    got = set()
    for t in re.findall(r'<rect class="ov-cell"[^>]*><title>(.*?)</title>', s, re.S):
        lines = t.split("\n")
        m = re.match(r"rank (-?\d+), step (-?\d+)", lines[0])
        key = (int(m.group(1)), int(m.group(2)))
        got.add(key)
        st = want.get(key)
        if st is None:
            bad.append("cell %s: not in the JSON" % (key,))
            continue
        for ln in lines[1:]:
            if ln.startswith("bound: "):
                if ln[7:] != st["bound"]:
                    bad.append("cell %s: bound %s, JSON %s" % (key, ln[7:], st["bound"]))
                continue
            if ln == "late: no collective":
                if st.get("late_ns", 0):
                    bad.append("cell %s: no late, JSON late_ns %d" % (key, st["late_ns"]))
                continue
            m = re.match(r"(time|cpu|GPU \w+|comm \w+|late|MPI) (.*?)( \(\d+ collectives?\))?$", ln)
            if not m:
                bad.append("cell %s: line %r" % (key, ln))
                continue
            v = st.get(FIELDS[m.group(1)], 0)
            if m.group(2) != fmt_ns(v):
                bad.append("cell %s: %s %s, JSON %s = %s" % (key, m.group(1), m.group(2), FIELDS[m.group(1)], fmt_ns(v)))
    # the stragglers: the cells that say so and the outlines, one each
    marked = {tuple(int(x) for x in m) for m in
              re.findall(r'<rect class="ov-cell"[^>]*><title>rank (-?\d+), step (-?\d+) \(straggler\)', s)}
    strag = {(x["rank"], x["step"]) for x in j.get("stragglers", [])}
    if marked != strag:
        bad.append("straggler cells %s, JSON stragglers %s" % (sorted(marked), sorted(strag)))
    if s.count('class="ov-mark"') != len(strag):
        bad.append("%d outlines, %d stragglers" % (s.count('class="ov-mark"'), len(strag)))
    missing = set(want) - got
    if missing:
        bad.append("JSON rank-steps without a cell: %s" % sorted(missing)[:10])
    # the bars: each segment is the sum over the rank's steps
    gpu = j["run"]["devices"] > 0
    parts = ({"GPU compute": "gpu_compute_ns", "GPU comm": "gpu_comm_ns", "GPU memcpy": "gpu_memcpy_ns",
              "GPU memset": "gpu_memset_ns", "GPU idle": "gpu_idle_ns"} if gpu else {"CPU (the step's top regions)": None,
              "rest of the step": None})
    nseg = 0
    for rk, name, val in re.findall(r'<rect class="ov-seg"[^>]*><title>rank (-?\d+), (.*?): (.*?) \(', s):
        nseg += 1
        r = next(r for r in j["ranks"] if r["rank"] == int(rk))
        if r.get("cut"):
            continue
        if gpu:
            v = sum(st[parts[name]] for st in r["steps"])
        elif name.startswith("CPU"):
            v = sum(st["cpu_ns"] for st in r["steps"])
        else:
            v = sum(max(st["time_ns"] - st["cpu_ns"], 0) for st in r["steps"])
        if val != fmt_ns(v):
            bad.append("bar of rank %s, %s: %s, JSON %s" % (rk, name, val, fmt_ns(v)))
    for b in bad[:20]:
        print(b)
    print("%d cells, %d bar segments, %d stragglers checked, %d differences" % (len(got), nseg, len(strag), len(bad)))
    return 1 if bad or not got else 0


if __name__ == "__main__":
    cmd = sys.argv[1] if len(sys.argv) > 1 else ""
    if cmd == "expect":
        expect(sys.argv[2:])
    elif cmd == "probe":
        probe(sys.argv[2])
    elif cmd == "tips":
        sys.exit(tips(sys.argv[2], sys.argv[3]))
    else:
        sys.exit(__doc__)
