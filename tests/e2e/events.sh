# tracefold events: every fixture into Parquet tables, read back by DuckDB and
# hyparquet (tests/tools/events_check.mjs) and compared with tracefold's own
# profile of the same input (top, diff --paths) and info's counts; and read
# back by tracefold itself (the tables input): the same profile.
. tests/lib.sh
command -v node >/dev/null || { fail "node is missing (tests/deps.sh installs it)"; finish; }
[ -d tests/node_modules/@duckdb/node-api ] || { fail "tests/node_modules is missing (tests/deps.sh runs npm ci)"; finish; }
# expect IN [OPTIONS]: the numbers the tables must hold, from top, diff and info
expect() {
	in=$1; shift
	# every thread, as the tables have them (--keep-waiting: docs/stack-rules.md)
	$TF -q top --format json -n 0 --keep-waiting "$@" "$in" > "$TMP/top.json" &&
	$TF -q diff --paths --format json -n 0 --keep-waiting "$@" "$in" "$in" > "$TMP/diff.json" &&
	$TF -q info --format json "$@" "$in" > "$TMP/info.json" || return 1
	# a slice's self time is wall time on a CPU thread, gpu time on a GPU stream
	echo '{"functions": []}' > "$TMP/topg.json"; echo '{"rows": []}' > "$TMP/diffg.json"
	if $TF -q top --format json -n 0 --sample-type gpu "$@" "$in" > "$TMP/topg.json" 2>/dev/null; then
		$TF -q diff --paths --format json -n 0 --sample-type gpu "$@" "$in" "$in" > "$TMP/diffg.json" || return 1
	else
		echo '{"functions": []}' > "$TMP/topg.json" # no GPU in the run
	fi
	python3 - "$TMP/top.json" "$TMP/diff.json" "$TMP/info.json" "${HIVE:-false}" "$TMP/topg.json" "$TMP/diffg.json" \
		> "$TMP/expect.json" <<'PY'
import json, sys
top, diff, info = (json.load(open(p)) for p in sys.argv[1:4])
topg, diffg = (json.load(open(p)) for p in sys.argv[5:7])
gself = {f["name"]: f["self"] for f in topg["functions"]}
gpath = {r["name"]: r["self"]["new"] for r in diffg["rows"]}
funcs = {f["name"]: {"self": f["self"] + gself.get(f["name"], 0), "calls": f.get("calls", 0)} for f in top["functions"]}
paths = {r["name"]: r["self"]["new"] + gpath.get(r["name"], 0) for r in diff["rows"]}
d = info["diagnostics"]
print(json.dumps({"functions": funcs, "paths": paths, "counters": d["ev_counter"], "instants": d["ev_instant"],
                  "sent": info["messages"]["sent"], "received": info["messages"]["received"],
                  "tracks": len(info["threads"]), "hive": sys.argv[4] == "true"}))
PY
}
check_dir() { # DIR NAME
	if node tests/tools/events_check.mjs "$1" "$TMP/expect.json" > "$TMP/check.out" 2>&1; then
		ok "$2: DuckDB and hyparquet read the tables and agree with the profile ($(grep -c '^ok' "$TMP/check.out") checks)"
	else
		fail "$2: the tables"; grep -v '^ok' "$TMP/check.out" | sed 's/^/#   /' | head -20
	fi
}
for t in $DATA/chrome/*/*.json $DATA/chrome/*/*.json.gz $DATA/chrome/*/*.pfw.gz $DATA/tau/tiny $DATA/tau/threads $DATA/tau/mpi_small \
	$DATA/otf2/*/traces.otf2; do
	case $t in */expect/*|*/oracle/*) continue ;; esac
	[ -e "$t" ] || continue
	name=$(echo "$t" | sed "s|$DATA/||")
	rm -rf "$TMP/ev"
	if ! $TF -q events -c all "$t" -o "$TMP/ev" 2>"$TMP/err"; then
		fail "$name: events"; sed 's/^/#   /' "$TMP/err" | head -5; continue
	fi
	expect "$t" -c all || { fail "$name: the expected numbers"; continue; }
	check_dir "$TMP/ev" "$name"
	# the round trip: the tables read back give the input's profile
	# (go tool pprof -raw, without the comments and the mapping that name
	# the input; docs/format-tables.md "Round trip" says which differ)
	# (counters aside: one at the very time a region starts or ends can fall
	# on the other side of it when the tables' sorted tracks are read back)
	case $name in
	# a zero-length region at a sibling's start or its parent's end nests
	# otherwise when its track is sorted again
	tau/threads|chrome/rules/zero-length-be.json|chrome/rules/x-without-dur.json) continue ;;
	# the repairs' first extents are not in the tables: an unclosed slice
	# closed at its track's end, an overlap cut (the profile's duration)
	chrome/catapult-unclosed-slices/*|chrome/rules/bazel-overlap.json) continue ;;
	esac
	$TF -q profile "$t" -o "$TMP/d.pb.gz" && $TF -q profile "$TMP/ev" -o "$TMP/r.pb.gz" &&
		pprof -raw "$TMP/d.pb.gz" 2>/dev/null | grep -v '^Comment:' | sed 's|^\(1: 0x0/0x0/0x0\) .*|\1|' > "$TMP/d.raw" &&
		pprof -raw "$TMP/r.pb.gz" 2>/dev/null | grep -v '^Comment:' | sed 's|^\(1: 0x0/0x0/0x0\) .*|\1|' > "$TMP/r.raw"
	if [ -s "$TMP/d.raw" ] && cmp -s "$TMP/d.raw" "$TMP/r.raw"; then ok "$name: the profile of its tables = its profile"
	else fail "$name: the profile of its tables differs from its profile"; diff "$TMP/d.raw" "$TMP/r.raw" | head -6 | cut -c1-160 | sed 's/^/#   /'; fi
done
# Hive-style partitions by rank, every codec, and convert --to parquet
t=$DATA/tau/mpi_small
rm -rf "$TMP/ev" && $TF -q events --partition rank "$t" -o "$TMP/ev"
check "--partition rank: DIR/slices/rank=1/part-0.parquet" test -f "$TMP/ev/slices/rank=1/part-0.parquet"
HIVE=true expect "$t" && check_dir "$TMP/ev" "mpi_small --partition rank"
for c in none gzip zstd; do
	rm -rf "$TMP/ev" && $TF -q events --compression $c "$t" -o "$TMP/ev" && expect "$t" && check_dir "$TMP/ev" "mpi_small --compression $c"
done
rm -rf "$TMP/ev" && $TF -q convert "$t" -o "$TMP/p.pb.gz" --to parquet -o "$TMP/ev" &&
	expect "$t" && check_dir "$TMP/ev" "convert -o p.pb.gz --to parquet -o DIR (one read, two outputs)"
expect_exit 2 "events to stdout is refused" $TF events "$t" -o -
rm -rf "$TMP/ev" && $TF -q events --partition rank "$t" -o "$TMP/ev"
check "--partition rank: no empty rank=-1 partition when every track has a rank" test ! -e "$TMP/ev/tracks/rank=-1"
$TF -q profile "$t" -o "$TMP/p2.pb.gz"
expect_exit 2 "events of a pprof profile: refused (it has no events)" $TF events "$TMP/p2.pb.gz" -o "$TMP/ev3"
# flows: a step (t) on a track handed over before the start's (s) track
printf '[{"ph":"X","name":"a","pid":1,"tid":1,"ts":15,"dur":10},{"ph":"t","id":7,"pid":1,"tid":1,"ts":20,"name":"fl"},
{"ph":"X","name":"b","pid":1,"tid":2,"ts":5,"dur":10},{"ph":"s","id":7,"pid":1,"tid":2,"ts":10,"name":"fl"},
{"ph":"X","name":"c","pid":1,"tid":3,"ts":25,"dur":10},{"ph":"f","id":7,"pid":1,"tid":3,"ts":30,"name":"fl","bp":"e"}]' > "$TMP/flows.json"
rm -rf "$TMP/ev" && $TF -q events "$TMP/flows.json" -o "$TMP/ev"
check "flows: s -> t and t -> f, whatever order the tracks come in" \
	node tests/tools/flows_check.mjs "$TMP/ev" '[{"s":"10000","d":"20000"},{"s":"20000","d":"30000"}]'
expect_exit 3 "events of an unusable input: exit 3" $TF events "$TMP/nothing.json" -o "$TMP/ev2"
finish
