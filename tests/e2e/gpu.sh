# GPU time apart from CPU time, under the Python line and operator that
# launched it (docs/gpu.md), on every Kineto, HTA and rocprofiler fixture.
# Oracle: tests/tools/gpu_oracle.py, which reads the JSON with Python and
# exact decimals (GPU activity durations, per-thread CPU busy time, each
# kernel's launch by correlation id and the regions around the launch);
# the profile is read by go tool pprof -raw (tests/tools/pprof_raw.py).
. tests/lib.sh
for t in $DATA/chrome/kineto-resnet50-gpu/*.json.gz $DATA/chrome/hta-simple-add-gpu/*.json.gz \
	$DATA/chrome/hta-amd-mi250-rocm/*.json.gz $DATA/chrome/tracelens-bert-small-h100/*.json.gz \
	$DATA/chrome/rocprofiler-memcpy/*.json.gz; do
	[ -e "$t" ] || { fail "missing fixture $t"; continue; }
	b=$(basename "$(dirname "$t")")
	python3 tests/tools/gpu_oracle.py "$t" > "$TMP/oracle.json" || { fail "$b: oracle"; continue; }
	$TF -q profile "$t" -o "$TMP/p.pb.gz" || { fail "$b: profile"; continue; }
	python3 tests/tools/pprof_raw.py "$TMP/p.pb.gz" > "$TMP/raw.json" || { fail "$b: pprof -raw"; continue; }
	$TF -q info --format json "$t" > "$TMP/info.json"
	check "$b: gpu total = the GPU activities' durations, wall = CPU threads' busy time, exactly" python3 -c '
import json,sys
o=json.load(open(sys.argv[1])); r=json.load(open(sys.argv[2]))
gpu=r["total"].get("gpu/nanoseconds", 0); wall=r["total"]["wall/nanoseconds"]
assert gpu == o["gpu_ns"], ("gpu", gpu, o["gpu_ns"])
assert wall == o["cpu_union_ns"], ("wall", wall, o["cpu_union_ns"])' "$TMP/oracle.json" "$TMP/raw.json"
	check "$b: every GPU ns with a launch in the trace is attributed to it, the rest is [unattributed gpu]" python3 -c '
import json,sys
o=json.load(open(sys.argv[1])); r=json.load(open(sys.argv[2])); i=json.load(open(sys.argv[3]))
d=i["diagnostics"]
att=d.get("gpu_attributed_ns", 0); un=d.get("gpu_unattributed_ns", 0)
assert att == o["gpu_with_launch_ns"] and att + un == o["gpu_ns"], (att, un, o)
ua=sum(v.get("gpu/nanoseconds", 0) for p, v in r["paths"].items() if p.startswith("[unattributed gpu];"))
assert ua == un, (ua, un)
if o["gpu_with_launch_ns"]:
    assert att >= 0.9 * o["gpu_ns"], "under 90% attributed"' "$TMP/oracle.json" "$TMP/raw.json" "$TMP/info.json"
	check "$b: info: per GPU stream its GPU time and busy time (union), attributed time" python3 -c '
import json,sys
o=json.load(open(sys.argv[1])); i=json.load(open(sys.argv[2]))
got={t["process"] + "/" + t["thread"]: {"gpu_ns": t["gpu_ns"], "busy_ns": t["gpu_busy_ns"]}
     for t in i["threads"] if t.get("gpu_activities")}
assert got == o["streams"], (got, o["streams"])
assert sum(t.get("gpu_attributed_ns", 0) for t in i["threads"]) == o["gpu_with_launch_ns"]' "$TMP/oracle.json" "$TMP/info.json"
	check "$b: allocations: alloc_space = the [memory] events' positive Bytes, alloc_objects their number" python3 -c '
import json,sys
o=json.load(open(sys.argv[1])); r=json.load(open(sys.argv[2])); t=r["total"]
assert t.get("alloc_space/bytes", 0) == o["alloc_bytes"] and t.get("alloc_objects/count", 0) == o["alloc_n"], (t, o)
assert ("alloc_space/bytes" in r["types"]) == (o["alloc_n"] > 0), r["types"]
# frees are no samples; every allocation is under a call path
assert all(v.get("alloc_space/bytes", 0) >= 0 for v in r["paths"].values())' "$TMP/oracle.json" "$TMP/raw.json"
	check "$b: kernels hand-checked through their correlation ids: launch path + kernel, in pprof" python3 -c '
import json,sys
o=json.load(open(sys.argv[1])); r=json.load(open(sys.argv[2]))
for k in o["kernels"]:
    p=";".join(k["path"])
    assert r["paths"].get(p, {}).get("gpu/nanoseconds", 0) > 0, ("no gpu time under", k["path"])
    assert r["paths"][p].get("wall/nanoseconds", 0) == 0, ("wall time on a kernel", p)
print(len(o["kernels"]), "kernels")' "$TMP/oracle.json" "$TMP/raw.json"
done
# Kineto: the Python line above the kernel, in go tool pprof's own views
t=$(ls $DATA/chrome/tracelens-bert-small-h100/*.json.gz)
$TF -q profile "$t" -o "$TMP/b.pb.gz"
check "pprof -sample_index=gpu -traces -lines: a kernel under its launch, its operator and the Python lines" sh -c "
	go tool pprof -sample_index=gpu -traces -lines '$TMP/b.pb.gz' 2>/dev/null | grep -A30 'cutlass::Kernel2' |
	grep -q 'modeling_bert.py'"
check "top --sample-type gpu ranks kernels by GPU time" sh -c "
	$TF -q top --sample-type gpu -n 3 '$t' | grep -q '^gpu (nanoseconds): total 309.44 us'"
# a GPU annotation is no call and no time; a kernel without a launch is unattributed
cat > "$TMP/k.json" <<'EOF'
{"traceEvents":[
{"ph":"X","cat":"cpu_op","name":"aten::mm","pid":1,"tid":1,"ts":10,"dur":10},
{"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":12,"dur":2,"args":{"correlation":7}},
{"ph":"X","cat":"gpu_user_annotation","name":"fwd","pid":0,"tid":7,"ts":14,"dur":30},
{"ph":"X","cat":"kernel","name":"gemm","pid":0,"tid":7,"ts":15,"dur":5,"args":{"correlation":7}},
{"ph":"X","cat":"kernel","name":"gemm2","pid":0,"tid":7,"ts":17,"dur":6,"args":{"correlation":8}},
{"ph":"X","cat":"kernel","name":"lost","pid":0,"tid":7,"ts":40,"dur":1.5}
]}
EOF
$TF -q profile "$TMP/k.json" -o "$TMP/k.pb.gz" && python3 tests/tools/pprof_raw.py "$TMP/k.pb.gz" > "$TMP/kr.json"
check "hand-made: gemm under aten::mm;cudaLaunchKernel, overlapping kernels both in full, the annotation neither a call nor time" python3 -c '
import json,sys
r=json.load(open(sys.argv[1])); g=lambda p: r["paths"].get(p, {}).get("gpu/nanoseconds")
assert g("aten::mm;cudaLaunchKernel;gemm") == 5000, r["paths"]
assert g("[unattributed gpu];gemm2") == 6000 and g("[unattributed gpu];lost") == 1500, r["paths"]
assert r["total"]["gpu/nanoseconds"] == 12500 and r["total"]["wall/nanoseconds"] == 10000, r["total"]
assert "fwd" not in r["paths"], r["paths"]["fwd"]' "$TMP/kr.json"
# overlapping kernels in Perfetto: on lanes of their stream, properly nested
PY=/usr/bin/python3; [ -x $PY ] || PY=python3
protoc --proto_path=proto --python_out="$TMP" proto/perfetto_trace.proto
$TF -q perfetto "$TMP/k.json" -o "$TMP/ov.pftrace" && $TF -q chrome "$TMP/k.json" -o "$TMP/ov.trace.json"
check "hand-made, Perfetto: overlapping kernels on lanes of their stream, every track nested" \
	$PY tests/tools/perfetto_check.py "$TMP" "$TMP/ov.pftrace" "$TMP/ov.trace.json"
$TF -q profile "$TMP/ov.pftrace" -o "$TMP/ov.pb.gz" && python3 tests/tools/pprof_raw.py "$TMP/ov.pb.gz" > "$TMP/ovr.json"
check "... read back, the same GPU time per call path" python3 -c '
import json,sys
a=json.load(open(sys.argv[1])); b=json.load(open(sys.argv[2]))
g=lambda r: {p: v.get("gpu/nanoseconds", 0) for p, v in r["paths"].items() if v.get("gpu/nanoseconds", 0)}
assert g(a) == g(b), (g(a), g(b))' "$TMP/kr.json" "$TMP/ovr.json"
check "hand-made, Chrome JSON: no two X events of a thread overlap without nesting" python3 -c '
import json,sys
from decimal import Decimal
ev=[e for e in json.load(open(sys.argv[1]), parse_float=Decimal)["traceEvents"] if e["ph"] == "X"]
by={}
for e in ev:
    by.setdefault((e["pid"], e["tid"]), []).append((e["ts"], e["ts"] + e["dur"]))
for k, iv in by.items():
    for a in iv:
        for b in iv:
            assert not (a[0] < b[0] < a[1] < b[1]), (k, a, b)
names={e["args"]["name"] for e in json.load(open(sys.argv[1]))["traceEvents"] if e["ph"] == "M" and e["name"] == "thread_name"}
assert any("(overlap" in n for n in names), names' "$TMP/ov.trace.json"
$TF -q profile "$TMP/ov.trace.json" -o "$TMP/ovj.pb.gz" && python3 tests/tools/pprof_raw.py "$TMP/ovj.pb.gz" > "$TMP/ovjr.json"
check "... read back, the same GPU and wall time per call path" python3 -c '
import json,sys
a=json.load(open(sys.argv[1])); b=json.load(open(sys.argv[2]))
g=lambda r: {p: (v.get("gpu/nanoseconds", 0), v.get("wall/nanoseconds", 0)) for p, v in r["paths"].items()}
assert g(a) == g(b), (g(a), g(b))' "$TMP/kr.json" "$TMP/ovjr.json"
# the timelines keep it: read back, the same gpu time per call path and allocations
t=$(ls $DATA/chrome/kineto-resnet50-gpu/*.json.gz)
$TF -q profile "$t" -o "$TMP/k0.pb.gz" && python3 tests/tools/pprof_raw.py "$TMP/k0.pb.gz" > "$TMP/k0.json"
for out in k.trace.json k.pftrace; do
	$TF -q convert "$t" -o "$TMP/$out" && $TF -q profile "$TMP/$out" -o "$TMP/k1.pb.gz" &&
		python3 tests/tools/pprof_raw.py "$TMP/k1.pb.gz" > "$TMP/k1.json"
	check "Kineto through $out and back: gpu per call path the same$(case $out in *.json) echo ', allocations too' ;; esac)" python3 -c '
import json,sys
a=json.load(open(sys.argv[1])); b=json.load(open(sys.argv[2]))
g=lambda r: {p: v.get("gpu/nanoseconds", 0) for p, v in r["paths"].items() if v.get("gpu/nanoseconds", 0)}
assert g(a) == g(b) and a["total"]["gpu/nanoseconds"] == b["total"]["gpu/nanoseconds"]
if sys.argv[3].endswith(".json"):
    assert a["total"]["alloc_space/bytes"] == b["total"]["alloc_space/bytes"], (a["total"], b["total"])' \
		"$TMP/k0.json" "$TMP/k1.json" "$out"
done
# --steps N: ProfilerStep#N from its start to the end of the last GPU
# activity it launched; its inclusive time is its whole duration
t=$(ls $DATA/chrome/kineto-resnet50-gpu/*.json.gz)
python3 - "$t" > "$TMP/steps.json" <<'PY'
import gzip, json, sys
from decimal import Decimal
d = json.load(gzip.open(sys.argv[1]), parse_float=Decimal)
ns = lambda v: int(Decimal(str(v)) * 1000)
ev = [e for e in d["traceEvents"] if e.get("ph") == "X"]
gpu_end, launch = {}, {}
for e in ev:
    c = (e.get("args") or {}).get("correlation")
    if c is None:
        continue
    if e.get("cat") in ("Kernel", "Memcpy", "Memset", "kernel", "gpu_memcpy", "gpu_memset"):
        gpu_end[c] = max(gpu_end.get(c, 0), ns(e["ts"]) + ns(e["dur"]))
    else:
        launch[c] = ns(e["ts"])
out = {}
for e in ev:
    if e["name"].startswith("ProfilerStep#"):
        a, b = ns(e["ts"]), ns(e["ts"]) + ns(e["dur"])
        end = max([b] + [gpu_end[c] for c, t in launch.items() if a <= t <= b and c in gpu_end])
        out[e["name"][13:]] = {"dur": ns(e["dur"]), "start": a, "end": end}
print(json.dumps(out))
PY
for k in 5 6 9; do
	# --step-frames: one ProfilerStep#N frame per step, so the step's own time can be read
	$TF -q profile --steps $k --step-frames "$t" -o "$TMP/s.pb.gz" || { fail "--steps $k"; continue; }
	check "--steps $k: the window is ProfilerStep#$k to the end of its GPU work, its inclusive time its duration" python3 -c '
import json, re, subprocess, sys
sys.path.insert(0, "tests/tools"); import pprof_raw
w = json.load(open(sys.argv[1]))[sys.argv[3]]
r = pprof_raw.summarize(sys.argv[2])
assert r["funcs"]["ProfilerStep#" + sys.argv[3]]["cum"]["wall/nanoseconds"] == w["dur"], (r["funcs"]["ProfilerStep#" + sys.argv[3]], w)
c = subprocess.run(["go", "tool", "pprof", "-comments", sys.argv[2]], capture_output=True, text=True).stdout
m = re.search(r"= \[(\d+), (\d+)\) ns", c)
assert m and (int(m.group(1)), int(m.group(2))) == (w["start"], w["end"]), (c, w)' "$TMP/steps.json" "$TMP/s.pb.gz" $k
done
# --label-steps: a step label on every sample of a step (pprof -tagfocus=step=N);
# with --step-frames the frames say which step, by default (stable names) one
# frame ProfilerStep holds every step and the label alone says which
$TF -q profile --label-steps "$t" -o "$TMP/lsn.pb.gz"
$TF -q profile --label-steps --step-frames "$t" -o "$TMP/ls.pb.gz" && $TF -q profile "$t" -o "$TMP/nols.pb.gz"
check "--label-steps: under the one frame ProfilerStep, the wall of the samples labelled step=N is N's duration" python3 -c '
import json, sys
sys.path.insert(0, "tests/tools"); import pprof_raw
steps = json.load(open(sys.argv[1]))
text, _ = pprof_raw.raw(sys.argv[2]); types, samples, locs = pprof_raw.parse(text)
wi = types.index("wall/nanoseconds")
under = {}
for s in samples:
    names = [locs[l][0] for l in s["locs"]]
    assert not any(n.startswith("ProfilerStep#") for n in names), names
    if "ProfilerStep" in names:
        under[s["labels"]["step"]] = under.get(s["labels"]["step"], 0) + s["values"][wi]
assert under == {k: v["dur"] for k, v in steps.items()}, (under, steps)' "$TMP/steps.json" "$TMP/lsn.pb.gz"
check "--label-steps --step-frames: samples under ProfilerStep#N carry step=N, N's wall is its duration; totals unchanged" python3 -c '
import json, sys
sys.path.insert(0, "tests/tools"); import pprof_raw
steps = json.load(open(sys.argv[1]))
text, _ = pprof_raw.raw(sys.argv[2]); types, samples, locs = pprof_raw.parse(text)
wi = types.index("wall/nanoseconds")
under = {}
for s in samples:
    names = [locs[l][0] for l in s["locs"]]
    for n in names:
        if n.startswith("ProfilerStep#"):
            assert s["labels"].get("step") == n[13:], (n, s["labels"])
            under[n[13:]] = under.get(n[13:], 0) + s["values"][wi]
assert under == {k: v["dur"] for k, v in steps.items()}, (under, steps)
assert {s["labels"]["step"] for s in samples if "step" in s["labels"]} == set(steps)
a, b = pprof_raw.summarize(sys.argv[2])["total"], pprof_raw.summarize(sys.argv[3])["total"]
assert a == b, (a, b)' "$TMP/steps.json" "$TMP/ls.pb.gz" "$TMP/nols.pb.gz"
expect_exit 2 "--steps with no such step says which there are" $TF top --steps 40:50 "$t"
cp "$TMP/err" "$TMP/steps.err"
check "... steps 5 to 10" grep -q "steps 5 to 10" "$TMP/steps.err"
expect_exit 2 "--steps on a trace without steps" $TF top --steps 1 $DATA/tau/mpi_small
expect_exit 2 "--steps and --window together" $TF top --steps 5 --window 1s: "$t"
expect_exit 2 "--steps 7:5" $TF top --steps 7:5 "$t"
# Python frames nest by their ids (Kineto's "Python id", "Python parent id")
cat > "$TMP/py.json" <<'EOF'
{"traceEvents":[
{"ph":"X","cat":"python_function","name":"train.py(10): main","pid":1,"tid":1,"ts":100,"dur":50,"args":{"Python id":1,"Python parent id":null}},
{"ph":"X","cat":"python_function","name":"model.py(20): forward","pid":1,"tid":1,"ts":109,"dur":20,"args":{"Python id":2,"Python parent id":3}},
{"ph":"X","cat":"python_function","name":"train.py(12): step","pid":1,"tid":1,"ts":110,"dur":30,"args":{"Python id":3,"Python parent id":1}},
{"ph":"X","cat":"cpu_op","name":"aten::mm","pid":1,"tid":1,"ts":112,"dur":5}
]}
EOF
$TF -q profile "$TMP/py.json" -o "$TMP/py.pb.gz" 2>/dev/null && python3 tests/tools/pprof_raw.py "$TMP/py.pb.gz" > "$TMP/py.raw"
$TF -q info --format json "$TMP/py.json" > "$TMP/py.info"
check "a Python frame rounded to start 1 us before its parent (by id) nests under it; the op under it" python3 -c '
import json,sys
r=json.load(open(sys.argv[1])); i=json.load(open(sys.argv[2]))["diagnostics"]
w={p: v["wall/nanoseconds"] for p, v in r["paths"].items()}
assert w == {"train.py(10): main": 20000, "train.py(10): main;train.py(12): step": 11000,
             "train.py(10): main;train.py(12): step;model.py(20): forward": 14000,
             "train.py(10): main;train.py(12): step;model.py(20): forward;aten::mm": 5000}, w
assert i["python_parent_clipped"] == 1 and i["python_parent_clipped_ns"] == 1000, i' "$TMP/py.raw" "$TMP/py.info"
t=$(ls $DATA/chrome/tracelens-bert-small-h100/*.json.gz)
$TF -q profile "$t" -o "$TMP/tl.pb.gz" && python3 tests/tools/pprof_raw.py "$TMP/tl.pb.gz" > "$TMP/tl.raw"
$TF -q info --format json "$t" > "$TMP/tl.info"
check "TraceLens: every Python frame sits under its parent by id (the nearest Python frame above it), nothing clipped" python3 -c '
import gzip,json,sys
sys.path.insert(0, "tests/tools"); from stable_names import normalize
ev=[e for e in json.load(gzip.open(sys.argv[1]))["traceEvents"] if e.get("ph") == "X" and e.get("cat") == "python_function"]
for e in ev: e["name"] = normalize(e["name"])
name={e["args"]["Python id"]: e["name"] for e in ev}
py=set(name.values())
r=json.load(open(sys.argv[2]))
pairs=set()
for p in r["paths"]:
    f=[x for x in p.split(";") if x in py]
    pairs |= {(a, b) for a, b in zip(f, f[1:])}
want={(name[e["args"]["Python parent id"]], e["name"]) for e in ev if e["args"].get("Python parent id") in name}
assert want <= pairs, sorted(want - pairs)[:3]
assert json.load(open(sys.argv[3]))["diagnostics"]["python_parent_clipped"] == 0' "$t" "$TMP/tl.raw" "$TMP/tl.info"
# two rank files (the same trace as rank 0 and rank 1, so the same
# correlation ids in both): labels rank 0 and 1, each with the whole GPU time
# under the same launch paths (ids scoped per file)
t=$(ls $DATA/chrome/hta-simple-add-gpu/*.json.gz)
python3 -c '
import gzip, json, sys
d = json.load(gzip.open(sys.argv[1]))
assert d["distributedInfo"]["rank"] == 0
d["distributedInfo"]["rank"] = 1
gpu = {"kernel", "gpu_memcpy", "gpu_memset", "cuda_sync", "gpu_user_annotation"}
for e in d["traceEvents"]:   # rank 1 CPU calls renamed: its kernels must go under them
    if e.get("ph") == "X" and e.get("cat") not in gpu:
        e["name"] = "r1 " + e["name"]
json.dump(d, open(sys.argv[2], "w"))' "$t" "$TMP/rank1.json"
$TF -q profile "$t" "$TMP/rank1.json" -o "$TMP/two.pb.gz" && $TF -q profile "$t" -o "$TMP/one.pb.gz"
check "two rank files: labels rank 0 and 1, each file's GPU time under its own launches (ids scoped per file)" python3 -c '
import sys
sys.path.insert(0, "tests/tools"); import pprof_raw
def per(path, rank=None):
    text, _ = pprof_raw.raw(path); types, samples, locs = pprof_raw.parse(text)
    gi = types.index("gpu/nanoseconds"); out = {}
    for s in samples:
        if rank is not None and s["labels"].get("rank") != rank:
            continue
        p = ";".join(reversed([locs[l][0] for l in s["locs"]]))
        if s["values"][gi]:
            out[p] = out.get(p, 0) + s["values"][gi]
    return out
one = per(sys.argv[2])
r1 = {";".join(["r1 " + f for f in p.split(";")[:-1]] + p.split(";")[-1:]) if not p.startswith("[unattributed gpu]") else p: v
      for p, v in one.items()}
assert per(sys.argv[1], "0") == one, "rank 0"
assert per(sys.argv[1], "1") == r1, sorted(set(per(sys.argv[1], "1")) ^ set(r1))[:3]
assert pprof_raw.summarize(sys.argv[1])["labels"]["rank"] == ["0", "1"]' "$TMP/two.pb.gz" "$TMP/one.pb.gz"
# a run with no GPU has no gpu sample type (profiles of CPU runs do not change)
$TF -q profile $DATA/tau/mpi_small -o "$TMP/c.pb.gz"
check "no GPU, no gpu sample type" sh -c "! python3 tests/tools/pprof_raw.py '$TMP/c.pb.gz' | grep -q gpu/nanoseconds"
finish
