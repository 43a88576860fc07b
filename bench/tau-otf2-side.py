#!/usr/bin/env python3
"""tau-otf2-side.py: issue 33's TAU and OTF2 rates, side by side with a reference build.

usage: tau-otf2-side.py REF_TRACEFOLD NEW_TRACEFOLD TAU_DIR OTF2_DIR OTF2_NULL [ROUNDS]

Each round runs, the order of ref and new swapped every round: `gzip -dc`
of TAU_DIR's trace gzipped beside the folder (TAU_DIR.trc.gz, made once with
gzip -1: the normalization by a quiet machine's decompression speed), then
`profile -j 1` of TAU_DIR with both builds; the libotf2 null loop
(bench/otf2-null.c) on OTF2_DIR's anchor, then `profile -j 1` and `-j 2` of
OTF2_DIR with both builds (TRACEFOLD_THREADS=1: the serial event path).
Prints per case the median (and range) of wall time (perf_counter) and CPU
time (user + sys of the process and its workers, getrusage), then the ratios
(docs/performance.md, "TAU and OTF2 rates (issue 33)").  Inputs:
bench/gen_tau.py (3.9 M records: TARGET_BYTES 93600000) and bench/gen-otf2.c."""
import collections, os, resource, statistics as st, subprocess, sys, time

ref, new, tau, otf2, null = sys.argv[1:6]
rounds = int(sys.argv[6]) if len(sys.argv) > 6 else 9
trc = os.path.join(tau, "tautrace.0.0.0.trc")
gz = tau.rstrip("/") + ".trc.gz"  # beside the folder: a .trc.gz inside it would be read too
if not os.path.exists(gz):
    with open(gz, "wb") as f:
        subprocess.run(["gzip", "-1", "-c", trc], stdout=f, check=True)
out = os.environ.get("TMPDIR", "/tmp")
res = collections.defaultdict(list)
env1 = dict(os.environ, TRACEFOLD_THREADS="1")


def run(label, cmd, env=None):
    r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    subprocess.run(cmd, stdout=subprocess.DEVNULL, check=True, env=env)
    t1 = time.perf_counter()
    r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    res[label].append((t1 - t0, r1.ru_utime - r0.ru_utime + r1.ru_stime - r0.ru_stime))


for i in range(rounds):
    order = [("new", new), ("ref", ref)] if i % 2 == 0 else [("ref", ref), ("new", new)]
    run("gzip -dc", ["gzip", "-dc", gz])
    for w, b in order:
        run("tau " + w, [b, "-q", "profile", "-j", "1", tau, "-o", os.path.join(out, "side-tau-%s.pb.gz" % w)])
    run("otf2 null", [null, os.path.join(otf2, "traces.otf2")])
    for w, b in order:
        for j in ("1", "2"):
            run("otf2 -j%s %s" % (j, w), [b, "-q", "profile", "-j", j, otf2, "-o",
                                           os.path.join(out, "side-otf2-%s-%s.pb.gz" % (j, w))], env1)
med = {}
for label, v in res.items():
    w, c = [x[0] for x in v], [x[1] for x in v]
    med[label] = (st.median(w), st.median(c))
    print("%-12s n=%d wall %.4f [%.4f-%.4f] s  cpu %.4f [%.4f-%.4f] s"
          % (label, len(v), med[label][0], min(w), max(w), med[label][1], min(c), max(c)))
records = os.path.getsize(trc) // 24
for w in ("ref", "new"):
    wall, cpu = med["tau " + w]
    print("tau %s: %.1f M records/s wall, %.1f M/s cpu; x gzip -dc: %.3f wall, %.3f cpu"
          % (w, records / wall / 1e6, records / cpu / 1e6, wall / med["gzip -dc"][0], cpu / med["gzip -dc"][1]))
    for j in ("1", "2"):
        wall, cpu = med["otf2 -j%s %s" % (j, w)]
        print("otf2 -j%s %s: x null loop %.2f wall, %.2f cpu" % (j, w, wall / med["otf2 null"][0], cpu / med["otf2 null"][1]))
