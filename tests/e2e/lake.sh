# tracefold events --lake DIR --run NAME (docs/schema.md, "The lake: several
# runs"): runs of different fixtures in one lake, read by DuckDB with
# hive_partitioning, each run's rows = that run's own `events -o` tables;
# the runs table; a duplicate name refused and --replace replacing only
# that run; failed runs (a damaged input, a commit whose rename fails
# part-way) and bad names leaving the lake byte for byte as it was; two
# runs written at once; --partition rank,step against the ProfilerStep
# slices' own spans, rank,time=W against each row's time; and the
# documented cross-run kernel comparison run as written in the docs,
# against the kernels' durations read from the JSON by python.
. tests/lib.sh
command -v node >/dev/null || { fail "node is missing (tests/deps.sh installs it)"; finish; }
[ -d tests/node_modules/@duckdb/node-api ] || { fail "tests/node_modules is missing (tests/deps.sh runs npm ci)"; finish; }
q() { node tests/tools/duckdb_query.mjs "$1" "$2"; } # DIR SQL -> JSON rows
H=$DATA/chrome/overview-handmade
K=$DATA/chrome/kineto-collectives-handmade
T=$DATA/tau/mpi_small
L=$TMP/lake
TABLES="slices counters instants messages flows tracks call_paths samples collectives"
# listing LAKE: every path with its type, and every file's checksum
listing() { (cd "$1" && find . -printf '%p %y %s\n' | sort && find . -type f -exec sha256sum {} + | sort -k2); }
# counts OWN LAKE RUN: rows per table of the events output OWN and of RUN in
# LAKE, into $TMP/own.counts and $TMP/lake.counts ("TABLE N" lines); one
# DuckDB query for both (absolute paths)
counts() {
	sql=""
	for t in $TABLES; do
		[ -d "$1/$t" ] && sql="$sql${sql:+ UNION ALL }SELECT 'own', '$t', count(*) FROM read_parquet('$1/$t/**/*.parquet')"
		[ -d "$2/$t" ] && sql="$sql${sql:+ UNION ALL }SELECT 'lake', '$t', count(*) FILTER (WHERE run = '$3') FROM read_parquet('$2/$t/**/*.parquet', hive_partitioning = true)"
	done
	q / "$sql" | python3 -c 'import json,sys
rows = json.load(sys.stdin)
for side in ("own", "lake"):
    got = {t: n for s, t, n in rows if s == side}
    with open(sys.argv[1] + "/" + side + ".counts", "w") as f:
        for t in sys.argv[2:]: print(t, got.get(t, 0), file=f)' "$TMP" $TABLES
}

check "events --lake: run a (overview-handmade, two ranks)" $TF -q events $H/rank0.json $H/rank1.json --lake "$L" --run a
check "events --lake: run tau (TAU mpi_small)" $TF -q events $T --lake "$L" --run tau
check "events --lake: run b (kineto-collectives-handmade)" $TF -q events $K/rank0.json.gz $K/rank1.json.gz --lake "$L" --run b
check "the layout: slices/run=a/rank=1/part-0.parquet" test -f "$L/slices/run=a/rank=1/part-0.parquet"
check "the layout: call_paths/run=tau/part-0.parquet, runs/run=b/part-0.parquet" \
	test -f "$L/call_paths/run=tau/part-0.parquet" -a -f "$L/runs/run=b/part-0.parquet"
check "no temporary folder left in the lake" test -z "$(find "$L" -name '.tracefold-run.*')"

# each run's rows = its own events output
for r in "a:$H/rank0.json $H/rank1.json" "tau:$T" "b:$K/rank0.json.gz $K/rank1.json.gz"; do
	name=${r%%:*}; rm -rf "$TMP/own"
	$TF -q events ${r#*:} -o "$TMP/own" || fail "events -o for run $name"
	counts "$TMP/own" "$L" "$name"
	if cmp -s "$TMP/own.counts" "$TMP/lake.counts" && [ "$(awk '$1=="slices"{print $2}' "$TMP/lake.counts")" -gt 0 ]; then
		ok "run $name: DuckDB counts per table in the lake = its own events output ($(tr '\n' ' ' < "$TMP/lake.counts"))"
	else
		fail "run $name: counts"; diff "$TMP/own.counts" "$TMP/lake.counts" | sed 's/^/#   /'
	fi
done

# the runs table: one row per run, its numbers = the tables'
q "$L" "SELECT r.run, r.name, r.slices = s.n, r.tracks = k.n, r.ranks = k.ranks, r.first_ns <= s.lo, r.last_ns >= s.hi,
	r.span_ns = r.last_ns - r.first_ns, r.tool_version, r.partition, r.command_line LIKE '%--run ' || r.run || '%',
	r.inputs, r.input_formats, r.created_utc LIKE '20__-__-__T__:__:__Z'
  FROM read_parquet('\$DIR/runs/*/*.parquet', hive_partitioning = true) r
  JOIN (SELECT run, count(*) n, min(start_ns) lo, max(end_ns) hi FROM read_parquet('\$DIR/slices/**/*.parquet', hive_partitioning = true) GROUP BY run) s USING (run)
  JOIN (SELECT run, count(*) n, count(DISTINCT rank) ranks FROM read_parquet('\$DIR/tracks/**/*.parquet', hive_partitioning = true) GROUP BY run) k USING (run)
  ORDER BY run" > "$TMP/runs.json"
ver=$($TF --version | head -1 | awk '{print $2}')
if python3 - "$TMP/runs.json" "$ver" "$H" "$T" "$K" <<'PY'
import json, sys
rows = json.load(open(sys.argv[1])); ver, h, t, k = sys.argv[2:]
want = {"a": (f"{h}/rank0.json\n{h}/rank1.json", "chrome\nchrome"), "b": (f"{k}/rank0.json.gz\n{k}/rank1.json.gz", "chrome\nchrome"),
        "tau": (t, "tau")}
assert [r[0] for r in rows] == ["a", "b", "tau"], rows
for r in rows:
    assert r[0] == r[1] and all(x is True for x in r[2:8]), r
    assert r[8] == "tracefold " + ver and r[9] == "rank" and r[10] is True and r[13] is True, r
    assert (r[11], r[12]) == want[r[0]], r
PY
then ok "runs table: a row per run, slices/tracks/ranks/time span = its tables', version $ver, inputs, formats, command line"
else fail "runs table"; sed 's/^/#   /' "$TMP/runs.json" | head -5; fi

# the documented cross-run query, as written in docs/schema.md, against
# python's sums of the kernels in the JSON (cat kernel, dur in us)
sed -n '/^-- lake: GPU time per kernel name, run a vs run b/,/;$/p' docs/schema.md | sed "s|'LAKE/|'\$DIR/|g" > "$TMP/kern.sql"
check "the kernel comparison query is in docs/schema.md" test "$(wc -l < "$TMP/kern.sql")" -gt 5
q "$L" "$(cat "$TMP/kern.sql")" > "$TMP/kern.json" 2> "$TMP/kern.err" || { fail "the documented query"; sed 's/^/#   /' "$TMP/kern.err"; }
if python3 - "$TMP/kern.json" $H/rank0.json $H/rank1.json -- $K/rank0.json.gz $K/rank1.json.gz <<'PY'
import gzip, json, sys
rows = json.load(open(sys.argv[1]))
args = sys.argv[2:]; cut = args.index("--")
def kernels(files):
    s, n = {}, {}
    for f in files:
        d = json.load(gzip.open(f) if f.endswith(".gz") else open(f))
        for e in d["traceEvents"] if isinstance(d, dict) else d:
            if e.get("ph") == "X" and e.get("cat") == "kernel":
                s[e["name"]] = s.get(e["name"], 0) + round(e["dur"] * 1000); n[e["name"]] = n.get(e["name"], 0) + 1
    return s, n
(a, an), (b, bn) = kernels(args[:cut]), kernels(args[cut + 1:])
assert a and b, "no kernels"
got = {r[0]: r[1:] for r in rows}
assert set(got) == set(a) | set(b), (sorted(got), sorted(set(a) | set(b)))
for name, (a_ns, b_ns, change, a_n, b_n) in got.items():
    assert (a_ns, a_n) == (a.get(name), an.get(name)) and (b_ns, b_n) == (b.get(name), bn.get(name)), (name, got[name])
    assert change == (b_ns or 0) - (a_ns or 0)

PY
then ok "the documented kernel comparison (run a vs b) = the kernels' durations in the JSON, per name"
else fail "the kernel comparison"; sed 's/^/#   /' "$TMP/kern.json" | head -5; fi

# a duplicate name: refused, the lake unchanged
listing "$L" > "$TMP/before"
expect_exit 2 "a run name the lake has is refused (exit 2)" $TF -q events $T --lake "$L" --run a
grep -q "already has a run 'a'" "$TMP/err" || fail "the refusal names the run: $(cat "$TMP/err")"
listing "$L" > "$TMP/after"
check "after the refused duplicate the lake is byte for byte as it was" cmp "$TMP/before" "$TMP/after"

# bad names: refused before anything is written
for bad in "" "a/b" ".." ".a" "a..b" "1run" "inf" "Epoch" "a b" "r\$x" "é" "$(printf 'r%0100d' 0)"; do
	expect_exit 2 "run name '$bad' refused" $TF -q events $T --lake "$L" --run "$bad"
done
expect_exit 2 "--run without --lake refused" $TF -q events $T -o "$TMP/x" --run a
expect_exit 2 "--lake with --mpi refused" $TF -q events --mpi $T --lake "$L" --run c
expect_exit 2 "--lake with --partition none refused" $TF -q events $T --lake "$L" --run c --partition none
expect_exit 2 "a run with other partition keys than the lake's refused" $TF -q events $T --lake "$L" --run c --partition rank,step
grep -q "partitioned by rank," "$TMP/err" || fail "the refusal says the lake's keys: $(cat "$TMP/err")"
listing "$L" > "$TMP/after"
check "after the refused names and keys the lake is as it was" cmp "$TMP/before" "$TMP/after"

# a failed run: a damaged input (a stray '@' half-way) after a good one
python3 -c 'import sys; s = open(sys.argv[1]).read(); i = len(s) // 2; open(sys.argv[2], "w").write(s[:i] + "@" + s[i:])' \
	$H/rank1.json "$TMP/bad.json"
expect_exit 3 "a damaged input after a good one fails (exit 3)" $TF -q events $H/rank0.json "$TMP/bad.json" --lake "$L" --run c
grep -q "cannot read '$TMP/bad.json' at byte" "$TMP/err" || fail "the failure names the damaged input: $(cat "$TMP/err")"
head -c 1500 $H/rank1.json > "$TMP/cut.json" # a cut trace: repaired, which --strict refuses once all was read
expect_exit 3 "--strict with a repaired (cut) input fails after the whole read (exit 3)" \
	$TF -q events --strict $H/rank0.json "$TMP/cut.json" --lake "$L" --run c
grep -q "strict" "$TMP/err" || fail "the failure is --strict's: $(cat "$TMP/err")"
listing "$L" > "$TMP/after"
check "after the failed run the lake is byte for byte as it was" cmp "$TMP/before" "$TMP/after"
expect_exit 3 "a failed first run into a new lake" $TF -q events $H/rank0.json "$TMP/bad.json" --lake "$TMP/new" --run a
check "a failed first run leaves no lake folder behind" test ! -e "$TMP/new"
# a commit whose renames fail part-way (a file where the table 'tracks'
# goes, renamed after call_paths ... slices): every rename undone
mkdir "$TMP/L2" && cp -a "$L/." "$TMP/L2/" && mv "$TMP/L2/tracks" "$TMP/tracks.saved" && echo x > "$TMP/L2/tracks"
listing "$TMP/L2" > "$TMP/before2"
expect_exit 3 "a commit that cannot rename its tracks table fails (exit 3)" $TF -q events $T --lake "$TMP/L2" --run c
grep -q "the lake is as it was" "$TMP/err" || fail "the message says the lake is as it was: $(cat "$TMP/err")"
listing "$TMP/L2" > "$TMP/after2"
check "after the failed commit the lake is byte for byte as it was (8 renames undone)" cmp "$TMP/before2" "$TMP/after2"

# a --replace whose renames fail part-way (a file where 'samples' goes):
# the tables already exchanged are swapped back, the old run whole
rm -f "$TMP/L2/tracks" && mv "$TMP/tracks.saved" "$TMP/L2/tracks" && mv "$TMP/L2/samples" "$TMP/samples.saved" && echo x > "$TMP/L2/samples"
listing "$TMP/L2" > "$TMP/before2"
expect_exit 3 "a --replace that cannot rename its samples table fails (exit 3)" $TF -q events $K/rank0.json.gz --lake "$TMP/L2" --run a --replace
listing "$TMP/L2" > "$TMP/after2"
check "after the failed --replace the lake is byte for byte as it was (the swaps undone)" cmp "$TMP/before2" "$TMP/after2"

# --replace: only that run changes
listing "$L" | grep -v 'run=tau' > "$TMP/others.before"
check "--replace run tau with overview-handmade rank0" $TF -q events $H/rank0.json --lake "$L" --run tau --replace
listing "$L" | grep -v 'run=tau' > "$TMP/others.after"
check "--replace: every file of the other runs unchanged" cmp "$TMP/others.before" "$TMP/others.after"
rm -rf "$TMP/own" && $TF -q events $H/rank0.json -o "$TMP/own"
counts "$TMP/own" "$L" tau
check "--replace: run tau's rows are the new input's" cmp "$TMP/own.counts" "$TMP/lake.counts"
check "--replace: no TAU row of the old run left, the runs row is the new run's" \
	test "$(q "$L" "SELECT (SELECT count(*) FROM read_parquet('\$DIR/slices/**/*.parquet', hive_partitioning = true) WHERE run = 'tau' AND name LIKE 'MPI_%'),
	  (SELECT inputs FROM read_parquet('\$DIR/runs/*/*.parquet', hive_partitioning = true) WHERE run = 'tau')")" = "[[0,\"$H/rank0.json\"]]"

# two runs written at once into one lake, and two of the same name
$TF -q events $T --lake "$L" --run p1 2> "$TMP/p1.err" & p1=$!
$TF -q events $K/rank0.json.gz --lake "$L" --run p2 2> "$TMP/p2.err" & p2=$!
wait $p1; r1=$?; wait $p2; r2=$?
check "two runs at once: both committed (exit $r1 $r2)" test "$r1$r2" = 00
check "two runs at once: both whole in the lake" \
	test "$(q "$L" "SELECT run, count(*) FROM read_parquet('\$DIR/runs/*/*.parquet', hive_partitioning = true) WHERE run LIKE 'p_' GROUP BY ALL ORDER BY 1")" = '[["p1",1],["p2",1]]'
$TF -q events $T --lake "$L" --run same 2> "$TMP/s1.err" & s1=$!
$TF -q events $T --lake "$L" --run same 2> "$TMP/s2.err" & s2=$!
wait $s1; r1=$?; wait $s2; r2=$?
check "two runs of one name at once: one committed, one refused (exit $r1 $r2)" test "$(( (r1 == 0) + (r2 == 0) ))" = 1
rm -rf "$TMP/own" && $TF -q events $T -o "$TMP/own"
counts "$TMP/own" "$L" same
check "two runs of one name at once: the lake holds one copy" cmp "$TMP/own.counts" "$TMP/lake.counts"

# --partition rank,step: each row's step folder = the ProfilerStep slice of
# its run and rank whose [start, end) holds its start (else -1)
S=$TMP/steps
check "--partition rank,step" $TF -q events $H/rank0.json $H/rank1.json --lake "$S" --run s --partition rank,step
q "$S" "WITH x AS (SELECT * FROM read_parquet('\$DIR/slices/**/*.parquet', hive_partitioning = true)),
  st AS (SELECT run, rank, CAST(split_part(raw_name, '#', 2) AS BIGINT) AS n, start_ns AS lo, end_ns AS hi FROM x WHERE raw_name LIKE 'ProfilerStep#%')
  SELECT count(*), count(*) FILTER (WHERE x.step = coalesce((SELECT max(n) FROM st WHERE st.run = x.run AND st.rank = x.rank
     AND x.start_ns >= st.lo AND x.start_ns < st.hi), -1)), count(DISTINCT step), list(DISTINCT step ORDER BY step) FROM x" > "$TMP/steps.json"
check "rank,step: every slice in the step whose ProfilerStep holds its start ($(cat "$TMP/steps.json"))" \
	python3 -c 'import json,sys; r=json.load(open(sys.argv[1]))[0]; assert r[0]==r[1]==29 and r[3]["items"]==[1,2], r' "$TMP/steps.json"
check "rank,step: the layout slices/run=s/rank=0/step=1/part-0.parquet" test -f "$S/slices/run=s/rank=0/step=1/part-0.parquet"
q "$S" "SELECT step, count(*) FROM read_parquet('\$DIR/slices/**/*.parquet', hive_partitioning = true) WHERE kind = 'cpu' GROUP BY ALL ORDER BY 1" > "$TMP/steps_cpu.json"
# python, from the JSON: CPU X events (not the steps' own) by the step holding their ts
check "rank,step: CPU slices per step = python's count of the JSON's CPU events per ProfilerStep ($(cat "$TMP/steps_cpu.json"))" \
	python3 - "$TMP/steps_cpu.json" $H/rank0.json $H/rank1.json <<'PY'
import json, sys
got = {s: n for s, n in json.load(open(sys.argv[1]))}
want = {}
for f in sys.argv[2:]:
    ev = [e for e in json.load(open(f))["traceEvents"] if e.get("ph") == "X" and e.get("cat") != "kernel"]
    steps = [(e["ts"], e["ts"] + e["dur"], int(e["name"].split("#")[1])) for e in ev if e["name"].startswith("ProfilerStep#")]
    for e in ev:
        s = next((n for lo, hi, n in steps if lo <= e["ts"] < hi), -1)
        want[s] = want.get(s, 0) + 1
assert got == want, (got, want)
PY

# --partition rank,time=100ms: every row's time in its bucket
W=$TMP/time
check "--partition rank,time=100ms" $TF -q events $T --lake "$W" --run t --partition rank,time=100ms
q "$W" "SELECT count(*), count(*) FILTER (WHERE start_ns >= time AND start_ns < time + 100000000), count(DISTINCT time),
    (SELECT [count(*), count(*) FILTER (WHERE ts_ns >= time AND ts_ns < time + 100000000)]
     FROM read_parquet('\$DIR/counters/**/*.parquet', hive_partitioning = true)),
    (SELECT partition FROM read_parquet('\$DIR/runs/*/*.parquet'))
  FROM read_parquet('\$DIR/slices/**/*.parquet', hive_partitioning = true)" > "$TMP/time.json"
check "rank,time=100ms: every slice's start_ns in its bucket, several buckets ($(cat "$TMP/time.json"))" \
	python3 -c 'import json,sys; r=json.load(open(sys.argv[1]))[0]; assert r[0]==r[1]==60 and r[2]>1, r' "$TMP/time.json"
check "rank,time=100ms: every counter's ts_ns in its bucket" \
	python3 -c 'import json,sys; r=json.load(open(sys.argv[1]))[0][3]["items"]; assert r[0]==r[1]>0, r' "$TMP/time.json"
check "rank,time: the runs table says the width" \
	python3 -c 'import json,sys; r=json.load(open(sys.argv[1]))[0][4]; assert r=="rank,time=100000000ns", r' "$TMP/time.json"
expect_exit 2 "rank,time=0s refused" $TF -q events $T --lake "$W" --run u --partition rank,time=0s
expect_exit 2 "run name NULL refused (DuckDB reads it as NULL)" $TF -q events $T --lake "$W" --run NULL
# a table folder that is a link out of the lake: refused, nothing written outside
mkdir -p "$TMP/L9" "$TMP/outside" && ln -s ../outside "$TMP/L9/slices"
expect_exit 3 "a table folder that is a link out of the lake is refused" $TF -q events $H/rank0.json --lake "$TMP/L9" --run a
check "nothing written through the link" sh -c "[ -z \"\$(ls -A '$TMP/outside')\" ]"
# a commit that fails on its first table leaves no table folders it made
mkdir -p "$TMP/L8" && touch "$TMP/L8/slices"
expect_exit 3 "a lake whose slices is a file: the commit fails" $TF -q events $H/rank0.json --lake "$TMP/L8" --run a
check "the failed commit left no table folders behind" sh -c "[ \"\$(ls '$TMP/L8')\" = slices ]"
finish
