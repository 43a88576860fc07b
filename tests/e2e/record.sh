# shellcheck shell=sh disable=SC2016 # the sh -c scripts below take their arguments as $1, $2
# libtracefold-record (include/tracefold/record.h, docs/record.md): the demo
# programs of tests/record/ built against the static and the shared library,
# their traces read by protoc --decode (the schema), by
# tests/tools/record_check.py (an independent decoder: its summary must equal
# what the program says it recorded) and by tracefold's commands (call counts
# and times per function equal the decoder's, to the ns); several processes
# as ranks, a file shared by processes, drop and block modes, error paths.
# No timing is asserted: only counts and sums that hold however the threads
# are scheduled.
. tests/lib.sh
CHK=tests/tools/record_check.py
PY=/usr/bin/python3
LIB=build/rel
CFLAGS_REC=""
case $TF in
*san*) [ -f build/san/libtracefold-record.a ] && LIB=build/san &&
	CFLAGS_REC="-fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all" ;;
esac
[ -f $LIB/libtracefold-record.a ] || { fail "$LIB/libtracefold-record.a is missing (make record)"; finish; }
W="-Wall -Wextra -Werror"
# shellcheck disable=SC2086
check "rec_demo.c builds against $LIB/libtracefold-record.a" \
	gcc -std=c11 $W -O1 $CFLAGS_REC -Iinclude tests/record/rec_demo.c $LIB/libtracefold-record.a -pthread -o "$TMP/demo"
command -v g++ > /dev/null || fail "g++ is missing (tests/deps.sh test installs it)"
# shellcheck disable=SC2086
check "rec_cxx.cc (tfr_span) builds as C++11 against the static library" \
	g++ -std=c++11 $W -pedantic -O1 $CFLAGS_REC -Iinclude tests/record/rec_cxx.cc $LIB/libtracefold-record.a -pthread -o "$TMP/cxx"
# shellcheck disable=SC2086
check "rec_demo.c builds against the shared library (-L -l)" \
	gcc -std=c11 $W -O1 -Iinclude tests/record/rec_demo.c -Lbuild/rel -ltracefold-record -pthread -o "$TMP/demo_so"
check "the .so exports exactly the functions record.h declares (TFR_API)" sh -c '
sed -n "s/^TFR_API [^(]*[ *]\(tfr_[a-z_]*\)(.*/\1/p" include/tracefold/record.h | sort > "$1/decl"
nm -D --defined-only build/rel/libtracefold-record.so | awk "\$2 == \"T\" { print \$3 }" | sort > "$1/exp"
[ "$(wc -l < "$1/decl")" -ge 25 ] && diff "$1/decl" "$1/exp"' sh "$TMP"
[ -x "$TMP/demo" ] || finish

# ---- the demo: every call ----
check "the demo records (static library)" "$TMP/demo" demo "$TMP/d.pftrace" "$TMP/d.json"
check "the demo records (shared library)" env LD_LIBRARY_PATH=build/rel "$TMP/demo_so" demo "$TMP/dso.pftrace" "$TMP/dso.json"
check "the shared library's demo ran on it" sh -c "LD_LIBRARY_PATH=build/rel ldd '$TMP/demo_so' | grep -q 'build/rel/libtracefold-record.so.1'"
check "no .tmp file left beside the trace" sh -c "! ls '$TMP'/*.tmp-* 2>/dev/null"
if command -v protoc >/dev/null; then
	check "protoc --decode=perfetto.protos.Trace takes the demo's trace" \
		sh -c "protoc --proto_path=proto --decode=perfetto.protos.Trace proto/perfetto_trace.proto < '$TMP/d.pftrace' > '$TMP/d.txt' && grep -q 'track_event' '$TMP/d.txt' && grep -q 'debug_annotations' '$TMP/d.txt'"
else
	fail "protoc is missing (tests/deps.sh test installs protobuf-compiler)"
fi
for t in d dso; do
	check "record_check.py: $t.pftrace is valid and its summary = the program's own JSON" \
		$PY $CHK "$TMP/$t.pftrace" --summary "$TMP/$t.sum.json"
	check "record_check.py: $t: tracks, counters, flows, annotations, events as the program says" $PY -c '
import json, sys
s, d = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
for k in ("tracks", "counters", "flows", "args", "events", "dropped"):
    assert s[k] == d[k], (k, s[k], d[k])
assert d["threads"] == 4 and d["events"] == 186 and s["previous_packet_dropped"] == 0
assert s["process_names"] == ["rec demo"], s["process_names"]  # tfr_process_name
assert len(s["sequences"]) == len(set(s["sequences"])) == 5, s["sequences"]' "$TMP/$t.sum.json" "$TMP/$t.json"
done

# tracefold's profile: calls and total time per function = the decoder's
$TF -q top -n 0 --format json --keep-waiting "$TMP/d.pftrace" > "$TMP/top.json" 2> "$TMP/e.top"
check "top: calls and total ns per function = record_check.py's slices" $PY -c '
import json, sys
s, t = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
got = {f["name"]: (f["calls"], f["total"]) for f in t["functions"]}
want = {n: (v["count"], v["total_ns"]) for n, v in s["names"].items()}
assert got == want, (got, want)
assert t["unit"] in ("ns", "nanoseconds"), t["unit"]' "$TMP/d.sum.json" "$TMP/top.json"
$TF -q profile "$TMP/d.pftrace" -o "$TMP/d.pb.gz" 2> "$TMP/e.prof"
check "profile (read by go tool pprof -raw): calls and wall ns per function = record_check.py's" sh -c '
'"$PY"' tests/tools/pprof_raw.py "$1" > "$2" && '"$PY"' -c "
import json, sys
p, s = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
got = {n: (f[\"self\"][\"calls/count\"], f[\"cum\"][\"wall/nanoseconds\"]) for n, f in p[\"funcs\"].items()}
want = {n: (v[\"count\"], v[\"total_ns\"]) for n, v in s[\"names\"].items()}
assert got == want, (got, want)" "$2" "$3"' sh "$TMP/d.pb.gz" "$TMP/raw.json" "$TMP/d.sum.json"
$TF -q info --format json "$TMP/d.pftrace" > "$TMP/info.json" 2> "$TMP/e.info"
check "info: no repairs, no drops; counters and instants as recorded; threads named" $PY -c '
import json, sys
j, s = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
d = j["diagnostics"]
assert d["recorder_dropped"] == 0 and d["end_without_begin"] == 0 and d["begin_unclosed"] == 0 and d["bad_event"] == 0, d
k = j["events_by_kind"]
assert k["counter"] == sum(len(v) for v in s["counters"].values()), (k, s["counters"])
assert k["instant"] == sum(sum(t["instants"].values()) for t in s["tracks"].values()), k
assert k["flow"] == sum(s["flows"].values()), k
names = {t["thread_name"] for t in j["threads"]}
assert {"main", "worker 0", "worker 1", "worker 2", "dev 0"} <= names, names
assert {t["process_name"] for t in j["threads"]} == {"rec demo"}, j["threads"]  # renamed after the default
c = {x["name"]: x for x in j["counters"]}
assert c["queue depth"]["samples"] == 2 and c["temperature"]["sum"] == 41.5, c' "$TMP/info.json" "$TMP/d.sum.json"
check "chrome: strict JSON, the same slices per name" sh -c '
"$1" -q chrome "$2" -o "$3" && '"$PY"' -c "
import json, sys, collections
def strict(x): raise ValueError(x)
t = json.load(open(sys.argv[1]), parse_constant=strict)
ev = t[\"traceEvents\"] if isinstance(t, dict) else t
n = collections.Counter(e[\"name\"] for e in ev if e.get(\"ph\") in (\"X\", \"B\"))
s = json.load(open(sys.argv[2]))
assert dict(n) == {k: v[\"count\"] for k, v in s[\"names\"].items()}, (n, s[\"names\"])" "$3" "$4"' sh "$TF" "$TMP/d.pftrace" "$TMP/d.chrome.json" "$TMP/d.sum.json"
check "perfetto (tracefold's writer) of the recording: record_check.py finds the same slices and times, counters and flows (an arrow a flow's segment, in time order)" sh -c '"$1" -q perfetto "$2" -o "$3" && '"$PY"' '"$CHK"' "$3" --any-order --summary "$4" && '"$PY"' -c "
import json, sys
a, b = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
assert a[\"names\"] == b[\"names\"], (a[\"names\"], b[\"names\"])
c = lambda s: sorted((k.split(\"/\")[-1], v) for k, v in s[\"counters\"].items())
assert c(a) == c(b), (c(a), c(b))
# an arrow a segment: a flow of begin, step, end is two arrows there
assert a[\"flows\"][\"steps\"] == 0 and a[\"flows\"][\"begun\"] == a[\"flows\"][\"ended\"] == b[\"flows\"][\"steps\"] + b[\"flows\"][\"ended\"] > b[\"flows\"][\"begun\"], (a[\"flows\"], b[\"flows\"])" "$4" "$5"' sh "$TF" "$TMP/d.pftrace" "$TMP/tf.pftrace" "$TMP/tf.sum.json" "$TMP/d.sum.json"
# arrows CHROME.json N: the Chrome output's flows are N arrows (s, f pairs),
# each pointing forward in time
ARROWS='
import json, sys, collections
t = json.load(open(sys.argv[1]))
ev = t["traceEvents"] if isinstance(t, dict) else t
by = collections.defaultdict(dict)
for e in ev:
    if e.get("ph") in ("s", "f"):
        by[e["id"]][e["ph"]] = e["ts"]
assert len(by) == int(sys.argv[2]) and all(v["s"] <= v["f"] for v in by.values()), (dict(by), sys.argv[2])'
check "chrome: every flow's arrow points forward in time, one a segment (begin-step, step-end: 6 for the demo's 3 flows)" sh -c '"$1" -q chrome "$2" -o "$3" && n=$('"$PY"' -c "
import json, sys
s = json.load(open(sys.argv[1]))[\"flows\"]
print(s[\"steps\"] + s[\"ended\"])" "$4") && '"$PY"' -c "$5" "$3" "$n"' sh "$TF" "$TMP/d.pftrace" "$TMP/d.flows.json" "$TMP/d.sum.json" "$ARROWS"
check "flame: an SVG of the trace" sh -c '"$1" -q flame "$2" -o "$3" && grep -q "matmul" "$3"' sh "$TF" "$TMP/d.pftrace" "$TMP/d.svg"
check "events: Parquet tables of the trace, read back by top: the same calls and times" sh -c '"$1" -q events "$2" -o "$3" && [ -f "$3/slices/part-0.parquet" ] && "$1" -q top -n 0 --format json --keep-waiting "$3" > "$4" && '"$PY"' -c "
import json, sys
a, b = (json.load(open(x))[\"functions\"] for x in sys.argv[1:3])
f = lambda t: sorted((x[\"name\"], x[\"calls\"], x[\"total\"]) for x in t)
assert f(a) == f(b) and len(a) == 7, (f(a), f(b))" "$4" "$5"' sh "$TF" "$TMP/d.pftrace" "$TMP/pq" "$TMP/pqtop.json" "$TMP/top.json"
check "overview: one rank, the demo's 7 tracks" sh -c '"$1" -q overview "$2" -o "$3" && '"$PY"' -c "
import json, sys
d = json.load(open(sys.argv[1]))
assert len(d[\"ranks\"]) == 1 and d[\"ranks\"][0][\"threads\"] == 7, d[\"ranks\"]" "$3"' sh "$TF" "$TMP/d.pftrace" "$TMP/ov.json"

# ---- the committed recording (tests/data/record/README.md) ----
check "tests/data/record/demo.pftrace: record_check.py's summary = demo.json; top = the decoder" sh -c '
'"$PY"' '"$CHK"' "$1/demo.pftrace" --summary "$2" && "$3" -q top -n 0 --format json "$1/demo.pftrace" > "$4" && '"$PY"' -c "
import json, sys
s, d, t = (json.load(open(x)) for x in sys.argv[1:4])
for k in (\"tracks\", \"counters\", \"flows\", \"args\", \"events\"):
    assert s[k] == d[k], (k, s[k], d[k])
got = {f[\"name\"]: (f[\"calls\"], f[\"total\"]) for f in t[\"functions\"]}
assert got == {n: (v[\"count\"], v[\"total_ns\"]) for n, v in s[\"names\"].items()}, got" "$2" "$1/demo.json" "$4"' sh "$DATA/record" "$TMP/data.sum.json" "$TF" "$TMP/data.top.json"

# ---- C++: tfr_span ----
if [ -x "$TMP/cxx" ]; then
	check "rec_cxx records" "$TMP/cxx" "$TMP/c.pftrace" "$TMP/c.json"
	check "rec_cxx: record_check.py's slices = the program's" sh -c \
		"$PY $CHK '$TMP/c.pftrace' --summary '$TMP/c.sum.json' && $PY -c \"
import json, sys
s, d = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
assert s['tracks'] == d['tracks'], (s['tracks'], d['tracks'])\" '$TMP/c.sum.json' '$TMP/c.json'"
fi

# ---- 3 processes, a file each: 3 ranks ----
mkdir "$TMP/ranks"
# ranks in reverse order of their pids: not the inputs' order
for k in 2 1 0; do RANK=$k "$TMP/demo" demo "$TMP/ranks/run.%p.pftrace" "$TMP/ranks/$k.json" || fail "rank $k"; done
check "3 processes (RANK=0..2, %p): 3 files, each valid" sh -c "
	set -- '$TMP'/ranks/run.*.pftrace; [ \$# = 3 ] || exit 1
	for f; do $PY $CHK \"\$f\" > /dev/null || exit 1; done"
check "overview: the 3 files are ranks 0, 1, 2 (named \"rank N\", any pid)" sh -c '"$1" -q overview "$2"/run.*.pftrace -o "$3" && '"$PY"' -c "
import json, sys
d = json.load(open(sys.argv[1]))
assert sorted(r[\"rank\"] for r in d[\"ranks\"]) == [0, 1, 2], d[\"ranks\"]
assert all(r[\"threads\"] == 7 for r in d[\"ranks\"]), d[\"ranks\"]" "$3"' sh "$TF" "$TMP/ranks" "$TMP/ov3.json"
check "info: every track of the 3 files has the rank of its process's name (not the input's index)" sh -c '"$1" -q info --format json "$2"/run.*.pftrace > "$3" && '"$PY"' -c "
import json, sys
d = json.load(open(sys.argv[1]))
assert d[\"ranks\"] == [0, 1, 2] and len(d[\"threads\"]) == 24, (d[\"ranks\"], len(d[\"threads\"]))
for t in d[\"threads\"]:
    assert t[\"process_name\"] == \"rank %d\" % t[\"rank\"], t
assert d[\"threads\"][0][\"rank\"] == 2, d[\"threads\"][0]" "$3"' sh "$TF" "$TMP/ranks" "$TMP/info3.json"
check "top of the 3 ranks: 3 times the demo's calls" sh -c '"$1" -q top -n 0 --format json "$2"/run.*.pftrace > "$3" && '"$PY"' -c "
import json, sys
t = {f[\"name\"]: f[\"calls\"] for f in json.load(open(sys.argv[1]))[\"functions\"]}
assert t[\"matmul\"] == 72 and t[\"step\"] == 36 and t[\"setup\"] == 3, t" "$3"' sh "$TF" "$TMP/ranks" "$TMP/top3.json"

# ---- TFR_SHARED: 3 processes appending to one file at once (named by tfr_rank) ----
for k in 0 1 2; do "$TMP/demo" shared "$TMP/shared.pftrace" "$TMP/sh$k.json" $k & done
wait
check "shared file: valid, 3 processes' distinct sequences, 15 work and 15 inner slices" sh -c "
$PY $CHK '$TMP/shared.pftrace' --summary '$TMP/sh.sum.json' && $PY -c \"
import json, sys
s = json.load(open(sys.argv[1]))
assert s['names']['work']['count'] == 15 and s['names']['inner']['count'] == 15, s['names']
assert len(s['sequences']) == 6 and len(set(s['sequences'])) == 6, s['sequences']
assert s['process_names'] == ['rank 0', 'rank 1', 'rank 2'], s['process_names']\" '$TMP/sh.sum.json'"
check "tracefold reads the shared file: 3 ranks, the calls of all" sh -c '"$1" -q overview "$2" -o "$3" && "$1" -q top -n 0 --format json "$2" > "$4" && '"$PY"' -c "
import json, sys
d = json.load(open(sys.argv[1]))
assert sorted(r[\"rank\"] for r in d[\"ranks\"]) == [0, 1, 2], d[\"ranks\"]
t = {f[\"name\"]: f[\"calls\"] for f in json.load(open(sys.argv[2]))[\"functions\"]}
assert t == {\"work\": 15, \"inner\": 15}, t" "$3" "$4"' sh "$TF" "$TMP/shared.pftrace" "$TMP/ovs.json" "$TMP/tops.json"

# ---- drop and block modes: a writer slowed down (2 ms a buffer) ----
N=60000
TRACEFOLD_RECORD_TEST_DELAY_US=2000 "$TMP/demo" drop "$TMP/drop.pftrace" "$TMP/drop.json" $N || fail "drop mode run"
check "drop mode: written + dropped = $N exactly; stats = the trace; begins and ends balance" sh -c "
$PY $CHK '$TMP/drop.pftrace' --summary '$TMP/drop.sum.json' && $PY -c \"
import json, sys
s, d = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
assert d['issued'] == $N and d['dropped'] > 0, d
assert s['events'] + s['dropped'] == $N, (s['events'], s['dropped'])
assert s['events'] == d['events'] and s['dropped'] == d['dropped'], (s, d)
assert s['previous_packet_dropped'] > 0 and d['threads'] == 2
assert s['names']['work']['count'] <= $N // 6 and s['names']['work']['count'] > 0, s['names']\" '$TMP/drop.sum.json' '$TMP/drop.json'"
$TF -q info --format json "$TMP/drop.pftrace" > "$TMP/dinfo.json" 2> "$TMP/e.dinfo"
check "tracefold reports the drop: recorder_dropped = the dropped counters' sum, no repairs" $PY -c '
import json, sys
j, s = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
d = j["diagnostics"]
assert d["recorder_dropped"] == s["dropped"] > 0, (d["recorder_dropped"], s["dropped"])
assert d["end_without_begin"] == 0 and d["begin_unclosed"] == 0, d' "$TMP/dinfo.json" "$TMP/drop.sum.json"
$TF top "$TMP/drop.pftrace" > /dev/null 2> "$TMP/e.dtop"
nd=$($PY -c 'import json, sys; print(json.load(open(sys.argv[1]))["dropped"])' "$TMP/drop.sum.json")
check "top warns of the $nd dropped events on stderr (not as a file it could not read)" sh -c \
	"grep -q \"its recorder dropped $nd events\" '$TMP/e.dtop' && ! grep -q 'could not be read' '$TMP/e.dtop'"
TRACEFOLD_RECORD_TEST_DELAY_US=2000 "$TMP/demo" block "$TMP/block.pftrace" "$TMP/block.json" 6000 || fail "block mode run"
check "block mode: all 6000 events written, none dropped" sh -c "
$PY $CHK '$TMP/block.pftrace' --summary '$TMP/block.sum.json' && $PY -c \"
import json, sys
s, d = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
assert s['events'] == 6000 and s['dropped'] == 0 and d['dropped'] == 0 and d['events'] == 6000, (s, d)
assert s['names']['work']['count'] == 2000, s['names']\" '$TMP/block.sum.json' '$TMP/block.json'"

# ---- error paths ----
check "tfr_open in a folder that does not exist: NULL, errno ENOENT" "$TMP/demo" enoent "$TMP/no/such/dir/t.pftrace"
mkdir "$TMP/gone"
check "tfr_close after the folder was removed: negative, nothing left (no .tmp)" "$TMP/demo" closefail "$TMP/gone"
mkdir "$TMP/crash"
sh -c 'cd "$1" && ulimit -c 0; "$2" crash c.pftrace; echo $? > rc' sh "$TMP/crash" "$TMP/demo" > /dev/null 2>&1
[ "$(cat "$TMP/crash/rc")" -gt 128 ] || fail "crash mode did not abort"
rm -f "$TMP/crash/rc"
set -- "$TMP"/crash/c.pftrace.tmp-*
check "a program that aborts after tfr_flush leaves c.pftrace.tmp-PID, no c.pftrace" test -f "$1" -a ! -e "$TMP/crash/c.pftrace"
check "tracefold reads the .tmp of the crashed program: 10 inner calls in outer, closed at its end (begin_unclosed)" sh -c '"$1" -q top -n 0 --format json "$2" > "$3" && "$1" -q info --format json "$2" > "$4" && '"$PY"' -c "
import json, sys
t = {f[\"name\"]: f[\"calls\"] for f in json.load(open(sys.argv[1]))[\"functions\"]}
assert t == {\"outer\": 1, \"inner\": 10}, t
assert json.load(open(sys.argv[2]))[\"diagnostics\"][\"begin_unclosed\"] == 1" "$3" "$4"' sh "$TF" "$1" "$TMP/crtop.json" "$TMP/crinfo.json"
mkdir "$TMP/isdir"
check "tfr_close whose rename fails (the name is a folder): negative, the .tmp file removed" "$TMP/demo" renamefail "$TMP/isdir"

# ---- a flow whose end is written before its step (another thread's buffer) ----
check "flowlate: a flow begun and ended on main, stepped on a worker whose buffer is written last: one flow of begin, step, end; tracefold draws its 2 arrows forward in time" sh -c '
"$1" flowlate "$2" && '"$PY"' '"$CHK"' "$2" --summary "$3" && "$4" -q chrome "$2" -o "$5" && '"$PY"' -c "
import json, sys
s = json.load(open(sys.argv[1]))[\"flows\"]
assert s == {\"begun\": 1, \"steps\": 1, \"ended\": 1}, s" "$3" && '"$PY"' -c "$6" "$5" 2' sh "$TMP/demo" "$TMP/fl.pftrace" "$TMP/fl.sum.json" "$TF" "$TMP/fl.chrome.json" "$ARROWS"

# ---- names past the limits ----
# shellcheck disable=SC2086
check "rec_long.c: a 300 KB name is cut to 65535 bytes at a UTF-8 character's start, valid for protoc and the decoder; the oversized annotation and a trackless counter's left out" sh -c '
gcc -std=c11 '"$W"' -O1 '"$CFLAGS_REC"' -Iinclude tests/record/rec_long.c '"$LIB"'/libtracefold-record.a -pthread -o "$1/long" && "$1/long" "$1/long.pftrace" &&
! protoc --proto_path=proto --decode=perfetto.protos.Trace proto/perfetto_trace.proto < "$1/long.pftrace" 2>&1 > /dev/null | grep -q . &&
'"$PY"' '"$CHK"' "$1/long.pftrace" --summary "$1/long.json" && '"$PY"' -c "
import json, sys
s = json.load(open(sys.argv[1]))
n = {k.encode(): v[\"count\"] for k, v in s[\"names\"].items()}
assert n == {\"\u20ac\".encode() * 21845: 1, b\"after\": 1}, [(len(k), v) for k, v in n.items()]
assert not s[\"args\"], s[\"args\"]" "$1/long.json"' sh "$TMP"

# ---- the documented C example (tests/data/record/example.c, docs/record.md) ----
# built with the flags docs/record.md gives; a new run and the committed
# trace both hold its fixed structure, and tracefold's calls and totals per
# function equal the independent decoder's
# shellcheck disable=SC2086
check "example.c builds against the static library" \
	gcc -std=gnu11 $W -O1 $CFLAGS_REC -Iinclude tests/data/record/example.c $LIB/libtracefold-record.a -pthread -o "$TMP/example"
"$TMP/example" "$TMP/ex.pftrace" > /dev/null 2>&1 || fail "example.c did not record"
for f in "$TMP/ex.pftrace" tests/data/record/example.pftrace; do
	check "example: $(basename "$f"): 8 of each region, 8 flows from loader to trainer, 16 queue depths; tracefold's calls and totals = the decoder's" sh -c '
'"$PY"' '"$CHK"' "$1" --summary "$2" && "$3" -q top -n 0 --format json "$1" > "$4" && '"$PY"' -c "
import json, sys
s, t = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
names = {\"train_step\", \"forward\", \"backward\", \"optimizer\", \"wait_for_batch\", \"load_batch\", \"read_files\", \"augment\"}
assert set(s[\"names\"]) == names and all(v[\"count\"] == 8 for v in s[\"names\"].values()), s[\"names\"]
assert s[\"flows\"] == {\"begun\": 8, \"ended\": 8, \"steps\": 0}, s[\"flows\"]
assert [len(v) for v in s[\"counters\"].values()] == [16], s[\"counters\"]
got = {f[\"name\"]: (f[\"calls\"], f[\"total\"]) for f in t[\"functions\"]}
assert got == {k: (v[\"count\"], v[\"total_ns\"]) for k, v in s[\"names\"].items()}, (got, s[\"names\"])" "$2" "$4"' sh "$f" "$TMP/ex.sum.json" "$TF" "$TMP/ex.top.json"
done
finish
