# TAU traces: `tracefold info` record counts vs an independent count of the
# bytes (tests/tools/tau_count.py) and the fixtures' README; `tracefold profile`
# read back by go tool pprof and compared with TAU's own profile.* files
# (tests/tools/compare_tau.py): every function's calls, subrs, exclusive and
# inclusive time, counters, labels and the call tree.
. tests/lib.sh
T=$DATA/tau

# info: NAME DIR "TRC EDF ..." WANT_RECORDS WANT_COUNTERS WANT_METADATA WANT_THREADS
info_case() {
	name=$1 dir=$2 pairs=$3 records=$4 counters=$5 meta=$6 threads=$7
	if ! $TF info --json "$dir" >"$TMP/info.json" 2>"$TMP/err"; then
		fail "info --json $name"; sed 's/^/#   /' "$TMP/err"; return
	fi
	# shellcheck disable=SC2086
	python3 tests/tools/tau_count.py $pairs >"$TMP/count.json"
	python3 - "$TMP/info.json" "$TMP/count.json" "$name" "$records" "$counters" "$meta" "$threads" <<'EOF'
import json, sys
info, cnt = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
name, records, counters, meta, threads = sys.argv[3], *map(int, sys.argv[4:8])
d = info["diagnostics"]
bad = []
def want(what, got, exp):
    if got != exp:
        bad.append("%s %s != %s" % (what, got, exp))
want("events_read", d["events_read"], records)
want("events_read vs bytes", d["events_read"], cnt["records"])
want("ev_duration", d["ev_duration"], cnt["entry"] + cnt["exit"])
want("begin", info["events_by_kind"]["begin"], cnt["entry"])
want("end", info["events_by_kind"]["end"], cnt["exit"])
want("user records", d["ev_counter"] + d["ev_metadata"] + d["tau_trigger_frame"], cnt["user"])
want("ev_counter", d["ev_counter"], counters)
want("ev_metadata", d["ev_metadata"], meta)
want("ev_message", d["ev_message"], cnt["message"])
want("ev_tracer", d["ev_tracer"], cnt["tracer"])
want("threads", len(info["threads"]), threads)
want("problems", info["problems"], 0)
want("accounting", d["events_read"], sum(v for k, v in d.items() if k.startswith("ev_")) + d["tau_trigger_frame"])
want("metadata entries", len(info["metadata"]), meta)
print(("ok - " if not bad else "not ok - ") + "info %s: %d records = the README's and the bytes' counts by kind %s"
      % (name, records, "; ".join(bad)))
sys.exit(1 if bad else 0)
EOF
	[ $? -eq 0 ] || nfail=$((nfail + 1))
}

info_case tiny $T/tiny "$T/tiny/tautrace.0.0.0.trc $T/tiny/events.0.edf" 617 70 73 1
thr=""
for k in 0 1 2 3 4; do thr="$thr $T/threads/tautrace.0.0.$k.trc $T/threads/events.0.edf"; done
info_case threads $T/threads "$thr" 1203 160 73 5
info_case threads-merged $T/threads/merged "$T/threads/merged/tau.trc $T/threads/merged/tau.edf" 1203 160 73 5
info_case mpi_small $T/mpi_small "$T/mpi_small/tautrace.0.0.0.trc $T/mpi_small/events.0.edf $T/mpi_small/tautrace.1.0.0.trc $T/mpi_small/events.1.edf" 684 32 152 2

# info text: threads with names, messages (mpi_small: 1024+2048+100000 bytes each way per rank)
$TF info $T/mpi_small >"$TMP/info.txt" 2>&1
check "info text: 2 threads, named" grep -q 'threads: 2' "$TMP/info.txt"
check "info text: rank 1 thread named" grep -q 'rank 1, thread 0 "thread 0"' "$TMP/info.txt"
check "info text: messages 6 sent 206144 bytes, 6 received 206144 bytes" \
	grep -q 'messages: 6 sent (206144 bytes), 6 received (206144 bytes)' "$TMP/info.txt"
check "info text: kernel flops 12 samples, sum 360000" grep -Eq '^ +12 +20000 +40000 +360000  kernel flops$' "$TMP/info.txt"
$TF info $T/mpi_small $T/threads >"$TMP/two.txt" 2>&1
check "info of two inputs: 3 processes (ranks 0 1), 7 threads, 1887 events" sh -c "
	grep -q '^processes: 3 (ranks 0 1)\$' '$TMP/two.txt' && grep -q '^threads: 7\$' '$TMP/two.txt' &&
	grep -q '^events: 1887 decoded' '$TMP/two.txt'"
$TF info --metadata $T/tiny >"$TMP/meta.txt" 2>&1
check "info --metadata lists TAU's metadata" grep -q 'TAU Version = 2.35.2-git' "$TMP/meta.txt"

# profile vs TAU's own profile files
prof_case() { # NAME INPUT ORACLE_DIR [TREE]
	out=$TMP/$1.pb.gz
	if ! $TF -q profile -c all "$2" -o "$out" 2>"$TMP/err"; then
		fail "profile $1"; sed 's/^/#   /' "$TMP/err"; return
	fi
	ok "profile $1"
	python3 tests/tools/compare_tau.py "$3" "$out" $4 || nfail=$((nfail + 1))
}
prof_case tiny $T/tiny $T/tiny $T/tiny/expected_tree.txt
prof_case tiny-trc $T/tiny/tautrace.0.0.0.trc $T/tiny $T/tiny/expected_tree.txt
prof_case threads $T/threads $T/threads $T/threads/expected_tree.txt
prof_case threads-merged $T/threads/merged/tau.trc $T/threads $T/threads/expected_tree.txt
prof_case mpi_small $T/mpi_small $T/mpi_small $T/mpi_small/expected_tree.txt

# the comparison can fail: tiny's profile is not the threads oracle
python3 tests/tools/compare_tau.py $T/threads "$TMP/tiny.pb.gz" >"$TMP/neg.out" 2>&1
check "compare_tau.py rejects a profile of another trace" test $? -ne 0

# byte-swapped (big-endian) and legacy 32-byte copies of tiny give the same profile
mkdir -p "$TMP/be" "$TMP/l32"
python3 - "$T/tiny/tautrace.0.0.0.trc" "$TMP/be/tautrace.0.0.0.trc" "$TMP/l32/tautrace.0.0.0.trc" <<'EOF'
import struct, sys
data = open(sys.argv[1], "rb").read()
be, l32 = bytearray(), bytearray()
for off in range(0, len(data), 24):
    ev, nid, tid, par, ti = struct.unpack_from("<iHHqQ", data, off)
    be += struct.pack(">iHHqQ", ev, nid, tid, par, ti)
    l32 += struct.pack("<qHH4xqQ", ev, nid, tid, par, ti)
open(sys.argv[2], "wb").write(be)
open(sys.argv[3], "wb").write(l32)
EOF
cp $T/tiny/events.0.edf "$TMP/be/"; cp $T/tiny/events.0.edf "$TMP/l32/"
prof_case tiny-bigendian "$TMP/be" $T/tiny $T/tiny/expected_tree.txt
prof_case tiny-legacy32 "$TMP/l32" $T/tiny $T/tiny/expected_tree.txt
$TF -q profile $T/tiny -o "$TMP/a.pb.gz"; $TF -q profile "$TMP/be" -o "$TMP/b.pb.gz"
pprof -raw "$TMP/a.pb.gz" 2>/dev/null | grep -v -e '^Comment: input' -e '^1: 0x0/0x0/0x0 ' >"$TMP/a.raw"
pprof -raw "$TMP/b.pb.gz" 2>/dev/null | grep -v -e '^Comment: input' -e '^1: 0x0/0x0/0x0 ' >"$TMP/b.raw"
check "big-endian copy: the same profile (pprof -raw, input comment and mapping name aside)" cmp "$TMP/a.raw" "$TMP/b.raw"

# event ids beyond the reader's dense table (1 << 20: docs/format-tau.md)
# are found through its hash map: every id of tiny moved up by 1 << 21
mkdir -p "$TMP/bigid"
python3 - "$T/tiny" "$TMP/bigid" <<'EOF'
import re, struct, sys
src, dst = sys.argv[1], sys.argv[2]
shift = 1 << 21
data = open(src + "/tautrace.0.0.0.trc", "rb").read()
out = bytearray()
for off in range(0, len(data) - len(data) % 24, 24):
    ev, nid, tid, par, ti = struct.unpack_from("<iHHqQ", data, off)
    out += struct.pack("<iHHqQ", ev + shift, nid, tid, par, ti)
open(dst + "/tautrace.0.0.0.trc", "wb").write(out)
with open(dst + "/events.0.edf", "w") as f:
    for line in open(src + "/events.0.edf"):
        m = re.match(r"^(-?\d+)(\s.*)$", line, re.S)
        f.write("%d%s" % (int(m.group(1)) + shift, m.group(2)) if m and '"' in line else line)
EOF
$TF -q profile "$TMP/bigid" -o "$TMP/bigid.pb.gz"
pprof -raw "$TMP/bigid.pb.gz" 2>/dev/null | grep -v -e '^Comment: input' -e '^1: 0x0/0x0/0x0 ' >"$TMP/bigid.raw"
check "event ids above 2^20 (hash map): the same profile as tiny's" cmp "$TMP/a.raw" "$TMP/bigid.raw"

# a mixed-rank file: node 1's records appended to node 0's .trc.  EDF ids are
# per node (MPI_Send is 9 on node 0 and another id on node 1): with
# events.1.edf beside it node 1 is decoded with it and the profile is TAU's;
# with events.0.edf only, node 1 is skipped (unknown_event_id) and said
mkdir -p "$TMP/mixed"
cat $T/mpi_small/tautrace.0.0.0.trc $T/mpi_small/tautrace.1.0.0.trc >"$TMP/mixed/tautrace.0.0.0.trc"
cp $T/mpi_small/events.0.edf $T/mpi_small/events.1.edf "$TMP/mixed/"
n0=$(wc -c <$T/mpi_small/tautrace.0.0.0.trc); n1=$(wc -c <$T/mpi_small/tautrace.1.0.0.trc)
prof_case mixed-rank-file "$TMP/mixed" $T/mpi_small $T/mpi_small/expected_tree.txt
prof_case mixed-rank-file-lone-trc "$TMP/mixed/tautrace.0.0.0.trc" $T/mpi_small $T/mpi_small/expected_tree.txt
$TF info "$TMP/mixed" >"$TMP/mixed.txt" 2>&1
check "mixed-rank file: messages 6 sent 206144 bytes, 6 received 206144 bytes, 2 threads" sh -c "
	grep -q 'messages: 6 sent (206144 bytes), 6 received (206144 bytes)' '$TMP/mixed.txt' &&
	grep -q 'threads: 2' '$TMP/mixed.txt'"
check "mixed-rank file: the note names the file, node 1, byte $n0 and the EDF used" grep -qF \
	"'$TMP/mixed/tautrace.0.0.0.trc' byte $n0: records of node 1, which '$TMP/mixed/events.0.edf' does not describe (event ids are per node): decoded with '$TMP/mixed/events.1.edf'" \
	"$TMP/mixed.txt"
rm "$TMP/mixed/events.1.edf"
$TF info --json "$TMP/mixed" >"$TMP/mixed.json" 2>"$TMP/err"
check "mixed-rank file, events.0.edf only: node 1's $((n1 / 24)) records are unknown_event_id, one thread, the note at byte $n0" python3 -c '
import json, sys
j = json.load(open(sys.argv[1]))
d = j["diagnostics"]
n0, n1 = int(sys.argv[2]), int(sys.argv[3])
assert d["unknown_event_id"] == n1 // 24 and d["events_read"] == (n0 + n1) // 24, d
assert len(j["threads"]) == 1, j["threads"]
assert any("byte %d: records of node 1," % n0 in n and "no \x27events.1.edf\x27" in n for n in j["notes"]), j["notes"]' \
	"$TMP/mixed.json" "$n0" "$n1"
$TF profile "$TMP/mixed" -o "$TMP/mixed0.pb.gz" 2>"$TMP/mixed0.err"
check "mixed-rank file, events.0.edf only: profile says unknown_event_id=$((n1 / 24)) and the note on stderr" sh -c "
	grep -q 'unknown_event_id=$((n1 / 24))' '$TMP/mixed0.err' && grep -q 'records of node 1, which' '$TMP/mixed0.err'"

# a lone .trc without its .edf: clear error (exit 3) naming --edf; --edf fixes it
cp $T/tiny/tautrace.0.0.0.trc "$TMP/lone.trc"
expect_exit 3 "lone .trc without definitions: exit 3" $TF info "$TMP/lone.trc"
cp "$TMP/err" "$TMP/lone.err"
check "the error names the file and --edf" grep -q "cannot read '.*lone.trc'.*--edf" "$TMP/lone.err"
check "info --edf FILE reads it" $TF info --edf $T/tiny/events.0.edf "$TMP/lone.trc"

# truncated last record: counted, its byte offset noted, the rest read
mkdir -p "$TMP/trunc"; cp $T/tiny/events.0.edf "$TMP/trunc/"
head -c $((617 * 24 - 10)) $T/tiny/tautrace.0.0.0.trc >"$TMP/trunc/tautrace.0.0.0.trc"
$TF info --json "$TMP/trunc" >"$TMP/t.json" 2>"$TMP/err"
check "truncated: exit 0, truncated_record=1, note at byte 14784" python3 -c '
import json, sys
j = json.load(open(sys.argv[1]))
assert j["diagnostics"]["truncated_record"] == 1 and j["diagnostics"]["events_read"] == 617, j["diagnostics"]
assert any("at byte 14784" in n for n in j["notes"]), j["notes"]' "$TMP/t.json"

# damaged nesting (an exit with no entry, an entry never closed): repaired by the
# stack builder and reported by info
mkdir -p "$TMP/rep"; cp $T/tiny/events.0.edf "$TMP/rep/"
python3 - "$TMP/rep/tautrace.0.0.0.trc" <<'EOF'
import struct, sys
recs = [(60000, 3, 10), (3, -1, 11), (1, 1, 12), (2, 1, 13), (2, -1, 20), (2, 1, 21)]
open(sys.argv[1], "wb").write(b"".join(struct.pack("<iHHqQ", e, 0, 0, p, t) for e, p, t in recs))
EOF
$TF info --json "$TMP/rep" >"$TMP/r.json" 2>"$TMP/err"
check "info reports the repairs: end_without_begin=1, begin_unclosed=2" python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))["diagnostics"]
assert d["end_without_begin"] == 1 and d["begin_unclosed"] == 2, d' "$TMP/r.json"
finish
