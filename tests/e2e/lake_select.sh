# A lake of runs read back (issue 31, "done when"): two runs written with
# `events --lake`, then one run read whole as LAKE/slices/run=NAME (its
# profile, timeline and overview equal the direct ones), the lake read whole
# refused (its runs would mix), and a selection made with SQL across the
# lake's hive partitions (one run, one rank, a time window) whose profile
# holds exactly what DuckDB sums from the same selection, whose Chrome
# timeline has exactly its slices, and whose overview counts its steps.
. tests/lib.sh
command -v node >/dev/null || { fail "node is missing (tests/deps.sh installs it)"; finish; }
q() { node tests/tools/duckdb_query.mjs "$1" "$2"; } # DIR SQL ($DIR in SQL)
K=$DATA/chrome/kineto-collectives-handmade
H=$DATA/chrome/overview-handmade
L=$TMP/lake
check "run a into the lake" $TF -q events $K/rank0.json.gz $K/rank1.json.gz --lake "$L" --run a
check "run b into the lake" $TF -q events $H/rank0.json $H/rank1.json --lake "$L" --run b

# the lake whole: refused, naming its runs
$TF -q profile "$L" -o "$TMP/x.pb.gz" 2> "$TMP/whole.err"; rc=$?
check "the lake read whole is refused (exit 3) naming its runs and how to read one" \
	sh -c "[ $rc = 3 ] && grep -q 'a lake of 2 runs (a,b)' '$TMP/whole.err' && grep -q 'slices/run=NAME' '$TMP/whole.err'"
test -e "$TMP/x.pb.gz" && fail "a refused read wrote its output" || ok "a refused read wrote no output"

# one run read whole: every output as the direct read's
norm_raw() { pprof -raw "$1" 2>/dev/null | grep -v '^Comment:' | sed 's|^\(1: 0x0/0x0/0x0\) .*|\1|'; }
evs() { python3 -c "import json,sys; print(json.dumps(json.load(open(sys.argv[1]))['traceEvents']))" "$1"; }
for r in a b; do
	case $r in a) set -- $K/rank0.json.gz $K/rank1.json.gz ;; b) set -- $H/rank0.json $H/rank1.json ;; esac
	$TF -q profile "$@" -o "$TMP/d$r.pb.gz" && $TF -q profile "$L/slices/run=$r" -o "$TMP/l$r.pb.gz"
	norm_raw "$TMP/d$r.pb.gz" > "$TMP/d$r.raw"; norm_raw "$TMP/l$r.pb.gz" > "$TMP/l$r.raw"
	check "run $r read from the lake: its profile = the direct profile (pprof -raw)" \
		sh -c "[ -s '$TMP/d$r.raw' ] && cmp -s '$TMP/d$r.raw' '$TMP/l$r.raw'"
	$TF -q chrome "$@" -o "$TMP/d$r.json" && $TF -q chrome "$L/slices/run=$r" -o "$TMP/l$r.json"
	check "run $r read from the lake: its Chrome timeline = the direct one" \
		sh -c "evs() { python3 -c \"import json,sys; print(json.dumps(json.load(open(sys.argv[1]))['traceEvents']))\" \"\$1\"; }; [ \"\$(evs '$TMP/d$r.json')\" = \"\$(evs '$TMP/l$r.json')\" ]"
	$TF -q overview --format json "$@" | sed 's|"inputs":\[[^]]*\]||' > "$TMP/d$r.ov"
	$TF -q overview --format json "$L/slices/run=$r" | sed 's|"inputs":\[[^]]*\]||' > "$TMP/l$r.ov"
	check "run $r read from the lake: its overview = the direct overview" sh -c "[ -s '$TMP/d$r.ov' ] && cmp -s '$TMP/d$r.ov' '$TMP/l$r.ov'"
done

# a selection across the lake with SQL: run b, rank 1, the slices inside a
# window (whole slices: the window holds their children too)
S=$TMP/sel
mkdir -p "$S/slices" "$S/tracks" "$S/call_paths"
HP="hive_partitioning = true"
W="start_ns >= (SELECT min(start_ns) + 20000 FROM read_parquet('\$DIR/slices/**/*.parquet', $HP) WHERE run = 'b')
   AND end_ns <= (SELECT min(start_ns) + 200000 FROM read_parquet('\$DIR/slices/**/*.parquet', $HP) WHERE run = 'b')"
q "$L" "COPY (SELECT * EXCLUDE (run) FROM read_parquet('\$DIR/slices/**/*.parquet', $HP) WHERE run = 'b' AND rank = 1 AND $W)
	TO '$S/slices/x.parquet' (FORMAT parquet);
	COPY (SELECT * EXCLUDE (run) FROM read_parquet('\$DIR/tracks/**/*.parquet', $HP) WHERE run = 'b') TO '$S/tracks/x.parquet' (FORMAT parquet);
	COPY (SELECT * EXCLUDE (run) FROM read_parquet('\$DIR/call_paths/**/*.parquet', $HP) WHERE run = 'b') TO '$S/call_paths/x.parquet' (FORMAT parquet)" > /dev/null
n=$(q "$S" "SELECT count(*) FROM read_parquet('\$DIR/slices/*.parquet')" | tr -dc 0-9)
nb=$(q "$L" "SELECT count(*) FROM read_parquet('\$DIR/slices/**/*.parquet', $HP) WHERE run = 'b'" | tr -dc 0-9)
check "the selection is a part of run b ($n of $nb slices)" test "$n" -gt 0 -a "$n" -lt "$nb"
$TF -q profile "$S" -o "$TMP/s.pb.gz"
python3 tests/tools/pprof_raw.py "$TMP/s.pb.gz" | python3 -c '
import json, sys
d = json.load(sys.stdin)
for n, f in sorted(d["funcs"].items()):
    s = f["self"]
    if s.get("calls/count", 0) or s.get("wall/nanoseconds", 0) or s.get("gpu/nanoseconds", 0):
        print(n, s.get("wall/nanoseconds", 0), s.get("gpu/nanoseconds", 0), s.get("calls/count", 0))' | sort > "$TMP/s.pprof"
# wall is the CPU slices' self time, gpu the GPU activities' (docs/schema.md "slices")
q "$S" "SELECT name, coalesce(sum(self_ns) FILTER (WHERE kind = 'cpu'), 0), coalesce(sum(self_ns) FILTER (WHERE kind = 'gpu'), 0),
	count(*) FILTER (WHERE kind <> 'gpu_annotation') FROM read_parquet('\$DIR/slices/*.parquet') GROUP BY name" |
	python3 -c 'import json, sys
for n, w, g, c in json.load(sys.stdin): print(n, w, g, c)' | sort > "$TMP/s.duck"
check "the selection's profile: self wall, GPU time and calls per function = DuckDB's sums of the same rows ($(wc -l < "$TMP/s.duck") functions)" \
	sh -c "[ -s '$TMP/s.duck' ] && cmp -s '$TMP/s.pprof' '$TMP/s.duck'"
$TF -q chrome "$S" -o "$TMP/s.json"
nx=$(python3 -c "import json,sys; print(sum(1 for e in json.load(open(sys.argv[1]))['traceEvents'] if e.get('ph') == 'X'))" "$TMP/s.json")
check "the selection's timeline: its $n slices, no more ($nx complete events)" test "$nx" = "$n"
# the selection's ranks in the overview: only rank 1
$TF -q overview --format json "$S" > "$TMP/s.ov"
check "the selection's overview: rank 1 only" python3 -c "
import json, sys
d = json.load(open(sys.argv[1]))
ranks = {r.get('rank') for r in d.get('ranks', [])} if isinstance(d.get('ranks'), list) else set()
sys.exit(0 if ranks == {1} else 1)" "$TMP/s.ov"
finish
