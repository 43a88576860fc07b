# XPlane protobuf (docs/format-xplane.md): the *.xplane.pb of
# jax.profiler.trace read as host regions and GPU streams, each activity
# under its launch (correlation_id) and the XLA op of its kernel (tf_op, or
# the HLO instruction of its module's HloProto).  Oracle:
# tests/tools/xplane_check.py, which decodes the protobuf wire format
# itself; and the trace JSON of the same session (tests/tools/jax_check.py).
# With the binary before the reader, 13 of the 20 checks fail (the fold and
# top runs fail too); those that pass hold either way: the oracles' three,
# the exit status of the three damaged files (unreadable to it too), the
# Perfetto trace.
. tests/lib.sh
d=$DATA/jax/jax0112-h200-mlp
x=$d/vm.xplane.pb
python3 tests/tools/xplane_check.py "$x" > "$TMP/o.json" || fail "xplane_check.py"
python3 tests/tools/jax_check.py "$d/vm.trace.json.gz" > "$TMP/j.json" || fail "jax_check.py"
check "the oracle: 105 activities, 2,014,148 ns under cuGraphLaunch, per step as the fixture's README; 45 activities without an op" python3 -c '
import json,sys
o=json.load(open(sys.argv[1]))
assert o["activities"] == 105 and o["gpu_ns"] == 2014148 and o["unattributed_ns"] == 0, o
assert o["by_launch"] == {"cuGraphLaunch (CudaGraph:18)": 2014148}, o["by_launch"]
assert o["by_correlation"] == {"1": 406305, "2": 406177, "3": 401700, "4": 400287, "5": 399679}, o["by_correlation"]
assert o["op_unknown"] == {"activities": 45, "gpu_ns": 1478757}, o["op_unknown"]' "$TMP/o.json"
check "the oracle, XPlane and trace JSON of one session: the same GPU time per stream, per launch, per step and per kernel" python3 -c '
import json,sys
o=json.load(open(sys.argv[1])); j=json.load(open(sys.argv[2]))
for k in ("streams", "by_launch", "by_correlation", "kernels", "gpu_ns"):
    assert o[k] == j[k], (k, o[k], j[k])' "$TMP/o.json" "$TMP/j.json"
$TF -q info "$x" > "$TMP/info.txt"
check "sniffed as xplane by its content and by its name" sh -c "
	grep -q '(format xplane, 368 events)' '$TMP/info.txt' && cp '$x' '$TMP/plain' &&
	$TF -q info '$TMP/plain' | grep -q '(format xplane,'"
$TF -q fold --sample-type gpu "$x" -o "$TMP/gpu.folded" || fail "fold"
check "fold --sample-type gpu: every call path (host regions, launch, XLA op, kernel) and its GPU ns = the oracle's" python3 -c '
import json,sys
o=json.load(open(sys.argv[1]))["paths"]
g={}
for l in open(sys.argv[2]):
    p,v=l.rstrip("\n").rsplit(" ",1); g[p]=int(v)
assert g == o, sorted(set(g.items()) ^ set(o.items()))[:6]' "$TMP/o.json" "$TMP/gpu.folded"
check "the JSON's gpu call paths are the XPlane's without the op frames" python3 -c '
import json,sys
o=json.load(open(sys.argv[1])); j=json.load(open(sys.argv[2]))["paths"]
ops={k.replace(";", ":") for k in o["by_op"]}
g={}
for p, v in o["paths"].items():
    k=";".join(f for f in p.split(";") if f not in ops); g[k]=g.get(k, 0) + v
assert g == j, sorted(set(g.items()) ^ set(j.items()))[:6]' "$TMP/o.json" "$TMP/j.json"
$TF -q top --sample-type gpu -n 0 --format json "$x" > "$TMP/top.json" || fail "top"
check "top --sample-type gpu: total, each kernel (self, calls), each XLA op and the launch = the oracle's" python3 -c '
import json,sys
o=json.load(open(sys.argv[1])); t=json.load(open(sys.argv[2]))
f={x["name"]: x for x in t["functions"]}
assert t["total"] == o["gpu_ns"], (t["total"], o["gpu_ns"])
for k, v in o["kernels"].items():
    assert f[k]["self"] == v["gpu_ns"] and f[k]["calls"] == v["calls"], (k, f[k], v)
assert len(o["by_op"]) == 6, o["by_op"]
for k, v in o["by_op"].items():
    assert f[k]["total"] == v and f[k]["self"] == 0, (k, f.get(k), v)
for k, v in o["by_launch"].items():
    assert f[k]["total"] == v, (k, f[k], v)' "$TMP/o.json" "$TMP/top.json"
$TF -q fold "$x" -o "$TMP/x.wall"
$TF -q fold "$d/vm.trace.json.gz" -o "$TMP/j.wall"
check "wall: the same folded profile as the trace JSON's (no kernel, no allocator record)" cmp "$TMP/x.wall" "$TMP/j.wall"
$TF -q info --format json "$x" > "$TMP/info.json"
check "info: the GPU stream with the oracle's time, all attributed; ops not recoverable and the skipped allocator records counted" python3 -c '
import json,sys
o=json.load(open(sys.argv[1])); i=json.load(open(sys.argv[2]))
got={x["process_name"] + "/" + x["thread_name"]: {"gpu_ns": x["gpu_ns"], "activities": x["gpu_activities"]}
     for x in i["threads"] if x.get("gpu_activities")}
assert got == o["streams"], (got, o["streams"])
d=i["diagnostics"]
assert d["gpu_attributed_ns"] == o["gpu_ns"] and not d["gpu_unattributed_ns"], d
assert d["gpu_op_unknown"] == o["op_unknown"]["activities"] and d["gpu_op_unknown_ns"] == o["op_unknown"]["gpu_ns"], d
assert d["xplane_memory_event"] == 60 and d["xplane_not_timeline"] == 0, d' "$TMP/o.json" "$TMP/info.json"
for m in 1 64; do # spilled spans (1), the launch table too (64): the op frame kept
	$TF -q fold --sort-mem $m --sample-type gpu "$x" -o "$TMP/s$m.folded"
done
check "--sort-mem 1 and 64 (spans and launches in the temporary file): the same gpu profile, op frames kept" \
	sh -c "cmp '$TMP/gpu.folded' '$TMP/s1.folded' && cmp '$TMP/gpu.folded' '$TMP/s64.folded'"
gzip -c "$x" > "$TMP/vm.xplane.pb.gz"
$TF -q fold --sample-type gpu "$TMP/vm.xplane.pb.gz" -o "$TMP/gz.folded"
check "gzipped: the same gpu profile" cmp "$TMP/gpu.folded" "$TMP/gz.folded"
# made by hand (tests/tools/xplane_make.py): op by tf_op, by kernel name
# (entry computation first), by hlo_op given as a ref_value; none for a
# memset; a launch missing; ps rounded half to even; a derived line, an
# aggregated event and a Task Environment plane skipped
python3 tests/tools/xplane_make.py "$TMP/h.xplane.pb" ops
python3 tests/tools/xplane_check.py "$TMP/h.xplane.pb" > "$TMP/ho.json"
$TF -q fold --sample-type gpu "$TMP/h.xplane.pb" -o "$TMP/h.folded"
check "hand-made: gpu call paths = the oracle's (ops by tf_op, kernel name, hlo_op; unattributed)" python3 -c '
import json,sys
o=json.load(open(sys.argv[1]))
g={}
for l in open(sys.argv[2]):
    p,v=l.rstrip("\n").rsplit(" ",1); g[p]=int(v)
assert g == o["paths"], (g, o["paths"])
want={"Execute;cuLaunchKernel;jit(f)/dot_general;sm90_xmma_gemm_tn": 5000, "Execute;cuLaunchKernel;jit(f)/sub;wrapped_subtract_1": 7000,
      "Execute;cuLaunchKernel;jit(f)/mul;k3": 3000, "Execute;cuLaunchKernel;jit(f)/dot_general;sm90_gemm": 11000,
      "Execute;cuLaunchKernel;Memset 0": 700, "[unattributed gpu];lost_kernel": 900}
assert g == want, g' "$TMP/ho.json" "$TMP/h.folded"
$TF -q info --format json "$TMP/h.xplane.pb" > "$TMP/hi.json"
check "hand-made: the derived line and the aggregated event skipped, two activities without op" python3 -c '
import json,sys
d=json.load(open(sys.argv[1]))["diagnostics"]
assert d["xplane_not_timeline"] == 2 and d["xplane_memory_event"] == 1, d
assert d["gpu_op_unknown"] == 2 and d["gpu_op_unknown_ns"] == 1600, d' "$TMP/hi.json"
$TF info "$TMP/h.xplane.pb" > "$TMP/hinfo.txt" 2>&1
check "hand-made: info's note names the derived line it skipped" grep -q "line 'XLA Ops' of plane '/device:GPU:0' (1 events) is xprof's derived line" "$TMP/hinfo.txt"
# damaged files: an error naming the file and the byte where it goes wrong
head -c 100000 "$x" > "$TMP/cut.xplane.pb"
expect_exit 3 "truncated: exit 3" $TF -q top "$TMP/cut.xplane.pb"
cp "$TMP/err" "$TMP/e1"
check "truncated: the message names the file and the byte (93034: the innermost field cut short)" \
	grep -q "cannot read '$TMP/cut.xplane.pb' at byte 93034: .*truncated" "$TMP/e1"
n=$(wc -c < "$TMP/h.xplane.pb")
{ cat "$TMP/h.xplane.pb"; printf '\017'; } > "$TMP/bad.xplane.pb"
expect_exit 3 "a field of wire type 7 after the last plane: exit 3" $TF -q top "$TMP/bad.xplane.pb"
cp "$TMP/err" "$TMP/e2"
check "wire type 7: the message names the file and its byte ($n)" grep -q "cannot read '$TMP/bad.xplane.pb' at byte $n: not a readable XPlane" "$TMP/e2"
: > "$TMP/empty.xplane.pb"
expect_exit 3 "empty *.xplane.pb: exit 3" $TF -q top "$TMP/empty.xplane.pb"
cp "$TMP/err" "$TMP/e3"
check "empty: no /host:CPU or /device:GPU plane, said" grep -q "no timeline to read" "$TMP/e3"
# a Perfetto trace (also protobuf, first byte 0x0a) stays Perfetto
$TF -q perfetto "$d/vm.trace.json.gz" -o "$TMP/t.pftrace" 2>/dev/null
check "a Perfetto trace is not taken for an XPlane" sh -c "$TF -q info '$TMP/t.pftrace' | grep -q '(format perfetto,'"
finish
