# Memory by call path from Kineto's [memory] events (docs/memory.md):
# every allocation and free labelled with its device, frees counted at the
# call path that freed, and per device the peak of live memory with each
# call path's live bytes then (inuse_space, inuse_objects).  Oracle:
# tests/tools/memory_check.py, which reads the JSON with Python (events in
# time order, blocks matched by address, call paths from the X events
# around each event) and compares it with go tool pprof -raw of the profile
# and with info --json; plus a small trace made here, checked by hand.
. tests/lib.sh

# -- a small trace, every rule once (times in us; device CUDA 0 unless said):
#  5 thread 1 in step:            alloc 100 at 0x1000
# 15 thread 1 in step;alloc_a:    alloc 300 at 0x2000          live 400
# 16 thread 1 in step;alloc_a:    free 50 at 0x9000, never allocated in the trace
# 35 thread 2 in other:           free 100 at 0x1000 (thread 1's, from step)  live 300
# 36 thread 1 in step;alloc_b:    alloc 200 at 0x3000          live 500: the peak
# 50 thread 1 in step:            alloc 8 on the CPU
# 60 thread 1 in step:            free 300 at 0x2000           live 200
# 120 thread 1, no region:        alloc 64 at 0x4000           live 264
cat > "$TMP/small.json" <<'JSON'
{"traceEvents": [
{"ph": "X", "cat": "cpu_op", "name": "step", "pid": 1, "tid": 1, "ts": 0, "dur": 100},
{"ph": "X", "cat": "cpu_op", "name": "alloc_a", "pid": 1, "tid": 1, "ts": 10, "dur": 10},
{"ph": "X", "cat": "cpu_op", "name": "alloc_b", "pid": 1, "tid": 1, "ts": 30, "dur": 10},
{"ph": "X", "cat": "cpu_op", "name": "other", "pid": 1, "tid": 2, "ts": 0, "dur": 100},
{"ph": "i", "s": "t", "cat": "cpu_instant_event", "name": "[memory]", "pid": 1, "tid": 1, "ts": 5, "args": {"Bytes": 100, "Addr": 4096, "Device Type": 1, "Device Id": 0, "Total Allocated": 1100}},
{"ph": "i", "s": "t", "cat": "cpu_instant_event", "name": "[memory]", "pid": 1, "tid": 1, "ts": 15, "args": {"Bytes": 300, "Addr": 8192, "Device Type": 1, "Device Id": 0, "Total Allocated": 1400}},
{"ph": "i", "s": "t", "cat": "cpu_instant_event", "name": "[memory]", "pid": 1, "tid": 1, "ts": 16, "args": {"Bytes": -50, "Addr": 36864, "Device Type": 1, "Device Id": 0, "Total Allocated": 1350}},
{"ph": "i", "s": "t", "cat": "cpu_instant_event", "name": "[memory]", "pid": 1, "tid": 2, "ts": 35, "args": {"Bytes": -100, "Addr": 4096, "Device Type": 1, "Device Id": 0, "Total Allocated": 1250}},
{"ph": "i", "s": "t", "cat": "cpu_instant_event", "name": "[memory]", "pid": 1, "tid": 1, "ts": 36, "args": {"Bytes": 200, "Addr": 12288, "Device Type": 1, "Device Id": 0, "Total Allocated": 1450}},
{"ph": "i", "s": "t", "cat": "cpu_instant_event", "name": "[memory]", "pid": 1, "tid": 1, "ts": 50, "args": {"Bytes": 8, "Addr": 16, "Device Type": 0, "Device Id": -1, "Total Allocated": 8}},
{"ph": "i", "s": "t", "cat": "cpu_instant_event", "name": "[memory]", "pid": 1, "tid": 1, "ts": 60, "args": {"Bytes": -300, "Addr": 8192, "Device Type": 1, "Device Id": 0, "Total Allocated": 1150}},
{"ph": "i", "s": "t", "cat": "cpu_instant_event", "name": "[memory]", "pid": 1, "tid": 1, "ts": 120, "args": {"Bytes": 64, "Addr": 16384, "Device Type": 1, "Device Id": 0, "Total Allocated": 1214}}
]}
JSON
$TF -q profile "$TMP/small.json" -o "$TMP/small.pb.gz" && $TF -q info --format json "$TMP/small.json" > "$TMP/small_info.json"
check "small: per device allocations, frees, the free never allocated apart, the peak and when" python3 -c '
import json,sys
m={d["device"]: d for d in json.load(open(sys.argv[1]))["memory"]}
c=m["cuda:0"]
want={"allocations": 4, "alloc_bytes": 664, "frees": 3, "free_bytes": 450, "frees_unknown": 1,
      "peak_bytes": 500, "peak_ns": 36000, "peak_call_path": ["step", "alloc_a"], "peak_call_path_bytes": 300}
assert {k: c[k] for k in want} == want, c
p=m["cpu"]
assert (p["allocations"], p["frees"], p["peak_bytes"], p["peak_ns"], p["peak_call_path"]) == (1, 0, 8, 50000, ["step"]), p
assert json.load(open(sys.argv[1]))["diagnostics"]["mem_free_unknown"] == 1' "$TMP/small_info.json"
check "small: samples by device and call path: frees where they happened, live bytes at the peak where allocated" python3 -c '
import json,sys
sys.path.insert(0, "tests/tools")
import pprof_raw
types, samples, locs = pprof_raw.parse(pprof_raw.raw(sys.argv[1])[0])
got={}
for s in samples:
    p=";".join(reversed([locs[l][0] for l in s["locs"]]))
    for t, v in zip(types, s["values"]):
        t=t.split("/")[0]
        if v and t not in ("calls", "wall"):
            k=(s["labels"].get("device"), s["labels"].get("thread"), p, t)
            got[k]=got.get(k, 0)+v
want={("cuda:0","1","step","alloc_space"): 100, ("cuda:0","1","step","alloc_objects"): 1,
      ("cuda:0","1","step;alloc_a","alloc_space"): 300, ("cuda:0","1","step;alloc_a","alloc_objects"): 1,
      ("cuda:0","1","step;alloc_a","free_space"): 50, ("cuda:0","1","step;alloc_a","free_objects"): 1,
      ("cuda:0","2","other","free_space"): 100, ("cuda:0","2","other","free_objects"): 1,
      ("cuda:0","1","step;alloc_b","alloc_space"): 200, ("cuda:0","1","step;alloc_b","alloc_objects"): 1,
      ("cpu","1","step","alloc_space"): 8, ("cpu","1","step","alloc_objects"): 1,
      ("cuda:0","1","step","free_space"): 300, ("cuda:0","1","step","free_objects"): 1,
      ("cuda:0","1","[no region]","alloc_space"): 64, ("cuda:0","1","[no region]","alloc_objects"): 1,
      ("cuda:0","1","step;alloc_a","inuse_space"): 300, ("cuda:0","1","step;alloc_a","inuse_objects"): 1,
      ("cuda:0","1","step;alloc_b","inuse_space"): 200, ("cuda:0","1","step;alloc_b","inuse_objects"): 1,
      ("cpu","1","step","inuse_space"): 8, ("cpu","1","step","inuse_objects"): 1}
assert got == want, sorted(set(got.items()) ^ set(want.items()))
assert types == ["calls/count", "wall/nanoseconds", "alloc_space/bytes", "alloc_objects/count", "free_space/bytes",
                 "free_objects/count", "inuse_space/bytes", "inuse_objects/count"], types' "$TMP/small.pb.gz"
check "small: the independent checker agrees" python3 tests/tools/memory_check.py "$TMP/small.json" "$TMP/small.pb.gz" "$TMP/small_info.json"
check "small: top --sample-type inuse_space: the peak's 508 bytes" sh -c "$TF -q top --sample-type inuse_space '$TMP/small.json' | head -1 | grep -q 'total 508,'"
check "small: the same with -j 2" sh -c "$TF -q profile -j 2 '$TMP/small.json' '$TMP/small.json' -o '$TMP/small2.pb.gz' && go tool pprof -raw -sample_index=inuse_space '$TMP/small2.pb.gz' >/dev/null"

# -- the real traces: PyTorch 2.11 on an H200 (frees of blocks the autograd
# thread allocated, and the other way), TraceLens BERT on an H100, and
# PyTorch 1.9's ResNet50, whose events have no addresses (no peak)
for t in $DATA/chrome/pytorch211-h200-gpt/trace.json.gz $DATA/chrome/tracelens-bert-small-h100/*.json.gz \
	$DATA/chrome/kineto-resnet50-gpu/*.json.gz; do
	[ -e "$t" ] || { fail "missing fixture $t"; continue; }
	b=$(basename "$(dirname "$t")")
	$TF -q profile "$t" -o "$TMP/p.pb.gz" || { fail "$b: profile"; continue; }
	$TF -q info --format json "$t" > "$TMP/info.json" || { fail "$b: info"; continue; }
	check "$b: per device and call path alloc/free/inuse space and objects, info's devices and peaks = the JSON's" \
		python3 tests/tools/memory_check.py "$t" "$TMP/p.pb.gz" "$TMP/info.json"
done
t=$DATA/chrome/pytorch211-h200-gpt/trace.json.gz
check "h200: info's text names the peak and the call path holding the most of it" sh -c "$TF -q info '$t' | grep -A2 '^  cuda:0, process 448: 1641 allocations' | grep -q 'most of it held by (67108864 bytes): .*aten::_log_softmax\$'"
check "h200: top --sample-type inuse_space adds up to the peaks (691185664 on cuda:0 + 4 on the CPU)" sh -c "$TF -q top --sample-type inuse_space '$t' | head -1 | grep -q 'total 691185668,'"
$TF -q profile "$t" -o "$TMP/h200.pb.gz"
check "h200: pprof -tagfocus device=cpu keeps the CPU's samples only" sh -c "go tool pprof -raw -tagfocus=device=cpu '$TMP/h200.pb.gz' 2>/dev/null > '$TMP/cpu.txt' && grep -q 'device:\[cpu\]' '$TMP/cpu.txt' && ! grep -q 'device:\[cuda' '$TMP/cpu.txt'"
finish
