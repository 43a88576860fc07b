# XLA/JAX profiler traces (docs/format-jax.md): the trace-event JSON of
# jax.profiler.trace(..., create_perfetto_trace=True) read as GPU activity.
# Its kernels sit in a process named /device:GPU:0 (thread "Stream #14(...)")
# and share args.correlation_id with the host call that launched them
# (cuGraphLaunch); they must be the gpu sample type under that call's path,
# never wall.  Oracle: tests/tools/jax_check.py, which reads the JSON with
# Python and exact decimals.  With the previous binary the kernels were wall
# time of a thread and the profile had no gpu type: 12 of the 17 checks
# fail (the oracle's own, wall through the timelines and the trace without
# XLA process names pass).
. tests/lib.sh
t=$DATA/jax/jax0112-h200-mlp/vm.trace.json.gz
python3 tests/tools/jax_check.py "$t" > "$TMP/o.json" || fail "jax_check.py"
check "the oracle: 105 activities, 2,014,148 ns, all under cuGraphLaunch (the fixture's README)" python3 -c '
import json,sys
o=json.load(open(sys.argv[1]))
assert o["activities"] == 105 and o["gpu_ns"] == 2014148 and o["unattributed_ns"] == 0, o
assert o["by_launch"] == {"cuGraphLaunch (CudaGraph:18)": 2014148}, o["by_launch"]' "$TMP/o.json"
# gpu per call path: fold = the oracle's launch path + kernel, exactly
$TF -q fold --sample-type gpu "$t" -o "$TMP/gpu.folded" || fail "fold"
check "fold --sample-type gpu: every call path (host regions, launch, kernel) and its GPU ns = the oracle's" python3 -c '
import json,sys
o=json.load(open(sys.argv[1]))["paths"]
g={}
for l in open(sys.argv[2]):
    p,v=l.rstrip("\n").rsplit(" ",1); g[p]=int(v)
assert g == o, sorted(set(g.items()) ^ set(o.items()))[:6]' "$TMP/o.json" "$TMP/gpu.folded"
$TF -q top --sample-type gpu -n 0 --format json "$t" > "$TMP/top.json" || fail "top"
check "top --sample-type gpu: total, each kernel's GPU time and calls, the launch's and the XLA op's total = the oracle's" python3 -c '
import json,sys
o=json.load(open(sys.argv[1])); t=json.load(open(sys.argv[2]))
f={x["name"]: x for x in t["functions"]}
assert t["total"] == o["gpu_ns"], (t["total"], o["gpu_ns"])
for k, v in o["kernels"].items():
    assert f[k]["self"] == v["gpu_ns"] == f[k]["total"] and f[k]["calls"] == v["calls"], (k, f[k], v)
for k, v in o["by_launch"].items():
    assert f[k]["total"] == v and f[k]["self"] == 0, (k, f[k], v)
# the fixture ran each step as one command buffer: every kernel has hlo_op
# command_buffer_1, the host region of that name above the launch
for k, v in o["by_hlo_op"].items():
    assert f[k]["total"] == v, (k, f.get(k), v)' "$TMP/o.json" "$TMP/top.json"
$TF -q top -n 0 --format json "$t" > "$TMP/wall.json"
check "wall: no kernel has wall time (GPU time never adds to wall)" python3 -c '
import json,sys
o=json.load(open(sys.argv[1])); w=json.load(open(sys.argv[2]))
f={x["name"]: x for x in w["functions"]}
bad=[k for k in o["kernels"] if f.get(k, {}).get("self", 0)]
assert not bad, bad' "$TMP/o.json" "$TMP/wall.json"
$TF -q info --format json "$t" > "$TMP/info.json"
check "info: the GPU stream is a GPU track with the oracle's GPU time; all of it under its launch" python3 -c '
import json,sys
o=json.load(open(sys.argv[1])); i=json.load(open(sys.argv[2]))
got={x["process_name"] + "/" + x["thread_name"]: {"gpu_ns": x["gpu_ns"], "activities": x["gpu_activities"]}
     for x in i["threads"] if x.get("gpu_activities")}
assert got == o["streams"], (got, o["streams"])
d=i["diagnostics"]
assert d.get("gpu_attributed_ns") == o["gpu_ns"] and not d.get("gpu_unattributed_ns"), d' "$TMP/o.json" "$TMP/info.json"
# per correlation id (one per step): the GPU spans of the Chrome timeline
$TF -q chrome "$t" -o "$TMP/c.json" || fail "chrome"
check "chrome timeline: GPU time per correlation id (per step) = the oracle's" python3 -c '
import json,sys
from decimal import Decimal
o=json.load(open(sys.argv[1])); d=json.load(open(sys.argv[2]), parse_float=Decimal)
ev=d["traceEvents"] if isinstance(d, dict) else d
got={}
for e in ev:
    c=(e.get("args") or {}).get("correlation")
    if e.get("ph") == "X" and e.get("pid") == 1 and c is not None:
        got[str(c)]=got.get(str(c), 0) + int(Decimal(e["dur"]) * 1000)
assert got == o["by_correlation"], (got, o["by_correlation"])' "$TMP/o.json" "$TMP/c.json"
# through every timeline format and back: the same profile
gpu_paths() { $TF -q fold --sample-type gpu "$1" -o - | LC_ALL=C sort; }
table "$t" > "$TMP/want.wall"
table --sample-type gpu "$t" > "$TMP/want.gpu" 2>/dev/null
gpu_paths "$t" > "$TMP/want.paths" 2>/dev/null
for f in chrome perfetto otf2; do
	case $f in chrome) o=$TMP/rt.json ;; perfetto) o=$TMP/rt.pftrace ;; otf2) o=$TMP/rt_otf2 ;; esac
	$TF -q $f "$t" -o "$o" 2>/dev/null || { fail "-> $f: cannot write"; continue; }
	table "$o" > "$TMP/got.wall"
	table --sample-type gpu "$o" > "$TMP/got.gpu" 2>/dev/null
	gpu_paths "$o" > "$TMP/got.paths" 2>/dev/null
	check "-> $f -> read back: wall per function as the input's" cmp -s "$TMP/want.wall" "$TMP/got.wall"
	check "-> $f -> read back: gpu per function as the input's" sh -c "test -s '$TMP/want.gpu' && cmp -s '$TMP/want.gpu' '$TMP/got.gpu'"
	check "-> $f -> read back: gpu per call path as the input's" sh -c "test -s '$TMP/want.paths' && cmp -s '$TMP/want.paths' '$TMP/got.paths'"
done
# hand-made: a kernel launched by cuLaunchKernel (correlation id as a
# number), one whose id is on no host call, and a non-XLA trace whose
# uncategorized events carry correlation_id: no GPU time there
cat > "$TMP/h.json" <<'EOT'
{"traceEvents":[
{"ph":"M","pid":7,"name":"process_name","args":{"name":"/host:CPU"}},
{"ph":"M","pid":1,"name":"process_name","args":{"name":"/device:GPU:0"}},
{"ph":"M","pid":1,"tid":3,"name":"thread_name","args":{"name":"Stream #3(Compute)"}},
{"ph":"X","pid":7,"tid":9,"ts":10,"dur":10,"name":"Thunk"},
{"ph":"X","pid":7,"tid":9,"ts":12,"dur":2,"name":"cuLaunchKernel","args":{"correlation_id":41}},
{"ph":"X","pid":1,"tid":3,"ts":15,"dur":5,"name":"fusion","args":{"correlation_id":"41","hlo_op":"fusion","tf_op":"jit(f)/mul"}},
{"ph":"X","pid":1,"tid":3,"ts":21,"dur":1.5,"name":"lost","args":{"correlation_id":"42"}}
]}
EOT
$TF -q fold --sample-type gpu "$TMP/h.json" -o "$TMP/h.folded"
check "hand-made: the kernel under Thunk;cuLaunchKernel and its tf_op, an unknown id under [unattributed gpu]" sh -c "
	grep -qx 'Thunk;cuLaunchKernel;jit(f)/mul;fusion 5000' '$TMP/h.folded' &&
	grep -qx '\[unattributed gpu\];lost 1500' '$TMP/h.folded' && test \$(wc -l < '$TMP/h.folded') = 2"
# command buffers off (XLA_FLAGS=--xla_gpu_enable_command_buffer=): each
# kernel launched on its own, its tf_op the JAX op path; events of the
# fixture (names, kernel_details, times of step 1) with such tf_op values.
# The op is a frame between the launch and the kernel; "XlaModule:" (XLA
# could not tell) none.  Before: no op frame, the three tf_op checks that
# expect one fail (and the hand-made one above).
cat > "$TMP/op.json" <<'EOT'
{"traceEvents":[
{"ph":"M","pid":1,"name":"process_name","args":{"name":"/device:GPU:0"}},
{"ph":"M","pid":1,"tid":14,"name":"thread_name","args":{"name":"Stream #14(Compute,Memset)"}},
{"ph":"M","pid":701,"name":"process_name","args":{"name":"/host:CPU"}},
{"ph":"M","pid":701,"tid":1343009695,"name":"thread_name","args":{"name":"python3"}},
{"ph":"X","pid":701,"tid":1343009695,"ts":22100.0,"dur":300.0,"name":"PjRtCApiLoadedExecutable::Execute"},
{"ph":"X","pid":701,"tid":1343009695,"ts":22169.823,"dur":10.5,"name":"cuLaunchKernel","args":{"correlation_id":"1"}},
{"ph":"X","pid":701,"tid":1343009695,"ts":22190.1,"dur":9.25,"name":"cuLaunchKernel","args":{"correlation_id":"2"}},
{"ph":"X","pid":701,"tid":1343009695,"ts":22210.0,"dur":5.0,"name":"cuMemsetD32Async","args":{"correlation_id":"3"}},
{"ph":"X","pid":701,"tid":1343009695,"ts":22230.0,"dur":8.0,"name":"cuLaunchKernel","args":{"correlation_id":"4"}},
{"ph":"X","pid":1,"tid":14,"ts":22316.554,"dur":20,"name":"sm90_xmma_gemm_f32f32_tf32f32_f32_nn_n_tilesize128x128x32_warpgroupsize1x1x1_execute_segment_k_off_kernel__5x_cublas","args":{"correlation_id":"1","hlo_module":"jit_upd","hlo_op":"custom-call.1","kernel_details":"regs:168 static_shared:0","tf_op":"jit(upd)/jit(main)/dot_general"}},
{"ph":"X","pid":1,"tid":14,"ts":22336.682,"dur":5.856,"name":"loop_multiply_tanh_fusion","args":{"correlation_id":"2","hlo_module":"jit_upd","hlo_op":"loop_multiply_tanh_fusion","kernel_details":"regs:32 static_shared:0","tf_op":"jit(upd)/jvp()/mul"}},
{"ph":"X","pid":1,"tid":14,"ts":22549.674,"dur":0.769,"name":"Memset 0","args":{"Memset_details":"kind:unknown num_bytes:4 async:0","correlation_id":"3","hlo_module":"jit_upd","hlo_op":"","tf_op":"XlaModule:"}},
{"ph":"X","pid":1,"tid":14,"ts":22637.931,"dur":48.256,"name":"wrapped_subtract_1","args":{"correlation_id":"4","hlo_module":"jit_upd","hlo_op":"wrapped_subtract.1","tf_op":"jit(upd)/sub"}}
]}
EOT
$TF -q fold --sample-type gpu "$TMP/op.json" -o "$TMP/op.folded"
check "tf_op: the cuBLAS kernel under its launch and its JAX op" \
	grep -qx 'PjRtCApiLoadedExecutable::Execute;cuLaunchKernel;jit(upd)/jit(main)/dot_general;sm90_xmma_gemm_f32f32_tf32f32_f32_nn_n_tilesize128x128x32_warpgroupsize1x1x1_execute_segment_k_off_kernel__5x_cublas 20000' "$TMP/op.folded"
check "tf_op: each fusion kernel under its own JAX op" sh -c "
	grep -qx 'PjRtCApiLoadedExecutable::Execute;cuLaunchKernel;jit(upd)/jvp()/mul;loop_multiply_tanh_fusion 5856' '$TMP/op.folded' &&
	grep -qx 'PjRtCApiLoadedExecutable::Execute;cuLaunchKernel;jit(upd)/sub;wrapped_subtract_1 48256' '$TMP/op.folded'"
$TF -q top --sample-type gpu -n 0 --format json "$TMP/op.json" > "$TMP/op.top"
check "tf_op: the JAX op is a frame of the gpu profile with its kernels' time, no self time" python3 -c '
import json,sys
f={x["name"]: x for x in json.load(open(sys.argv[1]))["functions"]}
assert f["jit(upd)/jvp()/mul"]["total"] == 5856 and f["jit(upd)/jvp()/mul"]["self"] == 0, f["jit(upd)/jvp()/mul"]
assert f["jit(upd)/jit(main)/dot_general"]["total"] == 20000, f' "$TMP/op.top"
check "tf_op XlaModule: (XLA could not tell) gives no frame: the memset right under its launch" \
	grep -qx 'PjRtCApiLoadedExecutable::Execute;cuMemsetD32Async;Memset 0 769' "$TMP/op.folded"
sed -e 's|/host:CPU|main|' -e 's|/device:GPU:0|worker|' "$TMP/h.json" > "$TMP/n.json"
expect_exit 3 "hand-made, processes not named by the XLA profiler: no gpu type (as before)" \
	$TF -q top --sample-type gpu "$TMP/n.json"
finish
