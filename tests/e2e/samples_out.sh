# Sampled profiles in the table and timeline outputs (issue 30): every
# perf-script fixture of tests/data/samples written by `tracefold events`
# and its samples table read back by DuckDB and hyparquet
# (tests/tools/samples_table_check.mjs) against the fixture's independent
# expected.json: rows, counts and weights per type, and the self and total
# of each function through the join with call_paths.  `tracefold perfetto`
# of the same fixtures: decoded by protoc against proto/perfetto_trace.proto
# with no unknown field, and its PerfSample packets resolved through the
# sequence's interned callstacks, frames, names and mapping the way trace
# processor takes them (tests/tools/perfetto_samples_check.py): one per
# sample, on a described thread, self and total samples per function =
# expected.json.
. tests/lib.sh
command -v node >/dev/null || { fail "node is missing (tests/deps.sh installs it)"; finish; }
[ -d tests/node_modules/@duckdb/node-api ] || { fail "tests/node_modules is missing (tests/deps.sh runs npm ci)"; finish; }
S=$DATA/samples
PY=/usr/bin/python3 # Debian's, with python3-protobuf
[ -x $PY ] || PY=python3
protoc --proto_path=proto --python_out="$TMP" proto/perfetto_trace.proto || fail "protoc --python_out"
n=0
for d in $S/perf-*/; do
	for key in $(python3 -c 'import json,sys; f=json.load(open(sys.argv[1]))["files"]
print(" ".join(k for k, v in sorted(f.items()) if v.get("format") == "perf-script"))' "$d/expected.json"); do
		in=$d$key; b=$(basename "$d")/$key
		[ -f "$in" ] || { fail "missing fixture $in"; continue; }
		n=$((n + 1)); rm -rf "$TMP/pq"
		$TF -q events --raw-names "$in" -o "$TMP/pq" 2> "$TMP/err" || { fail "$b: events"; sed 's/^/#   /' "$TMP/err"; continue; }
		if node tests/tools/samples_table_check.mjs "$TMP/pq" "$d/expected.json" "$key" > "$TMP/check.out" 2>&1; then
			ok "$b: the samples table read by DuckDB and hyparquet = expected.json ($(grep -c '^ok' "$TMP/check.out") checks)"
		else
			fail "$b: the samples table"; grep -v '^ok' "$TMP/check.out" | sed 's/^/#   /' | head -20
		fi
		$TF -q perfetto "$in" -o "$TMP/s.pftrace" || { fail "$b: perfetto"; continue; }
		check "$b: perfetto: PerfSample callstacks as trace processor resolves them = expected.json" \
			$PY tests/tools/perfetto_samples_check.py "$TMP" "$TMP/s.pftrace" "$d/expected.json" "$key"
	done
done
check "$n perf fixture files checked" test "$n" -ge 20
# the checker catches a wrong table: the fixture's numbers against another file's
rm -rf "$TMP/pq"; $TF -q events --raw-names $S/perf-c-fp/perf-fields.script -o "$TMP/pq"
expect_exit 1 "the check fails on another fixture's expected numbers" \
	node tests/tools/samples_table_check.mjs "$TMP/pq" $S/perf-python/expected.json perf-fields.script
# perfetto: plain packets decode with protoc, no unknown field, one perf_sample per sample
want=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["files"]["perf-fields.script"]["sample_types"]["samples"])' $S/perf-c-fp/expected.json)
$TF -q perfetto --compression none $S/perf-c-fp/perf-fields.script -o "$TMP/plain.pftrace"
check "perfetto: protoc --decode reads the plain trace with no unknown field and $want perf_sample packets" sh -c "protoc --proto_path=proto \
	--decode=perfetto.protos.Trace proto/perfetto_trace.proto < '$TMP/plain.pftrace' > '$TMP/txt' &&
	! grep -qE '^ *[0-9]+:' '$TMP/txt' && test \$(grep -c 'perf_sample {' '$TMP/txt') = $want"
# the checker catches a wrong trace: another fixture's numbers
$TF -q perfetto $S/perf-c-fp/perf-fields.script -o "$TMP/s.pftrace"
expect_exit 1 "perfetto: the check fails on another fixture's expected numbers" \
	$PY tests/tools/perfetto_samples_check.py "$TMP" "$TMP/s.pftrace" $S/perf-python/expected.json perf-fields.script
# a trace with no samples has no PerfSample
$TF -q perfetto --compression none $DATA/chrome/pytorch-legacy-small/trace.json -o "$TMP/plain.pftrace"
check "perfetto: a trace without samples has no perf_sample" sh -c "protoc --proto_path=proto \
	--decode=perfetto.protos.Trace proto/perfetto_trace.proto < '$TMP/plain.pftrace' | grep -qv 'perf_sample' &&
	! protoc --proto_path=proto --decode=perfetto.protos.Trace proto/perfetto_trace.proto < '$TMP/plain.pftrace' | grep -q 'perf_sample'"
# stable names (the default): call_paths.name as the profile's frames
rm -rf "$TMP/pq"; $TF -q events $S/perf-c-fp/perf-fields.script -o "$TMP/pq"
node tests/tools/duckdb_query.mjs "$TMP/pq" "SELECT p.name, sum(s.weight)::BIGINT FROM read_parquet('\$DIR/samples/**/*.parquet') s
	JOIN read_parquet('\$DIR/call_paths/**/*.parquet') p USING (call_path_id) GROUP BY 1 ORDER BY 2 DESC, 1" > "$TMP/self.json"
$TF -q top --format json -n 0 $S/perf-c-fp/perf-fields.script > "$TMP/top.json"
check "stable names: self weight per leaf frame of the samples table = tracefold top's self" python3 -c '
import json, sys
got = {n: w for n, w in json.load(open(sys.argv[1]))}
top = {f["name"]: f["self"] for f in json.load(open(sys.argv[2]))["functions"] if f["self"]}
assert got == top and sum(got.values()) == 870870870, (len(got), len(top), sum(got.values()))' "$TMP/self.json" "$TMP/top.json"
# per thread: the tracks join names each sample's thread
check "samples per thread via the tracks join = perf report's threads (busy-main, busy-worker)" sh -c "node tests/tools/duckdb_query.mjs '$TMP/pq' \"SELECT coalesce(k.thread_name, k.thread_key), sum(s.count)::BIGINT FROM read_parquet('\\\$DIR/samples/**/*.parquet') s
	JOIN read_parquet('\\\$DIR/tracks/**/*.parquet') k USING (track_id) GROUP BY 1 ORDER BY 1\" > '$TMP/thr.json' && cat '$TMP/thr.json' && python3 -c '
import json, sys
t = json.load(open(sys.argv[1]))
assert len(t) == 2 and sum(n for _, n in t) == 870, t' '$TMP/thr.json'"
# a trace without samples: the table is there, empty
rm -rf "$TMP/pq"; $TF -q events $DATA/chrome/pytorch-legacy-small/trace.json -o "$TMP/pq"
check "a trace without samples: an empty samples table" sh -c "node tests/tools/duckdb_query.mjs '$TMP/pq' \"SELECT count(*) FROM read_parquet('\\\$DIR/samples/**/*.parquet')\" | grep -qx '\[\[0\]\]'"
finish
