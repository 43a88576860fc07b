#!/bin/sh
# Memory that must not grow with the trace's length (issue 33, multi-GB
# Kineto traces; docs/performance.md "Multi-GB traces"): Kineto's memory
# events, which the profile replays in time order once every thread is read
# (agg_mem.c: past half of --sort-mem they go to the temporary file as
# sorted runs), and the flow ends that the timelines and the Parquet
# tables pair (pair.c: the matched ones are dropped now and then), and the
# Parquet tables' row group buffers (pq.c: a row group also ends at 8 MiB
# of buffered values; 120k slices of long kernel names were 80 MB), and
# the Parquet tables' flow starts waiting for their ends (pair.c: past
# half of --sort-mem they go to the temporary file).  Each
# is measured at N and 4N events: the peak RSS may not grow by more than 2
# MiB, where keeping them all costs about 7 MiB more (memory events: 48
# bytes each; flows: a 104-byte end and its two map entries; slices: 68
# MB more).  The outputs at both budgets are the same bytes.
. tests/lib.sh

cat > "$TMP/gen.py" <<'PY'
import sys
kind, n, path = sys.argv[1], int(sys.argv[2]), sys.argv[3]
with open(path, 'w') as out:
    out.write('{"traceEvents": [\n')
    out.write('{"ph":"X","cat":"cpu_op","name":"train","pid":1,"tid":1,"ts":0,"dur":%d,"args":{}},\n' % (4 * n + 10))
    for i in range(n):
        ts = 1 + 4 * i
        if kind == 'mem':
            # an allocation and the free of the one before (the live
            # memory goes up and down: a new peak now and then)
            b = 512 + (i * 7919) % 4096
            out.write('{"ph":"i","s":"t","cat":"cpu_instant_event","name":"[memory]","pid":1,"tid":1,"ts":%d,'
                      '"args":{"Bytes":%d,"Addr":%d,"Device Id":0,"Device Type":1}},\n' % (ts, b, 4096 * (i % 64 + 1)))
            if i:
                pb = 512 + ((i - 1) * 7919) % 4096
                out.write('{"ph":"i","s":"t","cat":"cpu_instant_event","name":"[memory]","pid":1,"tid":1,"ts":%d,'
                          '"args":{"Bytes":%d,"Addr":%d,"Device Id":0,"Device Type":1}},\n' % (ts + 1, -pb, 4096 * ((i - 1) % 64 + 1)))
        elif kind == 'slices':
            # GPU-kernel-like slices: 64 names of 289 bytes (a row of the
            # slices table holds its name twice, about 0.7 KB in memory)
            out.write('{"ph":"X","cat":"kernel","name":"void kernel_%02d<%s>(float const*, float*, int)",'
                      '"pid":1,"tid":1,"ts":%d,"dur":3,"args":{}},\n'
                      % (i % 64, 'cutlass::gemm::threadblock::MmaPipelined<' * 6, ts))
        elif kind == 'xflow':
            # Kineto's ac2g: the start on the CPU thread, the end on a
            # stream handed over after it: every start waits for its end
            out.write('{"ph":"s","cat":"ac2g","name":"ac2g","id":%d,"pid":1,"tid":1,"ts":%d},\n' % (i + 1, ts))
            out.write('{"ph":"f","bp":"e","cat":"ac2g","name":"ac2g","id":%d,"pid":1,"tid":2,"ts":%d},\n' % (i + 1, ts + 2))
        elif kind == 'flowmix':
            # every way two ends meet: across tracks in either order, steps
            # (t) of one id, ends alone, an id used twice at once
            k, a, b = i % 7, 1 + (i * 5) % 4, 1 + (i * 3 + 1) % 4
            ev = lambda ph, id_, tid, t: out.write(
                '{"ph":"%s","cat":"c%d","name":"fl%d","id":%d,"pid":1,"tid":%d,"ts":%d%s},\n'
                % (ph, k, i % 3, id_, tid, t, ',"bp":"e"' if ph == 'f' else ''))
            if k == 0:
                ev('s', i, a, ts); ev('f', i, b, ts + 2)
            elif k == 1:
                ev('s', i, a, ts); ev('t', i, b, ts + 1); ev('f', i, 1 + (a + b) % 4, ts + 2)
            elif k == 2:
                ev('s', i, a, ts)
            elif k == 3:
                ev('f', i, b, ts + 3)
            elif k == 4:
                ev('s', i, a, ts); ev('s', i, b, ts + 1); ev('f', i, a, ts + 2); ev('f', i, b, ts + 3)
            elif k == 5:
                ev('f', i, a, ts); ev('t', i, b, ts + 1); ev('s', i, 4, ts + 2)
            else:
                ev('s', i % 97, a, ts); ev('f', i % 97, b, ts + 2)
        else:
            out.write('{"ph":"s","cat":"ac2g","name":"ac2g","id":%d,"pid":1,"tid":1,"ts":%d},\n' % (i + 1, ts))
            out.write('{"ph":"f","bp":"e","cat":"ac2g","name":"ac2g","id":%d,"pid":1,"tid":1,"ts":%d},\n' % (i + 1, ts + 2))
    if kind == 'flowmix':
        for t in (2, 3, 4):
            out.write('{"ph":"X","cat":"cpu_op","name":"step","pid":1,"tid":%d,"ts":0,"dur":%d,"args":{}},\n' % (t, 4 * n + 10))
    out.write('{"ph":"M","name":"thread_name","pid":1,"tid":1,"args":{"name":"main"}}\n]}\n')
PY

rss() { # OUT CMD...: the peak RSS (KiB) of the command
	o=$1; shift
	/usr/bin/time -f %M -o "$TMP/rss" "$@" -o "$o" >/dev/null 2>&1 && tail -1 "$TMP/rss"
}

# bounded DESC SMALL BIG [CONTROL_SMALL CONTROL_BIG]
bounded() {
	if [ -n "$2" ] && [ -n "$3" ] && [ "$3" -lt $(($2 + 2048)) ] && { [ -z "$4" ] || [ "$5" -gt $(($4 + 4096)) ]; }; then
		ok "$1: ${2} -> ${3} KiB${4:+ (in memory: $4 -> $5 KiB)}"
	else
		fail "$1: ${2} -> ${3} KiB${4:+ (in memory: $4 -> $5 KiB)}"
	fi
}

python3 "$TMP/gen.py" mem 40000 "$TMP/mem1.json" && python3 "$TMP/gen.py" mem 160000 "$TMP/mem4.json" &&
	python3 "$TMP/gen.py" flow 40000 "$TMP/flow1.json" && python3 "$TMP/gen.py" flow 160000 "$TMP/flow4.json" &&
	python3 "$TMP/gen.py" slices 30000 "$TMP/sl1.json" && python3 "$TMP/gen.py" slices 120000 "$TMP/sl4.json" &&
	python3 "$TMP/gen.py" xflow 100000 "$TMP/xf1.json" && python3 "$TMP/gen.py" xflow 400000 "$TMP/xf4.json" &&
	python3 "$TMP/gen.py" flowmix 30000 "$TMP/fm.json" && python3 "$TMP/gen.py" flowmix 7000 "$TMP/fm2.json" ||
	fail "generate the traces"

# the flows set aside (pair.c: past half of --sort-mem, sorted runs on
# disk, paired by id at the end): the same tables as pairing in memory,
# row for row, with several inputs (an id pairs within its input) and -j 2
for j in 1 2; do
	rm -rf "$TMP/fa" "$TMP/fb"
	$TF -q events -j $j --sort-mem 0 "$TMP/fm.json" "$TMP/fm2.json" -o "$TMP/fa" 2>/dev/null
	$TF -q events -j $j --sort-mem 64K "$TMP/fm.json" "$TMP/fm2.json" -o "$TMP/fb" 2>/dev/null
	[ -s "$TMP/fa/flows/part-0.parquet" ] && diff -r "$TMP/fa" "$TMP/fb" >/dev/null &&
		ok "flows of every kind, -j $j: --sort-mem 64K (set aside) = --sort-mem 0 (in memory)" ||
		fail "flows of every kind, -j $j: --sort-mem 64K (set aside) = --sort-mem 0 (in memory)"
done

# the memory events' replay: the same profile from runs on disk as from memory
$TF -q profile --sort-mem 0 "$TMP/mem4.json" -o "$TMP/a.pb.gz" 2>/dev/null
$TF -q profile --sort-mem 64K "$TMP/mem4.json" -o "$TMP/b.pb.gz" 2>/dev/null
gzip -dc "$TMP/a.pb.gz" > "$TMP/a.pb" 2>/dev/null && gzip -dc "$TMP/b.pb.gz" > "$TMP/b.pb" 2>/dev/null
[ -s "$TMP/a.pb" ] && cmp -s "$TMP/a.pb" "$TMP/b.pb" && ok "320k memory events: --sort-mem 64K = --sort-mem 0" ||
	fail "320k memory events: --sort-mem 64K = --sort-mem 0"
$TF info "$TMP/mem4.json" > "$TMP/info" 2>&1
grep -q "160000 allocations" "$TMP/info" && grep -q "159999 frees" "$TMP/info" &&
	ok "memory events counted (info)" || fail "memory events counted (info)"
# the flows' pairing: the same timeline whatever the number of ends waiting
$TF -q chrome "$TMP/flow4.json" -o "$TMP/f.json" 2>/dev/null
n=$(grep -o '"ph": *"[sf]"' "$TMP/f.json" | wc -l)
[ "$n" -eq 320000 ] && ok "160k flows: both ends of each in the timeline" || fail "160k flows: both ends in the timeline ($n)"

case $TF in
*san*) ok "bounded memory: not measured under ASan" ;;
*)
	a=$(rss "$TMP/r.pb.gz" $TF -q profile --sort-mem 64K "$TMP/mem1.json")
	b=$(rss "$TMP/r.pb.gz" $TF -q profile --sort-mem 64K "$TMP/mem4.json")
	a0=$(rss "$TMP/r.pb.gz" $TF -q profile --sort-mem 0 "$TMP/mem1.json")
	b0=$(rss "$TMP/r.pb.gz" $TF -q profile --sort-mem 0 "$TMP/mem4.json")
	bounded "profile, 4x the memory events" "$a" "$b" "$a0" "$b0"
	a=$(rss "$TMP/f.json" $TF -q chrome "$TMP/flow1.json")
	b=$(rss "$TMP/f.json" $TF -q chrome "$TMP/flow4.json")
	# (pair.c is the Parquet tables' and Perfetto's too; the timeline
	# has no row group buffers that fill up between the two sizes)
	bounded "chrome timeline, 4x the flows" "$a" "$b"
	# the Parquet tables: a row group ends at 8 MiB of buffered values,
	# not only at 122,880 rows (30k slices: 20 MB of values, 120k: 80 MB;
	# --sort-mem 1M bounds the sorter's buffered track)
	a=$(rss "$TMP/pq1" $TF -q events --sort-mem 1M "$TMP/sl1.json")
	b=$(rss "$TMP/pq4" $TF -q events --sort-mem 1M "$TMP/sl4.json")
	bounded "events (Parquet tables), 4x the slices" "$a" "$b"
	# the Parquet tables' flows: every start waits for its end on a track
	# handed over later; past half of --sort-mem they wait on disk (100k
	# flows: the flows table already holds a full row group of 8 MiB)
	a=$(rss "$TMP/pq1" $TF -q events "$TMP/xf1.json")
	b=$(rss "$TMP/pq4" $TF -q events "$TMP/xf4.json")
	a0=$(rss "$TMP/pq1" $TF -q events --sort-mem 0 "$TMP/xf1.json")
	b0=$(rss "$TMP/pq4" $TF -q events --sort-mem 0 "$TMP/xf4.json")
	bounded "events (Parquet tables), 4x the flows waiting" "$a" "$b" "$a0" "$b0"
	# a folder partitioned by rank and step keeps ~1,000 files open: each
	# dictionary column's table of strings put again starts small (a build
	# that made 512 slots per column per file: 6.9 -> 38 MiB here)
	python3 tests/tools/overview_gen.py --ranks 8 --steps 40 --seed 4 "$TMP/ovp" >/dev/null
	a=$(rss "$TMP/pu" $TF -q events "$TMP"/ovp/rank*.json.gz)
	b=$(rss "$TMP/pp" $TF -q events --partition rank,step "$TMP"/ovp/rank*.json.gz)
	if [ -n "$a" ] && [ -n "$b" ] && [ "$b" -lt $((2 * a + 2048)) ]; then
		ok "events --partition rank,step (~1,000 files open): $a -> $b KiB"
	else
		fail "events --partition rank,step (~1,000 files open): $a -> $b KiB (2x + 2 MiB at most)"
	fi ;;
esac
finish
