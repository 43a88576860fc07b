# Backward ops under their forward op (--backward-to-forward, docs/gpu.md
# "Backward under forward").  Oracle: tests/tools/bwd_check.py, from the
# trace JSON itself (fwdbwd flows, Fwd thread id and Sequence number, GPU
# activities joined to their launches by correlation id, regions by time):
# the GPU time under a Python frame without and with the option and the GPU
# time under [backward] per forward op name.  On the PyTorch 2.11 GPT
# training trace and a hand-made one with two forward ops, their backward
# ops (the autograd thread written first, so its track comes first), a
# backward op with no link and one with no key.  With the binary before the
# option every check fails (an unknown option is a usage error).
. tests/lib.sh
PY=/usr/bin/python3; [ -x $PY ] || PY=python3
cat > "$TMP/hand.json" <<'EOF'
{"traceEvents":[
{"ph":"X","cat":"cpu_op","name":"autograd::engine::evaluate_function: ReluBackward0","pid":1,"tid":2,"ts":60,"dur":20,"args":{"Sequence number":6,"Fwd thread id":1}},
{"ph":"X","cat":"cpu_op","name":"ReluBackward0","pid":1,"tid":2,"ts":61,"dur":9,"args":{"Sequence number":6,"Fwd thread id":1}},
{"ph":"f","cat":"fwdbwd","name":"fwdbwd","id":2,"pid":1,"tid":2,"ts":61,"bp":"e"},
{"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":2,"ts":62,"dur":1,"args":{"correlation":102}},
{"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":2,"ts":72,"dur":1,"args":{"correlation":103}},
{"ph":"X","cat":"cpu_op","name":"autograd::engine::evaluate_function: AddmmBackward0","pid":1,"tid":2,"ts":82,"dur":13,"args":{"Sequence number":5,"Fwd thread id":1}},
{"ph":"X","cat":"cpu_op","name":"AddmmBackward0","pid":1,"tid":2,"ts":83,"dur":11,"args":{"Sequence number":5,"Fwd thread id":1}},
{"ph":"f","cat":"fwdbwd","name":"fwdbwd","id":1,"pid":1,"tid":2,"ts":83,"bp":"e"},
{"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":2,"ts":84,"dur":1,"args":{"correlation":104}},
{"ph":"X","cat":"cpu_op","name":"autograd::engine::evaluate_function: MulBackward0","pid":1,"tid":2,"ts":96,"dur":3,"args":{"Sequence number":99,"Fwd thread id":1}},
{"ph":"X","cat":"cpu_op","name":"MulBackward0","pid":1,"tid":2,"ts":96.5,"dur":2,"args":{"Sequence number":99,"Fwd thread id":1}},
{"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":2,"ts":97,"dur":1,"args":{"correlation":105}},
{"ph":"X","cat":"cpu_op","name":"autograd::engine::evaluate_function: torch::autograd::AccumulateGrad","pid":1,"tid":2,"ts":100,"dur":5},
{"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":2,"ts":101,"dur":1,"args":{"correlation":106}},
{"ph":"X","cat":"python_function","name":"train.py(10): step","pid":1,"tid":1,"ts":0,"dur":110,"args":{"Python id":1,"Python parent id":0}},
{"ph":"X","cat":"cpu_op","name":"aten::linear","pid":1,"tid":1,"ts":10,"dur":20,"args":{"Sequence number":5,"Fwd thread id":0}},
{"ph":"X","cat":"cpu_op","name":"aten::addmm","pid":1,"tid":1,"ts":12,"dur":16,"args":{"Sequence number":5,"Fwd thread id":0}},
{"ph":"s","cat":"fwdbwd","name":"fwdbwd","id":1,"pid":1,"tid":1,"ts":12},
{"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":14,"dur":2,"args":{"correlation":100}},
{"ph":"X","cat":"cpu_op","name":"aten::relu","pid":1,"tid":1,"ts":40,"dur":10,"args":{"Sequence number":6,"Fwd thread id":0}},
{"ph":"s","cat":"fwdbwd","name":"fwdbwd","id":2,"pid":1,"tid":1,"ts":40},
{"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":42,"dur":2,"args":{"correlation":101}},
{"ph":"M","name":"thread_name","pid":0,"tid":7,"args":{"name":"stream 7"}},
{"ph":"X","cat":"kernel","name":"gemm","pid":0,"tid":7,"ts":20,"dur":5,"args":{"correlation":100}},
{"ph":"X","cat":"kernel","name":"relu_k","pid":0,"tid":7,"ts":45,"dur":3,"args":{"correlation":101}},
{"ph":"X","cat":"kernel","name":"relu_bwd","pid":0,"tid":7,"ts":64,"dur":4,"args":{"correlation":102}},
{"ph":"X","cat":"kernel","name":"sum_k","pid":0,"tid":7,"ts":74,"dur":2,"args":{"correlation":103}},
{"ph":"X","cat":"kernel","name":"mm_bwd","pid":0,"tid":7,"ts":86,"dur":7,"args":{"correlation":104}},
{"ph":"X","cat":"kernel","name":"mul_bwd","pid":0,"tid":7,"ts":98,"dur":6,"args":{"correlation":105}},
{"ph":"X","cat":"kernel","name":"acc","pid":0,"tid":7,"ts":106,"dur":1,"args":{"correlation":106}}
]}
EOF
cat > "$TMP/hand.want" <<'EOF'
autograd::engine::evaluate_function: MulBackward0;MulBackward0;cudaLaunchKernel;mul_bwd 6000
autograd::engine::evaluate_function: torch::autograd::AccumulateGrad;cudaLaunchKernel;acc 1000
train.py(10): step;aten::linear;aten::addmm;[backward];autograd::engine::evaluate_function: AddmmBackward0;AddmmBackward0;cudaLaunchKernel;mm_bwd 7000
train.py(10): step;aten::linear;aten::addmm;cudaLaunchKernel;gemm 5000
train.py(10): step;aten::relu;[backward];autograd::engine::evaluate_function: ReluBackward0;ReluBackward0;cudaLaunchKernel;relu_bwd 4000
train.py(10): step;aten::relu;[backward];autograd::engine::evaluate_function: ReluBackward0;cudaLaunchKernel;sum_k 2000
train.py(10): step;aten::relu;cudaLaunchKernel;relu_k 3000
EOF
# diag NAME INFO.json: the counter's value in info's JSON
diag() { python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["diagnostics"][sys.argv[2]])' "$2" "$1"; }

# the hand-made trace: each path as it should be
H=$TMP/hand.json
check "hand-made: fold --sample-type gpu --backward-to-forward puts each backward op under its forward op" \
	sh -c '$0 -q fold --sample-type gpu --backward-to-forward "$1" -o - | diff "$2" -' "$TF" "$H" "$TMP/hand.want"
check "hand-made: the same with every track spilled (--sort-mem 1)" \
	sh -c '$0 -q fold --sample-type gpu --backward-to-forward --sort-mem 1 "$1" -o - | diff "$2" -' "$TF" "$H" "$TMP/hand.want"
$TF -q info --format json --backward-to-forward "$H" > "$TMP/hinfo.json"
check "hand-made: bwd_linked 2, bwd_unlinked 1 (MulBackward0: no flow; AccumulateGrad has no key)" \
	test "$(diag bwd_linked "$TMP/hinfo.json") $(diag bwd_unlinked "$TMP/hinfo.json")" = "2 1"
$TF -q info --format json "$H" > "$TMP/hinfo0.json"
check "hand-made: without the option no [backward] and no counts" sh -c \
	'! $0 -q fold --sample-type gpu "$1" -o - | grep -F "[backward]" && test "$2" = "0 0"' "$TF" "$H" \
	"$(diag bwd_linked "$TMP/hinfo0.json") $(diag bwd_unlinked "$TMP/hinfo0.json")"
# two inputs with the same flow ids: each input's backward ops under its own forward ops
cp "$H" "$TMP/hand2.json"
sed 's/ [0-9]*$//' "$TMP/hand.want" > "$TMP/paths"
check "two inputs with the same flow ids, -j 1 and -j 2: each path twice its time" sh -c '
for j in 1 2; do
	$0 -q fold --sample-type gpu --backward-to-forward -j $j "$1" "$2" -o - > "$3.$j" || exit 1
	awk "{ \$NF = \$NF / 2; print }" "$3.$j" | diff "$4" - || exit 1
done' "$TF" "$H" "$TMP/hand2.json" "$TMP/two" "$TMP/hand.want"
for t in "$H" $DATA/chrome/pytorch211-h200-gpt/trace.json.gz; do
	b=$(basename "$(dirname "$t")"); [ "$t" = "$H" ] && b=hand-made
	$PY tests/tools/bwd_check.py facts "$t" > "$TMP/facts.json" || { fail "$b: bwd_check.py facts"; continue; }
	$TF -q fold --sample-type gpu "$t" -o "$TMP/off.folded" &&
		$TF -q fold --sample-type gpu --backward-to-forward "$t" -o "$TMP/on.folded" || { fail "$b: fold"; continue; }
	check "$b: GPU time under a Python frame and under [backward] per forward op = the checker's" \
		$PY tests/tools/bwd_check.py compare "$TMP/facts.json" "$TMP/off.folded" "$TMP/on.folded"
	sed -n 's/^/# /p' "$TMP/out"
	$TF -q info --format json --backward-to-forward "$t" > "$TMP/info.json"
	check "$b: bwd_linked and bwd_unlinked = the checker's backward ops with and without a link" python3 -c '
import json,sys
f=json.load(open(sys.argv[1])); d=json.load(open(sys.argv[2]))["diagnostics"]
assert (d["bwd_linked"], d["bwd_unlinked"]) == (f["bwd_linked"], f["bwd_unlinked"]), (d["bwd_linked"], d["bwd_unlinked"], f)' \
		"$TMP/facts.json" "$TMP/info.json"
	$TF -q top --sample-type gpu --format json -n 0 --backward-to-forward "$t" > "$TMP/top.json"
	check "$b: top's [backward] total = the checker's backward GPU time" python3 -c '
import json,sys
f=json.load(open(sys.argv[1])); t=json.load(open(sys.argv[2]))["functions"]
got=sum(x["total"] for x in t if x["name"] == "[backward]"); want=sum(f["backward_ns_per_forward_op"].values())
assert got == want, (got, want)' "$TMP/facts.json" "$TMP/top.json"
done
# the goal of issue 27: at least 95% of a training trace's GPU time under a Python frame
G=$DATA/chrome/pytorch211-h200-gpt/trace.json.gz
check "GPT: at least 95% of the GPU time under a Python frame with the option (fold)" python3 -c '
import json,sys
py=set(json.load(open(sys.argv[1]))["python_frames"]); tot=under=0
for l in open(sys.argv[2]):
    stack, _, v = l.rstrip().rpartition(" ")
    tot += int(v); under += int(v) * any(f in py for f in stack.split(";"))
assert tot and under * 100 >= 95 * tot, (under, tot)' "$TMP/facts.json" "$TMP/on.folded"
# the timelines: the same slices at the same times (docs/gpu.md)
for o in "" --backward-to-forward; do
	$TF -q convert $o "$G" --to chrome -o "$TMP/c$o.json" || fail "convert chrome $o"
done
check "GPT: the Chrome timeline holds the same slices with and without the option" python3 -c '
import json,sys
def s(p):
    return sorted((e["pid"], e["tid"], e["ts"], e.get("dur"), e["name"]) for e in json.load(open(p))["traceEvents"] if e["ph"] == "X")
assert s(sys.argv[1]) == s(sys.argv[2])' "$TMP/c.json" "$TMP/c--backward-to-forward.json"
finish
