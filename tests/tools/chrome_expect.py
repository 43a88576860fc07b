#!/usr/bin/env python3
"""Independent computation of what a profile of a Chrome trace must contain,
written from the rules text in docs/stack-rules.md (not from tracefold's C code).

usage: chrome_expect.py TRACE [--keep-trace-span] [--clip-tolerance T] [--list-repairs]
                        [--rule clip|pytorch]

TRACE: a bare JSON array (terminated or not), an object with "traceEvents",
JSON lines (one event per line, with or without commas, with or without a
"[" line: DFTracer .pfw), any of them gzipped.

--keep-trace-span  keep X events whose cat is exactly "Trace" (Kineto's
                   whole-trace span); by default they are left out (trace_span)
--clip-tolerance T overhang a child may have over its parent and still be
                   clipped instead of cutting the parent; a number with an
                   optional unit ns, us (default), ms or s; default 1 us
--list-repairs     print every repair (kind, track, name, start and end in
                   ns, ns moved) on stderr, one a line
--rule pytorch     PyTorch 1.13 EventList._populate_cpu_children instead:
                   a child ending after its parent pops the parent, so later
                   siblings go to the grandparent (no tolerance, no cuts)

Prints JSON:
  funcs: {name: {calls, self_ns, incl_ns, recursive, clipped}}
         incl_ns counts a name once under recursion (= pprof's cum)
  paths: {"root;...;leaf": {calls, self_ns}}
  total_ns        sum of self time = profile total
  root_union_ns   sum over tracks of the post-repair root frames' lengths
  raw_union_ns    sum over tracks of the union of the raw intervals (after
                  B/E pairing and closing unclosed regions, before any clip or cut)
  calls           region instances: X + B/E pairs + unclosed B
  diag            end_without_begin, begin_unclosed, child_clipped,
                  overlap_cut, negative_duration (and their *_ns),
                  bad_event (X/B/E/C events with a missing or invalid ts or
                  dur, C events without a numeric value, non-object or empty
                  entries), truncated (1 if the input ended inside an event)
  counters        {name: {samples, min, max, sum}} of the C events' values:
                  one per numeric member of args (number or numeric string),
                  named NAME, or NAME.KEY when an event has several
                  (docs/format-chrome.md); diag counter_events = their number.
                  Memory dumps (v, V) add memory:ALLOCATOR, each
                  args.dumps.allocators[ALLOCATOR].attrs.size.value, and
                  memory:KEY, each args.dumps.process_totals[KEY], that is a
                  hex string (Chrome's memory-infra writes byte counts so)
  events, tracks, trace_spans (cat "Trace" X events seen), max_depth, form

Names: a missing, null or empty name is "[unnamed]"; \\u0000 becomes U+FFFD."""
import gzip, json, re, sys
from stable_names import normalize
from collections import Counter
from decimal import Decimal, Context, ROUND_HALF_EVEN, InvalidOperation

CTX = Context(prec=80, rounding=ROUND_HALF_EVEN)
# a numeric string (docs/format-chrome.md): decimal, optional sign (also +),
# ".5" and "5." accepted, optional exponent; no spaces, no hex, no nan/inf
NUM = re.compile(r'[-+]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][-+]?[0-9]+)?')
INT64_MAX = 2**63 - 1
# Kineto's categories (docs/gpu.md)
GPU_CATS = {"kernel", "gpu_memcpy", "gpu_memset", "Kernel", "Memcpy", "Memset", "cuda_sync"}
CPU_CATS = {"python_function", "cpu_op", "user_annotation", "Operator", "cuda_runtime", "cuda_driver", "Runtime",
            "hip_runtime"}
CORR_CATS = GPU_CATS | {"cuda_runtime", "cuda_driver", "Runtime", "hip_runtime", "gpu_user_annotation", "cuda_sync"}
UNNAMED = "[unnamed]"


class Bad(Exception):
    pass


def dec(v):
    """A JSON number or a numeric string as a finite Decimal, else Bad."""
    if isinstance(v, bool) or v is None:
        raise Bad(v)
    if isinstance(v, int):
        d = Decimal(v)
    elif isinstance(v, Decimal):
        d = v
    elif isinstance(v, float):          # not produced by load(); kept for safety
        d = Decimal(repr(v))
    elif isinstance(v, str) and NUM.fullmatch(v):
        d = Decimal(v)
    else:                                # "NaN", "Infinity", text, objects
        raise Bad(v)
    if not d.is_finite():                # bare NaN / Infinity / -Infinity tokens
        raise Bad(v)
    return d


def ns(v):
    """Microseconds (number or numeric string) to integer ns, exactly:
    Decimal * 1000, round half even below 1 ns."""
    n = int(CTX.multiply(dec(v), Decimal(1000)).to_integral_value(rounding=ROUND_HALF_EVEN))
    if not -INT64_MAX - 1 <= n <= INT64_MAX:      # outside int64 ns: bad
        raise Bad(v)
    return n


def key(v):
    """Track key text of a pid/tid: numbers and numeric strings are the same
    number (7 == "7"); a missing pid/tid is the empty text."""
    if v is None:
        return ""
    try:
        d = dec(v)
    except Bad:
        return v if isinstance(v, str) else json.dumps(v, sort_keys=True, default=str)
    if d == d.to_integral_value():
        return str(int(d))
    return str(d.normalize())


def frame_name(e):
    n = e.get("name")
    if n is None or n == "":
        return UNNAMED
    if not isinstance(n, str):
        n = json.dumps(n, default=str)
    return normalize(n.replace("\x00", "\ufffd"))


def tolerance_ns(text):
    m = re.fullmatch(r'\s*([0-9.eE+-]+)\s*(ns|us|µs|ms|s)?\s*', text)
    if not m:
        sys.exit("chrome_expect.py: bad --clip-tolerance %r" % text)
    mult = {"ns": Decimal(1), "us": Decimal(1000), "µs": Decimal(1000), "ms": Decimal(10**6),
            "s": Decimal(10**9), None: Decimal(1000)}[m.group(2)]
    return int(CTX.multiply(Decimal(m.group(1)), mult).to_integral_value(rounding=ROUND_HALF_EVEN))


# ---------------------------------------------------------------- loading

def _skip(text, i, chars=" \t\r\n,"):
    n = len(text)
    while i < n and text[i] in chars:
        i += 1
    return i


def _stream(text, i, decoder):
    """Events one after another from text[i:], separated by whitespace and/or
    commas, until a ']' or the end.  Returns (events, truncated)."""
    evs = []
    while True:
        i = _skip(text, i)
        if i >= len(text) or text[i] == "]":
            return evs, 0
        try:
            obj, i = decoder.raw_decode(text, i)
        except ValueError:
            return evs, 1      # an unterminated event at the end of the input
        evs.append(obj)


def load(path):
    """Returns (events, form, truncated)."""
    with open(path, "rb") as f:
        raw = f.read()
    if raw[:2] == b"\x1f\x8b":
        raw = gzip.decompress(raw)
    text = raw.decode("utf-8", errors="replace")
    if text.startswith("\ufeff"):
        text = text[1:]
    # Decimal for every fraction; bare NaN/Infinity/-Infinity become
    # non-finite Decimals (bad events later)
    decoder = json.JSONDecoder(parse_float=Decimal, parse_constant=Decimal)
    try:
        data = decoder.decode(text)
    except ValueError:
        data = None
    if isinstance(data, dict):
        if "traceEvents" in data:
            return data["traceEvents"], "object", 0
        return [data], "lines", 0          # a single JSON line
    if isinstance(data, list):
        return data, "array", 0
    i = _skip(text, 0, " \t\r\n")
    if i < len(text) and text[i] == "[":
        evs, tr = _stream(text, i + 1, decoder)   # unterminated array, or .pfw (no commas)
        return evs, "array-stream", tr
    # JSON lines, or an object whose first value cannot be decoded
    try:
        first, _ = decoder.raw_decode(text, i)
    except ValueError:
        first = None
    if first is None or (isinstance(first, dict) and "traceEvents" in first):
        m = re.search(r'"traceEvents"\s*:\s*\[', text)
        if not m:
            sys.exit("chrome_expect.py: cannot read %s" % path)
        evs, tr = _stream(text, m.end(), decoder)   # unterminated object form
        return evs, "object-stream", tr
    evs, tr = _stream(text, i, decoder)
    return evs, "lines", tr


# ---------------------------------------------------------------- analysis

def analyse(evs, keep_trace=False, tol=1000, rule="clip", log=None):
    diag = Counter()

    def note(kind, tk, name, start, end, moved):
        if log:
            log.write("%s track=%s name=%s start=%d end=%d ns=%d\n" % (kind, "/".join(tk), json.dumps(name), start, end, moved))
    tracks = {}
    counters = {}
    trace_spans = 0

    def track(e):
        k = (key(e.get("pid")), key(e.get("tid")))
        return tracks.setdefault(k, {"x": [], "be": [], "last": None, "gpu_cat": False, "cpu_cat": False})

    # GPU streams (docs/gpu.md): a track with a kernel, gpu_memcpy or
    # gpu_memset region, named "stream N", or of a process named or labelled
    # "GPU0" / "GPU 0" unless it has CPU work (Python frames, operators,
    # runtime calls); a region's correlation id links an activity to its launch
    gpu_pids, corr, gpu_label = set(), {}, set()
    for e in evs:
        if isinstance(e, dict) and e.get("ph") == "M" and e.get("name") in ("process_name", "process_labels"):
            a = e.get("args") if isinstance(e.get("args"), dict) else {}
            v = a.get("name") if e.get("name") == "process_name" else a.get("labels")
            if isinstance(v, str) and re.match(r"GPU ?[0-9]", v):
                gpu_pids.add(key(e.get("pid")))

    def see(tr, t):
        if tr["last"] is None or t > tr["last"]:
            tr["last"] = t

    def counter(name, v):
        c = counters.setdefault(name, {"samples": 0, "min": None, "max": None, "sum": Decimal(0)})
        c["samples"] += 1
        c["min"] = v if c["min"] is None else min(c["min"], v)
        c["max"] = v if c["max"] is None else max(c["max"], v)
        c["sum"] += v
        diag["counter_events"] += 1

    def memory_dump(e):
        # a dump with no value to read is skipped (ev_other) whatever its ts
        a = e.get("args") if isinstance(e.get("args"), dict) else {}
        d = a.get("dumps") if isinstance(a.get("dumps"), dict) else {}
        vals = []
        al = d.get("allocators") if isinstance(d.get("allocators"), dict) else {}
        for name, v in al.items():
            for k in ("attrs", "size", "value"):
                v = v.get(k) if isinstance(v, dict) else None
            vals.append(("memory:" + name, v))
        pt = d.get("process_totals") if isinstance(d.get("process_totals"), dict) else {}
        vals += [("memory:" + k, v) for k, v in pt.items()]
        vals = [(name, v) for name, v in vals
                if isinstance(v, str) and re.fullmatch(r"(0[xX])?[0-9a-fA-F]{1,16}", v)]
        if not vals:
            return
        try:
            ts = ns(e["ts"])
        except (KeyError, Bad):
            diag["bad_event"] += 1
            return
        for name, v in vals:
            see(track(e), ts)
            counter(name, Decimal(int(v, 16)))

    for i, e in enumerate(evs):
        if not isinstance(e, dict) or not e:
            diag["bad_event"] += 1
            continue
        ph = e.get("ph")
        if ph in ("i", "I") and e.get("name") == "[memory]" and isinstance(e.get("args"), dict):
            b = e["args"].get("Bytes")
            if isinstance(b, (int, float, Decimal)) and b > 0:
                diag["allocations"] += 1
                # blocks with an address: a peak of live memory (docs/memory.md)
                if e["args"].get("Addr") is not None:
                    diag["allocations_addr"] += 1
            elif isinstance(b, (int, float, Decimal)) and b < 0:
                diag["frees"] += 1
        if ph in ("v", "V"):
            memory_dump(e)
            continue
        if ph not in ("X", "B", "E", "C"):
            continue
        if ph == "X" and e.get("cat") == "Trace":     # Kineto's whole-trace span
            trace_spans += 1
            if not keep_trace:
                diag["trace_span"] += 1
                continue
        try:
            ts = ns(e["ts"])
            # an X without dur (or "dur": null) runs to the track's end
            dur = ns(e["dur"]) if ph == "X" and e.get("dur") is not None else None
            if dur is not None and not -INT64_MAX - 1 <= ts + dur <= INT64_MAX:
                raise Bad(e["dur"])
        except (KeyError, Bad):
            diag["bad_event"] += 1
            continue
        if ph == "C":
            # docs/format-chrome.md: one value per numeric member of args
            # (numbers or numeric strings), named NAME when there is one,
            # NAME.KEY when there are several; none at all: bad_event
            args = e.get("args")
            vals = []
            if isinstance(args, dict):
                for k, v in args.items():
                    try:
                        vals.append((k, dec(v)))
                    except Bad:
                        pass
            if not vals:
                diag["bad_event"] += 1
                continue
            see(track(e), ts)
            diag["counter_events"] += len(vals)
            cname = e.get("name") if isinstance(e.get("name"), str) else ""
            for k, v in vals:
                c = counters.setdefault(cname if len(vals) == 1 else cname + "." + k,
                                        {"samples": 0, "min": None, "max": None, "sum": Decimal(0)})
                c["samples"] += 1
                c["min"] = v if c["min"] is None else min(c["min"], v)
                c["max"] = v if c["max"] is None else max(c["max"], v)
                c["sum"] += v
            continue
        tr = track(e)
        see(tr, ts)
        cat = e.get("cat")
        if ph in ("X", "B"):
            tr["gpu_cat"] |= cat in GPU_CATS or cat == "gpu_user_annotation"
            tr["cpu_cat"] |= cat in CPU_CATS
            a = e.get("args")
            if cat in CORR_CATS and isinstance(a, dict) and isinstance(a.get("correlation"), int):
                corr[i] = a["correlation"]
            if cat == "gpu_user_annotation":
                gpu_label.add(i)
        if ph == "X":
            if dur is not None:
                see(tr, ts + dur)
            tr["x"].append((i, ts, dur, frame_name(e)))
        else:
            tr["be"].append((ts, i, ph, frame_name(e)))

    funcs, paths = {}, {}
    tot = {"total": 0, "root_union": 0, "raw_union": 0, "calls": 0, "max_depth": 0, "gpu": 0, "gpu_n": 0}
    launch = {}   # correlation id -> call path of the CPU region that has it

    def f(name):
        return funcs.setdefault(name, {"calls": 0, "self_ns": 0, "incl_ns": 0, "recursive": False, "clipped": 0,
                                       "gpu_self_ns": 0, "gpu_incl_ns": 0})

    def is_gpu(tk, tr):
        return tr["gpu_cat"] or (not tr["cpu_cat"] and (str(tk[1]).startswith("stream ") or tk[0] in gpu_pids))

    # CPU threads first: their launches are where the GPU activities go
    order = sorted(tracks.items(), key=lambda kv: is_gpu(*kv))
    for tk, tr in order:
        last = tr["last"]
        # spans: [start, end, name, begin index, kind, end index]
        # kind X: X with dur; BE: matched B/E pair; LAST: closed at the track's last timestamp
        spans = []
        for i, ts, dur, name in tr["x"]:
            if dur is None:
                diag["begin_unclosed"] += 1
                diag["begin_unclosed_ns"] += last - ts
                note("begin_unclosed(X without dur)", tk, name, ts, last, last - ts)
                spans.append([ts, last, name, i, "LAST", None])
            else:
                if dur < 0:
                    diag["negative_duration"] += 1
                    diag["negative_duration_ns"] += -dur
                    note("negative_duration", tk, name, ts, ts + dur, -dur)
                    dur = 0
                spans.append([ts, ts + dur, name, i, "X", None])
        open_b = []
        for ts, i, ph, name in sorted(tr["be"], key=lambda m: (m[0], m[1])):
            if ph == "B":
                open_b.append((ts, i, name))
            elif open_b:
                b = open_b.pop()
                spans.append([b[0], ts, b[2], b[1], "BE", i])
            else:
                diag["end_without_begin"] += 1
                note("end_without_begin", tk, name, ts, ts, 0)
        for ts, i, name in open_b:
            diag["begin_unclosed"] += 1
            diag["begin_unclosed_ns"] += last - ts
            note("begin_unclosed", tk, name, ts, last, last - ts)
            spans.append([ts, last, name, i, "LAST", None])
        # an annotation on a GPU stream (gpu_user_annotation) is Kineto's
        # GPU-side copy of a record_function range whose CPU side is
        # already a call: neither a call nor time (docs/gpu.md)
        tot["calls"] += sum(1 for s in spans if not (is_gpu(tk, tr) and s[3] in gpu_label))
        if is_gpu(tk, tr):
            for s in sorted(spans, key=lambda s: (s[0], -s[1], s[3])):
                name, dur = s[2], s[1] - s[0]
                if s[3] in gpu_label:
                    continue
                path = launch.get(corr.get(s[3]), ["[unattributed gpu]"]) + [name]
                f(name)["calls"] += 1
                f(name)["gpu_self_ns"] += dur
                for n in set(path):
                    f(n)["gpu_incl_ns"] += dur
                p = paths.setdefault(";".join(path), {"calls": 0, "self_ns": 0, "gpu_ns": 0})
                p["calls"] += 1
                p["gpu_ns"] += dur
                tot["gpu"] += dur
                tot["gpu_n"] += 1
            continue
        # raw union
        cur_s = cur_e = None
        for s in sorted(spans, key=lambda s: (s[0], s[1])):
            if cur_e is None or s[0] > cur_e:
                if cur_e is not None:
                    tot["raw_union"] += cur_e - cur_s
                cur_s, cur_e = s[0], s[1]
            elif s[1] > cur_e:
                cur_e = s[1]
        if cur_e is not None:
            tot["raw_union"] += cur_e - cur_s

        spans.sort(key=lambda s: (s[0], -s[1], s[3]))
        st = []   # frames: [start, end, name, begin index, kind, end index, child_ns]
        st_corr = []  # the correlation id of each frame, or None

        def close():
            s0, e0, n0 = st[-1][0], st[-1][1], st[-1][2]
            c0 = st[-1][6]
            st.pop()
            r = f(n0)
            r["calls"] += 1
            r["self_ns"] += (e0 - s0) - c0
            tot["total"] += (e0 - s0) - c0
            if any(x[2] == n0 for x in st):
                r["recursive"] = True
            else:
                r["incl_ns"] += e0 - s0
            path = [x[2] for x in st] + [n0]
            if st_corr[-1] is not None:
                launch[st_corr[-1]] = path
            st_corr.pop()
            p = paths.setdefault(";".join(path), {"calls": 0, "self_ns": 0, "gpu_ns": 0})
            p["calls"] += 1
            p["self_ns"] += (e0 - s0) - c0
            if st:
                st[-1][6] += e0 - s0
            else:
                tot["root_union"] += e0 - s0

        def ended_before(top, s):
            """top ends exactly where s starts: did it end before s began?"""
            if top[4] == "X":
                return True
            if top[4] == "BE":
                return top[5] < s[3]
            return False       # closed at the track's last timestamp

        for s in spans:
            s = list(s) + [0]
            if rule == "pytorch":
                while st and (s[0] >= st[-1][1] or s[1] > st[-1][1]):
                    close()
            else:
                # a. close what ended before s began
                while st and (st[-1][1] < s[0] or (st[-1][1] == s[0] and ended_before(st[-1], s))):
                    close()
                # b. s overlaps the top by more than the tolerance: cut the top at s's start
                while st and s[1] > st[-1][1] + tol:
                    diag["overlap_cut"] += 1
                    diag["overlap_cut_ns"] += st[-1][1] - s[0]
                    note("overlap_cut(by %s)" % json.dumps(s[2]), tk, st[-1][2], st[-1][0], st[-1][1], st[-1][1] - s[0])
                    st[-1][1] = s[0]
                    close()
                # c. a small overhang: clip s to its parent
                if st and s[1] > st[-1][1]:
                    diag["child_clipped"] += 1
                    diag["child_clipped_ns"] += s[1] - st[-1][1]
                    note("child_clipped(to %s)" % json.dumps(st[-1][2]), tk, s[2], s[0], s[1], s[1] - st[-1][1])
                    f(s[2])["clipped"] += 1
                    s[1] = st[-1][1]
            st.append(s)
            st_corr.append(corr.get(s[3]))
            tot["max_depth"] = max(tot["max_depth"], len(st))
        while st:
            close()

    for c in counters.values():
        for k in ("min", "max", "sum"):
            c[k] = float(c[k]) if c[k] is not None else None
    assert tot["total"] == tot["root_union"], "oracle: total self %d != root union %d" % (tot["total"], tot["root_union"])
    return {"funcs": funcs, "paths": paths, "total_ns": tot["total"], "gpu_ns": tot["gpu"],
            "gpu_activities": tot["gpu_n"],
            "root_union_ns": tot["root_union"],
            "raw_union_ns": tot["raw_union"], "calls": tot["calls"], "max_depth": tot["max_depth"],
            "diag": dict(sorted(diag.items())), "counters": counters, "tracks": len(tracks),
            "trace_spans": trace_spans, "events": len(evs)}


def main(argv):
    args = argv[1:]
    keep = "--keep-trace-span" in args
    tol = 1000
    rule = "clip"
    log = None
    paths = []
    i = 0
    while i < len(args):
        a = args[i]
        if a == "--keep-trace-span":
            pass
        elif a == "--list-repairs":
            log = sys.stderr
        elif a == "--clip-tolerance":
            i += 1
            tol = tolerance_ns(args[i])
        elif a.startswith("--clip-tolerance="):
            tol = tolerance_ns(a.split("=", 1)[1])
        elif a == "--rule":
            i += 1
            rule = args[i]
        elif a.startswith("-") and a != "-":
            sys.exit(__doc__)
        else:
            paths.append(a)
        i += 1
    if len(paths) != 1 or rule not in ("clip", "pytorch"):
        sys.exit(__doc__)
    evs, form, truncated = load(paths[0])
    out = analyse(evs, keep, tol, rule, log)
    out["form"] = form
    if truncated:
        out["diag"]["truncated"] = 1
    json.dump(out, sys.stdout, indent=1, sort_keys=True)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main(sys.argv)
