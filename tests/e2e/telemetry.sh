# Telemetry beside traces (docs/telemetry.md): nvidia-smi, rocm-smi and
# tracefold's telemetry CSV read as counter tracks, put on a Kineto trace's
# clock by its baseTimeNanoseconds.  The expected numbers are worked out by
# hand from tests/data/telemetry/README.md (base 1795000000000000000 ns =
# 2026/11/18 11:06:40 UTC; TZ=UTC for nvidia-smi's local times) and read
# back by DuckDB (the counters table) and python3 (the Chrome JSON).  The
# sampler samples/telemetry.sh runs here for real for about a second.
. tests/lib.sh
command -v node >/dev/null || { fail "node is missing (tests/deps.sh installs it)"; finish; }
[ -d tests/node_modules/@duckdb/node-api ] || { fail "tests/node_modules is missing (tests/deps.sh runs npm ci)"; finish; }
D=$DATA/telemetry
export TZ=UTC
# Every events output of this test goes to $TMP/pq/NAME; DuckDB reads all
# of their counters tables (joined to their tracks) in one run at the end
# (a run costs seconds), and python3 checks each one's rows:
# want NAME COUNTER JSON: the rows [thread, ts_ns, value] of COUNTER in NAME
# are JSON (sorted by thread, then time)
wants=
want() { wants="$wants$1	$2	$3
"; }
mkdir -p "$TMP/pq"
pq() { rm -rf "$TMP/pq/$1"; d=$1; shift; $TF events "$@" -o "$TMP/pq/$d" 2> "$TMP/e.$d" || fail "events -o $d $*"; }

# --- nvidia-smi alone: its own wall clock; info lists its tracks and counters
$TF info --format json $D/nvidia-smi.csv > "$TMP/info.json" 2> "$TMP/err"
check "info: nvidia-smi.csv alone: 2 GPU tracks, gpu.utilization 5 samples sum 160, 3 values [N/A] skipped" python3 -c '
import json, sys
j = json.load(open(sys.argv[1]))
c = {x["name"]: x for x in j["counters"]}
assert c["gpu.utilization"]["samples"] == 5 and c["gpu.utilization"]["sum"] == 160, c["gpu.utilization"]
assert c["gpu.power"]["samples"] == 4 and abs(c["gpu.power"]["sum"] - 540.75) < 1e-9, c["gpu.power"]
assert c["gpu.memory_used"]["max"] == 2500 * 1048576
assert j["diagnostics"]["telemetry_na"] == 3, j["diagnostics"]
names = sorted(t["thread_name"] for t in j["threads"])
assert names == ["GPU 0", "GPU 1"], names
assert j["time_span"]["first_ns"] == 1795000000200000000, j["time_span"]
' "$TMP/info.json"
$TF info $D/nvidia-smi.csv > "$TMP/info.txt"
check "info (text) names the telemetry process and the GPU tracks" grep -q 'process telemetry nvidia-smi.csv .*thread GPU 1' "$TMP/info.txt"

# --- aligned to the Kineto trace: the counters table at the expected ns
pq kineto $D/kineto.json $D/nvidia-smi.csv
check "the command says how it aligned (Kineto baseTimeNanoseconds, shift -1795000000000000000 ns)" \
	grep -q "nvidia-smi.csv aligned to trace $D/kineto.json by Kineto baseTimeNanoseconds: shift -1795000000000000000 ns" "$TMP/e.kineto"
want kineto gpu.utilization '[["GPU 0",200000000,10],["GPU 0",700000000,30],["GPU 0",1300000000,60],["GPU 1",200000000,20],["GPU 1",1300000000,40]]'
want kineto gpu.power '[["GPU 0",200000000,100.5],["GPU 0",700000000,150.25],["GPU 0",1300000000,200],["GPU 1",700000000,90]]'
want kineto gpu.memory_used '[["GPU 0",200000000,1048576000],["GPU 0",700000000,1572864000],["GPU 0",1300000000,1572864000],["GPU 1",200000000,2097152000],["GPU 1",700000000,2097152000],["GPU 1",1300000000,2621440000]]'
want kineto gpu.sm_clock '[["GPU 0",200000000,1410],["GPU 0",700000000,1980],["GPU 0",1300000000,1980],["GPU 1",200000000,1410],["GPU 1",700000000,1410],["GPU 1",1300000000,1410]]'
# the order of the inputs does not matter: telemetry is read after the traces
pq reversed $D/nvidia-smi.csv $D/kineto.json
want reversed gpu.utilization '[["GPU 0",200000000,10],["GPU 0",700000000,30],["GPU 0",1300000000,60],["GPU 1",200000000,20],["GPU 1",1300000000,40]]'

# --- Chrome JSON: counter events at the expected µs
$TF -q chrome $D/kineto.json $D/nvidia-smi.csv -o "$TMP/c.json"
check "chrome output: gpu.utilization C events at 200000, 700000, 1300000 us (GPU 0) and 200000, 1300000 (GPU 1), id = the GPU" python3 -c '
import json, sys
j = json.load(open(sys.argv[1]))
ev = j["traceEvents"] if isinstance(j, dict) else j
names = {(e["pid"], e["tid"]): e["args"]["name"] for e in ev if e.get("ph") == "M" and e.get("name") == "thread_name"}
got = sorted((names[(e["pid"], e["tid"])], e["ts"], e["args"]["value"]) for e in ev if e.get("ph") == "C" and e["name"] == "gpu.utilization")
ids = {(names[(e["pid"], e["tid"])], e.get("id")) for e in ev if e.get("ph") == "C"}
assert ids == {("GPU 0", "GPU 0"), ("GPU 1", "GPU 1")}, ids  # viewers key C events by pid, name and id
want = [("GPU 0", 200000, 10), ("GPU 0", 700000, 30), ("GPU 0", 1300000, 60), ("GPU 1", 200000, 20), ("GPU 1", 1300000, 40)]
assert got == want, got
' "$TMP/c.json"

# --- the overview: mean GPU utilization and power per step, all GPUs'
# samples inside the step (the README's sums)
$TF overview --format json -o "$TMP/ov.json" $D/kineto.json $D/nvidia-smi.csv 2> /dev/null
check "overview JSON: step 1 gpu_utilization (10+20+30)/3 = 20, gpu_power (100.5+150.25+90)/3; step 2 (60+40)/2 = 50, 200" python3 -c '
import json, sys
j = json.load(open(sys.argv[1]))
st = {s["step"]: s for r in j["ranks"] for s in r["steps"]}
assert sorted(st) == [1, 2], st
assert st[1]["gpu_utilization"] == 20 and abs(st[1]["gpu_power_w"] - (100.5 + 150.25 + 90) / 3) < 1e-9, st[1]
assert st[2]["gpu_utilization"] == 50 and st[2]["gpu_power_w"] == 200, st[2]
' "$TMP/ov.json"
$TF overview $D/kineto.json $D/nvidia-smi.csv > "$TMP/ov.txt" 2> /dev/null
check "overview text: gpu util and gpu power columns (20.0%, 113.6 W; 50.0%, 200.0 W)" sh -c "grep -q 'gpu util  gpu power' '$TMP/ov.txt' &&
	grep -qE '^ +0 +1 .* cpu +20\.0% +113\.6 W\$' '$TMP/ov.txt' && grep -qE '^ +0 +2 .* cpu +50\.0% +200\.0 W\$' '$TMP/ov.txt'"
$TF overview --format markdown $D/kineto.json $D/nvidia-smi.csv > "$TMP/ov.md" 2> /dev/null
check "overview Markdown: the same columns" grep -qE '\| *20\.0% *\| *113\.6 W *\|' "$TMP/ov.md"
$TF overview -o "$TMP/ov.html" $D/kineto.json $D/nvidia-smi.csv 2> /dev/null
check "overview HTML: GPU util and power cells" sh -c "grep -q '<th>GPU util</th><th>GPU power</th>' '$TMP/ov.html' &&
	grep -q '<td class=\"ov-n\">50.0%</td><td class=\"ov-n\">200.0 W</td>' '$TMP/ov.html'"
$TF overview --format json $D/kineto.json > "$TMP/ov0.json" 2> /dev/null
check "overview without telemetry: no such fields" sh -c "! grep -q gpu_utilization '$TMP/ov0.json'"

# --- the time zone: nvidia-smi writes local time, read in TZ (Tokyo: UTC+9, no DST)
TZ=Asia/Tokyo pq tokyo $D/kineto.json $D/nvidia-smi.csv
want tokyo gpu.power "[[\"GPU 0\",$((200000000 - 32400000000000)),100.5],[\"GPU 0\",$((700000000 - 32400000000000)),150.25],[\"GPU 0\",$((1300000000 - 32400000000000)),200],[\"GPU 1\",$((700000000 - 32400000000000)),90]]"

# --- gzip, CRLF: read as the plain file
gzip -c $D/nvidia-smi.csv > "$TMP/gz.csv.gz"
sed 's/$/\r/' $D/nvidia-smi.csv > "$TMP/crlf.csv"
pq gzip $D/kineto.json "$TMP/gz.csv.gz"
pq crlf $D/kineto.json "$TMP/crlf.csv"
want gzip gpu.utilization '[["GPU 0",200000000,10],["GPU 0",700000000,30],["GPU 0",1300000000,60],["GPU 1",200000000,20],["GPU 1",1300000000,40]]'
want crlf gpu.power '[["GPU 0",200000000,100.5],["GPU 0",700000000,150.25],["GPU 0",1300000000,200],["GPU 1",700000000,90]]'

# --- nvidia-smi ,noheader,nounits with its query as the first line
pq noheader $D/kineto.json $D/nvidia-smi-noheader.csv
want noheader gpu.utilization '[["GPU 0",200000000,10],["GPU 0",700000000,30],["GPU 1",200000000,20]]'
want noheader gpu.memory_used '[["GPU 0",200000000,1048576000],["GPU 0",700000000,1572864000],["GPU 1",200000000,2097152000]]'
sed 1d $D/nvidia-smi-noheader.csv > "$TMP/nohead.csv"
expect_exit 3 "noheader without the query line: refused" $TF info "$TMP/nohead.csv"
cp "$TMP/err" "$TMP/e"
check "... saying how to give the header" grep -q "a row before any header.*--query-gpu=timestamp,index" "$TMP/e"

# --- rocm-smi (rows after a time_ns column, its header repeated each round)
pq rocm $D/kineto.json $D/rocm-smi.csv
want rocm gpu.utilization '[["GPU 0",200000000,5],["GPU 0",1200000000,95],["GPU 1",200000000,7],["GPU 1",1200000000,85]]'
want rocm gpu.power '[["GPU 0",200000000,120],["GPU 0",1200000000,180],["GPU 1",1200000000,170]]'
want rocm gpu.temperature '[["GPU 0",200000000,34],["GPU 0",1200000000,36],["GPU 1",200000000,35],["GPU 1",1200000000,37]]'
expect_exit 3 "rocm-smi without a time column: refused" $TF info $D/rocm-smi-bare.csv
cp "$TMP/err" "$TMP/e"
check "... naming the missing time_ns column" grep -q "rocm-smi-bare.csv' at byte 0: rocm-smi CSV line 1: no time_ns column" "$TMP/e"

# --- the generic CSV: unit=us, clock=trace (never shifted), host
pq generic $D/kineto.json $D/generic.csv
want generic cpu.utilization '[["CPU",250000000,37.5],["CPU",1250000500,62.5]]'
want generic mem.available '[["host",250000000,1073741824]]'

# --- OTF2: the archive's ClockProperties realtimeTimestamp (OTF2 3.0) is
# the wall-clock ns of its time 0 (TAU 2.35.2's tiny_otf2: 1795346150484967000)
printf '# tracefold-telemetry unit=ns clock=realtime host=tau\n1795346150484968000,CPU,cpu.utilization,42\n' > "$TMP/otf2tel.csv"
pq otf2 $DATA/otf2/tiny_otf2/traces.otf2 "$TMP/otf2tel.csv"
check "OTF2: aligned by ClockProperties realtimeTimestamp, and says so" \
	grep -q "otf2tel.csv aligned to trace $DATA/otf2/tiny_otf2/traces.otf2 by OTF2 ClockProperties realtimeTimestamp: shift -1795346150484967000 ns" "$TMP/e.otf2"
want otf2 cpu.utilization '[["CPU",1000,42]]'

# --- no wall-clock base: a warning, or --clock-offset
$TF info $DATA/chrome/kineto-collectives-handmade/rank0.json.gz $D/nvidia-smi.csv > /dev/null 2> "$TMP/e"
check "a trace without baseTimeNanoseconds: the telemetry stays on its own clock, with a warning" \
	grep -q "nvidia-smi.csv stays on its own clock" "$TMP/e"
pq offset --clock-offset -1795000000s $DATA/chrome/kineto-collectives-handmade/rank0.json.gz $D/nvidia-smi.csv
check "--clock-offset puts it on the trace's clock, and says so" grep -q 'aligned by --clock-offset: shift -1795000000000000000 ns' "$TMP/e.offset"
want offset gpu.power '[["GPU 0",200000000,100.5],["GPU 0",700000000,150.25],["GPU 0",1300000000,200],["GPU 1",700000000,90]]'

# --- the counters tables, all at once
node tests/tools/duckdb_query.mjs "$TMP/pq" "SELECT regexp_extract(c.filename, '/pq/([a-z0-9]+)/', 1) AS d,
	t.process_name, t.thread_name, c.name, c.ts_ns, c.value
	FROM read_parquet('\$DIR/*/counters/**/*.parquet', filename = true) c
	JOIN read_parquet('\$DIR/*/tracks/**/*.parquet', filename = true) t
	ON c.track_id = t.track_id AND regexp_extract(c.filename, '/pq/([a-z0-9]+)/', 1) = regexp_extract(t.filename, '/pq/([a-z0-9]+)/', 1)
	ORDER BY 1, 3, 4, 5" > "$TMP/rows.json" 2> "$TMP/e" || { fail "DuckDB"; sed 's/^/#   /' "$TMP/e"; }
printf '%s' "$wants" > "$TMP/wants"
python3 -c '
import json, sys
rows = json.load(open(sys.argv[1]))
for line in open(sys.argv[2]):
    d, name, want = line.rstrip("\n").split("\t")
    got = [[r[2], r[4], r[5]] for r in rows if r[0] == d and r[3] == name]
    print(("ok - " if got == json.loads(want) else "not ok - ") + "counters table (DuckDB) of %s: %s rows as worked out by hand" % (d, name))
    if got != json.loads(want):
        print("#   got  %s\n#   want %s" % (json.dumps(got), want))
procs = sorted({(r[0], r[1]) for r in rows if r[2].startswith(("GPU", "CPU"))})
want = [("crlf", "telemetry crlf.csv"), ("generic", "telemetry node07"), ("gzip", "telemetry gz.csv.gz"), ("kineto", "telemetry nvidia-smi.csv"), ("noheader", "telemetry nvidia-smi-noheader.csv"),
        ("offset", "telemetry nvidia-smi.csv"), ("otf2", "telemetry tau"), ("reversed", "telemetry nvidia-smi.csv"), ("rocm", "telemetry rocm-smi.csv"),
        ("tokyo", "telemetry nvidia-smi.csv")]
print(("ok - " if procs == want else "not ok - ") + "tracks table: the process of each file is telemetry <host or file>")
if procs != want:
    print("#   got %s" % procs)
' "$TMP/rows.json" "$TMP/wants" > "$TMP/res" || fail "the check of the counters tables ran"
cat "$TMP/res"
nfail=$((nfail + $(grep -c '^not ok' "$TMP/res")))

# --- errors
expect_exit 3 "a garbage line: refused" $TF info $D/garbage.csv
cp "$TMP/err" "$TMP/e"
check "... naming the file, its byte offset and line" grep -q "garbage.csv' at byte 140: nvidia-smi CSV line 4: 1 columns where the header has 4" "$TMP/e"
check "... byte 140 is where line 4 starts" test "$(head -3 $D/garbage.csv | wc -c)" = 140
expect_exit 3 "a header and no row: an error, not an empty success" $TF info $D/empty.csv
cp "$TMP/err" "$TMP/e"
check "... 'no samples'" grep -q "empty.csv' at byte 0: no samples" "$TMP/e"
expect_exit 3 "rows whose values are all [N/A]: no samples either" $TF info $D/all-na.csv
printf '# tracefold-telemetry unit=ns\n1,CPU,cpu.utilization,abc\n' > "$TMP/bad.csv"
expect_exit 3 "generic CSV: a value that is not a number: refused" $TF info "$TMP/bad.csv"
cp "$TMP/err" "$TMP/e"
check "... naming the line and value" grep -q "tracefold telemetry CSV line 2: value 'abc' is not a number" "$TMP/e"

# --- the sampler, for real, with stand-ins for nvidia-smi and rocm-smi
mkdir -p "$TMP/bin"
cat > "$TMP/bin/nvidia-smi" <<'EOF'
#!/bin/sh
echo "0, 35, 1234, 75.12, 1410, 45"
echo "1, [N/A], 10, [N/A], 210, 30"
EOF
cat > "$TMP/bin/rocm-smi" <<'EOF'
#!/bin/sh
echo "device,Temperature (Sensor edge) (C),Average Graphics Package Power (W),GPU use (%),GPU memory use (%)"
echo "card0,34.0,120.0,5,10"
EOF
chmod +x "$TMP/bin/nvidia-smi" "$TMP/bin/rocm-smi"
t0=$(date +%s%N)
PATH="$TMP/bin:$PATH" sh samples/telemetry.sh -i 0.3 -d 1 -n testhost --nvidia-smi --rocm-smi -o "$TMP/s.csv" 2> "$TMP/serr"
t1=$(date +%s%N)
check "samples/telemetry.sh ran (-i 0.3 -d 1)" test -s "$TMP/s.csv" -a ! -s "$TMP/serr"
$TF info --format json "$TMP/s.csv" > "$TMP/s.json" 2> "$TMP/err"
check "its file is read: CPU use within 0..100 %, mem.total = /proc/meminfo's MemTotal, GPU rows from both tools, times within the run" python3 -c '
import json, sys
j = json.load(open(sys.argv[1])); t0, t1 = int(sys.argv[2]), int(sys.argv[3])
c = {x["name"]: x for x in j["counters"]}
u = c["cpu.utilization"]; assert u["samples"] >= 3 and 0 <= u["min"] <= u["max"] <= 100, u
mt = [int(l.split()[1]) * 1024 for l in open("/proc/meminfo") if l.startswith("MemTotal:")][0]
assert c["mem.total"]["min"] == c["mem.total"]["max"] == mt, (c["mem.total"], mt)
assert c["gpu.memory_used"]["max"] == 1234 * 1048576, c["gpu.memory_used"]
assert c["gpu.utilization"]["min"] == 5 and c["gpu.utilization"]["max"] == 35, c["gpu.utilization"]
assert j["diagnostics"]["telemetry_na"] >= 2, j["diagnostics"]
names = {t["thread_name"] for t in j["threads"]}
assert {"CPU", "CPU 0", "host", "GPU 0", "GPU 1"} <= names, names
assert {t["process_name"] for t in j["threads"]} == {"telemetry testhost"}
s = j["time_span"]; assert t0 <= s["first_ns"] <= s["last_ns"] <= t1, (s, t0, t1)
' "$TMP/s.json" "$t0" "$t1"

finish
