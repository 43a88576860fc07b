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
# a GPU annotation labels, it adds no time; a kernel without a launch is unattributed
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
check "hand-made: gemm under aten::mm;cudaLaunchKernel, overlapping kernels both in full, the annotation a call with no time" python3 -c '
import json,sys
r=json.load(open(sys.argv[1])); g=lambda p: r["paths"].get(p, {}).get("gpu/nanoseconds")
assert g("aten::mm;cudaLaunchKernel;gemm") == 5000, r["paths"]
assert g("[unattributed gpu];gemm2") == 6000 and g("[unattributed gpu];lost") == 1500, r["paths"]
assert r["total"]["gpu/nanoseconds"] == 12500 and r["total"]["wall/nanoseconds"] == 10000, r["total"]
assert r["paths"]["fwd"] == {"calls/count": 1, "wall/nanoseconds": 0, "gpu/nanoseconds": 0}, r["paths"]["fwd"]' "$TMP/kr.json"
# a run with no GPU has no gpu sample type (profiles of CPU runs do not change)
$TF -q profile $DATA/tau/mpi_small -o "$TMP/c.pb.gz"
check "no GPU, no gpu sample type" sh -c "! python3 tests/tools/pprof_raw.py '$TMP/c.pb.gz' | grep -q gpu/nanoseconds"
finish
