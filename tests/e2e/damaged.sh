# Damaged inputs of every format through the commands: fatal damage exits 3
# with "tracefold: cannot read 'FILE' at byte N: ..." (N computed here by
# construction, independently of the readers) and writes no output;
# recoverable damage exits 0 with the repair counted (the counts computed
# here from the bytes with python) and reported on stderr with a note.
. tests/lib.sh
LEG=$DATA/chrome/pytorch-legacy-small/trace.json
TINY=$DATA/tau/tiny
PP=$DATA/otf2/scorep-ping-pong-mpi

# fatal: exit 3, the exact message prefix on stderr, no output file
fatal() { # DESC PREFIX CMD...
	desc=$1; prefix=$2; shift 2
	rm -f "$TMP/o.pb.gz"
	expect_exit 3 "$desc: exit 3" "$@"
	cp "$TMP/err" "$TMP/last.err"
	if head -1 "$TMP/last.err" | grep -qF "tracefold: $prefix"; then ok "$desc: message '$prefix...'"; else
		fail "$desc: message '$prefix...'"; sed 's/^/#   /' "$TMP/last.err" | head -3
	fi
	check "$desc: no output written" test ! -e "$TMP/o.pb.gz"
}

# ---- Chrome JSON
# one byte made wrong in the middle of a real trace, at an offset python knows
python3 - "$LEG" "$TMP" <<'PY'
import gzip, sys
src, tmp = sys.argv[1], sys.argv[2]
b = open(src, "rb").read()
cases = {}
k = b.index(b'"ph"', len(b) // 2)              # a key in the middle of the file
c = b.index(b':', k)                            # its colon
cases["colon"] = (b[:c] + b';' + b[c + 1:], c)  # expected ':' after a key
q = b.index(b'"ts"', k)
cases["literal"] = (b[:q] + b'"ts": tru,' + b[q + 4:], q + 6)   # a value that is no JSON value
cases["trailing"] = (b.rstrip() + b' x', len(b.rstrip()) + 1)    # data after the end
for name, (data, off) in cases.items():
    open("%s/%s.json" % (tmp, name), "wb").write(data)
    open("%s/%s.json.gz" % (tmp, name), "wb").write(gzip.compress(data, mtime=0))
    open("%s/%s.off" % (tmp, name), "w").write(str(off))
PY
for c in colon literal trailing; do
	off=$(cat "$TMP/$c.off")
	fatal "chrome, bad byte ($c)" "cannot read '$TMP/$c.json' at byte $off: " $TF profile "$TMP/$c.json" -o "$TMP/o.pb.gz"
	fatal "chrome .gz, bad byte ($c): offset in the decompressed JSON" "cannot read '$TMP/$c.json.gz' at byte $off: " \
		$TF top "$TMP/$c.json.gz"
done
printf '' > "$TMP/empty.json"
fatal "chrome, empty file" "cannot read '$TMP/empty.json'" $TF profile "$TMP/empty.json" -o "$TMP/o.pb.gz"
# corrupt deflate data: an error naming the file and where
gzip -9nc "$LEG" > "$TMP/flip.json.gz"
printf '\377\377\377\377\377\377\377\377' | dd of="$TMP/flip.json.gz" bs=1 seek=20000 conv=notrunc 2>/dev/null
fatal "chrome .gz with corrupt deflate data" "cannot read '$TMP/flip.json.gz' at byte " $TF profile "$TMP/flip.json.gz" -o "$TMP/o.pb.gz"

# recoverable: a .json.gz cut in the middle (a killed writer, a partial
# download): the events before the cut are read, the cut one counted
gzip -9nc "$LEG" > "$TMP/full.json.gz"
head -c $(($(wc -c < "$TMP/full.json.gz") / 2)) "$TMP/full.json.gz" > "$TMP/cut.json.gz"
python3 - "$TMP/cut.json.gz" > "$TMP/cut.want" <<'PY'
import sys, zlib
text = zlib.decompressobj(31).decompress(open(sys.argv[1], "rb").read())
# every event of this trace starts with "name" (so does the cut one)
print("events_read=%d truncated_record=1" % text.count(b'"name"'))
PY
expect_exit 0 "chrome .gz cut in the middle: exit 0" $TF info --json "$TMP/cut.json.gz"
cp "$TMP/out" "$TMP/cut.json"
check "chrome .gz cut: $(cat "$TMP/cut.want") (python count of the decompressed prefix)" \
	python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))["diagnostics"]
w = dict(kv.split("=") for kv in open(sys.argv[2]).read().split())
assert all(d.get(k) == int(v) for k, v in w.items()), (d, w)' "$TMP/cut.json" "$TMP/cut.want"
check "chrome .gz cut: the note says the gzip data ends early" grep -q "gzip data ends early" "$TMP/cut.json"
expect_exit 0 "chrome .gz cut: profile exit 0" $TF profile "$TMP/cut.json.gz" -o "$TMP/cut.pb.gz"
cp "$TMP/err" "$TMP/cut.err"
check "chrome .gz cut: stderr reports truncated_record=1" grep -q 'truncated_record=1' "$TMP/cut.err"
check "chrome .gz cut: stderr has the gzip note naming the file" grep -qF "'$TMP/cut.json.gz': gzip data ends early" "$TMP/cut.err"

# lost E events: 10000 B events nest 10000 deep; beyond 4096 levels they are
# folded (depth_limited) and the profile stays small
python3 -c 'import json; print(json.dumps([{"ph": "B", "name": "f%d" % (i % 7), "pid": 1, "tid": 1, "ts": i} for i in range(10000)]))' > "$TMP/deep.json"
expect_exit 0 "chrome, 10000 B without E: exit 0" $TF profile "$TMP/deep.json" -o "$TMP/deep.pb.gz"
cp "$TMP/err" "$TMP/deep.err"
# (regions closed at the end of their track end after everything there, so
# the last B, closed at its own timestamp, nests too: docs/stack-rules.md)
check "chrome, 10000 B without E: begin_unclosed=10000, depth_limited=$((10000 - 4096))" \
	grep -q "begin_unclosed=10000 (moved [^)]*), depth_limited=$((10000 - 4096))" "$TMP/deep.err"
check "chrome, 10000 B without E: the profile is small (< 1 MB)" test "$(wc -c < "$TMP/deep.pb.gz")" -lt 1000000

# ---- TAU
# records with event ids the EDF does not define: skipped and counted
mkdir -p "$TMP/uid" && cp "$TINY/events.0.edf" "$TMP/uid/"
python3 - "$TINY/tautrace.0.0.0.trc" "$TMP/uid/tautrace.0.0.0.trc" <<'PY'
import struct, sys
b = bytearray(open(sys.argv[1], "rb").read())
for i in range(100, 110):                       # 10 records get id 77777
    struct.pack_into("<i", b, i * 24, 77777)
open(sys.argv[2], "wb").write(b)
PY
expect_exit 0 "tau, 10 records with an undefined event id: exit 0" $TF info --json "$TMP/uid"
cp "$TMP/out" "$TMP/uid.json"
check "tau: unknown_event_id=10, events_read=617 (file size / 24)" python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))["diagnostics"]
assert d["unknown_event_id"] == 10 and d["events_read"] == 617, d' "$TMP/uid.json"
check "tau: the note names the .trc, the byte offset 2400 and the EDF" grep -q "tautrace.0.0.0.trc' byte 2400: event id 77777 is not defined in '.*events.0.edf'" "$TMP/uid.json"
# a .trc.gz cut in the middle: the records before the cut are read
mkdir -p "$TMP/tgz" && cp "$TINY/events.0.edf" "$TMP/tgz/"
gzip -9nc "$TINY/tautrace.0.0.0.trc" | head -c 2000 > "$TMP/tgz/tautrace.0.0.0.trc.gz"
n=$(python3 -c 'import sys,zlib; print(len(zlib.decompressobj(31).decompress(open(sys.argv[1],"rb").read())))' "$TMP/tgz/tautrace.0.0.0.trc.gz")
want=$(( (n + 23) / 24 ))   # whole records + the cut one (or the lost rest)
expect_exit 0 "tau .trc.gz cut at 2000 bytes: exit 0" $TF info --json "$TMP/tgz"
cp "$TMP/out" "$TMP/tgz.json"
check "tau .trc.gz cut: events_read=$want ($n bytes decompressed), truncated_record=1" python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))["diagnostics"]
assert d["events_read"] == int(sys.argv[2]) and d["truncated_record"] == 1, d' "$TMP/tgz.json" "$want"
check "tau .trc.gz cut: the note says the gzip data ends early" grep -q "gzip data ends early" "$TMP/tgz.json"
# an EDF line longer than 64 KiB (an EDF line is under 1 KB): fatal, naming
# the EDF and the byte offset of the line; /dev/zero (one endless line) stops
# at once, in little memory (it grew to 11 GB in 30 s when lines were unbounded)
mkdir -p "$TMP/hugeedf" && cp "$TINY/tautrace.0.0.0.trc" "$TMP/hugeedf/"
cp "$TINY/events.0.edf" "$TMP/hugeedf/"
off=$(wc -c < "$TMP/hugeedf/events.0.edf")
nl=$(($(wc -l < "$TMP/hugeedf/events.0.edf") + 1))
python3 -c 'import sys; sys.stdout.write("7 TAU_USER 0 \"" + "x" * 1000000 + "\" EntryExit\n")' >> "$TMP/hugeedf/events.0.edf"
fatal "tau, an EDF line of 1 MB" "cannot read '$TMP/hugeedf/events.0.edf' at byte $off: line $nl is longer than 65536 bytes" \
	$TF profile "$TMP/hugeedf" -o "$TMP/o.pb.gz"
# bounded DESC MAX_KB CMD...: CMD ends within 20 s using at most MAX_KB of memory
bounded() {
	desc=$1; max=$2; shift 2
	check "$desc" python3 -c '
import resource, subprocess, sys
p = subprocess.run(["timeout", "20"] + sys.argv[2:], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
kb = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
assert p.returncode != 124, "still running after 20 s"
assert kb <= int(sys.argv[1]), "max RSS %d KB" % kb' "$max" "$@"
}
fatal "tau --edf /dev/zero" "cannot read '/dev/zero' at byte 0: line 1 is longer than 65536 bytes" \
	timeout 20 $TF profile --edf /dev/zero "$TINY/tautrace.0.0.0.trc" -o "$TMP/o.pb.gz"
bounded "tau --edf /dev/zero: ends within 20 s in under 256 MB" 262144 \
	$TF info --edf /dev/zero "$TINY/tautrace.0.0.0.trc"
# -F tau /dev/zero: all-zero records are triggers of id 0, TAU's ".TAU
# <unknown event>" placeholder, forever (it never ended); 1,000,000 records in
# a row without a usable definition stop the reader at the run's first byte.
# Without --edf there is no EDF to read it with: fatal at once.
fatal "tau -F tau /dev/zero" "cannot read '/dev/zero': no event definitions" \
	timeout 20 $TF info -F tau /dev/zero
fatal "tau -F tau --edf EDF /dev/zero" "cannot read '/dev/zero' at byte 0: 1000000 records in a row from here on have no usable event definition in '$TINY/events.0.edf'" \
	timeout 20 $TF info -F tau --edf "$TINY/events.0.edf" /dev/zero
bounded "tau -F tau --edf EDF /dev/zero: ends within 20 s in under 256 MB" 262144 \
	$TF profile -F tau --edf "$TINY/events.0.edf" /dev/zero -o "$TMP/o.pb.gz"
# no event definitions at all: fatal, naming the .trc
mkdir -p "$TMP/noedf" && cp "$TINY/tautrace.0.0.0.trc" "$TMP/noedf/"
fatal "tau without an EDF" "cannot read '$TMP/noedf/tautrace.0.0.0.trc': no event definitions" \
	$TF profile "$TMP/noedf" -o "$TMP/o.pb.gz"

# ---- pprof profiles
$TF -q profile "$TINY" -o "$TMP/tiny.pb.gz"
head -c 300 "$TMP/tiny.pb.gz" > "$TMP/cut.pb.gz"
fatal "pprof .pb.gz cut at 300 bytes" "cannot read '$TMP/cut.pb.gz' at byte " $TF top "$TMP/cut.pb.gz"
check "pprof cut: the message says the gzip data ends early" grep -q "gzip data ends early" "$TMP/last.err"
gzip -dc "$TMP/tiny.pb.gz" > "$TMP/raw.pb"
python3 - "$TMP/raw.pb" "$TMP/bad.pb" <<'PY'
import sys
b = bytearray(open(sys.argv[1], "rb").read())
b[len(b) // 2:] = b"\xff" * (len(b) - len(b) // 2)   # the second half: varints that never end
open(sys.argv[2], "wb").write(b)
PY
fatal "pprof with a corrupt protobuf second half" "cannot read '$TMP/bad.pb'" $TF merge "$TMP/tiny.pb.gz" "$TMP/bad.pb" -o "$TMP/o.pb.gz"

# ---- OTF2 (libotf2 gives no byte offsets: the anchor and libotf2's words)
cp -r "$PP" "$TMP/pp" && chmod -R u+w "$TMP/pp"
head -c 100 "$PP/traces.def" > "$TMP/pp/traces.def"
# (-j 2: the plan reads the definitions first; a build that opened them
# again on one thread hung in libotf2: timeout makes that a failure)
fatal "otf2 with cut global definitions" "cannot read '$TMP/pp/traces.otf2': " timeout 120 $TF profile -j 2 "$TMP/pp" -o "$TMP/o.pb.gz"
fatal "otf2 with cut global definitions, -j 1" "cannot read '$TMP/pp/traces.otf2': " timeout 120 $TF profile -j 1 "$TMP/pp" -o "$TMP/o.pb.gz"
check "otf2 cut definitions: libotf2's reason is given" grep -q "libotf2: " "$TMP/last.err"
cp "$PP/traces.def" "$TMP/pp/traces.def"
# a lost local definitions file (its clock offsets and mapping tables): the
# events are read without them, a warning and a note say which location
rm "$TMP/pp/traces/1.def"
expect_exit 0 "otf2 without location 1's .def: exit 0" $TF profile "$TMP/pp" -o "$TMP/pp.pb.gz"
cp "$TMP/err" "$TMP/pp.err"
check "otf2 without location 1's .def: stderr says missing_local_defs=1 and which location" sh -c "
	grep -q 'missing_local_defs=1' '$TMP/pp.err' &&
	grep -qF \"'$TMP/pp/traces.otf2': location 1 (\\\"Master thread\\\"): local definitions missing\" '$TMP/pp.err'"
cp "$PP/traces/1.def" "$TMP/pp/traces/1.def"
printf 'OTF2 damaged' > "$TMP/pp/traces.otf2"
fatal "otf2 with a damaged anchor" "cannot read '$TMP/pp/traces.otf2'" $TF profile "$TMP/pp" -o "$TMP/o.pb.gz"
finish
