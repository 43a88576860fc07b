# Negative timestamps (issue 26 item 7, docs/robustness.md): a run that
# starts before 0, as Bazel's profiles do ("ts":-85000), through every
# output.  Profiles (pprof, folded, flame, top) hold durations only;
# Parquet holds int64 ns as they are; speedscope counts from the first
# region; the timelines whose times cannot be negative (Perfetto's
# TracePacket and ClockSnapshot times are uint64, OTF2's ticks are uint64,
# and Perfetto's JSON importer takes no negative ts) are shifted so that
# the run starts after 0, and refuse, naming the event, a time still
# before 0 after that (a later input that starts earlier).  Oracles: the
# numbers written into the test's trace by hand; protoc --decode (the
# Perfetto packets' times), otf2-print (the OTF2 events and clock), Python's
# json with exact decimals (the Chrome ts), DuckDB (the Parquet tables).
# Before: Perfetto wrote 18446744073624551616 (two's complement) into its
# clock snapshot, OTF2 refused every such run, Chrome wrote "ts":-85000.
. tests/lib.sh
cat > "$TMP/neg.json" <<'JSON'
{"traceEvents":[
{"ph":"M","name":"process_name","pid":1,"args":{"name":"bazel"}},
{"ph":"X","name":"launch","pid":1,"tid":1,"ts":-85000,"dur":30000},
{"ph":"X","name":"child","pid":1,"tid":1,"ts":-80000,"dur":10000},
{"ph":"X","name":"build","pid":1,"tid":1,"ts":0,"dur":50000},
{"ph":"i","name":"mark","pid":1,"tid":1,"ts":-70000,"s":"t"},
{"ph":"C","name":"mem","pid":1,"tid":1,"ts":-60000,"args":{"v":5}}
]}
JSON
printf '{"traceEvents":[{"ph":"X","name":"a","pid":7,"tid":7,"ts":10,"dur":5}]}\n' > "$TMP/pos.json"
neg=$TMP/neg.json
# the profile by hand: build 50 ms, launch 20 ms self (30 total), child 10 ms
printf 'build\t50000000\t50000000\t1\nchild\t10000000\t10000000\t1\nlaunch\t20000000\t30000000\t1\n' > "$TMP/want"
table "$neg" > "$TMP/got"
check "top: durations only, as written by hand" cmp -s "$TMP/want" "$TMP/got"
$TF -q fold "$neg" -o "$TMP/f.folded"
check "fold: the self times by hand" sh -c "LC_ALL=C sort '$TMP/f.folded' | tr '\n' '|' | grep -qx 'build 50000000|launch 20000000|launch;child 10000000|'"
$TF -q profile "$neg" -o "$TMP/p.pb.gz"
check "profile: go tool pprof's total 80 ms" sh -c "go tool pprof -top -unit=ms '$TMP/p.pb.gz' 2>/dev/null | grep -q '80ms total'"
$TF -q flame "$neg" -o "$TMP/f.svg"
check "flame: written, well-formed" xmllint --noout "$TMP/f.svg"
# Parquet: int64 ns, as they are
rm -rf "$TMP/pq"
$TF -q events "$neg" -o "$TMP/pq"
check "events: the slices' start_ns as in the input (min -85 ms), read by DuckDB" sh -c "node tests/tools/duckdb_query.mjs '$TMP/pq' \
	\"select min(start_ns), max(end_ns), count(*) from '\\\$DIR/slices/*.parquet'\" | grep -qx '\[\[-85000000,50000000,3\]\]'"
# speedscope: from the first region start
$TF -q speedscope "$neg" -o "$TMP/s.json"
check "speedscope: events from 0 to 135 ms, none before 0" python3 -c '
import json,sys
d=json.load(open(sys.argv[1]))
ev=[p for p in d["profiles"] if p["type"]=="evented"][0]
ats=[e["at"] for e in ev["events"]]
assert min(ats)==0 and ev["endValue"]==135000000, (ats, ev["endValue"])' "$TMP/s.json"
# Chrome: shifted by whole 1000 s to start after 0
$TF -q chrome "$neg" -o "$TMP/c.json"
check "chrome: every ts >= 0, each the input's + 1000 s exactly (otherData.time_shift_ns)" python3 -c '
import json,sys
from decimal import Decimal
d=json.load(open(sys.argv[1]), parse_float=Decimal)
sh=d["otherData"]["time_shift_ns"]; assert sh==-10**12, sh
ts={e["name"]: Decimal(e["ts"]) for e in d["traceEvents"] if "ts" in e}
want={"launch":-85000,"child":-80000,"build":0,"mark":-70000,"mem":-60000}
for n,t in want.items():
    assert ts[n]==t-Decimal(sh)/1000, (n, ts[n])
assert min(ts.values())>=0' "$TMP/c.json"
table "$TMP/c.json" > "$TMP/got"
check "chrome: read back, the same profile" cmp -s "$TMP/want" "$TMP/got"
# Perfetto: shifted to start at 0; no time wraps
$TF -q perfetto --compression none "$neg" -o "$TMP/p.pftrace"
protoc --proto_path=proto --decode=perfetto.protos.Trace proto/perfetto_trace.proto < "$TMP/p.pftrace" > "$TMP/p.txt"
check "perfetto: every packet and clock snapshot time in [0, 135 ms] (protoc --decode)" python3 -c '
import re,sys
v=[int(x) for x in re.findall(r"\btimestamp: (\d+)", open(sys.argv[1]).read())]
assert v and all(0 <= x <= 135000000 for x in v), [x for x in v if x > 135000000]' "$TMP/p.txt"
check "perfetto: read back, the run from 0 to 135 ms" sh -c "$TF -q info '$TMP/p.pftrace' | grep -q 'time span: 135 ms (0 .. 135000000 ns)'"
table "$TMP/p.pftrace" > "$TMP/got"
check "perfetto: read back, the same profile" cmp -s "$TMP/want" "$TMP/got"
# OTF2: shifted to start at 0, global offset 0
rm -rf "$TMP/o"
$TF -q otf2 "$neg" -o "$TMP/o"
check "otf2: written (exit 0)" test -e "$TMP/o/traces.otf2"
check "otf2: otf2-print, events from 0 (launch) to 135 ms (build's end), no error" sh -c "otf2-print '$TMP/o/traces.otf2' 2> '$TMP/perr' |
	grep -E '^(ENTER|LEAVE)' > '$TMP/ev' && test ! -s '$TMP/perr' && head -1 '$TMP/ev' | grep -q ' 0  Region: \"launch\"' &&
	tail -1 '$TMP/ev' | grep -q ' 135000000  Region: \"build\"'"
check "otf2: clock properties: offset 0, length 135 ms" sh -c "otf2-print -G '$TMP/o/traces.otf2' | grep -q 'Global Offset: 0, Length: 135000000'"
table "$TMP/o" > "$TMP/got"
check "otf2: read back, the same profile" cmp -s "$TMP/want" "$TMP/got"
# a later input that starts earlier: refused, naming the event; nothing written
for f in chrome perfetto otf2; do
	o=$TMP/late.$f
	rm -rf "$o"
	expect_exit 3 "$f: a later input before 0 is refused (exit 3)" $TF -q $f "$TMP/pos.json" "$neg" -o "$o"
	$TF $f "$TMP/pos.json" "$neg" -o "$o" 2> "$TMP/msg"
	check "$f: the message names the output, the event, its input and time" sh -c "grep -q \"cannot write '$o': '[a-z]*' of '$neg' (process bazel, thread 1) is at -8[05]000000 ns\" '$TMP/msg'"
	check "$f: nothing written" test ! -e "$o"
	rm -rf "$o"
	$TF -q $f "$neg" "$TMP/pos.json" -o "$o"
	check "$f: the input that starts earliest first: written, read back as both inputs" sh -c "
		$TF -q top -n 0 --format json '$neg' '$TMP/pos.json' | grep -v '\"inputs\"' > '$TMP/a' &&
		$TF -q top -n 0 --format json '$o' | grep -v '\"inputs\"' > '$TMP/b' && cmp -s '$TMP/a' '$TMP/b'"
done
finish
