# tracefold perfetto: every input format as a Perfetto protobuf trace
# (docs/perfetto.md).  Decoded by protoc against proto/perfetto_trace.proto
# with no unknown field; read by Google's protobuf runtime and checked the
# way trace processor takes it (sequences, interning, incremental clocks,
# tracks, nesting, flows: tests/tools/perfetto_check.py), against the Chrome
# output of the same input (slices per track, instants, counters, arrows);
# read back by tracefold's Perfetto reader to the input's own profile;
# smaller than the Chrome JSON, and gzipped smaller than gzipped JSON.
. tests/lib.sh
PY=/usr/bin/python3 # Debian's, with python3-protobuf
[ -x $PY ] || PY=python3
protoc --proto_path=proto --python_out="$TMP" proto/perfetto_trace.proto || fail "protoc --python_out"
i=0
for t in $DATA/chrome/pytorch-legacy-small/trace.json $DATA/chrome/kineto-resnet50-gpu/*.json* \
	$DATA/chrome/catapult-unclosed-slices/*.json $DATA/chrome/viztracer-asyncio/*.json \
	$DATA/chrome/rocprofiler-memcpy/*.json.gz $DATA/chrome/hta-amd-mi250-rocm/*.json.gz \
	$DATA/tau/mpi_small $DATA/tau/threads \
	$DATA/otf2/tiny_otf2/traces.otf2 $DATA/otf2/scorep-ping-pong-mpi $DATA/otf2/scorep-mi300-hip \
	$DATA/chrome/chrome-devtools-116/*.json $DATA/chrome/dftracer-cm1-pfw/*.pfw.gz \
	$DATA/chrome/hta-simple-add-gpu/*.json.gz $DATA/chrome/lighthouse-cpu-profiler-m86/*.json \
	$DATA/chrome/tracelens-bert-small-h100/*.json.gz $DATA/chrome/rules/*.json $DATA/chrome/rules/*.jsonl \
	$DATA/chrome/rules/*.pfw; do
	[ -e "$t" ] || { fail "missing fixture $t"; continue; }
	i=$((i + 1)); b="$(basename "$(dirname "$t")")/$(basename "$t")"
	out=$TMP/o$i.pftrace
	$TF -q perfetto "$t" -o "$out" || { fail "$b: perfetto"; continue; }
	$TF -q perfetto --compression none "$t" -o "$TMP/plain.pftrace" || { fail "$b: perfetto, plain packets"; continue; }
	$TF -q chrome "$t" -o "$TMP/o$i.json" || { fail "$b: chrome"; continue; }
	check "$b: protoc --decode, no unknown field (plain packets; compressed ones too)" sh -c "protoc --proto_path=proto \
		--decode=perfetto.protos.Trace proto/perfetto_trace.proto < '$TMP/plain.pftrace' > '$TMP/txt' &&
		! grep -Eq '^ *[0-9]+( \\{|:)' '$TMP/txt' && grep -q track_event '$TMP/txt' &&
		protoc --proto_path=proto --decode=perfetto.protos.Trace proto/perfetto_trace.proto < '$out' > '$TMP/txt' &&
		! grep -Eq '^ *[0-9]+( \\{|:)' '$TMP/txt' && grep -q compressed_packets '$TMP/txt'"
	check "$b: as trace processor takes it; slices per track, instants, counters, arrows = the Chrome output's" \
		$PY tests/tools/perfetto_check.py "$TMP" "$out" "$TMP/o$i.json"
	# functions of sampled stacks alone (Chrome's CPU profile: no wall, no
	# calls) are PerfSample packets, which the reader leaves (docs/samples.md)
	nz() { awk -F'\t' '$2 != 0 || $3 != 0 || $4 != 0'; }
	table "$t" | nz > "$TMP/a"; table "$out" | nz > "$TMP/b"; table "$TMP/plain.pftrace" | nz > "$TMP/c"
	check "$b: read back, every function's self, total and calls are the input's (both packings)" sh -c \
		"cmp '$TMP/a' '$TMP/b' && cmp '$TMP/a' '$TMP/c'"
	c=$(kind "$t" counter); s=$(kind "$t" instant)
	check "$b: read back, $c counter values and $s instants" \
		test "$(kind "$out" counter) $(kind "$out" instant)" = "$c $s"
done
# sizes: the Kineto trace (44,665 slices, 12,840 instants, 9,096 arrows)
t=$(ls $DATA/chrome/kineto-resnet50-gpu/*.json.gz)
$TF -q perfetto "$t" -o "$TMP/k.pftrace" && $TF -q chrome "$t" -o "$TMP/k.json" &&
	$TF -q perfetto --compression none "$t" -o "$TMP/kp.pftrace"
gzip -9 -k "$TMP/k.json" && gzip -9 -k "$TMP/kp.pftrace"
size() { wc -c < "$1"; }
check "Kineto: the Perfetto trace is smaller than the gzipped Chrome JSON ($(size "$TMP/k.pftrace") vs $(size "$TMP/k.json.gz") bytes)" \
	test "$(size "$TMP/k.pftrace")" -lt "$(size "$TMP/k.json.gz")"
check "Kineto: with plain packets, under a third of the Chrome JSON ($(size "$TMP/kp.pftrace") vs $(size "$TMP/k.json") bytes)" \
	test $(($(size "$TMP/kp.pftrace") * 3)) -lt "$(size "$TMP/k.json")"
check "Kineto: plain packets gzipped, smaller than the gzipped JSON ($(size "$TMP/kp.pftrace.gz") vs $(size "$TMP/k.json.gz") bytes)" \
	test "$(size "$TMP/kp.pftrace.gz")" -lt "$(size "$TMP/k.json.gz")"
# -o NAME.gz is gzip of plain packets, and the reader takes it
$TF -q perfetto "$t" -o "$TMP/z.pftrace.gz"
check "-o NAME.pftrace.gz is gzip of the same trace in plain packets" sh -c "gzip -dc '$TMP/z.pftrace.gz' | cmp - '$TMP/kp.pftrace'"
table "$t" > "$TMP/a"; table "$TMP/z.pftrace.gz" > "$TMP/b"
check "... and reads back to the same profile" cmp "$TMP/a" "$TMP/b"
# convert picks it by name, beside other outputs of the same read
$TF -q convert "$t" -o "$TMP/c.pftrace" -o "$TMP/c.pb.gz"
check "convert -o x.pftrace: the perfetto writer" cmp "$TMP/c.pftrace" "$TMP/k.pftrace"
check "a Perfetto trace is not taken for a pprof profile (both start with field 1)" \
	sh -c "$TF -q info --format json '$TMP/k.pftrace' | grep -q '\"format\": *\"perfetto\"'"
# TAU ranks: processes pid = rank, named, with the messages as flows between them
$TF -q perfetto --compression none $DATA/tau/mpi_small -o "$TMP/r.pftrace"
check "TAU 2 ranks: two processes, pid = rank, 6 flows each from one to the other" $PY -c '
import sys; sys.path.insert(0, sys.argv[1]); import perfetto_trace_pb2 as pb
t = pb.Trace(); t.ParseFromString(open(sys.argv[2], "rb").read())
procs = {p.track_descriptor.uuid: p.track_descriptor.process.pid for p in t.packet if p.track_descriptor.HasField("process")}
thr = {p.track_descriptor.uuid: procs[p.track_descriptor.parent_uuid] for p in t.packet if p.track_descriptor.HasField("thread")}
seqtrack = {p.trusted_packet_sequence_id: p.trace_packet_defaults.track_event_defaults.track_uuid for p in t.packet if p.HasField("trace_packet_defaults")}
ends = {}
for p in t.packet:
    e = p.track_event
    for f in list(e.flow_ids) + list(e.terminating_flow_ids):
        ends.setdefault(f, set()).add(thr[seqtrack[p.trusted_packet_sequence_id]])
assert sorted(procs.values()) == [0, 1], procs
assert len(ends) == 6 and all(v == {0, 1} for v in ends.values()), ends' "$TMP" "$TMP/r.pftrace"
info=$($TF -q info "$TMP/r.pftrace")
check "TAU read back: ranks 0 1, names kept" sh -c "echo '$info' | grep -q 'ranks 0 1' && echo '$info' | grep -q '\"node 1\"'"
# repairs are debug annotations
$TF -q perfetto --compression none $DATA/chrome/catapult-unclosed-slices/*.json -o "$TMP/u.pftrace"
check "repaired spans carry a 'repaired' annotation" sh -c "protoc --proto_path=proto \
	--decode=perfetto.protos.Trace proto/perfetto_trace.proto < '$TMP/u.pftrace' | grep -q 'string_value: \"unclosed\"'"
# the reader: a cut trace is repaired and counted; garbage is an error
head -c 100000 "$TMP/kp.pftrace" > "$TMP/cut.pftrace"
check "a cut trace: the packets before the cut, truncated_record counted" sh -c \
	"$TF -q info --format json '$TMP/cut.pftrace' | grep -q '\"truncated_record\": *1'"
python3 -c '
import sys
b = open(sys.argv[1], "rb").read()
n = b[1] + 2                      # the first packet (a short track descriptor)
open(sys.argv[2], "wb").write(b[:n] + b"\x0b\x05hello" + b[n:])' "$TMP/kp.pftrace" "$TMP/bad.pftrace"
expect_exit 3 "a field that is no packet (wire type 3) is an error" $TF info "$TMP/bad.pftrace"
cp "$TMP/err" "$TMP/bad.err"
check "... naming the byte" grep -q "not a Perfetto trace packet at byte $(($(od -An -tu1 -j1 -N1 "$TMP/kp.pftrace") + 2))" "$TMP/bad.err"
# a failed run leaves nothing and keeps what was there
echo keep > "$TMP/k2.pftrace"
expect_exit 3 "unreadable input" $TF perfetto "$TMP/nope.json" -o "$TMP/k2.pftrace"
check "... the existing output is untouched" grep -qx keep "$TMP/k2.pftrace"
expect_exit 2 "standard output is refused" $TF perfetto "$t" -o -
expect_exit 2 "--phases is not a perfetto option" $TF perfetto "$t" --phases be -o "$TMP/p.pftrace"
expect_exit 2 "--compression takes none or deflate" $TF perfetto "$t" --compression zstd -o "$TMP/p.pftrace"
# a damaged compressed chunk is counted and skipped, the rest is read
python3 -c '
import sys
b = bytearray(open(sys.argv[1], "rb").read())
i = 0; n = 0
while i < len(b):                 # the first compressed chunk: spoil its zlib stream
    j = i + 1; ln = 0; s = 0
    while True:
        c = b[j]; j += 1; ln |= (c & 0x7f) << s; s += 7
        if c < 0x80: break
    if b[j:j + 2] == b"\x92\x03":
        b[j + 8] ^= 0xff; break
    i = j + ln
open(sys.argv[2], "wb").write(bytes(b))' "$TMP/k.pftrace" "$TMP/z.pftrace"
check "a damaged compressed chunk: counted (bad_event) and noted, not fatal" sh -c \
	"$TF -q info '$TMP/z.pftrace' > '$TMP/zi' && grep -q 'bad_event' '$TMP/zi' && grep -q 'do not inflate\\|damaged after' '$TMP/zi'"
finish
