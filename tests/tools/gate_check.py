#!/usr/bin/python3
"""gate_check.py REPORT.json TYPE BASE1.pb.gz,... NEW1.pb.gz,... [HIST1.pb.gz,...]
                 [--paths] [--by total] [--alpha A] [--min-effect PCT]
                 [--min-share PCT] [--steady-noise PCT]

An independent check of `tracefold diff --gate` (tests/e2e/gate.sh): the
model of docs/gate.md computed again from the runs' profiles, as
`go tool pprof -raw` decodes them (tests/tools/pprof_raw.py), with numpy and
scipy (scipy.special's digamma and polygamma, scipy.stats.t, brentq for the
trigamma inverse) instead of tracefold's C, and compared with REPORT.json
(diff --gate --format json -n 0), the type TYPE of its "types":

  - every row (function, or call path with --paths) and the total: the
    per-step means of each side, the change, the simultaneous interval
    (relative 1e-6 of the values; 1e-4 for the interval, whose quantile
    both compute numerically), the verdict, exactly;
  - the family size, the basis of the noise and the prior's degrees of
    freedom; the false-alarm rate --alpha shared by the types judged (each
    gets alpha / their number).

Prints what differs and exits 1, else prints a summary and exits 0.
Needs Debian's python3-numpy and python3-scipy (run with /usr/bin/python3)."""
import json, math, os, sys
import numpy as np
from scipy import optimize, special, stats

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import pprof_raw  # noqa: E402

STEADY = {"gpu", "calls", "alloc_space", "alloc_objects"}
VERDICTS = ["unchanged", "immaterial", "unresolved", "improved", "regressed"]


def run_rows(path, typ, paths, by_total, fold):
    """Per row: the values per step of one run; and the step totals."""
    text, _ = pprof_raw.raw(path)
    types, samples, locs = pprof_raw.parse(text)
    names = [t.split("/")[0] for t in types]
    ti = names.index(typ) if typ in names else None
    steps = sorted({s["labels"]["step"] for s in samples if "step" in s["labels"]}, key=int)
    whole = not steps
    index = {"0": 0} if whole else {k: i for i, k in enumerate(steps)}
    k = len(index)
    rows, total = {}, np.zeros(k)
    for s in samples:
        st = "0" if whole else s["labels"].get("step")
        if st is None:
            continue
        v = s["values"][ti] if ti is not None else 0
        j = index[st]
        total[j] += v
        stack = [locs[l][0] for l in reversed(s["locs"])]  # root first
        if not stack:
            continue
        leaf = len(stack) - 1
        if len(stack) >= 2 and stack[-1] in fold:  # a replaced kernel: its launch's caller
            leaf = len(stack) - 3 if len(stack) >= 3 else len(stack) - 2
        key = (lambda i: ";".join(stack[:i + 1])) if paths else (lambda i: stack[i])
        if not by_total:
            rows.setdefault(key(leaf), np.zeros(k))[j] += v
        else:  # every row on the stack once; a replaced kernel is its caller's, already there
            for name in {key(i) for i in range(len(stack) if leaf == len(stack) - 1 else len(stack) - 1)}:
                rows.setdefault(name, np.zeros(k))[j] += v
    return rows, total, k, whole


def gpu_frames(path):
    text, _ = pprof_raw.raw(path)
    types, samples, locs = pprof_raw.parse(text)
    names = [t.split("/")[0] for t in types]
    if "gpu" not in names:
        return set()
    g = names.index("gpu")
    return {locs[s["locs"][0]][0] for s in samples if s["locs"] and s["values"][g] > 0}


def trigamma_inv(y):
    return optimize.brentq(lambda x: special.polygamma(1, x) - y, 1e-8, 1e8)


def fit_prior(v, d):
    """Smyth's prior (limma's fitFDist): (s0^2, d0) from the log variances,
    d0 at most the rows' pooled degrees of freedom."""
    v, d = np.array(v, float), np.array(d, float)
    keep = (v > 0) & (d > 0)
    v, d = v[keep], d[keep]
    if len(v) < 3:
        return 0.0, 0.0
    e = np.log(v) - special.digamma(d / 2) + np.log(d / 2)
    var = np.var(e, ddof=1) - np.mean(special.polygamma(1, d / 2))
    d0 = 2 * trigamma_inv(var) if var > 0 else math.inf
    d0 = min(d0, float(np.sum(d)))
    return float(np.exp(np.mean(e) + special.digamma(d0 / 2) - np.log(d0 / 2))), d0


def moderate(s2, d, s0, d0):
    if math.isinf(d0):
        return s0
    return s2 if d0 + d <= 0 else (d0 * s0 + d * s2) / (d0 + d)


def main(argv):
    opts = {"--alpha": "0.05", "--min-effect": "3", "--min-share": "0.5", "--steady-noise": "0.5", "--by": "self"}
    pos, i = [], 0
    paths = False
    while i < len(argv):
        if argv[i] == "--paths":
            paths = True
        elif argv[i] in opts:
            opts[argv[i]] = argv[i + 1]
            i += 1
        else:
            pos.append(argv[i])
        i += 1
    report, typ = json.load(open(pos[0])), pos[1]
    ntypes = len(report["types"])  # the false alarms are shared by the types judged
    sides = [p.split(",") if p else [] for p in pos[2:5]] + [[]] * (5 - len(pos))
    base, new, hist = sides[0], sides[1], sides[2]
    by_total = opts["--by"] == "total"
    alpha, eff, share = float(opts["--alpha"]), float(opts["--min-effect"]) / 100, float(opts["--min-share"]) / 100
    floor = float(opts["--steady-noise"]) / 100 if typ in STEADY else 0.0
    gb, gn = set().union(*[gpu_frames(p) for p in base]), set().union(*[gpu_frames(p) for p in new])
    fold = gb ^ gn
    runs = []  # (side, rows, total, k)
    for side, lst in enumerate((base, new, hist)):
        for p in lst:
            rows, total, k, _ = run_rows(p, typ, paths, by_total, fold)
            runs.append((side, {n: (v.mean(), v.var(ddof=1) if k > 1 else 0.0) for n, v in rows.items()},
                         (total.mean(), total.var(ddof=1) if k > 1 else 0.0), k))
    R = [sum(1 for r in runs if r[0] == s) for s in range(3)]

    def stat(get):
        x = [get(r) for r in runs]  # per run: (mean per step, variance over its steps)
        mean = [np.mean([xm for r, (xm, _) in zip(runs, x) if r[0] == sd]) if R[sd] else 0.0 for sd in range(3)]
        scale = (abs(mean[0]) + abs(mean[1])) / 2
        if scale == 0:
            return None
        rss = sum(((xm - mean[r[0]]) / scale) ** 2 for r, (xm, _) in zip(runs, x))
        dfs = sum(r[3] - 1 for r in runs)
        s2 = sum((r[3] - 1) * w / scale ** 2 for r, (_, w) in zip(runs, x)) / dfs if dfs else 0
        ik = [sum(1 / r[3] for r in runs if r[0] == sd) for sd in range(2)]
        return dict(mean=mean, scale=scale, rss=rss, df_run=sum(max(n - 1, 0) for n in R), s2=s2, df_step=dfs,
                    step_part=ik[0] / R[0] ** 2 + ik[1] / R[1] ** 2, runs_part=1 / R[0] + 1 / R[1])

    names = set().union(*[r[1].keys() for r in runs])
    st = {n: stat(lambda r, n=n: r[1].get(n, (0.0, 0.0))) for n in sorted(names)}
    st = {n: s for n, s in st.items() if s}
    ts = stat(lambda r: r[2])
    T = ts["mean"][0] if ts["mean"][0] != 0 else ts["mean"][1]
    steady = typ in STEADY
    basis = "steps" if steady and ts["df_step"] >= 1 else "runs" if ts["df_run"] >= 1 else "none"
    tested = {n for n, s in st.items() if max(abs(s["mean"][0]), abs(s["mean"][1])) >= share * abs(T)}
    order = sorted(tested)
    if basis == "runs":
        v = [st[n]["rss"] / st[n]["df_run"] for n in order]
        d = [st[n]["df_run"] for n in order]
    else:
        v = [st[n]["s2"] for n in order]
        d = [st[n]["df_step"] for n in order]
    s0, d0 = fit_prior(v, d) if basis != "none" else (0.0, 0.0)
    dfb = ts["df_run"] if basis == "runs" else ts["df_step"]
    df = math.inf if math.isinf(d0) else dfb + d0
    m = len(tested) + 1
    crit = stats.t.ppf(1 - alpha / ntypes / (2 * m), df) if basis != "none" else math.nan

    def judge(s, is_tested):
        b, nw = s["mean"][0], s["mean"][1]
        delta = nw - b
        thr = max(eff * abs(b if b != 0 else nw), share * abs(T))
        if not is_tested:
            return "immaterial", delta, None
        if basis == "none":
            return "unresolved", delta, None
        if basis == "runs":
            var = moderate(s["rss"] / s["df_run"], s["df_run"], s0, d0) * s["runs_part"]
            var = max(var, s["s2"] * s["step_part"], floor ** 2 * s["runs_part"])
        else:
            var = moderate(s["s2"], s["df_step"], s0, d0) * s["step_part"] + floor ** 2 * s["runs_part"]
        se = s["scale"] * math.sqrt(var)
        lo, hi = delta - crit * se, delta + crit * se
        if lo > 0 or hi < 0 or (se == 0 and delta != 0):
            vd = "immaterial" if abs(delta) < thr else "regressed" if delta > 0 else "improved"
        else:
            vd = "unchanged" if lo > -thr and hi < thr else "unresolved"
        return vd, delta, (lo, hi)

    got = [t for t in report["types"] if t["sample_type"] == typ]
    if not got:
        sys.exit("gate_check: no type %s in the report" % typ)
    got = got[0]
    bad = []

    def close(a, b, rel):  # the report prints 3 decimals
        return abs(a - b) <= 0.002 + rel * max(abs(a), abs(b))

    def compare(label, mine, row):
        vd, delta, iv = mine
        if row["verdict"] != vd:
            bad.append("%s: verdict %s, the model says %s" % (label, row["verdict"], vd))
        if not close(row["change"]["value"], delta, 1e-6):
            bad.append("%s: change %s, the model says %s" % (label, row["change"]["value"], delta))
        ti = row["change"]["interval"]
        if (ti is None) != (iv is None) or (iv and not (close(ti[0], iv[0], 1e-4) and close(ti[1], iv[1], 1e-4))):
            bad.append("%s: interval %s, the model says %s" % (label, ti, iv))

    compare("total", judge(ts, True), got["total"])
    rows = {r["name"]: r for r in got["rows"]}
    if set(rows) != set(st):
        bad.append("rows differ: only in the report %s; only in the model %s"
                   % (sorted(set(rows) - set(st))[:5], sorted(set(st) - set(rows))[:5]))
    for n in sorted(set(rows) & set(st)):
        compare(n, judge(st[n], n in tested), rows[n])
    if got["noise"]["basis"] != basis:
        bad.append("basis %s, the model says %s" % (got["noise"]["basis"], basis))
    if got["noise"]["family"] != m:
        bad.append("family %s, the model says %d" % (got["noise"]["family"], m))
    pd = got["noise"]["prior_df"]
    if not (pd is not None and close(pd, d0, 1e-4)):
        bad.append("prior df %s, the model says %s" % (pd, d0))
    for b in bad[:30]:
        print("gate_check:", b)
    if bad:
        return 1
    counts = {v: sum(1 for r in got["rows"] if r["verdict"] == v) for v in VERDICTS}
    print("gate_check: %s: %d rows and the total as the model says (basis %s, family %d, %s)"
          % (typ, len(rows), basis, m, ", ".join("%s %d" % kv for kv in counts.items() if kv[1])))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
