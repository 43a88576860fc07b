# bench/record_bench.c (docs/performance.md, "Recording overhead"): that
# what it times is real recording.  Built here with plain cc against the
# variant's libtracefold-record.a (ASan/UBSan for the san run), as
# bench/record_device.sh builds it; its files are kept and read back by
# independent tools: protoc --decode (our Perfetto traces), python3's json
# (the Chrome JSON of the fprintf modes), and $TF (nesting and the dropped
# events' count).  Small counts: the numbers themselves are not checked.
. tests/lib.sh
case $TF in
*san*) LIB=build/san/libtracefold-record.a; FL="-fsanitize=address,undefined -fno-sanitize-recover=all" ;;
*) LIB=build/rel/libtracefold-record.a; FL= ;;
esac
[ -f "$LIB" ] || { fail "$LIB is missing (make record san)"; finish; }
B=$TMP/record_bench
# shellcheck disable=SC2086
check "record_bench builds with cc alone (-Wall -Wextra -Werror)" \
	cc -std=gnu11 -O1 -g -pthread -Wall -Wextra -Werror $FL -Iinclude bench/record_bench.c "$LIB" -o "$B"
[ -x "$B" ] || finish
mkdir -p "$TMP/d"
decode() { protoc --proto_path=proto --decode=perfetto.protos.Trace proto/perfetto_trace.proto < "$1"; }

# every mode, 2 threads x 3000 pairs, 2 reps, the last rep's files kept
"$B" all 2 3000 --reps 2 --keep --dir "$TMP/d" --json "$TMP/rb.json" > "$TMP/rb.txt" 2> "$TMP/rb.err"
rc=$?
[ $rc = 0 ] && ok "record_bench all 2 3000 exits 0" || { fail "record_bench all: exit $rc"; sed 's/^/#   /' "$TMP/rb.err"; finish; }
D=$(sed -n 's|^# kept: \(.*\)/tfr.pftrace$|\1|p' "$TMP/rb.txt")
[ -d "$D" ] && ok "the kept files' folder is named ($D)" || { fail "no kept folder in: $(cat "$TMP/rb.txt")"; finish; }

check "the JSON: 7 modes, 2 threads x 3000 pairs, min <= median <= max, bytes only where something is written" \
	/usr/bin/python3 -c '
import json, sys
j = json.load(open(sys.argv[1]))
rows = {r["mode"]: r for r in j["rows"]}
assert sorted(rows) == sorted(["none", "clock", "tfr", "tfr-arg", "tfr-drop", "fprintf", "fprintf-own"]), rows.keys()
for m, r in rows.items():
    assert r["threads"] == 2 and r["pairs"] == 3000 and r["reps"] == 2, r
    for k in ("ns_per_pair", "mpairs_per_s", "close_ms"):
        s = r[k]
        assert 0 <= s["min"] <= s["median"] <= s["max"], (m, k, s)
    assert r["ns_per_pair"]["min"] > 0, r
    assert (r["bytes"] > 0) == (m not in ("none", "clock")), (m, r["bytes"])
    assert r["dropped_mean"] == 0, r  # nothing waits long at these counts
assert j["peak_rss_kib"] > 0 and j["cpus"] >= 1
' "$TMP/rb.json"

# the tfr modes: 6000 begins and 6000 ends each, every begin named "step";
# tfr-arg: one int annotation on each begin, i from 0 to 2999 on each thread
for m in tfr tfr-arg tfr-drop; do
	if decode "$D/$m.pftrace" > "$TMP/$m.txt" 2> "$TMP/dec.err"; then ok "protoc decodes $m.pftrace"; else
		fail "protoc --decode $m.pftrace"; sed 's/^/#   /' "$TMP/dec.err" | head -5; continue; fi
	nb=$(grep -c "type: TYPE_SLICE_BEGIN" "$TMP/$m.txt"); ne=$(grep -c "type: TYPE_SLICE_END" "$TMP/$m.txt")
	nn=$(grep -c 'name: "step"' "$TMP/$m.txt")
	[ "$nb" = 6000 ] && [ "$ne" = 6000 ] && [ "$nn" -ge 2 ] && ok "$m: 6000 begins, 6000 ends, \"step\" interned on each thread's sequence" ||
		fail "$m: $nb begins, $ne ends, $nn names \"step\""
done
check "tfr-arg: one debug annotation a begin, int_value 0..2999 on each of the 2 threads" /usr/bin/python3 -c '
import re, sys
vals = [int(v) for v in re.findall(r"int_value: (-?\d+)", open(sys.argv[1]).read())]
assert len(vals) == 6000, len(vals)
assert sorted(vals) == sorted(list(range(3000)) * 2), "values"
' "$TMP/tfr-arg.txt"
[ "$(grep -c debug_annotations "$TMP/tfr.txt")" = 0 ] && ok "tfr (no annotation): no debug_annotations" || fail "tfr has annotations"

# the Chrome JSON files: valid JSON, B and E alternating on each tid, ts in
# microseconds with 3 decimals, not decreasing on a tid
jsoncheck() { # FILES... : each file's tids; prints the number of tids over all
	/usr/bin/python3 -c '
import json, re, sys
tids = set()
for p in sys.argv[1:]:
    text = open(p).read()
    assert re.search(r"\"ts\":\d+\.\d{3},", text), "ts with 3 decimals"
    ev = [e for e in json.load(open(p))["traceEvents"] if e]
    per = {}
    for e in ev:
        per.setdefault(e["tid"], []).append(e)
    for tid, es in per.items():
        assert len(es) == 6000, (p, tid, len(es))
        assert [e["ph"] for e in es] == ["B", "E"] * 3000, "B E alternate"
        assert all(e["name"] == "step" for e in es)
        ts = [e["ts"] for e in es]
        assert ts == sorted(ts), "ts goes back"
    tids |= set(per)
print(len(tids))
' "$@"; }
n=$(jsoncheck "$D/fprintf.json" 2> "$TMP/js.err")
[ "$n" = 2 ] && ok "fprintf.json: 2 tids x 3000 B/E pairs, ts in µs with 3 decimals" || { fail "fprintf.json: '$n' tids"; sed 's/^/#   /' "$TMP/js.err" | tail -3; }
n=$(jsoncheck "$D/fprintf-own.0.json" 2> "$TMP/js.err") && n2=$(jsoncheck "$D/fprintf-own.1.json" 2>> "$TMP/js.err")
[ "$n" = 1 ] && [ "$n2" = 1 ] && ok "fprintf-own: one file a thread, each 3000 B/E pairs of one tid" || { fail "fprintf-own: '$n' '$n2' tids"; sed 's/^/#   /' "$TMP/js.err" | tail -3; }

# --nested: 10 pairs in stacks of 4 (4 + 4 + 2): step > forward > backward
# > optimizer; tracefold's table of the tfr trace and the JSON's order agree
mkdir -p "$TMP/n"
"$B" tfr,fprintf 1 10 --nested --reps 1 --keep --dir "$TMP/n" > "$TMP/n.txt" 2>&1 || fail "record_bench --nested"
N=$(sed -n 's|^# kept: \(.*\)/tfr.pftrace$|\1|p' "$TMP/n.txt")
table "$N/tfr.pftrace" 2> "$TMP/t.err" | cut -f1,4 > "$TMP/n.table"
printf 'backward\t2\nforward\t3\noptimizer\t2\nstep\t3\n' > "$TMP/n.want"
check "--nested (tfr): tracefold counts step 3, forward 3, backward 2, optimizer 2 calls" cmp "$TMP/n.want" "$TMP/n.table"
check "--nested (fprintf): B step forward backward optimizer, E in reverse, then 4 and 2 more" /usr/bin/python3 -c '
import json, sys
ev = [e for e in json.load(open(sys.argv[1]))["traceEvents"] if e]
seq = [e["ph"] + e["name"][0] for e in ev]
want = "Bs Bf Bb Bo Eo Eb Ef Es " * 2 + "Bs Bf Ef Es"
assert seq == want.split(), seq
' "$N/fprintf.json"

# tfr-drop with 256 KiB of buffers and a writer that sleeps 50 ms a buffer
# of 64 KiB (1.3 MB/s, slower than any build records): events are dropped; the
# count the bench prints is the one the trace holds (the counters
# "tracefold.dropped_events", read by protoc), and the begins and ends in
# the trace and those dropped add up to the 800000 events recorded
mkdir -p "$TMP/x"
TRACEFOLD_RECORD_TEST_DELAY_US=50000 "$B" tfr-drop 2 200000 --buffer-kb 256 --reps 1 --keep --dir "$TMP/x" --json "$TMP/x.json" > "$TMP/x.txt" 2>&1 || fail "record_bench tfr-drop with a slow writer"
X=$(sed -n 's|^# kept: \(.*\)/tfr-drop.pftrace$|\1|p' "$TMP/x.txt")
decode "$X/tfr-drop.pftrace" > "$TMP/x.dec" 2> "$TMP/dec.err" || fail "protoc --decode tfr-drop.pftrace (slow writer)"
check "tfr-drop, slow writer: dropped > 0; the bench's count = the trace's counters; begins = ends; written + dropped = 800000" \
	/usr/bin/python3 -c '
import json, re, sys
want = json.load(open(sys.argv[1]))["rows"][0]["dropped_mean"]
t = open(sys.argv[2]).read()
assert t.count("name: \"tracefold.dropped_events\"") == 2, "one counter track a thread"
got = sum(float(v) for v in re.findall(r"double_counter_value: ([0-9.e+]+)", t))
nb, ne = t.count("type: TYPE_SLICE_BEGIN"), t.count("type: TYPE_SLICE_END")
print(want, got, nb, ne)
assert want > 0 and got == want, (want, got)
assert nb == ne and nb + ne + got == 800000, (nb, ne, got)
' "$TMP/x.json" "$TMP/x.dec"
nb=$(kind "$X/tfr-drop.pftrace" begin 2> /dev/null)
[ "$nb" = "$(grep -c 'type: TYPE_SLICE_BEGIN' "$TMP/x.dec")" ] && ok "tracefold reads as many begins as protoc ($nb)" || fail "tracefold reads '$nb' begins"

expect_exit 2 "an unknown mode: exit 2" "$B" tfr,nope 1 10
expect_exit 2 "0 threads: exit 2" "$B" tfr 0 10
finish
