#!/usr/bin/python3
"""Make a large trace out of a real one, keeping its bytes.

    gen-real.py kineto IN OUT COPIES [--rank R] [--world W]
    gen-real.py legacy IN OUT COPIES [--threads T]

kineto: IN is a Kineto trace (object form, `traceEvents`, as PyTorch's
export_chrome_trace writes it; plain or .gz). OUT gets the events of IN
COPIES times, each copy shifted in time by the trace's span plus 100 us, so
the copies follow one another as steps of one run do. Every event keeps its
text byte for byte (Kineto's pretty printing, its argument order, its
numbers' form) except the numbers that must differ between copies: `ts`,
the ids that tie events together (`External id`, `correlation`, flow `id`,
`Python id`, `Python parent id`, `Sequence number`) and the step number of
`ProfilerStep#N`. Metadata events (ph M) are written once. With --rank R,
`distributedInfo.rank` says R (a trace without `distributedInfo` gets
one, `{"backend": "nccl", "rank": R, "world_size": W}`, W 8 unless
--world says), and the ids move by R as well, so eight ranks made from one
trace are eight distinct files that tracefold reads as ranks 0..7.

legacy: IN is a legacy PyTorch trace (a bare array of X events, integer us,
as PyTorch 1.x's autograd profiler writes it). The copies go round robin to
T thread ids (1..T; default 3): copy k on thread k % T + 1, shifted by
(k // T) spans.

The output is written as it is made (memory: one copy of IN's events), so
it can be many gigabytes. Used by bench/bench-real.sh (issue 33).
"""
import gzip
import json
import re
import sys

KINETO_NUM = re.compile(
    rb'"(ts|External id|correlation|id|Python id|Python parent id|'
    rb'Sequence number)": (-?\d+)(\.\d+)?')
STEP = re.compile(rb'ProfilerStep#(\d+)')


def read(path):
    with open(path, 'rb') as f:
        head = f.read(2)
    op = gzip.open if head == b'\x1f\x8b' else open
    with op(path, 'rb') as f:
        return f.read()


def events_raw(text, start):
    """(offset, end) of each top-level object of the array at start."""
    dec = json.JSONDecoder()
    s = text.decode('utf-8')
    # byte offsets: work on the str, then encode each piece
    i = start
    n = len(s)
    out = []
    while True:
        while i < n and s[i] in ' \t\r\n,':
            i += 1
        if i >= n or s[i] == ']':
            return s, out, i
        obj, j = dec.raw_decode(s, i)
        out.append((i, j, obj))
        i = j


def kineto(inp, outp, copies, rank, world):
    text = read(inp)
    s = text.decode('utf-8')
    k = s.index('"traceEvents"')
    k = s.index('[', k) + 1
    s, evs, close = events_raw(text, k)
    # the text before the first event and after the last, as they were
    head = s[:evs[0][0]] if evs else s[:k]
    tail = s[evs[-1][1]:] if evs else s[close:]
    if rank is not None:
        if '"distributedInfo"' in head:
            head = re.sub(r'("rank": )\d+', lambda m: m.group(1) + str(rank),
                          head)
        else:
            # a single-process trace: give it the member a distributed
            # run's Kineto writes, so that tracefold reads the rank
            o = head.index('{') + 1
            head = (head[:o] + '\n  "distributedInfo": {"backend": "nccl", '
                    '"rank": %d, "world_size": %d},' % (rank, world)
                    + head[o:])
    lo = None
    hi = None
    maxid = 0
    steps = []
    for (_, _, e) in evs:
        if e.get('ph') == 'M' or 'ts' not in e:
            continue
        t = float(e['ts'])
        lo = t if lo is None else min(lo, t)
        hi = max(hi or t, t + float(e.get('dur', 0)))
    for m in KINETO_NUM.finditer(text):
        if m.group(1) != b'ts':
            maxid = max(maxid, int(m.group(2)))
    for m in STEP.finditer(text):
        steps.append(int(m.group(1)))
    span_ns = int((hi - lo) * 1000) + 100000
    idstep = maxid + 1
    nsteps = (max(steps) - min(steps) + 1) if steps else 0
    # templates: each event as bytes pieces and the numbers between
    tpl = []
    for (a, b, e) in evs:
        raw = s[a:b].encode('utf-8')
        meta = e.get('ph') == 'M'
        pieces = []
        last = 0
        for m in KINETO_NUM.finditer(raw):
            pieces.append(raw[last:m.start()])
            key = m.group(1)
            if key == b'ts':
                whole = int(m.group(2))
                frac = m.group(3) or b''
                digits = len(frac) - 1 if frac else 0
                pieces.append(('ts', key, whole, frac[1:], digits))
            else:
                pieces.append(('id', key, int(m.group(2))))
            last = m.end()
        rest = raw[last:]
        # step names inside the last piece or any text piece
        pieces.append(rest)
        tpl.append((meta, pieces))
    with open(outp, 'wb') as out:
        out.write(head.encode('utf-8'))
        first = True
        for c in range(copies):
            shift = c * span_ns
            idoff = c * idstep * 8 + (rank or 0) * idstep * 8 * copies
            soff = c * nsteps
            for (meta, pieces) in tpl:
                if meta and c > 0:
                    continue
                buf = []
                for p in pieces:
                    if isinstance(p, bytes):
                        if soff and b'ProfilerStep#' in p:
                            p = STEP.sub(lambda m: b'ProfilerStep#%d' % (
                                int(m.group(1)) + soff), p)
                        buf.append(p)
                    elif p[0] == 'ts':
                        _, key, whole, frac, digits = p
                        scale = 10 ** digits
                        v = whole * scale + (int(frac) if digits else 0)
                        if whole < 0:
                            v = whole * scale - (int(frac) if digits else 0)
                        v += shift * scale // 1000
                        if digits:
                            w, f = divmod(v, scale)
                            buf.append(b'"ts": %d.%0*d' % (w, digits, f))
                        else:
                            buf.append(b'"ts": %d' % v)
                    else:
                        _, key, v = p
                        if v > 0:
                            v += idoff
                        buf.append(b'"%s": %d' % (key, v))
                out.write(b'' if first else b',\n  ')
                first = False
                out.write(b''.join(buf))
        out.write(tail.encode('utf-8'))


LEG_NUM = re.compile(rb'"(ts|tid)": (-?\d+)')


def legacy(inp, outp, copies, threads):
    text = read(inp)
    s = text.decode('utf-8')
    k = s.index('[') + 1
    s, evs, close = events_raw(text, k)
    lo = min(int(e['ts']) for (_, _, e) in evs)
    hi = max(int(e['ts']) + int(e.get('dur', 0)) for (_, _, e) in evs)
    span = hi - lo + 100
    tpl = []
    for (a, b, e) in evs:
        raw = s[a:b].encode('utf-8')
        pieces = []
        last = 0
        for m in LEG_NUM.finditer(raw):
            pieces.append(raw[last:m.start()])
            pieces.append((m.group(1), int(m.group(2))))
            last = m.end()
        pieces.append(raw[last:])
        tpl.append(pieces)
    with open(outp, 'wb') as out:
        out.write(b'[')
        first = True
        for c in range(copies):
            tid = c % threads + 1
            shift = (c // threads) * span
            for pieces in tpl:
                buf = []
                for p in pieces:
                    if isinstance(p, bytes):
                        buf.append(p)
                    elif p[0] == b'ts':
                        buf.append(b'"ts": %d' % (p[1] + shift))
                    else:
                        buf.append(b'"tid": %d' % tid)
                out.write(b'' if first else b', ')
                first = False
                out.write(b''.join(buf))
        out.write(b']')


def main(argv):
    if len(argv) < 5:
        sys.stderr.write(__doc__)
        return 2
    mode, inp, outp, copies = argv[1], argv[2], argv[3], int(argv[4])
    opt = {}
    i = 5
    while i + 1 < len(argv):
        opt[argv[i]] = int(argv[i + 1])
        i += 2
    if mode == 'kineto':
        kineto(inp, outp, copies, opt.get('--rank'),
               opt.get('--world', 8))
    elif mode == 'legacy':
        legacy(inp, outp, copies, opt.get('--threads', 3))
    else:
        sys.stderr.write(__doc__)
        return 2
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))
