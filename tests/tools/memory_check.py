#!/usr/bin/env python3
"""memory_check.py TRACE.json[.gz] [PROFILE.pb.gz INFO.json]

What Kineto's "[memory]" instant events of a PyTorch trace say, computed
from the JSON with Python's own parser (not tracefold's code), and, given
tracefold's profile and `info --json` of the same trace, compared with them.

Facts of the format relied on (PyTorch's profiler with profile_memory=True,
its Kineto output): a memory event is {"ph": "i", "name": "[memory]",
"pid", "tid", "ts" (microseconds), "args": {"Bytes" (> 0 allocated, < 0
freed), "Addr", "Device Type" (c10's DeviceType: 0 CPU, 1 CUDA),
"Device Id" (-1 for the CPU), "Total Allocated", ...}}.  A free gives back
the block at Addr, on the same device of the same process.

Computed, per (pid, device) (device as torch names it: "cpu", "cuda:0"):
  allocations, alloc_bytes, frees, free_bytes, frees_unknown (a free whose
  address has no live allocation made in the trace: not subtracted; an
  event without "Addr", as PyTorch before 1.10 wrote them, is counted and
  never live);
  cross_thread_frees: frees of blocks another thread allocated;
  peak_bytes: the most live bytes allocated in the trace at once, events in
  time order (ties: file order), and peak_ns, when first reached;
  at_peak: per call path, the live bytes it had allocated then.
The call path of an event: the X events of its thread (pid, tid) that hold
its time (ts <= t < ts + dur), outermost first (start, then the longer),
named by the stable-name rules (tests/tools/stable_names.py); "[no region]"
when none does.  Kineto's whole-trace span (category Trace) is no region.

With PROFILE and INFO: alloc_space, free_space, inuse_space per (device,
call path) from `go tool pprof -raw PROFILE` must equal these (and
alloc_objects, free_objects, inuse_objects the counts), and INFO's
"memory" entries the per-device numbers.  Prints JSON; exit 1 on a
difference, naming it."""
import gzip, json, sys, os
from decimal import Decimal
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from stable_names import normalize
import pprof_raw

C10 = ["cpu", "cuda", "mkldnn", "opengl", "opencl", "ideep", "hip", "fpga", "maia", "xla", "vulkan",
       "metal", "xpu", "mps", "meta", "hpu", "ve", "lazy", "ipu", "mtia", "privateuseone"]

def ns(v):
    return int(Decimal(str(v)) * 1000)

def device(a):
    t, i = a.get("Device Type"), a.get("Device Id", -1)
    if t is None:
        return "unknown"
    name = C10[t] if 0 <= t < len(C10) else "device%d" % t
    return name + (":%d" % i if i is not None and i >= 0 else "")

def load(path):
    op = gzip.open if open(path, "rb").read(2) == b"\x1f\x8b" else open
    with op(path, "rt") as f:
        d = json.load(f)
    return d["traceEvents"] if isinstance(d, dict) else d

def regions_by_thread(evs):
    th = {}
    for e in evs:
        if e.get("ph") == "X" and e.get("cat") != "Trace" and "dur" in e:
            s = ns(e["ts"])
            th.setdefault((str(e.get("pid")), str(e.get("tid"))), []).append((s, s + ns(e["dur"]), normalize(e.get("name", ""))))
    for v in th.values():
        v.sort(key=lambda r: (r[0], -(r[1] - r[0])))
    return th

def path_at(regs, t):
    # the regions holding t, outermost first; a region holds the ones that
    # start inside it (the nesting the regions have)
    stack = []
    for s, e, n in regs:
        if s > t:
            break
        while stack and stack[-1][1] <= s:
            stack.pop()
        stack.append((s, e, n))
    p = [n for s, e, n in stack if s <= t < e]
    return ";".join(p) if p else "[no region]"

def oracle(path):
    evs = load(path)
    th = regions_by_thread(evs)
    mem = []
    for i, e in enumerate(evs):
        if e.get("name") == "[memory]" and e.get("ph") in ("i", "I") and isinstance(e.get("args"), dict) \
                and "Bytes" in e["args"]:
            mem.append((ns(e["ts"]), i, e))
    mem.sort(key=lambda m: (m[0], m[1]))
    devs, per_path, live_blocks, op_tid = {}, {}, {}, {}
    for t, i, e in mem:
        a = e["args"]
        b = int(a["Bytes"])
        if b == 0:
            continue
        key = (str(e.get("pid")), device(a))
        d = devs.setdefault(key, {"allocations": 0, "alloc_bytes": 0, "frees": 0, "free_bytes": 0,
                                  "frees_unknown": 0, "cross_thread_frees": 0, "peak_bytes": 0, "peak_ns": None, "live": 0,
                                  "cur": {}, "at_peak": {}})
        p = path_at(th.get((str(e.get("pid")), str(e.get("tid"))), []), t)
        pp = per_path.setdefault((key[1], p), {"alloc": 0, "alloc_n": 0, "free": 0, "free_n": 0})
        addr = (key, a.get("Addr"))
        if b > 0:
            d["allocations"] += 1
            d["alloc_bytes"] += b
            pp["alloc"] += b
            pp["alloc_n"] += 1
            if not a.get("Addr"):  # no address (PyTorch before 1.10): no free can be matched to it
                continue
            if addr in live_blocks:  # allocated again without a free
                op, ob = live_blocks.pop(addr)
                op_tid.pop(addr)
                d["cur"][op] = (d["cur"][op][0] - ob, d["cur"][op][1] - 1)
                d["live"] -= ob
            live_blocks[addr] = (p, b)
            op_tid[addr] = str(e.get("tid"))
            c = d["cur"].get(p, (0, 0))
            d["cur"][p] = (c[0] + b, c[1] + 1)
            d["live"] += b
            if d["live"] > d["peak_bytes"]:
                d["peak_bytes"], d["peak_ns"] = d["live"], t
                d["at_peak"] = {k: v for k, v in d["cur"].items() if v != (0, 0)}
        else:
            d["frees"] += 1
            d["free_bytes"] += -b
            pp["free"] += -b
            pp["free_n"] += 1
            if addr not in live_blocks:
                d["frees_unknown"] += 1
                continue
            op, ob = live_blocks.pop(addr)
            d["cur"][op] = (d["cur"][op][0] - ob, d["cur"][op][1] - 1)
            d["live"] -= ob
            if op_tid.pop(addr) != str(e.get("tid")):
                d["cross_thread_frees"] += 1
    return devs, per_path

def compare(devs, per_path, prof, info):
    errs = []
    text, _ = pprof_raw.raw(prof)
    types, samples, locs = pprof_raw.parse(text)
    got = {}
    for s in samples:
        names = [locs[l][0] for l in s["locs"]]
        v = dict(zip(types, s["values"]))
        dev = s["labels"].get("device")
        if dev is None:
            if any(v.get(t, 0) for t in types if t.split("/")[0] in
                   ("alloc_space", "free_space", "inuse_space", "alloc_objects", "free_objects", "inuse_objects")):
                errs.append("a memory sample without a device label: %s" % ";".join(reversed(names)))
            continue
        g = got.setdefault((dev, ";".join(reversed(names))), {})
        for t, x in v.items():
            g[t.split("/")[0]] = g.get(t.split("/")[0], 0) + x
    want = {}
    for (dev, p), pp in per_path.items():
        w = want.setdefault((dev, p), {})
        w["alloc_space"], w["alloc_objects"] = pp["alloc"], pp["alloc_n"]
        w["free_space"], w["free_objects"] = pp["free"], pp["free_n"]
    for (pid, dev), d in devs.items():
        for p, (b, n) in d["at_peak"].items():
            w = want.setdefault((dev, p), {})
            w["inuse_space"] = w.get("inuse_space", 0) + b
            w["inuse_objects"] = w.get("inuse_objects", 0) + n
    for k in sorted(set(want) | set(got)):
        for t in ("alloc_space", "alloc_objects", "free_space", "free_objects", "inuse_space", "inuse_objects"):
            if want.get(k, {}).get(t, 0) != got.get(k, {}).get(t, 0):
                errs.append("%s %s at %s: json %d, profile %d" % (k[0], t, k[1], want.get(k, {}).get(t, 0),
                                                                 got.get(k, {}).get(t, 0)))
    im = {(m["process"], m["device"]): m for m in info.get("memory", [])}
    if set(im) != set(devs):
        errs.append("info's devices %s, json's %s" % (sorted(im), sorted(devs)))
    for k, d in devs.items():
        m = im.get(k, {})
        for f in ("allocations", "alloc_bytes", "frees", "free_bytes", "frees_unknown", "peak_bytes", "peak_ns"):
            if f == "peak_ns" and d[f] is None and f not in m:
                continue
            if m.get(f) != d[f]:
                errs.append("%s %s: json %s, info %s" % ("/".join(k), f, d[f], m.get(f)))
        if d["at_peak"]:
            top = max(d["at_peak"].values(), key=lambda v: v[0])[0]
            if m.get("peak_call_path_bytes") != top:
                errs.append("%s: the most held at the peak by one call path: json %d, info %s" %
                            ("/".join(k), top, m.get("peak_call_path_bytes")))
            elif d["at_peak"].get(";".join(m.get("peak_call_path", [])), (0,))[0] != top:
                errs.append("%s: info's peak call path %s does not hold %d" % ("/".join(k), m.get("peak_call_path"), top))
    return errs

def main():
    devs, per_path = oracle(sys.argv[1])
    out = {"/".join(k): {f: v for f, v in d.items() if f not in ("cur", "live", "at_peak")} for k, d in devs.items()}
    for k, d in devs.items():
        if d["at_peak"]:
            p, (b, n) = max(d["at_peak"].items(), key=lambda kv: kv[1][0])
            out["/".join(k)]["top_at_peak"] = {"path": p, "bytes": b}
    print(json.dumps(out, indent=1, sort_keys=True))
    if len(sys.argv) > 3:
        with open(sys.argv[3]) as f:
            info = json.load(f)
        errs = compare(devs, per_path, sys.argv[2], info)
        for e in errs[:30]:
            print("DIFF " + e, file=sys.stderr)
        if errs:
            print("%d differences" % len(errs), file=sys.stderr)
            sys.exit(1)

if __name__ == "__main__":
    main()
