#!/usr/bin/env python3
"""bench/gate/measure.py POOL [N] [--tf ./tracefold]: the false-alarm rate and
the power of `tracefold diff --gate` on real repeated runs (bench/gate/pool.sh
POOL), printed as the Markdown tables of docs/gate.md.

  - false alarms: N comparisons (default 100) of disjoint random draws of
    identical-code runs (a-*) per configuration of runs per side (1 v 1,
    3 v 1, 3 v 3, 5 v 5, and 1 v 1 with 3 more as --history); a comparison
    with any regressed row (or total) is a false alarm.  For contrast,
    `diff --fail-above 5` on the same 1 v 1 and 3 v 3 draws (the runs of a
    side summed).
  - power: for each injected slowdown (s5, s10, s25: aten::bmm does 5, 10,
    25% more work; h200, h600: 200 or 600 us more host work per step in
    `data`), N/2 comparisons of A runs against slowed runs at 3 v 1, 3 v 3
    and 5 v 5: the share where the slowed row (aten::bmm, data) is regressed,
    the median change the runs showed and the median minimum detectable
    effect (80% power) the gate reported for that row.

--interleaved: every comparison's runs come from a window of consecutive
rounds (as a CI job records BASE and NEW interleaved, docs/gate.md), not
from the whole pool (runs up to the pool's length apart).

Draws are seeded (random.Random(1)), so the tables are reproducible from the
same pool.  Comparisons of one configuration reuse runs (the pool is finite),
so they are not independent; the rate is still the share of comparisons a
CI would have failed."""
import json, os, random, statistics, subprocess, sys

args = [a for a in sys.argv[1:]]
tf = "./tracefold"
if "--tf" in args:
    i = args.index("--tf")
    tf = args[i + 1]
    del args[i:i + 2]
INTERLEAVED = "--interleaved" in args
if INTERLEAVED:
    args.remove("--interleaved")
pool = args[0]
N = int(args[1]) if len(args) > 1 else 100
files = sorted(f for f in os.listdir(pool) if f.endswith(".pb.gz"))
kinds = {}
for f in files:
    kinds.setdefault(f.split("-")[0], []).append(os.path.join(pool, f))
rng = random.Random(1)


def gate(base, new, hist=None, extra=()):
    cmd = [tf, "-q", "diff", "--gate", "--format", "json", "-n", "0", ",".join(base), ",".join(new)] + list(extra)
    if hist:
        d = "/tmp/tf-gate-hist-%d" % os.getpid()
        subprocess.run(["rm", "-rf", d])
        os.makedirs(d)
        for k, h in enumerate(hist):
            os.symlink(os.path.abspath(h), "%s/run-%03d.pb.gz" % (d, k))
        cmd += ["--history", d]
    out = subprocess.run(cmd, capture_output=True, text=True)
    if out.returncode not in (0, 1):
        sys.exit("measure: %s: exit %d: %s" % (" ".join(cmd), out.returncode, out.stderr))
    return json.loads(out.stdout), out.returncode


def fail_above(base, new):
    cmd = [tf, "-q", "diff", "--fail-above", "5", ",".join(base), ",".join(new)]
    return subprocess.run(cmd, capture_output=True, text=True).returncode == 1


def round_of(f):
    """The round of pool.sh that recorded f: 3 a-runs a round, 1 of the others."""
    kind, n = os.path.basename(f).split(".")[0].split("-")
    return int(n) // 3 if kind == "a" else int(n)


def draw(pools_counts):
    """Disjoint draws: [(pool, k), ...] -> lists.  INTERLEAVED: all from a
    window of consecutive rounds, as one CI job records its runs."""
    used, out = set(), []
    window = None
    if INTERLEAVED:
        need = max(k for _, k in pools_counts)
        nrounds = max(round_of(f) for f in kinds["a"]) + 1
        w = max(need, -(-sum(k for p, k in pools_counts if p == "a") // 3))
        start = rng.randrange(0, nrounds - w + 1)
        window = range(start, start + w)
    for p, k in pools_counts:
        cand = [f for f in kinds[p] if f not in used and (window is None or round_of(f) in window)]
        pick = rng.sample(cand, k)
        used |= set(pick)
        out.append(pick)
    return out


def false_alarms():
    print("| runs per side (BASE v NEW) | comparisons | with a regressed row | false-alarm rate | `--fail-above 5` |")
    print("|---|---:|---:|---:|---:|")
    for nb, nn, nh in ((1, 1, 0), (3, 1, 0), (3, 3, 0), (5, 5, 0), (1, 1, 3), (1, 1, 10), (3, 1, 10)):
        alarms = fa = 0
        for _ in range(N):
            b, n, h = draw([("a", nb), ("a", nn), ("a", nh)])
            d, rc = gate(b, n, h)
            alarms += rc == 1
            if not nh and nb == nn and nb in (1, 3):
                fa += fail_above(b, n)
        contrast = "%d of %d (%.0f%%)" % (fa, N, 100.0 * fa / N) if not nh and nb == nn and nb in (1, 3) else ""
        print("| %d v %d%s | %d | %d | %.1f%% | %s |" % (nb, nn, " + %d history" % nh if nh else "", N, alarms,
                                                      100.0 * alarms / N, contrast))


def power():
    print()
    print("| slowdown | row | runs per side | comparisons | regressed | power | median change seen | median MDE (80% power) |")
    print("|---|---|---|---:|---:|---:|---:|---:|")
    for kind, row, what in (("s5", "aten::bmm", "5% more work"), ("s10", "aten::bmm", "10% more work"),
                            ("s25", "aten::bmm", "25% more work"), ("h200", "data", "+200 us host"),
                            ("h600", "data", "+600 us host")):
        if kind not in kinds:
            continue
        for nb, nn in ((3, 1), (3, 3), (5, 5)):
            hits, seen, mde = 0, [], []
            m = max(N // 2, 1)
            for _ in range(m):
                b, n = draw([("a", nb), (kind, nn)])
                d, rc = gate(b, n)
                r = [x for x in d["rows"] if x["name"] == row]
                if not r:
                    continue
                r = r[0]
                hits += r["verdict"] == "regressed"
                base = r["self"]["base"]
                seen.append((r["change"]["value"], base))
                if r["change"]["mde"] is not None:
                    mde.append((r["change"]["mde"], base))
            def fmt(v):  # per step: us, and % of BASE's value of the row
                if not v:
                    return "-"
                a = statistics.median(x for x, _ in v)
                b = statistics.median(y for _, y in v)
                return "%+.0f us (%+.1f%%)" % (a / 1e3, 100.0 * a / b) if b else "%+.0f us" % (a / 1e3)
            print("| %s | `%s` | %d v %d | %d | %d | %.0f%% | %s | %s |" % (
                what, row, nb, nn, m, hits, 100.0 * hits / m, fmt(seen), fmt(mde).replace("+", "")))


false_alarms()
power()
