#!/usr/bin/env python3
"""bwd_check.py - backward ops under their forward op (--backward-to-forward),
computed from a Kineto trace's JSON itself, not from tracefold.

Facts of the format relied on (PyTorch's Kineto export, checked on
tests/data/chrome/pytorch211-h200-gpt):
  - GPU activities are X events of category kernel, gpu_memcpy, gpu_memset;
    each carries args.correlation, as does the CPU call that launched it
    (category cuda_runtime or cuda_driver);
  - the ops the autograd engine runs are cpu_op X events with args
    "Fwd thread id" > 0 (forward ops have 0) and "Sequence number"; the
    engine's "autograd::engine::evaluate_function: NAME" wrapper and the op
    NAME inside it carry the same pair;
  - a fwdbwd flow links a forward op to its backward op: "s" at the forward
    op's start on its thread, "f" at the backward op's start on its thread,
    the same id;
  - Python frames are X events of category python_function.

A GPU activity's launch lies inside regions of its thread (by time). With
the re-parenting, when the outermost backward op around the launch has a
link (a flow ending on a backward op of its thread with the same pair), the
activity also lies under the forward op (the innermost cpu_op starting where
the flow starts) and everything around that one.

  bwd_check.py facts TRACE.json[.gz]         -> JSON facts on stdout
  bwd_check.py compare FACTS OFF.folded ON.folded
      OFF/ON: `tracefold fold --sample-type gpu` without and with
      --backward-to-forward; exits 1 naming every difference.
"""
import bisect
import collections
import gzip
import json
import re
import sys
from decimal import Decimal

GPU_CATS = ("kernel", "gpu_memcpy", "gpu_memset")
LAUNCH_CATS = ("cuda_runtime", "cuda_driver")
ADDR = re.compile(r" at 0x[0-9a-fA-F]+(?![0-9A-Za-z_])")


def ns(v):
    return int(Decimal(str(v)) * 1000)


def load(path):
    op = gzip.open if path.endswith(".gz") else open
    with op(path, "rt", encoding="utf-8") as f:
        d = json.load(f)
    return d["traceEvents"] if isinstance(d, dict) else d


class Thread:
    """The regions of one thread, by start, for 'which contain [a, b)'."""

    def __init__(self):
        self.regs = []

    def done(self):
        self.regs.sort(key=lambda r: (r[0], -r[1]))
        self.starts = [r[0] for r in self.regs]

    def around(self, a, b):
        """Regions [s, e) with s <= a and b <= e (outermost first)."""
        hi = bisect.bisect_right(self.starts, a)
        return [r for r in self.regs[:hi] if r[1] >= b]


def facts(path):
    evs = load(path)
    threads = collections.defaultdict(Thread)
    launches, gpu = {}, []
    flows = {"s": {}, "f": {}}
    for e in evs:
        ph, cat = e.get("ph"), e.get("cat")
        if ph in ("s", "f") and cat == "fwdbwd":
            flows[ph][(e["pid"], e["tid"], ns(e["ts"]))] = e["id"]
            continue
        if ph != "X" or "dur" not in e:
            continue
        a = ns(e["ts"])
        b = a + ns(e["dur"])
        args = e.get("args") or {}
        if cat in GPU_CATS:
            gpu.append((args.get("correlation"), b - a))
            continue
        if cat in LAUNCH_CATS and "correlation" in args:
            launches[args["correlation"]] = (e["pid"], e["tid"], a, b)
        if cat in ("cpu_op", "python_function", "user_annotation") or cat in LAUNCH_CATS:
            key = None
            if cat == "cpu_op" and args.get("Fwd thread id", 0) > 0 and "Sequence number" in args:
                key = (args["Fwd thread id"], args["Sequence number"])
            threads[(e["pid"], e["tid"])].regs.append((a, b, e["name"], cat, key))
    for t in threads.values():
        t.done()
    # the forward op of each flow id: the innermost cpu_op starting at "s"
    fwd = {}
    for (pid, tid, ts), fid in flows["s"].items():
        t = threads.get((pid, tid))
        ops = [r for r in (t.around(ts, ts) if t else []) if r[0] == ts and r[3] == "cpu_op"]
        if ops:
            fwd[fid] = ((pid, tid), min(ops, key=lambda r: r[1] - r[0]))
    # a backward key's link: the flow ending on a region with that key
    link = {}
    for (pid, tid, ts), fid in flows["f"].items():
        t = threads.get((pid, tid))
        for r in (t.around(ts, ts) if t else []):
            if r[0] == ts and r[4]:
                link[((pid, tid), r[4])] = fid
    # every backward op that is outermost (no backward op around it)
    linked = unlinked = 0
    for th, t in threads.items():
        for r in t.regs:
            if r[4] and not any(o[4] and o is not r for o in t.around(r[0], r[1])):
                if link.get((th, r[4])) in fwd:
                    linked += 1
                else:
                    unlinked += 1

    def pythonic(th, a, b):
        return any(r[3] == "python_function" for r in threads[th].around(a, b))

    total = py_off = py_on = unattributed = 0
    per_fwd = collections.Counter()
    for corr, d in gpu:
        total += d
        l = launches.get(corr)
        if not l:
            unattributed += d
            continue
        th, a, b = (l[0], l[1]), l[2], l[3]
        reg = threads[th].around(a, b)
        under_py = any(r[3] == "python_function" for r in reg)
        py_off += d * under_py
        bw = [r for r in reg if r[4]]
        f = fwd.get(link.get((th, bw[0][4]))) if bw else None
        if f:
            fth, fr = f
            per_fwd[ADDR.sub("", fr[2])] += d
            under_py = under_py or pythonic(fth, fr[0], fr[1])
        py_on += d * under_py
    pynames = sorted({ADDR.sub("", r[2]) for t in threads.values() for r in t.regs if r[3] == "python_function"})
    return {"gpu_ns": total, "python_ns_off": py_off, "python_ns_on": py_on, "unattributed_ns": unattributed,
            "backward_ns_per_forward_op": dict(sorted(per_fwd.items())), "bwd_linked": linked,
            "bwd_unlinked": unlinked, "python_frames": pynames}


def folded(path, pynames):
    total = py = 0
    per_fwd = collections.Counter()
    with open(path, encoding="utf-8") as f:
        for line in f:
            stack, _, v = line.rstrip("\n").rpartition(" ")
            v = int(v)
            frames = stack.split(";")
            total += v
            py += v * any(fr in pynames for fr in frames)
            for i, fr in enumerate(frames):
                if fr == "[backward]" and i:
                    per_fwd[frames[i - 1]] += v
                    break
    return total, py, per_fwd


def compare(fx, off, on):
    pyn = set(fx["python_frames"])
    errs = []
    t0, p0, b0 = folded(off, pyn)
    t1, p1, b1 = folded(on, pyn)
    for what, got, want in (("gpu total without the option", t0, fx["gpu_ns"]),
                            ("gpu total with the option", t1, fx["gpu_ns"]),
                            ("gpu under a Python frame without the option", p0, fx["python_ns_off"]),
                            ("gpu under a Python frame with the option", p1, fx["python_ns_on"]),
                            ("[backward] frames without the option", sum(b0.values()), 0)):
        if got != want:
            errs.append(f"{what}: tracefold {got}, checker {want}")
    want = collections.Counter(fx["backward_ns_per_forward_op"])
    for name in sorted(set(want) | set(b1)):
        if want[name] != b1[name]:
            errs.append(f"gpu under [backward] of forward op {name!r}: tracefold {b1[name]}, checker {want[name]}")
    for e in errs:
        print(e)
    if fx["gpu_ns"]:
        print(f"under a Python frame: {100 * p0 / fx['gpu_ns']:.1f}% without, {100 * p1 / fx['gpu_ns']:.1f}% with "
              f"--backward-to-forward ({len(want)} forward op names with backward GPU time)")
    return 1 if errs else 0


def main():
    if len(sys.argv) == 3 and sys.argv[1] == "facts":
        json.dump(facts(sys.argv[2]), sys.stdout, indent=1)
        print()
        return 0
    if len(sys.argv) == 5 and sys.argv[1] == "compare":
        with open(sys.argv[2]) as f:
            return compare(json.load(f), sys.argv[3], sys.argv[4])
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main())
