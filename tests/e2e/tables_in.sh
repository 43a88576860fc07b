# The event tables as input (docs/format-tables.md): for a fixture of each
# input kind, `tracefold events X -o T` then every output of T against the
# same output of X; DuckDB-written selections (a time window, one rank; snappy
# and zstd) whose profile must hold what DuckDB sums from the same SQL
# (go tool pprof -raw: flat wall per function = sum(self_ns), self calls =
# count(*)); and the errors (no tables, a missing column, a damaged file).
. tests/lib.sh
command -v node >/dev/null || { fail "node is missing (tests/deps.sh installs it)"; finish; }
q() { node tests/tools/duckdb_query.mjs "$1" "$2"; } # DIR SQL ($DIR in SQL)
evs() { python3 -c "import json,sys; print(json.dumps(json.load(open(sys.argv[1]))['traceEvents']))" "$1"; }
# out S IN...: every output of the inputs into $TMP/S.*, normalized where
# the output names its input (the pprof comments and mapping, the flame
# graph's title, the overview's inputs)
out() {
	s=$1; shift
	$TF -q profile "$@" -o "$TMP/$s.pb.gz" &&
		pprof -raw "$TMP/$s.pb.gz" 2>/dev/null | grep -v '^Comment:' | sed 's|^\(1: 0x0/0x0/0x0\) .*|\1|' > "$TMP/$s.raw"
	$TF -q chrome "$@" -o "$TMP/$s.json" && evs "$TMP/$s.json" > "$TMP/$s.ev"
	# a Perfetto trace's interned ids are the run's string ids, which differ
	# (the tables intern other strings first): compared as tracefold reads it back
	$TF -q perfetto "$@" -o "$TMP/$s.pftrace" && $TF -q chrome "$TMP/$s.pftrace" -o "$TMP/$s.pj" 2>/dev/null &&
		evs "$TMP/$s.pj" > "$TMP/$s.pev"
	rm -rf "$TMP/$s.otf2"
	$TF -q otf2 "$@" -o "$TMP/$s.otf2" 2>/dev/null && otf2-print "$TMP/$s.otf2/traces.otf2" > "$TMP/$s.otxt"
	$TF -q flame "$@" -o "$TMP/$s.svg" && sed -i 's|Flame graph: [^<]*<|Flame graph: X<|' "$TMP/$s.svg"
	$TF -q overview --format json "$@" 2>/dev/null | sed 's|"inputs":\[[^]]*\]||' > "$TMP/$s.ov"
	return 0
}
# rt NAME "CHECKS" IN...: the tables of the inputs read back give the same
# outputs (CHECKS: which of raw ev pev otxt svg ov)
rt() {
	name=$1 checks=$2; shift 2
	rm -rf "$TMP/T" "$TMP"/a.* "$TMP"/b.*
	$TF -q events "$@" -o "$TMP/T" || { fail "$name: events"; return; }
	out a "$@"; out b "$TMP/T"
	for c in $checks; do
		if [ -s "$TMP/a.$c" ] && cmp -s "$TMP/a.$c" "$TMP/b.$c"; then ok "$name: $c of the tables = $c of the input"
		else fail "$name: $c of the tables differs from the input's"; diff "$TMP/a.$c" "$TMP/b.$c" | head -4 | cut -c1-200 | sed 's/^/#   /'; fi
	done
}
all="raw ev pev otxt svg ov"
rt "Kineto GPU (resnet50)" "$all" $DATA/chrome/kineto-resnet50-gpu/*.json.gz
# memory events; the overview's step times differ: a ProfilerStep region that
# the stack rules cut is in the tables as cut (its first length is not there)
rt "Kineto memory (pytorch211-h200-gpt)" "raw ev pev otxt svg" $DATA/chrome/pytorch211-h200-gpt/trace.json.gz
rt "Kineto collectives" "$all" $DATA/chrome/kineto-collectives-handmade/rank0.json.gz
rt "OTF2 MPI (scorep-ping-pong-mpi)" "$all" $DATA/otf2/scorep-ping-pong-mpi
rt "OTF2 GPU in place (scorep-mi300-hip)" "$all" $DATA/otf2/scorep-mi300-hip
rt "OTF2 late sender" "$all" $DATA/otf2/handmade-late-sender
rt "nsys" "$all" $DATA/nsys/h100-2gpu/h100_2gpu_1s.sqlite
# TAU's tracks are read in stream order, the tables' sorted: a counter or a
# message at the very time a region ends comes after its end (the sorted
# tracks' rule), so the timelines and the overview's waits differ
rt "TAU (mpi_small)" "raw pev svg" $DATA/tau/mpi_small
$TF -q perfetto $DATA/chrome/kineto-resnet50-gpu/*.json.gz -o "$TMP/k.pftrace"
rt "Perfetto" "raw ev pev otxt svg" "$TMP/k.pftrace"
# perf samples joined to the trace they were taken of (the overview reads no samples)
rt "perf joined to a trace" "raw ev pev otxt svg" $DATA/samples/perf-regions/regions.json $DATA/samples/perf-regions/traced.perf.gz

# ---- DuckDB selections ----
full=$TMP/full
rm -rf "$full" && $TF -q events $DATA/tau/mpi_small -o "$full"
# sel DIR WHERE CODEC: slices WHERE ... and all the other tables, written by DuckDB
sel() {
	mkdir -p "$1/slices" "$1/tracks" "$1/call_paths"
	q "$full" "COPY (SELECT * FROM read_parquet('\$DIR/slices/**/*.parquet') WHERE $2) TO '$1/slices/x.parquet' (FORMAT parquet, COMPRESSION $3);
		COPY (SELECT * FROM read_parquet('\$DIR/tracks/**/*.parquet')) TO '$1/tracks/x.parquet' (FORMAT parquet, COMPRESSION $3);
		COPY (SELECT * FROM read_parquet('\$DIR/call_paths/**/*.parquet')) TO '$1/call_paths/x.parquet' (FORMAT parquet, COMPRESSION $3)" > /dev/null
}
# same IN DESC [SLICES]: go tool pprof's flat wall and self calls per function of DIR's profile = DuckDB's sums
same() {
	$TF -q profile "$1" -o "$TMP/s.pb.gz" || { fail "$2: profile"; return; }
	python3 tests/tools/pprof_raw.py "$TMP/s.pb.gz" | python3 -c '
import json, sys
d = json.load(sys.stdin)
for n, f in sorted(d["funcs"].items()):
    if f["self"].get("calls/count", 0) or f["self"].get("wall/nanoseconds", 0):
        print(n, f["self"].get("wall/nanoseconds", 0), f["self"].get("calls/count", 0))' > "$TMP/s.pprof"
	q "$1" "SELECT name, sum(self_ns), count(*) FROM read_parquet('${3:-\$DIR/slices/**/*.parquet}') GROUP BY name ORDER BY name" |
		python3 -c 'import json, sys
for n, s, c in json.load(sys.stdin): print(n, s, c)' | sort > "$TMP/s.duck"
	sort "$TMP/s.pprof" -o "$TMP/s.pprof"
	if [ -s "$TMP/s.duck" ] && cmp -s "$TMP/s.pprof" "$TMP/s.duck"; then
		ok "$2: pprof's flat wall and calls per function = DuckDB's sum(self_ns) and count(*) ($(wc -l < "$TMP/s.duck") functions)"
	else fail "$2: the profile differs from DuckDB's sums"; diff "$TMP/s.pprof" "$TMP/s.duck" | head -6 | sed 's/^/#   /'; fi
}
for codec in snappy zstd; do
	rm -rf "$TMP/r1" "$TMP/win"
	sel "$TMP/r1" "rank = 1" $codec
	same "$TMP/r1" "rank 1 ($codec, DuckDB)"
	# a time window: the slices inside it, with all their children
	sel "$TMP/win" "start_ns >= (SELECT min(start_ns) + 2000000 FROM read_parquet('\$DIR/slices/**/*.parquet'))
		AND end_ns <= (SELECT min(start_ns) + 300000000 FROM read_parquet('\$DIR/slices/**/*.parquet'))" $codec
	same "$TMP/win" "a time window ($codec, DuckDB)"
done
n=$(q "$TMP/win" "SELECT count(*) FROM read_parquet('\$DIR/slices/**/*.parquet')" | tr -dc 0-9)
nall=$(q "$full" "SELECT count(*) FROM read_parquet('\$DIR/slices/**/*.parquet')" | tr -dc 0-9)
check "the window is a part of the run ($n of $nall slices)" test "$n" -gt 0 -a "$n" -lt "$nall"
# only some columns, no tracks table: what is derivable
mkdir -p "$TMP/few/slices"
q "$full" "COPY (SELECT track_id, rank, thread, start_ns, end_ns, name, self_ns FROM read_parquet('\$DIR/slices/**/*.parquet')) TO '$TMP/few/slices/x.parquet' (FORMAT parquet)" > /dev/null
same "$TMP/few" "slices of 7 columns, no tracks table"
# one Parquet file of slices
same "$TMP/few/slices/x.parquet" "one slices file" "$TMP/few/slices/x.parquet"

# the tables of the tables: the same rows (counts and sums by name and rank, DuckDB)
rm -rf "$TMP/e1" "$TMP/e2"
$TF -q events $DATA/chrome/kineto-resnet50-gpu/*.json.gz -o "$TMP/e1" && $TF -q events "$TMP/e1" -o "$TMP/e2" &&
	node tests/tools/pq_totals.mjs "$TMP/e1" > "$TMP/e1.t" && node tests/tools/pq_totals.mjs "$TMP/e2" > "$TMP/e2.t"
check "events of the tables = the tables ($(wc -l < "$TMP/e1.t") sums by table, name and rank)" cmp "$TMP/e1.t" "$TMP/e2.t"

# ---- errors: non-zero, naming the file ----
mkdir -p "$TMP/empty/slices"
expect_exit 3 "a folder with no tables is refused" $TF -q profile "$TMP/empty" -o "$TMP/e.pb.gz"
cp "$TMP/err" "$TMP/e.txt"; check "... naming it" grep -q "$TMP/empty" "$TMP/e.txt"
mkdir -p "$TMP/nocol/slices"
q "$full" "COPY (SELECT track_id, end_ns, name FROM read_parquet('\$DIR/slices/**/*.parquet')) TO '$TMP/nocol/slices/x.parquet' (FORMAT parquet)" > /dev/null
expect_exit 3 "a slices file without start_ns is refused" $TF -q profile "$TMP/nocol" -o "$TMP/e.pb.gz"
cp "$TMP/err" "$TMP/e.txt"; check "... naming the file and the column" grep -q "$TMP/nocol/slices/x.parquet.*start_ns" "$TMP/e.txt"
rm -rf "$TMP/bad" && cp -r "$full" "$TMP/bad"
f=$(ls "$TMP"/bad/slices/*.parquet | head -1)
head -c 300 "$full/slices/part-0.parquet" > "$f"
expect_exit 3 "a damaged slices file is refused" $TF -q profile "$TMP/bad" -o "$TMP/e.pb.gz"
cp "$TMP/err" "$TMP/e.txt"; check "... naming it and the byte offset" grep -q "$f.*at byte" "$TMP/e.txt"
# two ranks' tables read back, twice: their tracks stay apart (the same pid
# and tid on both), every collective call row stays
K=$DATA/chrome/kineto-collectives-handmade
rm -rf "$TMP/k1" "$TMP/k2" "$TMP/k3"
$TF -q events $K/rank0.json.gz $K/rank1.json.gz -o "$TMP/k1" && $TF -q events "$TMP/k1" -o "$TMP/k2" &&
	$TF -q events "$TMP/k2" -o "$TMP/k3"
for d in k1 k2 k3; do
	echo "$(q "$TMP/$d" "SELECT (SELECT count(*) FROM read_parquet('\$DIR/collectives/**/*.parquet')),
		(SELECT count(DISTINCT input) FROM read_parquet('\$DIR/tracks/**/*.parquet')),
		(SELECT count(*) FROM read_parquet('\$DIR/slices/**/*.parquet'))")"
done > "$TMP/k.counts"
check "two ranks' tables read back twice: the same collectives, inputs and slices ($(head -1 "$TMP/k.counts"))" \
	sh -c "[ \$(sort -u '$TMP/k.counts' | wc -l) = 1 ] && grep -q '^\[\[10,2,' '$TMP/k.counts'"
# an NCCL kernel with no CPU call (a selection of GPU slices, a GPU-only trace)
printf '[{"ph":"X","cat":"kernel","name":"ncclDevKernel_AllReduce_Sum_f32_RING_LL(x)","pid":0,"tid":7,"ts":10,"dur":5,"args":{"correlation":42}}]' > "$TMP/gpuonly.json"
rm -rf "$TMP/go"
check "an NCCL kernel with no CPU call: events writes it" $TF -q events "$TMP/gpuonly.json" -o "$TMP/go"
check "... as a collective call row of its own" sh -c "[ \"\$(node tests/tools/duckdb_query.mjs '$TMP/go' \"SELECT count(*) FROM read_parquet('\\\$DIR/collectives/**/*.parquet') WHERE slice_id IS NULL\")\" = '[[1]]' ]"
finish
