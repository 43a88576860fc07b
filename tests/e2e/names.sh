# Stable names (docs/stack-rules.md "Stable names"), names as pprof shows
# them, and profiles of different sample types together.
#   - two runs of identical PyTorch code (the real H200 trace, and the same
#     trace with the object addresses another process has:
#     tests/tools/gpu_variant.py) compare with no function new or gone;
#     --raw-names shows the phantoms; the rules on hand-made names, against
#     tests/tools/stable_names.py (written from the docs);
#   - ProfilerStep#N is one frame ProfilerStep (--step-frames: one per step);
#   - timelines keep the original text, Parquet has both (DuckDB reads them);
#   - go tool pprof, with its default options (-top, -traces, -diff_base,
#     -http), shows every name as tracefold top does;
#   - --sample-types and the union of sample types.
. tests/lib.sh
H=$DATA/chrome/pytorch211-h200-gpt/trace.json.gz
python3 tests/tools/gpu_variant.py "$H" "$TMP/other.json" --seed 7
$TF -q diff --format json "$H" "$TMP/other.json" > "$TMP/d.json"
check "identical code in two processes: no function new or gone" python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
assert d["new_count"] == 0 and d["gone_count"] == 0 and d["total"]["delta"] == 0, (d["new_count"], d["gone_count"])' "$TMP/d.json"
$TF -q diff --raw-names --format json "$H" "$TMP/other.json" > "$TMP/draw.json"
check "--raw-names: the object addresses make 40 or more functions new and as many gone" python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
assert d["new_count"] >= 40 and d["new_count"] == d["gone_count"], (d["new_count"], d["gone_count"])' "$TMP/draw.json"
$TF -q top -n 0 --format json "$H" > "$TMP/top.json"
check "no frame keeps an address; the built-ins are named without it" python3 -c '
import json, sys
f = [x["name"] for x in json.load(open(sys.argv[1]))["functions"]]
assert not [n for n in f if " at 0x" in n], [n for n in f if " at 0x" in n][:3]
assert "<built-in method run_backward of torch._C._EngineBase object>" in f' "$TMP/top.json"

# the rules, name by name, against the independent version
cat > "$TMP/names.json" <<'EOF'
{"traceEvents":[
{"ph":"X","name":"ProfilerStep#12","pid":1,"tid":1,"ts":0,"dur":100},
{"ph":"X","name":"<built-in method item of Tensor object at 0x7f6ff8fb07e0>","pid":1,"tid":1,"ts":1,"dur":5},
{"ph":"X","name":"aten::view, seq = 46174, op_id = 314290","pid":1,"tid":1,"ts":10,"dur":5},
{"ph":"X","name":"aten::mm, seq = 7, op_id = 9, sizes = [[2, 3], [3, 4]], input_op_ids = [(5, 0), (6, 0)]","pid":1,"tid":1,"ts":20,"dur":5},
{"ph":"X","name":"<function f at 0xdeadbeefz>","pid":1,"tid":1,"ts":30,"dur":5},
{"ph":"X","name":"f, seq = 12x","pid":1,"tid":1,"ts":40,"dur":5},
{"ph":"X","name":"ProfilerStep#12a","pid":1,"tid":1,"ts":50,"dur":5},
{"ph":"X","name":"<function g at 0x1f>","pid":1,"tid":1,"ts":60,"dur":5}
]}
EOF
$TF -q top -n 0 --format json --name-width 0 "$TMP/names.json" > "$TMP/n.json"
check "each name as tests/tools/stable_names.py makes it" python3 -c '
import json, sys
sys.path.insert(0, "tests/tools"); from stable_names import normalize
raw = [e["name"] for e in json.load(open(sys.argv[1]))["traceEvents"]]
got = sorted(f["name"] for f in json.load(open(sys.argv[2]))["functions"])
assert got == sorted(normalize(n) for n in raw), (got, sorted(normalize(n) for n in raw))
assert "aten::mm, sizes = [[2, 3], [3, 4]]" in got and "aten::view" in got and "ProfilerStep" in got, got
assert "<function f at 0xdeadbeefz>" in got and "f, seq = 12x" in got and "ProfilerStep#12a" in got, got' "$TMP/names.json" "$TMP/n.json"
$TF -q top -n 0 --format json --name-width 0 --raw-names "$TMP/names.json" > "$TMP/nr.json"
check "--raw-names keeps every name as it is" python3 -c '
import json, sys
raw = sorted(e["name"] for e in json.load(open(sys.argv[1]))["traceEvents"])
assert sorted(f["name"] for f in json.load(open(sys.argv[2]))["functions"]) == raw' "$TMP/names.json" "$TMP/nr.json"

# ProfilerStep#N: one frame, or one per step with --step-frames
K=$(ls $DATA/chrome/kineto-resnet50-gpu/*.json.gz)
$TF -q top -n 0 --format json "$K" > "$TMP/k.json"
$TF -q top -n 0 --format json --step-frames "$K" > "$TMP/ks.json"
check "Kineto steps: one frame ProfilerStep with all six steps' calls; --step-frames: six frames" python3 -c '
import json, sys
a = {f["name"]: f for f in json.load(open(sys.argv[1]))["functions"]}
b = {f["name"]: f for f in json.load(open(sys.argv[2]))["functions"]}
steps = [n for n in b if n.startswith("ProfilerStep#")]
assert not [n for n in a if n.startswith("ProfilerStep#")] and a["ProfilerStep"]["calls"] == 6, a.get("ProfilerStep")
assert len(steps) == 6 and "ProfilerStep" not in b
assert sum(b[n]["total"] for n in steps) == a["ProfilerStep"]["total"]' "$TMP/k.json" "$TMP/ks.json"

# timelines keep the original text; Parquet has both
$TF -q chrome "$TMP/names.json" -o "$TMP/t.json"
check "the Chrome timeline keeps the original names" python3 -c '
import json, sys
raw = sorted(e["name"] for e in json.load(open(sys.argv[1]))["traceEvents"])
got = sorted(e["name"] for e in json.load(open(sys.argv[2]))["traceEvents"] if e.get("ph") == "X")
assert got == raw, got' "$TMP/names.json" "$TMP/t.json"
$TF -q top -n 0 --format json --name-width 0 "$TMP/t.json" > "$TMP/tt.json"
check "... and reads back to the same profile (names normalized again)" python3 -c '
import json, sys
a = sorted((f["name"], f["self"], f["calls"]) for f in json.load(open(sys.argv[1]))["functions"])
b = sorted((f["name"], f["self"], f["calls"]) for f in json.load(open(sys.argv[2]))["functions"])
assert a == b, (a, b)' "$TMP/n.json" "$TMP/tt.json"
$TF -q events "$TMP/names.json" -o "$TMP/pq"
if node tests/tools/duckdb_query.mjs "$TMP/pq" "SELECT name, raw_name FROM read_parquet('\$DIR/slices/**/*.parquet') ORDER BY raw_name" > "$TMP/q.out" 2> "$TMP/q.err"; then
	check "Parquet slices: name is the stable name, raw_name the trace's (DuckDB)" python3 -c '
import json, sys
sys.path.insert(0, "tests/tools"); from stable_names import normalize
rows = json.load(open(sys.argv[1]))
raw = sorted(e["name"] for e in json.load(open(sys.argv[2]))["traceEvents"])
assert sorted(r[1] for r in rows) == raw and all(r[0] == normalize(r[1]) for r in rows), rows' "$TMP/q.out" "$TMP/names.json"
else
	fail "DuckDB reads the slices (node, tests/node_modules)"; sed 's/^/#   /' "$TMP/q.err" | head -5
fi

# pprof shows every name as top does, with its default options
cat > "$TMP/cxx.json" <<'EOF'
{"traceEvents":[
{"ph":"X","name":"<built-in method item of Tensor object at 0x7f00aa>","pid":1,"tid":1,"ts":0,"dur":100},
{"ph":"X","name":"Memcpy HtoD (Pinned -> Device)","pid":1,"tid":1,"ts":100,"dur":90},
{"ph":"X","name":"void at::native::(anonymous namespace)::multi_tensor_apply_kernel<at::native::(anonymous namespace)::TensorListMetadata<4>, float>(int, float*)","pid":1,"tid":1,"ts":200,"dur":80},
{"ph":"X","name":"std::vector<int, std::allocator<int> >::push_back(int const&)","pid":1,"tid":1,"ts":300,"dur":70},
{"ph":"X","name":"foo[bar]","pid":1,"tid":1,"ts":400,"dur":60},
{"ph":"X","name":"torch/nn/modules/module.py(1501): _call_impl","pid":1,"tid":1,"ts":500,"dur":50},
{"ph":"X","name":"_ZN2at6native4zeroEv","pid":1,"tid":1,"ts":600,"dur":40}
]}
EOF
$TF -q profile "$TMP/cxx.json" -o "$TMP/cxx.pb.gz"
$TF -q top -n 0 --format json --name-width 0 "$TMP/cxx.json" | python3 -c 'import json,sys; print("\n".join(sorted(f["name"] for f in json.load(sys.stdin)["functions"])))' > "$TMP/want.txt"
go tool pprof -top -nodecount=100 "$TMP/cxx.pb.gz" 2>/dev/null | python3 -c '
import re, sys
rows = [l for l in sys.stdin.read().splitlines() if re.match(r"^ +[0-9.]+[a-z]* +[0-9.]+% ", l)]
print("\n".join(sorted(l.split(None, 5)[5] for l in rows)))' > "$TMP/top.txt"
check "go tool pprof -top: every name as tracefold top has it" cmp "$TMP/want.txt" "$TMP/top.txt"
go tool pprof -traces "$TMP/cxx.pb.gz" > "$TMP/traces.txt" 2>/dev/null
check "go tool pprof -traces: every name" sh -c "while IFS= read -r n; do grep -qF \"\$n\" '$TMP/traces.txt' || { echo \"missing: \$n\"; exit 1; }; done < '$TMP/want.txt'"
$TF -q profile "$TMP/names.json" -o "$TMP/other.pb.gz"
go tool pprof -top -nodecount=100 -diff_base "$TMP/other.pb.gz" "$TMP/cxx.pb.gz" > "$TMP/diffbase.txt" 2>/dev/null
check "go tool pprof -diff_base: every name" sh -c "while IFS= read -r n; do grep -qF \"\$n\" '$TMP/diffbase.txt' || { echo \"missing: \$n\"; exit 1; }; done < '$TMP/want.txt'"
port=$((20000 + $$ % 20000))
go tool pprof -no_browser -http="127.0.0.1:$port" "$TMP/cxx.pb.gz" > "$TMP/http.log" 2>&1 &
srv=$!
ok=1
for i in $(seq 1 100); do
	curl -sf "http://127.0.0.1:$port/ui/top" > "$TMP/http.html" 2>/dev/null && break
	sleep 0.2
done
kill $srv 2>/dev/null; wait $srv 2>/dev/null
check "go tool pprof -http (its top page): every name" python3 -c '
import json, re, sys
page = open(sys.argv[1]).read()
names = {json.loads(m) for m in re.findall(r"\"Name\":(\"(?:[^\"\\]|\\.)*\")", page)}
miss = [n for n in open(sys.argv[2]).read().splitlines() if n not in names]
assert names and not miss, (miss, sorted(names))' "$TMP/http.html" "$TMP/want.txt"

# flame graph labels: a Python frame cut to its box keeps its function
cat > "$TMP/py.json" <<'EOF'
[{"ph":"X","name":"main","pid":1,"tid":1,"ts":0,"dur":1000},
 {"ph":"X","name":"/opt/conda/envs/training/lib/python3.10/site-packages/torch/nn/modules/module.py(1501): _call_impl","pid":1,"tid":1,"ts":0,"dur":200},
 {"ph":"X","name":"void at::native::unrolled_elementwise_kernel<at::native::direct_copy_kernel_cuda>(int)","pid":1,"tid":1,"ts":200,"dur":200}]
EOF
$TF -q flame "$TMP/py.json" -o "$TMP/py.svg"
check "flame: a cut Python frame label keeps its function (..._call_impl), another keeps its start" python3 -c '
import re, sys
t = re.findall(r"<text [^>]*>([^<]*)</text>", open(sys.argv[1]).read())
py = [x for x in t if "_call_impl" in x or x.startswith("/opt")]
cxx = [x for x in t if x.startswith("void at::native")]
assert py and py[0].startswith("..") and py[0].endswith("): _call_impl") and len(py[0]) < 100, t
assert cxx and cxx[0].endswith(".."), t' "$TMP/py.svg"

# --sample-types, and profiles with and without Kineto [memory] events
T=$DATA/chrome/pytorch-legacy-small/trace.json
$TF -q profile "$H" -o "$TMP/mem.pb.gz"
$TF -q profile "$T" -o "$TMP/nomem.pb.gz"
check "a profile with [memory] events merges with one without" $TF -q merge "$TMP/mem.pb.gz" "$TMP/nomem.pb.gz" -o "$TMP/both.pb.gz"
check "... the union of their sample types" sh -c "go tool pprof -raw '$TMP/both.pb.gz' 2>/dev/null | grep -q '^calls/count wall/nanoseconds\[dflt\] gpu/nanoseconds alloc_space/bytes alloc_objects/count'"
expect_exit 0 "... and diff --sample-type alloc_space compares them (0 in the one without)" $TF -q diff --sample-type alloc_space "$TMP/nomem.pb.gz" "$TMP/mem.pb.gz"
$TF -q profile --sample-types calls,wall "$H" -o "$TMP/cw1.pb.gz"
$TF -q profile --sample-types calls,wall "$T" -o "$TMP/cw2.pb.gz"
check "--sample-types calls,wall: exactly those" sh -c "go tool pprof -raw '$TMP/cw1.pb.gz' 2>/dev/null | grep -q '^calls/count wall/nanoseconds\[dflt\] *\$'"
check "... so go tool pprof -diff_base compares the two runs" go tool pprof -top -diff_base "$TMP/cw2.pb.gz" "$TMP/cw1.pb.gz"
check "... the values are the full profile's" sh -c "test \"\$(python3 tests/tools/pprof.py total '$TMP/cw1.pb.gz' wall)\" = \"\$(python3 tests/tools/pprof.py total '$TMP/mem.pb.gz' wall)\""
expect_exit 3 "--sample-types with a type the inputs lack" $TF -q profile --sample-types calls,nope "$H" -o "$TMP/x.pb.gz"
expect_exit 2 "--sample-types naming a type twice" $TF -q profile --sample-types wall,wall "$H" -o "$TMP/x.pb.gz"
finish
