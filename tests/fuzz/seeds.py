#!/usr/bin/env python3
"""seeds.py OUTDIR [TRACEFOLD] - writes starting inputs for the fuzz targets
(OUTDIR/<target>/...) from the fixtures in tests/data: samples and prefixes
of real Chrome traces plus hand-made edge cases, TAU .trc files in every
record layout (24/32 bytes, both byte orders, gzipped) and EDFs, pprof
profiles written by tracefold and by Go's runtime/pprof (if go is there),
every file of two small OTF2 archives, and folded stacks (tracefold's own
and PyTorch's export_stacks, whole lines, plus malformed lines).  Every seed
is < 8 KiB.  The
committed corpus (tests/fuzz/corpus/) started from these and keeps what
fuzzing found on top (docs/testing.md)."""
import gzip, json, os, struct, subprocess, sys, tempfile

LIMIT = 8000
out = sys.argv[1]
tf = sys.argv[2] if len(sys.argv) > 2 else './tracefold'
D = 'tests/data'


def put(target, name, data):
    if isinstance(data, str):
        data = data.encode()
    if len(data) >= LIMIT:
        data = data[:LIMIT]
    os.makedirs(os.path.join(out, target), exist_ok=True)
    with open(os.path.join(out, target, name), 'wb') as f:
        f.write(data)


def opentext(p):
    return (gzip.open(p) if p.endswith('.gz') else open(p, 'rb')).read()


# ---- chrome
chrome = {
    'devtools': 'chrome/chrome-devtools-116/Trace-20230603T221323.json',
    'legacy': 'chrome/pytorch-legacy-small/trace.json',
    'mi250': 'chrome/hta-amd-mi250-rocm/mi250_minitoy_train_ROCm6_2_kineto.json.gz',
    'hta': 'chrome/hta-simple-add-gpu/benchmark_result_493459_1694039959_trace.json.gz',
    'rocprof': 'chrome/rocprofiler-memcpy/memcpy-host-device.rocprofiler.json.gz',
    'tracelens': 'chrome/tracelens-bert-small-h100/gaunernst_bert-small-uncased__1016001.json.gz',
}
for tag, rel in chrome.items():
    raw = opentext(os.path.join(D, rel))
    put('chrome', tag + '-prefix.json', raw[:3000])
    j = json.loads(raw)
    evs = j['traceEvents'] if isinstance(j, dict) else j
    seen, pick = {}, []
    for e in evs:  # up to 2 events of each (phase, category)
        k = (e.get('ph'), e.get('cat'))
        if seen.get(k, 0) < 2:
            seen[k] = seen.get(k, 0) + 1
            pick.append(e)
    while pick:
        if isinstance(j, dict):
            top = {k: v for k, v in j.items() if k != 'traceEvents' and len(json.dumps(v)) < 400}
            top['traceEvents'] = pick
            text = json.dumps(top)
        else:
            text = json.dumps(pick)
        if len(text) < LIMIT - 100:
            break
        pick = pick[: len(pick) * 3 // 4]
    put('chrome', tag + '-sample.json', text)

hand = {
    'nested-be': '[{"ph":"B","name":"a","pid":1,"tid":1,"ts":1},{"ph":"B","name":"b","pid":1,"tid":1,"ts":2},'
                 '{"ph":"E","pid":1,"tid":1,"ts":3},{"ph":"E","pid":1,"tid":1,"ts":4}]',
    'complete': '{"traceEvents":[{"ph":"X","name":"f","cat":"cpu_op","pid":"p","tid":"t","ts":1.5,"dur":2.25},'
                '{"ph":"X","name":"k","cat":"kernel","pid":7,"tid":"stream 7","ts":1e3,"dur":-1}],"displayTimeUnit":"ns"}',
    'counter-meta': '[{"ph":"M","name":"process_name","pid":1,"args":{"name":"P\\u00e9"}},'
                    '{"ph":"M","name":"thread_name","pid":1,"tid":2,"args":{"name":"T"}},'
                    '{"ph":"M","name":"thread_sort_index","pid":1,"tid":2,"args":{"sort_index":-3}},'
                    '{"ph":"C","name":"mem","pid":1,"ts":5,"args":{"a":1,"b":2.5e300,"c":"x"}},'
                    '{"ph":"C","name":"neg","pid":1,"ts":6,"args":{"v":-9.2e18}}]',
    'escapes': '[{"ph":"X","name":"a\\"b\\\\c\\n\\ud83d\\ude00\\u0000","pid":1,"tid":1,"ts":0,"dur":1,'
               '"args":{"x":[1,{"y":"]}"}]}}]',
    'flows-async': '[{"ph":"s","id":1,"pid":1,"tid":1,"ts":1},{"ph":"f","id":"0x1","bp":"e","pid":1,"tid":2,"ts":2},'
                   '{"ph":"b","id2":{"local":"0x2"},"cat":"c","name":"a","pid":1,"ts":3},{"ph":"e","id":2,"cat":"c","pid":1,"ts":4},'
                   '{"ph":"i","s":"g","name":"mark","pid":1,"tid":1,"ts":5},{"ph":"P","pid":1,"ts":6},{"ph":"Z"}]',
    'dist-info': '{"distributedInfo":{"rank":3,"world_size":8},"schemaVersion":1,"traceEvents":[{"ph":"X","name":"n",'
                 '"pid":1,"tid":1,"ts":9223372036854775,"dur":1}],"baseTimeNanoseconds":1}',
    'numbers': '[{"ph":"X","name":"n","pid":-0,"tid":1e2,"ts":-12.3456789,"dur":0.0005},'
               '{"ph":"X","name":"m","pid":1,"tid":1,"ts":9223372036854775.807,"dur":1},'
               '{"ph":"X","name":"o","pid":1,"tid":1,"ts":"12","dur":null}]',
    'bom-ws': '\ufeff \n{ "traceEvents" : [ ] , "otherData" : { "k" : [ ] } }\n',
    'truncated': '{"traceEvents":[{"ph":"X","name":"f","pid":1,"tid":1,"ts":1,"dur":2},{"ph":"X","na',
    'trailing-comma': '[{"ph":"X","name":"f","pid":1,"tid":1,"ts":1,"dur":2},]',
    'deep': '[{"ph":"X","name":"f","pid":1,"tid":1,"ts":1,"dur":2,"args":' + '[' * 200 + ']' * 200 + '}]',
}
for k, v in hand.items():
    put('chrome', k + '.json', v)

# ---- TAU
def trc_records(p):
    b = open(p, 'rb').read()
    return [struct.unpack('<iHHqQ', b[i:i + 24]) for i in range(0, len(b) - 23, 24)]

def trc_bytes(recs, fmt):
    return b''.join(struct.pack(fmt, *r) for r in recs)

thr = [os.path.join(D, 'tau/threads/tautrace.0.0.%d.trc' % i) for i in range(5)]
for i, p in enumerate(thr):
    put('tau_trc', 'threads-%d.trc' % i, open(p, 'rb').read())
recs = trc_records(thr[0])
put('tau_trc', 'threads-0-be24.trc', trc_bytes(recs, '>iHHqQ'))
put('tau_trc', 'threads-0-le32.trc', trc_bytes([(r[0], r[1], r[2], 0, r[3], r[4]) for r in recs], '<qHHiqQ'))
put('tau_trc', 'threads-0-be32.trc', trc_bytes([(r[0], r[1], r[2], 0, r[3], r[4]) for r in recs], '>qHHiqQ'))
put('tau_trc', 'threads-0.trc.gz', gzip.compress(open(thr[0], 'rb').read(), mtime=0))
put('tau_trc', 'threads-0-cut.trc', open(thr[0], 'rb').read()[:24 * 40 + 7])
put('tau_trc', 'tiny-prefix.trc', open(os.path.join(D, 'tau/tiny/tautrace.0.0.0.trc'), 'rb').read()[:24 * 300])
for rel in ['tau/threads/events.0.edf', 'tau/tiny/events.0.edf', 'tau/mpi_small/events.0.edf']:
    put('tau_edf', rel.split('/')[1] + '.edf', open(os.path.join(D, rel), 'rb').read())

# ---- pprof: profiles written by tracefold (tiny inputs) and by Go
with tempfile.TemporaryDirectory() as tmp:
    srcs = {'tau-tiny': D + '/tau/tiny', 'chrome-nested': None, 'otf2-pingpong': D + '/otf2/scorep-ping-pong-mpi'}
    for tag, src in srcs.items():
        if src is None:
            src = os.path.join(tmp, 'n.json')
            open(src, 'w').write(hand['counter-meta'][:-1] + ',' + hand['nested-be'][1:])
        pb = os.path.join(tmp, tag + '.pb.gz')
        args = [tf, '-q', 'profile', '-o', pb, src]
        if tag == 'chrome-nested':
            args[3:3] = ['--counters', 'all']
        if subprocess.run(args).returncode == 0:
            gz = open(pb, 'rb').read()
            if len(gz) < LIMIT - 1:
                put('pprof', tag + '-gz', b'\0' + gz)
            put('pprof', tag + '-raw', b'\1' + gzip.decompress(gz))
    gocpu = os.path.join(tmp, 'go.pb.gz')
    try:
        r = subprocess.run(['go', 'run', 'tests/tools/gocpu/main.go', gocpu], capture_output=True)
        if r.returncode == 0:
            gz = open(gocpu, 'rb').read()
            put('pprof', 'go-cpu-gz', b'\0' + gz)
            put('pprof', 'go-cpu-raw', b'\1' + gzip.decompress(gz))
    except OSError:
        pass

# ---- OTF2: selector byte (bit 7 archive, low bits file; fuzz_otf2.c) + file
arcs = [('otf2/tiny_otf2', ['traces.otf2', 'traces.def', 'traces/0.def', 'traces/0.evt']),
        ('otf2/scorep-ping-pong-mpi', ['traces.otf2', 'traces.def', 'traces/0.def', 'traces/0.evt',
                                       'traces/1.def', 'traces/1.evt'])]
for a, (src, files) in enumerate(arcs):
    for i, f in enumerate(files):
        b = open(os.path.join(D, src, f), 'rb').read()
        if len(b) + 1 < LIMIT:
            put('otf2', '%s-%s' % (src.split('/')[1], f.replace('/', '-')), bytes([a << 7 | i]) + b)

# ---- folded stacks: mode byte (bit 0: the target gzips; fuzz_folded.c) + text
def lines_upto(b, limit):
    return b[:b.rfind(b'\n', 0, limit) + 1] if len(b) >= limit else b

with tempfile.TemporaryDirectory() as tmp:
    for tag, args in {'tau-mpi_small': [D + '/tau/mpi_small'],
                      'tau-threads-calls': ['--sample-type', 'calls', D + '/tau/threads'],
                      'hta-gpu': ['--sample-type', 'gpu',
                                  D + '/chrome/hta-simple-add-gpu/benchmark_result_493459_1694039959_trace.json.gz']}.items():
        fo = os.path.join(tmp, tag + '.folded')
        if subprocess.run([tf, '-q', 'fold', '-o', fo] + args).returncode == 0:
            put('folded', tag, b'\0' + lines_upto(open(fo, 'rb').read(), LIMIT - 100))
    fo = os.path.join(tmp, 'g.folded.gz')
    if subprocess.run([tf, '-q', 'fold', '-o', fo, D + '/tau/tiny']).returncode == 0:
        put('folded', 'tau-tiny-gz', b'\0' + open(fo, 'rb').read())
put('folded', 'pytorch-export-stacks',
    b'\1' + lines_upto(open(D + '/chrome/pytorch-legacy-small/oracle/stacks_self_cpu.folded', 'rb').read(), LIMIT - 100))
bad = {
    'decimal': 'main;a 5\nmain;b 1.5\n',
    'no-value': 'main;a 5\nmain;b\n',
    'empty-frame': 'main;a 5\nmain;;b 3\n',
    'crlf-blank-tab': 'main;a 5\r\n\r\n \t\nmain;a\t7\nmain;b  2\nlast 1',
    'zeros': 'main;a 0\nmain 0\n',
    'big': 'a 9223372036854775807\na 9223372036854775807\nb 9223372036854775808\n',
    'nul': 'a 1\nb\0c 2\n',
    'names': '[unknown];x::y<int>(a, b) 3\n{odd} 1\nx\ry 2\n;lead 1\n',
}
for k, v in bad.items():
    put('folded', k, b'\0' + v.encode())
