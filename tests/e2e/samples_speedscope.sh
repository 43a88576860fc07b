# speedscope JSON as input (docs/format-speedscope.md): speedscope's own
# sample files against the independent numbers of their expected.json
# (tests/tools/samples_compare.py; speedscope's importer snapshot agrees
# with them), the files speedscope refuses refused, a file tracefold wrote
# read back to the wall profile it was written from, pprof reading the
# profile, gzip, sniffing by content and -F.
. tests/lib.sh
D=$DATA/samples/speedscope
EXP=$D/expected.json
cmp_exp() { python3 tests/tools/samples_compare.py "$@"; }
# said DESC TEXT: the last command's stderr has TEXT (a grep pattern)
said() { cp "$TMP/err" "$TMP/said"; check "$1" grep -q -- "$2" "$TMP/said"; }

# --- speedscope's sample files: every number of expected.json -----------------
# evented profiles are regions: expected's weight (time in unit none, taken
# as ns) is our wall; sampled ones in seconds are cpu in ns
for f in simple.speedscope.json simple-no-pretty-print.speedscope.json; do
	check "$f (evented, unit none): wall total, self and total per function = expected.json's weight" \
		cmp_exp --map weight=wall $TF "$EXP" "$f" "$D/$f"
done
for f in simple-sampled.speedscope.json two-sampled.speedscope.json; do
	check "$f (sampled, seconds): samples, cpu ns = expected's weight x 1e9, per function" \
		cmp_exp --map weight=cpu --scale weight=1000000000 $TF "$EXP" "$f" "$D/$f"
done
expect_exit 1 "the comparison fails on a wrong scale (it can fail)" \
	cmp_exp --map weight=cpu --scale weight=1000 $TF "$EXP" two-sampled.speedscope.json "$D/two-sampled.speedscope.json"
check "two-sampled: one track per profile, named by the profile (one, two)" sh -c "
	$TF -q info '$D/two-sampled.speedscope.json' > '$TMP/info2' && grep -q 'one' '$TMP/info2' && grep -q 'two' '$TMP/info2'"
check "two-sampled: 10 samples (info's ev_sample)" test "$(kind "$D/two-sampled.speedscope.json" sample)" = 10
check "simple (evented): 5 regions, the c frame twice" test "$($TF -q top -n 0 --format json --sample-type calls "$D/simple.speedscope.json" |
	python3 -c 'import json,sys; print(sum(f["self"] for f in json.load(sys.stdin)["functions"]))')" = 5

# --- pprof reads the profile ----------------------------------------------------
$TF -q profile "$D/simple-sampled.speedscope.json" -o "$TMP/s.pb.gz" || fail "pprof output"
pprof -top -sample_index=cpu "$TMP/s.pb.gz" > "$TMP/ptop" 2>&1
check "go tool pprof -top: cpu total 14s, b and c 5s self each" sh -c "
	grep -q 'of 14s total' '$TMP/ptop' && grep -Eq '^ +5s +35\.71%.* b$' '$TMP/ptop' && grep -Eq '^ +5s +35\.71%.* c$' '$TMP/ptop'"
pprof -top -sample_index=samples "$TMP/s.pb.gz" > "$TMP/ptop2" 2>&1
check "go tool pprof -top: 5 samples" grep -q 'of 5 total' "$TMP/ptop2"

# --- refused as speedscope refuses them -------------------------------------------
expect_exit 3 "out-of-order-events.json: refused" $TF -q top "$D/invalid/out-of-order-events.json"
said "... naming the file, byte, profile, event index and the frames" "out-of-order-events.json' at byte 558: profile 0 (p1), event 6: close of frame 'B' while 'A' is on top"
expect_exit 3 "incomplete-trace.json: refused" $TF -q top "$D/invalid/incomplete-trace.json"
said "... frames still open at the end, named" "incomplete-trace.json' at byte [0-9]*: profile 0 (p1): 1 frames still open at the end (the innermost 'A')"

# --- damaged inputs -----------------------------------------------------------------
head -c 300 "$D/simple.speedscope.json" > "$TMP/cut.json"
expect_exit 3 "a cut file: refused" $TF -q top -F speedscope "$TMP/cut.json"
said "... at its end" "cut.json' at byte 300: the JSON object ends early"
gzip -c "$D/simple-sampled.speedscope.json" | head -c 200 > "$TMP/cutgz.json.gz"
expect_exit 3 "a cut gzip file: refused" $TF -q top -F speedscope "$TMP/cutgz.json.gz"
python3 -c '
import json,sys
d=json.load(open(sys.argv[1])); d["profiles"][0]["samples"][2]=[0,7]
json.dump(d, open(sys.argv[2], "w"))' "$D/simple-sampled.speedscope.json" "$TMP/badframe.json"
expect_exit 3 "a frame index out of range: refused" $TF -q top "$TMP/badframe.json"
said "... naming the sample's index and the frame" "badframe.json' at byte [0-9]*: profile 0 (simple.speedscope.json), sample 2: frame 7 is not an index of shared.frames (4 frames)"
python3 -c '
import json,sys
d=json.load(open(sys.argv[1])); d["profiles"][0]["weights"].pop()
json.dump(d, open(sys.argv[2], "w"))' "$D/simple-sampled.speedscope.json" "$TMP/fewer.json"
expect_exit 3 "fewer weights than samples: refused" $TF -q top "$TMP/fewer.json"
said "... said so with the sample index" "sample 4: fewer weights than samples"
printf '{"shared":{"frames":[]},"profiles":[]}' > "$TMP/empty.json"
expect_exit 3 "no profiles: an error, not an empty profile" $TF -q top "$TMP/empty.json"
said "... saying so" "no samples nor events in its 0 profiles"
printf '{"shared":{"frames":[{"name":"a"}]},"profiles":[{"type":"sampled","unit":"parsecs","samples":[[0]],"weights":[1]}]}' > "$TMP/unit.json"
expect_exit 3 "an unknown unit: refused" $TF -q top "$TMP/unit.json"
said "... naming the units read" "unit is none of none, nanoseconds"
printf 'garbage{]' > "$TMP/garbage.json"
expect_exit 3 "garbage forced with -F speedscope: refused" $TF -q top -F speedscope "$TMP/garbage.json"
said "... naming the file and byte 0" "garbage.json' at byte 0: not a JSON object"

# --- sniffing by content, -F, gzip, units ------------------------------------------
cp "$D/two-sampled.speedscope.json" "$TMP/profile.dat"
check "sniffed by content under another name (\$schema)" sh -c "$TF -q info '$TMP/profile.dat' | grep -q 'format speedscope'"
python3 -c '
import json,sys
d=json.load(open(sys.argv[1])); d.pop("$schema", None)
json.dump(d, open(sys.argv[2], "w"))' "$D/simple.speedscope.json" "$TMP/noschema.txt"
check "sniffed without \$schema (shared + profiles)" sh -c "$TF -q info '$TMP/noschema.txt' | grep -q 'format speedscope'"
check "-F speedscope forces it" sh -c "$TF -q info -F speedscope '$TMP/profile.dat' | grep -q 'format speedscope'"
gzip -c "$D/two-sampled.speedscope.json" > "$TMP/two.json.gz"
check "gzip: the same numbers" cmp_exp --map weight=cpu --scale weight=1000000000 $TF "$EXP" two-sampled.speedscope.json "$TMP/two.json.gz"
python3 -c '
import json,sys
d=json.load(open(sys.argv[1])); p=d["profiles"][0]; p["unit"]="milliseconds"; p["weights"]=[w*1000 for w in p["weights"]]
q=dict(p); q["unit"]="bytes"; q["name"]="mem"; d["profiles"].append(q)
json.dump(d, open(sys.argv[2], "w"))' "$D/simple-sampled.speedscope.json" "$TMP/units.json"
check "milliseconds: the same ns; bytes: a space/bytes type of its own" sh -c "
	$TF -q fold --sample-type cpu '$TMP/units.json' -o - | awk '{s+=\$NF} END {exit s != 14000000000}' &&
	$TF -q fold --sample-type space '$TMP/units.json' -o - | awk '{s+=\$NF} END {exit s != 14000}'"

# --- tracefold's own export reads back to the same wall profile --------------------
for t in "$DATA/tau/mpi_small" "$DATA/otf2/scorep-ping-pong-mpi" "$DATA/chrome/pytorch-legacy-small/trace.json"; do
	b=$(basename "$t")
	$TF -q speedscope "$t" -o "$TMP/rt.speedscope.json" || { fail "$b: speedscope"; continue; }
	table "$t" | cut -f1-3 > "$TMP/orig.tab"
	table "$TMP/rt.speedscope.json" | cut -f1-3 > "$TMP/back.tab"
	check "$b: written as speedscope and read back: the same wall self and total per function ($(wc -l < "$TMP/orig.tab") functions)" \
		cmp "$TMP/orig.tab" "$TMP/back.tab"
	check "$b: ... and the same calls" sh -c "
		$TF -q top -n 0 --format json '$t' | python3 -c 'import json,sys; print(json.load(sys.stdin)[\"calls_total\"])' > '$TMP/c1' &&
		$TF -q top -n 0 --format json '$TMP/rt.speedscope.json' | python3 -c 'import json,sys; print(json.load(sys.stdin)[\"calls_total\"])' > '$TMP/c2' &&
		cmp '$TMP/c1' '$TMP/c2'"
done
check "the aggregate sampled profile was recognised and skipped (a note says so)" sh -c "
	$TF info '$TMP/rt.speedscope.json' 2>&1 | grep -q \"tracefold's own aggregate 'all threads: wall self time', skipped\""
check "... so no cpu or samples type comes from it" sh -c "
	! $TF -q fold --sample-type samples '$TMP/rt.speedscope.json' -o - >/dev/null 2>&1"
sed 's/"exporter":"tracefold /"exporter":"someone /' "$TMP/rt.speedscope.json" > "$TMP/other.speedscope.json"
check "another exporter's file of the same shape: its sampled profile is read (wall twice: regions and cpu samples)" sh -c "
	$TF -q fold --sample-type cpu '$TMP/other.speedscope.json' -o - | grep -q ."
finish
