# GPU-side record_function copies (Kineto's gpu_user_annotation) are not
# calls and not lanes, and flows reach GPU slices (docs/gpu.md
# "GPU annotations", docs/schema.md "flows"), on the Kineto traces that
# carry such copies and a hand-made one with overlapping kernels.  Oracle:
# tests/tools/gpuside_check.py, reading the trace JSON itself (per stream
# its activities, annotations, whether activities overlap, the ac2g
# arrows; per annotation its CPU-side calls); the events tables are read
# by DuckDB.
. tests/lib.sh
PY=/usr/bin/python3; [ -x $PY ] || PY=python3
command -v node >/dev/null || { fail "node is missing (tests/deps.sh installs it)"; finish; }
protoc --proto_path=proto --python_out="$TMP" proto/perfetto_trace.proto || { fail "protoc"; finish; }
# overlapping kernels: a lane they need; the annotation never one
cat > "$TMP/overlap.json" <<'EOF'
{"traceEvents":[
{"ph":"M","name":"thread_name","pid":0,"tid":7,"args":{"name":"stream 7"}},
{"ph":"X","cat":"user_annotation","name":"fwd","pid":1,"tid":1,"ts":9,"dur":12},
{"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":10,"dur":2,"args":{"correlation":7}},
{"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":13,"dur":2,"args":{"correlation":8}},
{"ph":"s","cat":"ac2g","name":"ac2g","id":7,"pid":1,"tid":1,"ts":10},
{"ph":"s","cat":"ac2g","name":"ac2g","id":8,"pid":1,"tid":1,"ts":13},
{"ph":"X","cat":"gpu_user_annotation","name":"fwd","pid":0,"tid":7,"ts":14,"dur":30},
{"ph":"X","cat":"kernel","name":"gemm","pid":0,"tid":7,"ts":15,"dur":5,"args":{"correlation":7}},
{"ph":"f","cat":"ac2g","name":"ac2g","id":7,"pid":0,"tid":7,"ts":15,"bp":"e"},
{"ph":"X","cat":"kernel","name":"gemm2","pid":0,"tid":7,"ts":17,"dur":6,"args":{"correlation":8}},
{"ph":"f","cat":"ac2g","name":"ac2g","id":8,"pid":0,"tid":7,"ts":17,"bp":"e"}
]}
EOF
for t in $DATA/chrome/pytorch211-h200-gpt/trace.json.gz $DATA/chrome/tracelens-bert-small-h100/*.json.gz \
	$DATA/chrome/hta-amd-mi250-rocm/*.json.gz "$TMP/overlap.json"; do
	[ -e "$t" ] || { fail "missing fixture $t"; continue; }
	b=$(basename "$(dirname "$t")"); [ "$t" = "$TMP/overlap.json" ] && b=hand-made
	$PY tests/tools/gpuside_check.py facts "$t" > "$TMP/facts.json" || { fail "$b: gpuside_check.py facts"; continue; }
	$TF -q top --format json -n 0 "$t" > "$TMP/top.json" || { fail "$b: top"; continue; }
	check "$b: an annotation's calls in top are its CPU-side calls, not its GPU-side copies" $PY -c '
import json,sys
fx=json.load(open(sys.argv[1])); top={f["name"]: f["calls"] for f in json.load(open(sys.argv[2]))["functions"]}
n=0
for name, a in fx["annotations"].items():
    if name.startswith("ProfilerStep#"):   # one stable frame for all steps
        continue
    assert a["gpu_copies"] and top.get(name) == a["cpu_calls"], (name, top.get(name), a)
    n+=1
assert n or sys.argv[3] != "pytorch211-h200-gpt", fx' "$TMP/facts.json" "$TMP/top.json" "$b"
	$TF -q chrome "$t" -o "$TMP/c.json" && $TF -q perfetto "$t" -o "$TMP/p.pftrace" || { fail "$b: timelines"; continue; }
	check "$b, Chrome JSON: a lane only where kernels overlap, annotations on their own thread, arrows on the kernels" \
		$PY tests/tools/gpuside_check.py chrome "$TMP/facts.json" "$TMP/c.json"
	check "$b, Perfetto: a lane only where kernels overlap, annotations on their own track" \
		$PY tests/tools/gpuside_check.py perfetto "$TMP/facts.json" "$TMP" "$TMP/p.pftrace"
	rm -rf "$TMP/ev"
	$TF -q events "$t" -o "$TMP/ev" || { fail "$b: events"; continue; }
	node tests/tools/duckdb_query.mjs "$TMP/ev" "
		WITH g AS (SELECT track_id FROM read_parquet('\$DIR/tracks/**/*.parquet') WHERE kind = 'gpu'),
		s AS (SELECT * FROM read_parquet('\$DIR/slices/**/*.parquet')),
		f AS (SELECT * FROM read_parquet('\$DIR/flows/**/*.parquet') WHERE dst_track IN (SELECT track_id FROM g))
		SELECT (SELECT count(*) FROM f),
		       (SELECT count(*) FROM f JOIN s ON f.dst_slice_id = s.slice_id
			WHERE s.track_id = f.dst_track AND s.kind = 'gpu' AND f.dst_ts_ns BETWEEN s.start_ns AND s.end_ns),
		       (SELECT coalesce(sum(dur_ns), 0) FROM s WHERE kind = 'gpu' AND track_id IN (SELECT track_id FROM g)),
		       (SELECT count(*) FROM s WHERE kind = 'gpu_annotation')" > "$TMP/q.json" 2> "$TMP/q.err" ||
		{ fail "$b: DuckDB"; sed 's/^/#   /' "$TMP/q.err" | head -5; continue; }
	check "$b, events: every flow to a GPU stream ends on the GPU slice it reaches; sum(dur_ns) of kind gpu = the activities'" $PY -c '
import json,sys
fx=json.load(open(sys.argv[1])); [[nf, bound, gpu_ns, nann]]=json.load(open(sys.argv[2]))
st=fx["streams"].values()
want=(sum(s["flows"] for s in st), sum(s["flows_on_their_activity"] for s in st), sum(s["gpu_ns"] for s in st),
      sum(s["annotations"] for s in st))
assert (nf, bound, gpu_ns, nann) == want and nf == bound and nf > 0, ((nf, bound, gpu_ns, nann), want)' "$TMP/facts.json" "$TMP/q.json"
done
finish
