# The Python recording binding (python/tracefold/record.py over
# build/rel/libtracefold-record.so; docs/record.md "Python").  A program
# (tests/tools/record_py_prog.py) records with the decorator, spans with
# nested annotations, counters, a flow between threads, tracks in a group,
# 4 threads and multiprocessing workers started by fork, spawn and
# forkserver, and prints what it did as JSON.  Then: a file per process,
# each decoded by protoc; tracefold's calls per function (top, the
# profile, the Chrome output) = the program's; the ranks of rank() in
# overview; the flows and counters; the annotations in protoc's text.
# Also: a path with no %p, the no-ops outside a recording, a Recorder of
# its own, TRACEFOLD_RECORD with no start(), drop_when_full, a missing
# library, the example of tests/data/record; stop() while threads record
# (an ASan build of the library).
# shellcheck disable=SC2016 # the sh -c scripts below take their arguments as $1, $2
. tests/lib.sh
PY=/usr/bin/python3
[ -x "$PY" ] || PY=$(command -v python3)
ROOT=$(pwd)
TFABS=$(cd "$(dirname "$TF")" && pwd)/$(basename "$TF")
export PYTHONPATH="$ROOT/python${PYTHONPATH:+:$PYTHONPATH}"
[ -f build/rel/libtracefold-record.so ] || make -s record >/dev/null
export TRACEFOLD_RECORD_LIB="$ROOT/build/rel/libtracefold-record.so"
unset TRACEFOLD_RECORD TRACEFOLD_RECORD_BUFFER_BYTES TRACEFOLD_RECORD_DROP

# --- the program: every process writes its file
R=$TMP/rec
mkdir -p "$R"
if "$PY" tests/tools/record_py_prog.py "$R" >"$TMP/prog.json" 2>"$TMP/prog.err"; then
	ok "record_py_prog.py runs (fork, spawn and forkserver workers)"
else
	fail "record_py_prog.py runs"; sed 's/^/#   /' "$TMP/prog.err" | tail -20
fi
check "the program wrote nothing on stderr" test ! -s "$TMP/prog.err"
nproc=$("$PY" -c 'import json,sys; print(json.load(open(sys.argv[1]))["processes"])' "$TMP/prog.json")
check "a file per process ($nproc: the main one and 5 workers), no .tmp file left" sh -c '
	n=$(ls "$1" | grep -c "^run\.[0-9]*\.pftrace\$"); all=$(ls "$1" | wc -l)
	[ "$n" -eq "$2" ] && [ "$all" -eq "$2" ] && [ "$2" -eq 6 ] || { ls "$1"; exit 1; }' sh "$R" "$nproc"
i=0
for f in "$R"/run.*.pftrace; do
	i=$((i + 1))
	check "file $i decodes with protoc (perfetto_trace.proto), with track events" sh -c '
		protoc --decode=perfetto.protos.Trace -I proto proto/perfetto_trace.proto < "$1" > "$2" && grep -q "TYPE_SLICE_BEGIN" "$2"' sh "$f" "$TMP/dec.$i"
done

# --- tracefold: the calls per function over all the files = the program's
$TF -q top -n 0 --format json "$R"/run.*.pftrace >"$TMP/top.json"
check "top over all the files: every function's calls = what the program did" "$PY" -c '
import json, sys
want = json.load(open(sys.argv[1]))["calls"]
got = {f["name"]: f["calls"] for f in json.load(open(sys.argv[2]))["functions"]}
assert got == want, (got, want)
assert want["leaf"] == 77 and want["Model.forward"] == 25 and want["worker_step"] == 20, want' "$TMP/prog.json" "$TMP/top.json"
$TF -q profile "$R"/run.*.pftrace -o "$TMP/p.pb.gz"
check "profile over all the files: its calls per function (go tool pprof -raw) = the program's" "$PY" -c '
import json, sys
sys.path.insert(0, "tests/tools")
import pprof_raw
want = json.load(open(sys.argv[1]))["calls"]
r = pprof_raw.summarize(sys.argv[2])
got = {n: f["self"]["calls/count"] for n, f in r["funcs"].items() if f["self"]["calls/count"]}
assert got == want, (got, want)' "$TMP/prog.json" "$TMP/p.pb.gz"

# --- ranks: rank(N) in each process
$TF -q overview --format json "$R"/run.*.pftrace >"$TMP/ov.json"
check "overview: the ranks are the trace's own (rank() in each process): 0..5, rank 0 with its 7 threads" "$PY" -c '
import json, sys
d = json.load(open(sys.argv[1])); p = json.load(open(sys.argv[2]))
assert d["run"]["ranks_from"] == "trace", d["run"]["ranks_from"]
assert [r["rank"] for r in d["ranks"]] == p["ranks"] == list(range(6)), d["ranks"]
assert d["ranks"][0]["threads"] >= p["threads"] == 7, (d["ranks"][0]["threads"], p["threads"])' "$TMP/ov.json" "$TMP/prog.json"
$TF -q info --format json "$R"/run.*.pftrace >"$TMP/info.json"
check "info: the thread names (threading's, thread_name()), tracks read/write, counters loss, queue depth, worker_loss" "$PY" -c '
import json, sys
j = json.load(open(sys.argv[1]))
names = {t["thread_name"] for t in j["threads"]}
want = {"MainThread", "producer", "consumer", "worker-0", "worker-1", "worker-2", "worker-3", "read", "write"}
assert want <= names, (want - names, names)
c = {x["name"]: x for x in j["counters"]}
assert c["loss"]["samples"] == 5 and abs(c["loss"]["sum"] - 10 / 7) < 1e-9, c["loss"]
assert c["queue depth"]["samples"] == 5 and c["queue depth"]["sum"] == 10, c["queue depth"]
assert c["worker_loss"]["samples"] == 5 and c["worker_loss"]["sum"] == 7.5, c["worker_loss"]
assert sorted(t["rank"] for t in j["threads"] if t["thread_name"] == "MainThread") == [0, 1, 2, 3, 4, 5]' "$TMP/info.json"

# --- Chrome JSON: the slices, the 3 flows from producer to consumer
$TF -q chrome "$R"/run.*.pftrace -o "$TMP/c.json"
check "chrome: X slices per name = the calls; 3 flows, each from the producer thread to the consumer" "$PY" -c '
import json, sys
want = json.load(open(sys.argv[1]))["calls"]
d = json.load(open(sys.argv[2])); ev = d["traceEvents"] if isinstance(d, dict) else d
got = {}
for e in ev:
    if e.get("ph") == "X":
        got[e["name"]] = got.get(e["name"], 0) + 1
assert got == want, (got, want)
tn = {(e["pid"], e["tid"]): e["args"]["name"] for e in ev if e.get("ph") == "M" and e.get("name") == "thread_name"}
s = {e["id"]: tn.get((e["pid"], e["tid"])) for e in ev if e.get("ph") == "s"}
f = {e["id"]: tn.get((e["pid"], e["tid"])) for e in ev if e.get("ph") == "f"}
assert len(s) == 3 and s.keys() == f.keys(), (s, f)
assert set(s.values()) == {"producer"} and set(f.values()) == {"consumer"}, (s, f)' "$TMP/prog.json" "$TMP/c.json"

# --- annotations: in protoc's text of the main process's file (the
# repository's proto has DebugAnnotation's scalars only: the nested entries
# show as fields 11, dict_entries, and 12, array_values, of Perfetto's)
M=$(grep -l 'process_name: "rank 0"' "$TMP"/dec.*)
check "annotations in protoc's text: names, int, bool, string; a dict (11) of a double, an array (12), a string, uint64 max" "$PY" -c '
import re, sys
t = open(sys.argv[1]).read()
for name in ("step", "ok", "cfg", "bytes", "item", "thread", "path"):
    assert "name: \"%s\"" % name in t, name
for v in ("int_value: 4\n", "bool_value: true", "int_value: 4096", "string_value: \"/tmp/x\""):
    assert v in t, v
cfgs = [re.sub(r"\s+", " ", c) for c in re.findall(r"name: \"cfg\"\n(.*?)\n    \}\n    type:", t, re.S)]
want = ["11 { 10: \"lr\" 5: 0x3fc0000000000000 } 11 { 10: \"layers\" 12 { 4: 8 } 12 { 4: 16 } 12 { 4: %d } } "
        "11 { 10: \"name\" 6: \"mlp\" } 11 { 10: \"big\" 3: 18446744073709551615 }" % i for i in range(5)]
assert [c.strip() for c in cfgs] == want, cfgs' "$M"

# --- a path with no %p: the main process writes it, a fork child PATH.PID.EXT
P=$TMP/nop
mkdir -p "$P"
check "start(\"run.pftrace\"): the main file run.pftrace, the fork child's run.<pid>.pftrace" "$PY" -c '
import os, sys, multiprocessing as mp
import tracefold.record as tfr
def child():
    with tfr.span("in_child"):
        pass
if __name__ == "__main__":
    tfr.start(os.path.join(sys.argv[1], "run.pftrace"))
    with tfr.span("in_main"):
        pass
    p = mp.get_context("fork").Process(target=child); p.start(); p.join()
    tfr.stop()
    names = sorted(os.listdir(sys.argv[1]))
    assert names == ["run.%d.pftrace" % p.pid, "run.pftrace"], names' "$P"
check "the child's file holds in_child, the main one in_main" sh -c '
	"$2" -q top "$1"/run.pftrace | grep -q in_main && "$2" -q top "$1"/run.[0-9]*.pftrace | grep -q in_child' sh "$P" "$TF"

# --- outside a recording: no-ops, no file; start twice refused
N=$TMP/noop
mkdir -p "$N"
check "before start and after stop every call is a no-op (nothing raised, no file); a second start raises" sh -c '
cd "$1" && "$2" -c "
import tracefold.record as tfr
@tfr.trace
def f(): return 1
def calls():
    with tfr.span(\"s\", a=1): f()
    tfr.counter(\"c\", 1); tfr.instant(\"i\"); tfr.flow_end(tfr.flow_begin(\"x\")); tfr.rank(3)
    tfr.thread_name(\"t\"); tfr.process_name(\"p\"); tfr.flush()
calls()
assert tfr.stats() is None and tfr.recorder() is None
r = tfr.start(\"a.pftrace\")
try:
    tfr.start(\"b.pftrace\")
    raise SystemExit(\"second start allowed\")
except RuntimeError:
    pass
with tfr.span(\"closing\"):
    tfr.stop()   # the span ends after the close: nothing
tfr.stop(); r.close(); calls()
import os; assert sorted(os.listdir(\".\")) == [\"a.pftrace\"], os.listdir(\".\")
"' sh "$N" "$PY"

# --- a Recorder of its own (no default one), and TRACEFOLD_RECORD with no start()
O=$TMP/own
mkdir -p "$O"
check "Recorder(path) on its own: begin/end, span on a named track, instant, counter; the default one stays None" "$PY" -c '
import sys, tracefold.record as tfr
r = tfr.Recorder(sys.argv[1] + "/own.pftrace")
r.begin("outer", a=1)
with r.span("inner", track="side"):
    r.instant("mark")
r.end()
r.counter("depth", 2.5)
assert tfr.recorder() is None and r.stats()["events"] == 6, r.stats()
r.close()' "$O"
check "its file: outer and inner (on track side), one call each" sh -c '
	"$2" -q top -n 0 --format json "$1/own.pftrace" | "$3" -c "
import json, sys
got = {f[\"name\"]: f[\"calls\"] for f in json.load(sys.stdin)[\"functions\"]}
assert got == {\"outer\": 1, \"inner\": 1}, got"' sh "$O" "$TF" "$PY"
check "TRACEFOLD_RECORD=PATTERN and no start(): the program's events in ITS.<pid>.pftrace at exit" sh -c '
	cd "$1" && TRACEFOLD_RECORD="$1/env.pftrace" "$2" -c "
import tracefold.record as tfr
@tfr.trace
def f(): pass
f(); f()
" && ls "$1" | grep -qx "env\.[0-9]*\.pftrace" && "$3" -q top "$1"/env.*.pftrace | grep -q " 2  f\$"' sh "$O" "$PY" "$TFABS"

# --- drop_when_full: a slow writer (TRACEFOLD_RECORD_TEST_DELAY_US), a small buffer
D=$TMP/drop
mkdir -p "$D"
check "drop_when_full with a slow writer: stats count drops, the trace holds tracefold.dropped_events, tracefold reads it" sh -c '
TRACEFOLD_RECORD_TEST_DELAY_US=20000 "$2" -c "
import sys, tracefold.record as tfr
r = tfr.start(sys.argv[1] + \"/d.pftrace\", buffer_bytes=16384, drop_when_full=True)
for i in range(20000):
    with tfr.span(\"s\"):
        pass
st = tfr.stats(); tfr.stop()
assert st[\"dropped\"] > 0 and st[\"events\"] + st[\"dropped\"] == 40000, st
" "$1" && protoc --decode=perfetto.protos.Trace -I proto proto/perfetto_trace.proto < "$1/d.pftrace" | grep -q "tracefold.dropped_events" &&
"$3" -q top "$1/d.pftrace" >/dev/null' sh "$D" "$PY" "$TF"

# --- the example (tests/data/record): the committed trace and a new run
EX='{"train_step": 12, "load": 12, "load_batch": 12, "Linear.forward": 12, "Linear.backward": 12, "optimizer.step": 12, "wait for batch": 13, "save": 3}'
excalls() { $TF -q top -n 0 --format json "$1" | "$PY" -c '
import json, sys
got = {f["name"]: f["calls"] for f in json.load(sys.stdin)["functions"]}
want = json.loads(sys.argv[1])
assert got == want, (got, want)' "$EX"; }
check "tests/data/record/example-py.pftrace: the calls of its README" excalls "$DATA/record/example-py.pftrace"
check "example.py runs again" sh -c '"$1" tests/data/record/example.py "$2/ex.pftrace" >/dev/null' sh "$PY" "$TMP"
check "example.py run again: the same calls" excalls "$TMP/ex.pftrace"

# --- names and annotations that are not UTF-8 (bytes, lone surrogates):
# written as UTF-8 (replacement characters), so that the strict decoder of
# tests/tools/record_check.py and protoc (no "invalid UTF-8") take the file
check "bytes and str that are not UTF-8: the trace's strings are UTF-8 (record_check.py, protoc)" sh -c '
"$2" -c "
import sys, tracefold.record as tfr
tfr.start(sys.argv[1] + \"/u.pftrace\")
tfr.instant(b\"\\xff\\xfename\", raw=b\"\\xff\", sur=\"a\\udcff\", k={b\"\\xfe\": 1})
with tfr.span(\"s\\udcff\"):
    pass
tfr.stop()
" "$1" && "$2" tests/tools/record_check.py "$1/u.pftrace" >/dev/null &&
protoc --decode=perfetto.protos.Trace -I proto proto/perfetto_trace.proto < "$1/u.pftrace" 2>"$1/u.err" >"$1/u.txt" &&
! grep -q "invalid UTF-8" "$1/u.err" && grep -qF "\\357\\277\\275name" "$1/u.txt"' sh "$TMP" "$PY"

# --- stop() while other threads record: with libtracefold-record built
# with ASan (a use after free aborts), 30 rounds of 3 threads recording as
# the main thread stops (the binding used a recording's handle read before
# a Python call, which another thread's stop() could free by then)
ASAN_RT=$(gcc -print-file-name=libasan.so 2>/dev/null)
if [ -f "$ASAN_RT" ] && gcc -shared -fPIC -g -O1 -fsanitize=address -pthread -Iinclude src/record/*.c -o "$TMP/librec-asan.so" 2>"$TMP/asan-cc.err"; then
	check "stop() while 3 threads record: no use after free (ASan)" sh -c '
	ASAN_OPTIONS=detect_leaks=0 TRACEFOLD_RECORD_LIB="$1/librec-asan.so" LD_PRELOAD="$2" \
		"$3" tests/tools/record_py_race.py "$1/race.pftrace" >"$1/race.txt" 2>&1 || { tail -30 "$1/race.txt"; exit 1; }
	[ "$(cat "$1/race.txt")" = 30 ]' sh "$TMP" "$ASAN_RT" "$PY"
else
	fail "an ASan build of libtracefold-record for the stop() race"; cat "$TMP/asan-cc.err"
fi

# --- no library: ImportError naming the path tried
check "TRACEFOLD_RECORD_LIB=/nonexistent: ImportError that names it and says how to build" sh -c '
TRACEFOLD_RECORD_LIB=/nonexistent/libtracefold-record.so "$1" -c "
try:
    import tracefold.record
except ImportError as e:
    m = str(e)
    assert \"/nonexistent/libtracefold-record.so\" in m and \"make record\" in m, m
else:
    raise SystemExit(\"imported\")
"' sh "$PY"
finish
