# Sampled profiles in the table and timeline outputs (issue 30): every
# perf-script fixture of tests/data/samples written by `tracefold events`
# and its samples table read back by DuckDB and hyparquet
# (tests/tools/samples_table_check.mjs) against the fixture's independent
# expected.json: rows, counts and weights per type, and the self and total
# of each function through the join with call_paths.
. tests/lib.sh
command -v node >/dev/null || { fail "node is missing (tests/deps.sh installs it)"; finish; }
[ -d tests/node_modules/@duckdb/node-api ] || { fail "tests/node_modules is missing (tests/deps.sh runs npm ci)"; finish; }
S=$DATA/samples
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
	done
done
check "$n perf fixture files checked" test "$n" -ge 20
# the checker catches a wrong table: the fixture's numbers against another file's
rm -rf "$TMP/pq"; $TF -q events --raw-names $S/perf-c-fp/perf-fields.script -o "$TMP/pq"
expect_exit 1 "the check fails on another fixture's expected numbers" \
	node tests/tools/samples_table_check.mjs "$TMP/pq" $S/perf-python/expected.json perf-fields.script
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
