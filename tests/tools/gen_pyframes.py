#!/usr/bin/env python3
"""gen_pyframes.py SEED NFRAMES OUT [ODD...]: a Chrome trace of Kineto-style
Python frames (X events with "Python id" / "Python parent id", ids rising in
pre-order, children overhanging their parents by a little, as Kineto's
rounding makes them), with cpu_op X events and B/E pairs between them, on
two threads (tests/e2e/py_frames.sh).  ODD adds cases the rule must handle
exactly (docs/stack-rules.md, "Python frames"), each at a random place, late
ones included:
  fwd      a child written before its parent
  dup      a later frame with the id of an earlier one (a parent)
  missing  a parent left out (its children name an id never seen)
  self     a frame naming itself as its parent
  closed   a frame naming a parent that ended long before
  shuffle  ids unique but not rising
  outside  a child wholly outside its parent
  neg      a negative dur
  nodur    a frame without dur (running when tracing stopped)
  reuse    the second thread uses the first thread's ids
and one that is not odd:
  mem      frames named by their depth, no B/E pairs (the sorter keeps
           those in memory): memory that grows with the frames' number is
           theirs (tests/e2e/py_frames.sh)
"""
import json
import random
import sys


def tree(rng, n, t0, t1, depth, out, counter):
    """pre-order frames in [t0, t1): (start, dur, depth, parent_index)"""
    stack = [(t0, t1, None, 0)]
    items = []
    def rec(s, e, parent, d):
        if counter[0] >= n:
            return
        i = len(items)
        # a little overhang either side (us, 3 decimals)
        js = round(rng.choice([0, 0, 0, -0.001, -0.5, 0.002]), 3)
        je = round(rng.choice([0, 0, 0, 0.001, 0.7, -0.002]), 3)
        items.append([round(s + js, 3), round(e - s - js + je, 3), parent])
        counter[0] += 1
        k = rng.randint(0, 4) if d < 12 else 0
        if k == 0 or e - s < 4:
            return
        w = (e - s) / k
        for j in range(k):
            a = s + j * w + w * 0.1
            b = a + w * 0.8
            rec(round(a, 3), round(b, 3), i, d + 1)
    while counter[0] < n:
        rec(t0, t0 + 10000, None, 0)
        t0 += 10001
    return items


def main():
    seed, n, out = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
    odd = set(sys.argv[4:])
    rng = random.Random(seed)
    evs = []
    base_ids = {}
    for tid in (1, 2):
        items = tree(rng, n, 1000.0 * tid, 0, 0, evs, [0])
        first = 1 if (tid == 1 or 'reuse' in odd) else 1 + 10 * n
        ids = list(range(first, first + len(items)))
        if 'shuffle' in odd:
            k = rng.randrange(len(ids))
            part = ids[k:k + 50]
            rng.shuffle(part)
            ids[k:k + 50] = part
        recs = []
        depth = []
        for i, (s, d, p) in enumerate(items):
            depth.append(0 if p is None else depth[p] + 1)
            args = {"Python id": ids[i], "Python parent id": ids[p] if p is not None else None}
            name = "f%d.py(%d): g" % (i % 37, i % 11) if 'mem' not in odd else "d%d.py(1): g" % depth[i]
            recs.append({"ph": "X", "cat": "python_function", "name": name,
                         "pid": 7, "tid": tid, "ts": s, "dur": d, "args": args})
        def pick(lo=0):
            return rng.randrange(lo, len(recs))
        if 'fwd' in odd:
            for _ in range(3):
                c = pick(1)
                p = items[c][2]
                if p is not None:
                    recs.insert(p, recs.pop(c))
                    items.insert(p, items.pop(c))
        if 'dup' in odd:
            for _ in range(3):
                c = pick(1)
                p = items[c][2]
                if p is not None:
                    j = pick(c)
                    recs[j]["args"]["Python id"] = recs[p]["args"]["Python id"]
        if 'missing' in odd:
            c = pick(1)
            while items[c][2] is None:
                c = pick(1)
            del recs[items[c][2]]
        if 'self' in odd:
            c = pick()
            recs[c]["args"]["Python parent id"] = recs[c]["args"]["Python id"]
        if 'closed' in odd:
            c = pick(len(recs) // 2)
            recs[c]["args"]["Python parent id"] = recs[pick(0) // 4]["args"]["Python id"]
        if 'outside' in odd:
            c = pick(1)
            recs[c]["ts"] = round(recs[c]["ts"] - 20000, 3)
        if 'neg' in odd:
            recs[pick()]["dur"] = -3.5
        if 'nodur' in odd:
            del recs[pick()]["dur"]
        # cpu ops and B/E pairs between the frames, in the frames' time
        for k in range(len(recs) // 3):
            r = recs[rng.randrange(len(recs))]
            ts = r["ts"] + 0.25
            if k % 4 == 0 and 'mem' not in odd:
                recs.insert(rng.randrange(len(recs)), {"ph": "B", "cat": "user", "name": "be%d" % (k % 5),
                                                       "pid": 7, "tid": tid, "ts": ts})
                recs.insert(rng.randrange(len(recs)), {"ph": "E", "pid": 7, "tid": tid, "ts": ts + 0.5})
            else:
                recs.insert(rng.randrange(len(recs)), {"ph": "X", "cat": "cpu_op", "name": "aten::op%d" % (k % 9),
                                                       "pid": 7, "tid": tid, "ts": ts, "dur": 0.5})
        evs.extend(recs)
    with open(out, 'w') as f:
        json.dump({"traceEvents": evs}, f)


main()
