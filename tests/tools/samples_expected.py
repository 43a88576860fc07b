#!/usr/bin/env python3
"""Independent expected numbers for the sampled-profile fixtures.

Reads each data file of a tests/data/samples/<name>/ folder by the format's
documented facts (docs/format-samples-notes.md) and writes <name>/expected.json:
sample count, total weight per sample type, self and total weight per
function name, and the threads. With --check it also compares these numbers
with the producer's own report kept in the folder (perf report output,
speedscope's importer snapshots, austin's sample count, Firefox Profiler's
own upgrade of an older processed profile) and exits 1 on a disagreement.

Usage:
  samples_expected.py [--check] [--stdout] DIR...
  samples_expected.py [--check] --all      (every folder of tests/data/samples)
Python 3 standard library only.
"""
import gzip
import json
import os
import re
import sys

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
SAMPLES = os.path.join(ROOT, "tests", "data", "samples")


class FormatError(Exception):
    pass


def read_text(path):
    if path.endswith(".gz"):
        with gzip.open(path, "rt", encoding="utf-8", errors="replace") as f:
            return f.read()
    with open(path, encoding="utf-8", errors="replace") as f:
        return f.read()


class Acc:
    """Self and total weight per function, for several sample types."""

    def __init__(self):
        self.types = {}
        self.funcs = {}
        self.samples = 0

    def add(self, stack, weights, self_index=0):
        """stack: function names, leaf first; weights: {type: value};
        self_index: the frame that gets the self weight (perf: the first
        frame that perf did not mark as inlined)."""
        self.samples += 1
        for t, w in weights.items():
            self.types[t] = self.types.get(t, 0) + w
        seen = set()
        for i, name in enumerate(stack):
            f = self.funcs.setdefault(name, {"self": {}, "total": {}})
            if i == self_index:
                for t, w in weights.items():
                    f["self"][t] = f["self"].get(t, 0) + w
            if name not in seen:
                seen.add(name)
                for t, w in weights.items():
                    f["total"][t] = f["total"].get(t, 0) + w

    def result(self):
        return {"samples": self.samples, "sample_types": self.types,
                "functions": self.funcs}


# ---- perf script text -------------------------------------------------------

# header: "comm pid[/tid] [cpu] time: [period] event: [rest]"; comm may hold
# spaces and separators may be tabs (Android simpleperf's perf-script form).
PERF_HEAD = re.compile(
    r"^(?P<comm>.*?)\s+(?P<pid>-?\d+)(?:/(?P<tid>-?\d+))?\s+(?:\[(?P<cpu>\d+)\]\s+)?"
    r"(?P<time>\d+\.\d+):\s+(?:(?P<period>\d+)\s+)?(?P<event>\S+):(?:\s+(?P<rest>.*))?$")
PERF_FRAME = re.compile(r"^\s+(?P<ip>[0-9a-fA-F]+)\s+(?P<rest>.*)$")
SYMOFF = re.compile(r"\+0x[0-9a-fA-F]+$")


def perf_frame(line):
    m = PERF_FRAME.match(line)
    if not m:
        return None
    rest = m.group("rest").rstrip()
    sym, dso = rest, ""
    if rest.endswith(")") and " (" in rest:
        sym, dso = rest.rsplit(" (", 1)
        dso = dso[:-1]
    sym = SYMOFF.sub("", sym.strip())
    return {"ip": int(m.group("ip"), 16), "sym": sym, "dso": dso}


def parse_perf(text, path):
    samples = []
    cur = None
    for n, line in enumerate(text.splitlines(), 1):
        if line.startswith("#"):
            continue
        if not line.strip():
            cur = None
            continue
        if line[0] not in " \t":
            m = PERF_HEAD.match(line)
            if not m:
                raise FormatError(f"{path}:{n}: not a perf script sample header: {line[:80]!r}")
            pid = int(m.group("pid"))
            tid = int(m.group("tid")) if m.group("tid") is not None else pid
            cur = {"comm": m.group("comm").strip(), "pid": pid, "tid": tid,
                   "pid_given": m.group("tid") is not None,
                   "time": m.group("time"),
                   "period": int(m.group("period")) if m.group("period") else 1,
                   "event": m.group("event"), "frames": []}
            samples.append(cur)
            continue
        if cur is None:
            raise FormatError(f"{path}:{n}: stack line outside a sample")
        fr = perf_frame(line)
        if fr is None:
            raise FormatError(f"{path}:{n}: not a stack line: {line[:80]!r}")
        cur["frames"].append(fr)
    if not samples:
        raise FormatError(f"{path}: no perf script samples")
    return samples


def perf_name(fr):
    """perf report names an inlined frame "sym (inlined)"."""
    return fr["sym"] + " (inlined)" if fr["dso"] == "inlined" else fr["sym"]


def perf_self_index(frames):
    for i, f in enumerate(frames):
        if f["dso"] != "inlined":
            return i
    return 0


def expected_perf(path):
    samples = parse_perf(read_text(path), path)
    acc = Acc()
    per_event = {}
    threads = {}
    for s in samples:
        stack = [perf_name(f) for f in s["frames"]]
        si = perf_self_index(s["frames"])
        acc.add(stack, {"samples": 1, s["event"]: s["period"]}, si)
        ev = per_event.setdefault(s["event"], Acc())
        ev.add(stack, {"samples": 1, "period": s["period"]}, si)
        key = (s["pid"], s["tid"]) if s["pid_given"] else (None, s["tid"])
        th = threads.setdefault(key, {"pid": key[0], "tid": key[1], "comms": [], "samples": 0})
        th["samples"] += 1
        if s["comm"] not in th["comms"]:
            th["comms"].append(s["comm"])
    out = {"format": "perf-script", **acc.result()}
    out["events"] = {e: {"samples": a.samples, "period": a.types["period"]}
                     for e, a in sorted(per_event.items())}
    out["threads"] = len(threads)
    out["thread_list"] = sorted(threads.values(), key=lambda t: (t["pid"] or 0, t["tid"]))
    out["frames"] = sum(len(s["frames"]) for s in samples)
    out["unknown_frames"] = sum(1 for s in samples for f in s["frames"] if f["sym"] == "[unknown]")
    out["kernel_frames"] = sum(1 for s in samples for f in s["frames"] if f["dso"].startswith("[kernel"))
    out["inlined_frames"] = sum(1 for s in samples for f in s["frames"] if f["dso"] == "inlined")
    out["empty_stacks"] = sum(1 for s in samples if not s["frames"])
    return out, samples


# ---- austin (1.x collapsed lines) -------------------------------------------

def parse_austin(text, path):
    rows = []
    for n, line in enumerate(text.splitlines(), 1):
        if not line.strip() or line.startswith("#"):
            continue
        if not line.startswith("Thread "):
            raise FormatError(f"{path}:{n}: austin line does not start with 'Thread '")
        parts = line.split(";")
        last = parts[-1].split(" ")
        metrics = []
        while last and re.fullmatch(r"-?\d+", last[-1]):
            metrics.insert(0, int(last.pop()))
        if len(parts) == 1:
            # "Thread <id> <metrics>": a thread with no Python frame
            if len(last) != 2 or not metrics:
                raise FormatError(f"{path}:{n}: bad empty-stack line")
            thread, frames_raw = last[1], []
        else:
            head = parts[0].split(" ")
            if len(head) != 2 or not metrics:
                raise FormatError(f"{path}:{n}: bad austin line")
            thread = head[1]
            frames_raw = parts[1:-1] + [" ".join(last)]
        frames = []
        for fr in frames_raw:
            if re.fullmatch(r"L\d+", fr):
                if not frames:
                    raise FormatError(f"{path}:{n}: line number before any frame")
                continue  # default format: the line of the frame before it
            m = re.fullmatch(r"(.*) \((.*?)(?::(\d+))?\)", fr)
            if not m:
                raise FormatError(f"{path}:{n}: bad frame {fr!r}")
            frames.append(f"{m.group(1)} ({m.group(2)})")
        rows.append({"thread": thread, "frames": frames, "metrics": metrics})
    if not rows:
        raise FormatError(f"{path}: no austin samples")
    return rows


def expected_austin(path):
    rows = parse_austin(read_text(path), path)
    widths = {len(r["metrics"]) for r in rows}
    if len(widths) != 1:
        raise FormatError(f"{path}: lines with different numbers of metrics {sorted(widths)}")
    width = widths.pop()
    names = {1: ["time_us"], 3: ["time_us", "mem_plus", "mem_minus"]}.get(width)
    if names is None:
        names = [f"metric{i}" for i in range(width)]
    acc = Acc()
    threads = {}
    for r in rows:
        w = {"samples": 1}
        w.update({k: v for k, v in zip(names, r["metrics"])})
        acc.add(list(reversed(r["frames"])), w)
        threads[r["thread"]] = threads.get(r["thread"], 0) + 1
    out = {"format": "austin", "metrics": names, **acc.result()}
    out["threads"] = len(threads)
    out["thread_list"] = [{"thread": k, "samples": v} for k, v in sorted(threads.items())]
    out["empty_stacks"] = sum(1 for r in rows if not r["frames"])
    return out, rows


# ---- speedscope JSON ---------------------------------------------------------

def expected_speedscope(path, data):
    frames = data.get("shared", {}).get("frames")
    if not isinstance(frames, list):
        raise FormatError(f"{path}: speedscope file without shared.frames")
    names = [f.get("name") for f in frames]
    profiles = []
    for p in data.get("profiles", []):
        acc = Acc()
        kind = p.get("type")
        if kind == "sampled":
            weights = p.get("weights")
            if weights is None or len(weights) != len(p["samples"]):
                raise FormatError(f"{path}: profile {p.get('name')!r}: weights and samples differ in length")
            for stack, w in zip(p["samples"], weights):
                acc.add([names[i] for i in reversed(stack)], {"samples": 1, "weight": w})
            extra = {}
        elif kind == "evented":
            stack = []
            last = p.get("startValue", 0)
            spans = 0
            for ev in p["events"]:
                at = ev["at"]
                if at < last:
                    raise FormatError(f"{path}: profile {p.get('name')!r}: events out of order at {at}")
                if stack and at > last:
                    acc.add([names[i] for i in reversed(stack)], {"weight": at - last})
                last = at
                if ev["type"] == "O":
                    stack.append(ev["frame"])
                elif ev["type"] == "C":
                    if not stack or stack[-1] != ev["frame"]:
                        top = names[stack[-1]] if stack else None
                        raise FormatError(f"{path}: profile {p.get('name')!r}: close of frame "
                                          f"{names[ev['frame']]!r} while {top!r} is on top at {at}")
                    stack.pop()
                    spans += 1
                else:
                    raise FormatError(f"{path}: unknown event type {ev['type']!r}")
            if stack:
                raise FormatError(f"{path}: profile {p.get('name')!r}: frames still open at the end")
            extra = {"spans": spans}
            acc.samples = 0  # evented profiles have no samples
        else:
            raise FormatError(f"{path}: unknown profile type {kind!r}")
        profiles.append({"name": p.get("name"), "type": kind, "unit": p.get("unit"),
                         "startValue": p.get("startValue"), "endValue": p.get("endValue"),
                         **extra, **acc.result()})
    return {"format": "speedscope", "version": data.get("version"),
            "exporter": data.get("exporter"), "threads": len(profiles),
            "profiles": profiles}


# ---- Firefox Profiler processed profile -----------------------------------

def column(table, key, path):
    if key not in table:
        raise FormatError(f"{path}: table without column {key!r}")
    return table[key]


def expected_firefox(path, data):
    meta = data.get("meta", {})
    version = meta.get("preprocessedProfileVersion", 0)
    if not isinstance(data.get("threads"), list):
        raise FormatError(f"{path}: no threads array")
    shared = data.get("shared") or {}
    threads = []
    for ti, t in enumerate(data["threads"]):
        tables = shared if "stackTable" in shared else t
        strings = shared.get("stringArray") if "stringArray" in shared else t.get("stringArray")
        if strings is None:
            raise FormatError(f"{path}: thread {ti}: no stringArray")
        st, ft, fu = tables["stackTable"], tables["frameTable"], tables["funcTable"]
        if "prefixOffset" in st:
            po = st["prefixOffset"]
            prefix = [None if k == 0 else i - k for i, k in enumerate(po)]
        else:
            prefix = column(st, "prefix", path)
        sframe = column(st, "frame", path)
        ffunc = column(ft, "func", path)
        fname = column(fu, "name", path)

        def func_stack(s, memo={}):
            out = []
            while s is not None:
                out.append(strings[fname[ffunc[sframe[s]]]])
                s = prefix[s]
            return out  # leaf first

        smp = t["samples"]
        stacks = column(smp, "stack", path)
        n = smp.get("length", len(stacks))
        weight = smp.get("weight")
        wtype = smp.get("weightType", "samples") or "samples"
        acc = Acc()
        null_stacks = 0
        for i in range(n):
            w = weight[i] if weight is not None else 1
            if stacks[i] is None:
                null_stacks += 1
                acc.samples += 1
                acc.types["entries"] = acc.types.get("entries", 0) + 1
                acc.types[wtype] = acc.types.get(wtype, 0) + w
                continue
            acc.add(func_stack(stacks[i]), {"entries": 1, wtype: w})
        threads.append({"name": t.get("name"), "processType": t.get("processType"),
                        "pid": t.get("pid"), "tid": t.get("tid"),
                        "processName": t.get("processName"),
                        "weightType": wtype, "null_stacks": null_stacks, **acc.result()})
    return {"format": "firefox-processed", "meta_version": meta.get("version"),
            "preprocessedProfileVersion": version, "interval": meta.get("interval"),
            "threads": len(threads), "thread_list": threads}


# ---- dispatch ---------------------------------------------------------------

def expected_file(path):
    text = read_text(path)
    stripped = text.lstrip()
    if stripped.startswith("{"):
        data = json.loads(text)
        if "profiles" in data and "shared" in data:
            return expected_speedscope(path, data)
        if "meta" in data and "threads" in data:
            return expected_firefox(path, data)
        raise FormatError(f"{path}: JSON that is neither speedscope nor a Firefox processed profile")
    first = next((l for l in text.splitlines() if l.strip() and not l.startswith("#")), "")
    if first.startswith("Thread "):
        return expected_austin(path)[0]
    return expected_perf(path)[0]


DATA_EXT = (".script", ".linux-perf.txt", ".perf.gz", ".txt.gz", ".json", ".json.gz")


def data_files(folder):
    out = []
    for dirpath, _, files in os.walk(folder):
        for f in files:
            p = os.path.join(dirpath, f)
            rel = os.path.relpath(p, folder)
            if f == "expected.json" or f.startswith("perf-report") or f.endswith((".snap", ".stderr")):
                continue
            if f.endswith(DATA_EXT) or (f.startswith("austin") and f.endswith(".txt")):
                out.append(rel)
    return sorted(out)


def expected_folder(folder):
    res = {"generator": "tests/tools/samples_expected.py", "files": {}}
    for rel in data_files(folder):
        try:
            res["files"][rel] = expected_file(os.path.join(folder, rel))
        except FormatError as e:
            res["files"][rel] = {"error": str(e).replace(folder + "/", "")}
    return res


def write_json(path, obj):
    tmp = path + ".tmp"
    with open(tmp, "w", encoding="utf-8") as f:
        json.dump(obj, f, indent=1, sort_keys=True, ensure_ascii=False)
        f.write("\n")
    os.replace(tmp, path)


# ---- checks against the producers' own reports ------------------------------

REPORT_LINE = re.compile(
    r"^\s+(?P<p1>[\d.]+)%\s+(?:(?P<p2>[\d.]+)%\s+)?(?P<n>\d+)\s+\[(?P<lvl>.)\]\s+(?P<sym>.*?)\s*$")


NONPIE_BASE = 0x400000


def report_key(sym):
    """perf report shows a frame without a symbol as its address."""
    m = re.fullmatch(r"(?:0x)?([0-9a-f]{16})", sym)
    if m:
        return ("addr", int(m.group(1), 16))
    return ("sym", sym)


def script_key(fr):
    if fr["sym"] == "[unknown]":
        return ("addr", fr["ip"])
    if fr["dso"] == "inlined":
        return ("sym", fr["sym"] + " (inlined)")
    return ("sym", fr["sym"])


def parse_report(path):
    """{event: {"samples": N, "period": P, "rows": {key: [pct1, pct2|None, n]}}}"""
    events = {}
    cur = None
    for line in read_text(path).splitlines():
        m = re.match(r"# Samples: (\d+)\s+of event '(.*)'", line)
        if m:
            cur = events.setdefault(m.group(2), {"samples": int(m.group(1)), "rows": {}})
            continue
        m = re.match(r"# Event count \(approx\.\): (\d+)", line)
        if m and cur is not None:
            cur["period"] = int(m.group(1))
            continue
        m = REPORT_LINE.match(line)
        if m and cur is not None:
            k = report_key(m.group("sym"))
            row = cur["rows"].setdefault(k, [0.0, 0.0, 0, 0])
            row[0] += float(m.group("p1"))
            row[1] += float(m.group("p2") or 0)
            row[2] += int(m.group("n"))
            row[3] += 1  # report lines merged into this key (same name, other DSO)
    return events


def check_perf(folder, rel, problems, notes):
    """Compare with perf report. A script with perf's inline expansion is only
    compared for information when the folder has perf-noinline.script: perf
    script can print a leaf's inline chain without the leaf's own symbol."""
    if "noinline" not in rel and os.path.exists(os.path.join(folder, "perf-noinline.script")):
        own, own_notes = [], []
        check_perf_files(folder, rel, own, own_notes)
        notes.extend(f"(information only, see perf-noinline.script) {p}" for p in own_notes + own)
        return
    check_perf_files(folder, rel, problems, notes)


def check_perf_files(folder, rel, problems, notes):
    path = os.path.join(folder, rel)
    _, samples = expected_perf(path)
    kind = "-noinline" if "noinline" in rel else ""
    flat = os.path.join(folder, f"perf-report{kind}-self-flat.txt")
    children = os.path.join(folder, f"perf-report{kind}-children.txt")
    threads_rep = os.path.join(folder, "perf-report-threads.txt")
    if not os.path.exists(flat):
        return
    rep_self = parse_report(flat)
    rep_child = parse_report(children) if os.path.exists(children) else {}
    for event, rep in rep_self.items():
        ss = [s for s in samples if s["event"] == event]
        total_p = sum(s["period"] for s in ss)
        if len(ss) != rep["samples"]:
            problems.append(f"{rel}: {event}: {len(ss)} samples, perf report {rep['samples']}")
        if rep.get("period") is not None and total_p != rep["period"]:
            problems.append(f"{rel}: {event}: period {total_p}, perf report {rep['period']}")
        self_n, self_p, tot_p = {}, {}, {}
        for s in ss:
            if s["frames"]:
                k = script_key(s["frames"][perf_self_index(s["frames"])])
                self_n[k] = self_n.get(k, 0) + 1
                self_p[k] = self_p.get(k, 0) + s["period"]
            for k in {script_key(f) for f in s["frames"]}:
                tot_p[k] = tot_p.get(k, 0) + s["period"]
        bad = 0
        for k, (pct, _, n, lines) in rep["rows"].items():
            mine = self_n.get(k, 0)
            mypct = 100.0 * self_p.get(k, 0) / total_p
            if mine != n or abs(mypct - pct) > 0.0051 * lines:
                bad += 1
                problems.append(f"{rel}: {event}: self of {k[1]!r}: {mine} samples {mypct:.2f}%, "
                                f"perf report {n} {pct:.2f}%")
        missing = [k for k in self_n if k not in rep["rows"]]
        for k in missing:
            problems.append(f"{rel}: {event}: {k[1]!r} has self samples but no perf report row")
        notes.append(f"{rel}: {event}: {len(ss)} samples; self samples and self % of all "
                     f"{len(rep['rows'])} symbols of perf report --no-children "
                     f"{'agree' if not bad and not missing else 'DISAGREE'}")
        crep = rep_child.get(event)
        if crep:
            cbad = 0
            remapped, seen_keys, addr_diff = set(), set(), []
            for k, (cpct, spct, n, lines) in crep["rows"].items():
                if k[0] == "addr" and k not in tot_p and ("addr", k[1] - NONPIE_BASE) in tot_p:
                    # --children prints an unresolved frame of a non-PIE executable
                    # (Debian's python3.11) at its virtual address, --no-children
                    # and perf script at its offset in the file
                    k = ("addr", k[1] - NONPIE_BASE)
                    remapped.add(k)
                seen_keys.add(k)
                mypct = 100.0 * tot_p.get(k, 0) / total_p
                if abs(mypct - cpct) > 0.0051 * lines:
                    if k[0] == "addr":
                        addr_diff.append(k[1])
                        continue
                    cbad += 1
                    problems.append(f"{rel}: {event}: total of {k[1]!r}: {mypct:.2f}%, "
                                    f"perf report --children {cpct:.2f}%")
            extra = [k for k in tot_p if k not in seen_keys]
            for k in extra:
                problems.append(f"{rel}: {event}: {k[1]!r} on stacks but no perf report --children row")
            notes.append(f"{rel}: {event}: total % (children) of all {len(crep['rows'])} symbols of "
                         f"perf report --children {'agree' if not cbad and not extra else 'DISAGREE'}"
                         + (f" ({len(remapped)} unresolved addresses matched at -0x400000)"
                            if remapped else "")
                         + (f"; {len(addr_diff)} unresolved-address rows differ: "
                            + ", ".join(hex(a) for a in addr_diff)
                            + " (perf report names them by address only, not by DSO)"
                            if addr_diff else ""))
    if os.path.exists(threads_rep):
        rows = {}
        for line in read_text(threads_rep).splitlines():
            m = re.match(r"^\s+[\d.]+%\s+(\d+)\s+(-?\d+):(.*?)\s*$", line)
            if m:
                rows[int(m.group(2))] = rows.get(int(m.group(2)), 0) + int(m.group(1))
        mine = {}
        for s in samples:
            mine[s["tid"]] = mine.get(s["tid"], 0) + 1
        ok = mine == rows
        if not ok:
            problems.append(f"{rel}: samples per thread {mine}, perf report --sort pid {rows}")
        notes.append(f"{rel}: samples per thread ({len(rows)} threads) "
                     f"{'agree' if ok else 'DISAGREE'} with perf report --sort pid")


def parse_snap_frames(path):
    """Jest snapshots of speedscope's importers: {export name: {frame: (self, total)}}."""
    text = read_text(path)
    out = {}
    for chunk in text.split("\nexports[`")[1:]:
        name, _, body = chunk.partition("`] = `")
        body = body[:body.rfind("`;")]
        frames = {}
        for fm in re.finditer(r'"name": "((?:[^"\\]|\\.)*)",\s*"selfWeight": ([-\d.e]+),\s*'
                              r'"totalWeight": ([-\d.e]+)', body):
            fname = fm.group(1).encode().decode("unicode_escape")
            frames[fname] = (float(fm.group(2)), float(fm.group(3)))
        err = re.fullmatch(r'"(.*)"', body.strip())
        out[name] = frames if frames else (("error", err.group(1)) if err else None)
    return out


def close(a, b):
    return abs(a - b) <= 1e-9 * max(1.0, abs(a), abs(b))


def check_speedscope(folder, exp, problems, notes):
    snap = parse_snap_frames(os.path.join(folder, "file-format.test.ts.snap"))
    pairs = {
        "simple.speedscope.json": ["importSpeedscopeProfiles 0.0.1 evented profile 1"],
        "simple-no-pretty-print.speedscope.json":
            ["importSpeedscopeProfiles 0.0.1 evented profile (no pretty print) 1"],
        "simple-sampled.speedscope.json": ["importSpeedscopeProfiles 0.1.2 sampled profile 1"],
        "two-sampled.speedscope.json": ["importSpeedscopeProfiles 0.6.0 multiple profiles 1",
                                        "importSpeedscopeProfiles 0.6.0 multiple profiles 2"],
    }
    for rel, names in pairs.items():
        e = exp["files"][rel]
        for prof, name in zip(e["profiles"], names):
            want = snap[name]
            got = {f: (v["self"].get("weight", 0), v["total"].get("weight", 0))
                   for f, v in prof["functions"].items()}
            got_nz = {k: v for k, v in got.items() if v != (0, 0)}
            want_nz = {k: v for k, v in want.items() if v != (0.0, 0.0)}
            ok = set(got_nz) == set(want_nz) and all(
                close(got_nz[k][0], want_nz[k][0]) and close(got_nz[k][1], want_nz[k][1]) for k in got_nz)
            if not ok:
                problems.append(f"{rel}: profile {prof['name']!r}: {got_nz} vs speedscope {want_nz}")
            notes.append(f"{rel}: profile {prof['name']!r}: self and total weight of all "
                         f"{len(want_nz)} frames {'agree' if ok else 'DISAGREE'} with speedscope's "
                         f"importer snapshot")
    for rel, name in (("invalid/incomplete-trace.json",
                       "importSpeedscopeProfiles invalid due to incomplete trace 1"),
                      ("invalid/out-of-order-events.json",
                       "importSpeedscopeProfiles invalid due to out of order events 1")):
        e = exp["files"][rel]
        ok = "error" in e and isinstance(snap.get(name), tuple)
        if not ok:
            problems.append(f"{rel}: expected a refusal like speedscope's {snap.get(name)}")
        notes.append(f"{rel}: refused ({e.get('error', 'NOT REFUSED')}); speedscope refuses it too: "
                     f"{snap.get(name, ('', '?'))[1]}")


def check_speedscope_perf(folder, exp, problems, notes):
    """speedscope's linux perf importer keeps the first event type only, makes one
    profile per "comm pid: P tid: T" and weighs a sample by the time to the next
    one, so its weights are not sample counts: compare the frames of each thread
    (a frame "[unknown]" is named "??? (dso)" there) and the number of threads."""
    snap = parse_snap_frames(os.path.join(folder, "linux-tools-perf.test.ts.snap"))
    for rel in sorted(exp["files"]):
        e = exp["files"][rel]
        if "error" in e:
            problems.append(f"{rel}: {e['error']}")
            continue
        snap_rel = rel.replace("simple-with-pid.", "simple-with-pids.")  # the test's spelling
        names = sorted(k for k in snap if k.startswith(f"importFromLinuxPerf {snap_rel} ")
                       and re.search(r" \d+$", k) and "chunked" not in k)
        if not names:
            notes.append(f"{rel}: no speedscope snapshot to compare with")
            continue
        _, samples = expected_perf(os.path.join(folder, rel))
        first_event = samples[0]["event"]
        groups = {}
        for smp in samples:
            if smp["event"] != first_event:
                continue
            names_set = groups.setdefault((smp["comm"], smp["pid"], smp["tid"]), set())
            for f in smp["frames"]:
                names_set.add(f"??? ({f['dso']})" if f["sym"] == "[unknown]" else f["sym"])
        wanted = [set(k for k, v in snap[n].items()) for n in names if isinstance(snap[n], dict)]
        got = list(groups.values())
        ok = len(got) == len(wanted) and all(g in wanted for g in got)
        if not ok:
            problems.append(f"{rel}: frames per thread differ from speedscope's importer snapshot")
        notes.append(f"{rel}: {len(got)} threads of event {first_event!r}; the frame names of each "
                     f"{'agree' if ok else 'DISAGREE'} with speedscope's importer snapshot "
                     f"({len(wanted)} profiles; its weights are times between samples)")


def check_firefox(folder, exp, problems, notes):
    for n in (1, 2, 3):
        old = f"processed-{n}.json"
        new = next((r for r in exp["files"] if r.startswith(f"processed-{n}.v70.json")), None)
        if old not in exp["files"] or new is None:
            continue
        a, b = exp["files"][old], exp["files"][new]
        renamed = set()

        def upgrade_names(funcs, version):
            """the renames of the profiler's upgraders [4] and [17]"""
            out = {}
            for name, v in funcs.items():
                new_name = name
                m = re.fullmatch(r"(.*) \((.*):([0-9]+)\)", name)
                if version < 4 and m and m.group(1):
                    new_name = m.group(1)
                if version < 17 and new_name.startswith("AutoEntryScript "):
                    new_name = new_name[len("AutoEntryScript "):]
                if new_name != name:
                    renamed.add(f"{name!r} -> {new_name!r}")
                out[new_name] = v
            return out

        va = a["preprocessedProfileVersion"]
        ta = [(t["name"], t["samples"], t["sample_types"], upgrade_names(t["functions"], va))
              for t in a["thread_list"]]
        tb = [(t["name"], t["samples"], t["sample_types"], t["functions"]) for t in b["thread_list"]]
        same_funcs = all(x[3] == y[3] for x, y in zip(ta, tb)) and len(ta) == len(tb)
        same_counts = all(x[1] == y[1] for x, y in zip(ta, tb))
        if not (same_funcs and same_counts):
            problems.append(f"{old} (version {a['preprocessedProfileVersion']}) and {new} "
                            f"(version {b['preprocessedProfileVersion']}) give different numbers")
        nf = sum(len(t[3]) for t in ta)
        notes.append(f"{old} (processed version {a['preprocessedProfileVersion']}) and {new} "
                     f"(the profiler's own upgrade to version {b['preprocessedProfileVersion']}): "
                     f"samples and self/total of all {nf} thread functions "
                     f"{'agree' if same_funcs and same_counts else 'DISAGREE'}"
                     + (f" (after the upgraders' renames {', '.join(sorted(renamed))})"
                        if renamed else ""))


def check_austin(folder, exp, problems, notes):
    for rel, e in sorted(exp["files"].items()):
        stderr = os.path.join(folder, rel[:-4] + ".stderr")
        if not os.path.exists(stderr):
            continue
        m = re.search(r"Error rate : (\d+)/(\d+)", read_text(stderr))
        if not m:
            continue
        total = int(m.group(2))
        ok = total == e["samples"]
        if not ok:
            problems.append(f"{rel}: {e['samples']} samples, austin says {total}")
        t = e["sample_types"].get("time_us")
        notes.append(f"{rel}: {e['samples']} samples {'agree' if ok else 'DISAGREE'} with austin's "
                     f"own count ({m.group(0)}); time_us total {t}")


def check_folder(folder, exp):
    problems, notes = [], []
    name = os.path.basename(os.path.normpath(folder))
    for rel, e in exp["files"].items():
        if e.get("format") == "perf-script" and rel.endswith(".script"):
            check_perf(folder, rel, problems, notes)
    if os.path.exists(os.path.join(folder, "perf.script")) and \
            os.path.exists(os.path.join(folder, "perf-fields.script")):
        a, b = exp["files"]["perf.script"], exp["files"]["perf-fields.script"]
        same = a["functions"] == b["functions"] and a["sample_types"] == b["sample_types"]
        if not same:
            problems.append("perf.script and perf-fields.script give different numbers")
        notes.append(f"perf.script (default fields) and perf-fields.script (-F ...): numbers "
                     f"{'agree' if same else 'DISAGREE'}")
    if name == "speedscope":
        check_speedscope(folder, exp, problems, notes)
    if name == "perf-speedscope-samples":
        check_speedscope_perf(folder, exp, problems, notes)
    if name == "firefox":
        check_firefox(folder, exp, problems, notes)
    if name == "austin":
        check_austin(folder, exp, problems, notes)
    return problems, notes


def main(argv):
    check = "--check" in argv
    to_stdout = "--stdout" in argv
    dirs = [a for a in argv if not a.startswith("--")]
    if "--all" in argv:
        dirs = sorted(os.path.join(SAMPLES, d) for d in os.listdir(SAMPLES)
                      if os.path.isdir(os.path.join(SAMPLES, d)))
    if not dirs:
        sys.exit(__doc__)
    failed = False
    for d in dirs:
        if not os.path.isdir(d):
            print(f"samples_expected.py: {d}: not a folder", file=sys.stderr)
            failed = True
            continue
        exp = expected_folder(d)
        if not exp["files"]:
            print(f"samples_expected.py: {d}: no data files", file=sys.stderr)
            failed = True
            continue
        if to_stdout:
            json.dump(exp, sys.stdout, indent=1, sort_keys=True)
            print()
        else:
            write_json(os.path.join(d, "expected.json"), exp)
        if check:
            problems, notes = check_folder(d, exp)
            for n in notes:
                print(f"{os.path.basename(os.path.normpath(d))}: {n}")
            for p in problems:
                print(f"{os.path.basename(os.path.normpath(d))}: MISMATCH: {p}", file=sys.stderr)
            failed |= bool(problems)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
