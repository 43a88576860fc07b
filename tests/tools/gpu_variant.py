#!/usr/bin/env python3
"""gpu_variant.py IN.json.gz OUT.json [--seed S] [--jitter F] [--gemm-slow F]
                  [--rename-gemm]

Another "run" of a real Kineto GPU trace, made from it for the tests of
diff --gate (tests/e2e/gate.sh), where no second GPU run of the same code
exists:

  - every Python object address (" at 0x..."), as another process has them,
    redrawn (the same object keeps one address within the file);
  - --jitter F: every GPU activity's duration times a random factor in
    [1 - F, 1 + F] (another run, or another machine of the same type:
    measured 0.2% between runs and machines);
  - --gemm-slow F: the GEMM kernels (nvjet_*, *gemm*, cutlass*) F longer
    (0.06: 6%, as a wider MLP made them);
  - --rename-gemm: those kernels named as cuBLAS's others (the tile shape
    changed), as it picks other kernels for other shapes.

Timestamps of CPU events are left as they are; GPU activities keep their
start and correlation id.  Output: plain JSON."""
import gzip, json, random, re, sys

args = sys.argv[1:]
src, out = args[0], args[1]
opt = {"--seed": "1", "--jitter": "0", "--gemm-slow": "0"}
rename = "--rename-gemm" in args
for k in opt:
    if k in args:
        opt[k] = args[args.index(k) + 1]
rng = random.Random(int(opt["--seed"]))
jitter, slow = float(opt["--jitter"]), float(opt["--gemm-slow"])
d = json.load(gzip.open(src))
addr = {}


def new_addr(m):
    a = m.group(1)
    if a not in addr:
        addr[a] = "0x%012x" % rng.randrange(0x7f0000000000, 0x7fffffffffff)
    return " at " + addr[a]


GPU = {"kernel", "gpu_memcpy", "gpu_memset"}
GEMM = re.compile(r"^nvjet_|gemm|cutlass", re.I)
for e in d["traceEvents"]:
    if not isinstance(e, dict):
        continue
    n = e.get("name")
    if isinstance(n, str) and " at 0x" in n:
        e["name"] = re.sub(r" at (0x[0-9a-fA-F]+)", new_addr, n)
    if e.get("ph") == "X" and e.get("cat") in GPU and isinstance(e.get("dur"), (int, float)):
        f = 1 + rng.uniform(-jitter, jitter) if jitter else 1
        if GEMM.search(e["name"]):
            f *= 1 + slow
            if rename:
                e["name"] = re.sub(r"_(\d+)x(\d+)_", lambda m: "_%dx%d_" % (int(m.group(1)) * 2, int(m.group(2))),
                                   e["name"], count=1)
        e["dur"] = round(e["dur"] * f, 3)
json.dump(d, open(out, "w"))
