# OTF2 archives: tracefold's event accounting vs otf2-print's record counts,
# tracefold profile vs an independent stack rebuild from otf2-print output
# (tests/tools/otf2_expect.py, read back through go tool pprof), tiny_otf2 vs
# TAU's own profile of the same run, counters, damaged and ambiguous inputs.
. tests/lib.sh
X=tests/tools/otf2_expect.py
# tap: runs a TAP-printing checker, passing its lines through
tap() { "$@" > "$TMP/tap" 2>&1; rc=$?; cat "$TMP/tap"
	n=$(grep -c '^not ok ' "$TMP/tap"); nfail=$((nfail + n))
	if [ "$rc" -ne 0 ] && [ "$n" -eq 0 ]; then fail "$*"; sed 's/^/#   /' "$TMP/tap" | tail -5; fi; }

for d in $DATA/otf2/*/; do
	d=${d%/}; name=$(basename "$d"); out=$TMP/$name.pb.gz
	if ! $TF -v profile "$d" -o "$out" 2>"$TMP/v"; then
		fail "profile $d"; sed 's/^/#   /' "$TMP/v"; continue
	fi
	ok "profile $d"
	tap python3 $X counts "$d/traces.otf2" "$(grep -v '^tracefold: repaired' "$TMP/v")"
	tap python3 $X profile "$d/traces.otf2" "$out" $([ -f "$d/profile.0.0.0" ] && echo "$d/profile.0.0.0")
	# the anchor file names the same archive as its directory
	$TF -v profile "$d/traces.otf2" -o "$out" 2>"$TMP/v2"
	check "$name: anchor and directory read the same events" cmp "$TMP/v" "$TMP/v2"
done

# ranks and threads as labels; GPU streams are threads of their own
python3 tests/tools/pprof_raw.py "$TMP/scorep-ping-pong-mpi.pb.gz" > "$TMP/pp.json"
check "ping-pong: labels rank 0 and 1" python3 -c '
import json,sys; d=json.load(open(sys.argv[1])); sys.exit(d["labels"].get("rank") != ["0","1"])' "$TMP/pp.json"
pprof -raw "$TMP/scorep-mi300-hip.pb.gz" > "$TMP/mi.raw" 2>/dev/null
for th in 'HIP\[0:0\]' 'HIP\[1:0\]' 'Master thread'; do
	check "mi300: samples on thread $th" grep -q "thread:\[$th\]" "$TMP/mi.raw"
done
check "mi300: light_kernel runs on a HIP stream, as GPU time" sh -c "grep -A1 '^ *1 *0 *1628332847: ' '$TMP/mi.raw' | grep -q 'thread:\[HIP'"

# counters: the profile's counter type totals the archive's metric values
t=$DATA/otf2/tiny_otf2
for c in "bytes processed" "fractional value"; do
	$TF -q profile -c "$c" "$t" -o "$TMP/c.pb.gz" && tap python3 $X counter "$t/traces.otf2" "$TMP/c.pb.gz" "$c"
done
c="A2rocm_smi:::current_socket_power:device=3"
$TF -q profile -c "$c" "$DATA/otf2/scorep-mi300-hip" -o "$TMP/c.pb.gz" &&
	tap python3 $X counter "$DATA/otf2/scorep-mi300-hip/traces.otf2" "$TMP/c.pb.gz" "$c"

# a location without its event file: the others are still read, and it is reported
cp -r "$DATA/otf2/scorep-ping-pong-mpi" "$TMP/pp" && chmod -R u+w "$TMP/pp" && rm "$TMP/pp/traces/1.evt"
expect_exit 0 "missing 1.evt: still a profile" $TF -v profile "$TMP/pp" -o "$TMP/pp.pb.gz"
cp "$TMP/err" "$TMP/v"
check "missing 1.evt: missing_location=1 reported" grep -q "missing_location=1" "$TMP/v"
check "missing 1.evt: rank 0's 58 events read" grep -q "events_read=58," "$TMP/v"
# an event file cut short: the records before the cut are read, the cut is counted
cp "$DATA/otf2/scorep-ping-pong-mpi/traces/1.evt" "$TMP/pp/traces/1.evt" && chmod u+w "$TMP/pp/traces/1.evt"
head -c 700 "$DATA/otf2/scorep-ping-pong-mpi/traces/1.evt" > "$TMP/pp/traces/1.evt"
expect_exit 0 "1.evt cut at byte 700: still a profile" $TF -v profile "$TMP/pp" -o "$TMP/pp.pb.gz"
cp "$TMP/err" "$TMP/v"
check "1.evt cut at byte 700: truncated_record=1 reported" grep -q "truncated_record=1" "$TMP/v"
check "1.evt cut at byte 700: more than rank 0's 58 events read" sh -c \
	"n=\$(sed -n 's/.*events_read=\([0-9]*\).*/\1/p' '$TMP/v' | tail -1); test \$n -gt 59 && test \$n -lt 116"
# broken and ambiguous inputs
rm "$TMP/pp/traces.def"
expect_exit 3 "no global definitions: input error" $TF -q profile "$TMP/pp" -o "$TMP/x.pb.gz"
cp "$TMP/err" "$TMP/v"
check "no global definitions: the message names the anchor" grep -q "cannot read '$TMP/pp/traces.otf2'" "$TMP/v"
echo garbage > "$TMP/bad.otf2"
expect_exit 3 "garbage .otf2: input error" $TF -q profile "$TMP/bad.otf2" -o "$TMP/x.pb.gz"
mkdir "$TMP/two" && cp "$t/traces.otf2" "$TMP/two/a.otf2" && cp "$t/traces.otf2" "$TMP/two/b.otf2"
expect_exit 2 "two anchors in one directory: usage error" $TF -q profile "$TMP/two" -o "$TMP/x.pb.gz"
# a folder holding one experiment directory (one level deep) is found
mkdir "$TMP/runs" && cp -r "$t" "$TMP/runs/exp"
expect_exit 0 "anchor one level deep is found" $TF -q profile "$TMP/runs" -o "$TMP/x.pb.gz"
finish
