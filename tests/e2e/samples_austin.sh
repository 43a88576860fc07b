# austin 1.x output as input (docs/format-austin.md): the four files of
# Debian's austin 1.0.1 against the independent numbers of expected.json
# (tests/tools/samples_compare.py; the sample counts agree with austin's
# own), pprof reading the profile, damaged input refused with the file, line
# and byte, austin 3.x refused by name, sniffing by content and -F.
. tests/lib.sh
D=$DATA/samples/austin
EXP=$D/expected.json
# austin's time metric (µs) is our elapsed type in ns; mem_minus (negative
# in austin's lines) is held as the size of the memory lost
cmp_exp() { python3 tests/tools/samples_compare.py --map time_us=elapsed --scale time_us=1000 --scale mem_minus=-1 "$@"; }
said() { cp "$TMP/err" "$TMP/said"; check "$1" grep -q -- "$2" "$TMP/said"; }

# --- every file: samples, time (and memory) per function ----------------------
for f in austin.txt austin-sleepless.txt austin-alt.txt austin-full.txt; do
	n=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["files"][sys.argv[2]]["samples"])' "$EXP" "$f")
	check "$f: $n samples, total, self and total per function of every type = expected.json" \
		cmp_exp $TF "$EXP" "$f" "$D/$f"
	check "$f: $n samples counted by info (austin's own count: $(grep -o 'Error rate : 0/[0-9]*' "$D/${f%.txt}.stderr"))" \
		test "$(kind "$D/$f" sample)" -ge "$n"
done
expect_exit 1 "the comparison fails without the unit conversion (it can fail)" \
	python3 tests/tools/samples_compare.py --map time_us=elapsed $TF "$EXP" austin.txt "$D/austin.txt"
check "austin-alt.txt (function (file:line)) names functions as the default format does: the same set" sh -c "
	$TF -q fold --raw-names '$D/austin-alt.txt' -o - | grep -q '^<module> (work.py);run (work.py);mixed (work.py);text (work.py) ' &&
	! $TF -q fold --raw-names '$D/austin-alt.txt' -o - | grep -q 'work.py:[0-9]'"
check "the default type is elapsed (nanoseconds), also with -f's memory types" sh -c "
	$TF -q top -n 1 '$D/austin-full.txt' | grep -q '^elapsed (nanoseconds): total 1.077 s'"
check "one thread, named by its id" sh -c "$TF -q info '$D/austin.txt' | grep -q 55b99aacdf10"

# lines of every length across many read chunks (a line carried over a
# chunk's end is parsed from a copy: its metrics must be its own digits)
python3 -c '
import random,sys
random.seed(7); tot=0
with open(sys.argv[1], "w") as f:
    for i in range(6000):
        d = random.choice([1, 2, 5, 40, 400, 3000])
        us = random.randint(1, 99)
        tot += us
        f.write("Thread a1;" + ";".join("fn%d (m.py);L%d" % (k, k) for k in range(d)) + " %d\n" % us)
print(tot * 1000)' "$TMP/long.txt" > "$TMP/long.want"
check "lines of 1 to 3000 frames over many chunks: the elapsed total ($(cat "$TMP/long.want") ns) = the lines' sum" sh -c "
	$TF -q fold '$TMP/long.txt' -o - | awk '{s+=\$NF} END {print s}' | cmp - '$TMP/long.want'"

# --- pprof reads the profile ------------------------------------------------------
$TF -q profile "$D/austin-sleepless.txt" -o "$TMP/a.pb.gz" || fail "profile output"
pprof -top -sample_index=elapsed "$TMP/a.pb.gz" > "$TMP/ptop" 2>&1
check "go tool pprof -top: 916.64ms in all, text 394.01ms self" sh -c "
	grep -q 'of 916.64ms total' '$TMP/ptop' && grep -Eq '^ +394\.01ms .* text \(work\.py\)$' '$TMP/ptop'"
pprof -top -sample_index=samples "$TMP/a.pb.gz" > "$TMP/ptop2" 2>&1
check "go tool pprof -top: 648 samples" grep -q 'of 648 total' "$TMP/ptop2"

# --- damaged input -------------------------------------------------------------------
head -c 5000 "$D/austin.txt" > "$TMP/cut.txt"
check "a file cut in the middle of a line: its 7 whole lines read, the cut one counted and noted" sh -c "
	test \"\$($TF -q info --format json '$TMP/cut.txt' | python3 -c 'import json,sys; d=json.load(sys.stdin)[\"diagnostics\"]; print(d[\"ev_sample\"], d[\"truncated_record\"])')\" = '7 1' &&
	$TF info '$TMP/cut.txt' 2>&1 | grep -q 'cut.txt: line 8 at byte 3989 is cut (no end of line): ignored'"
{ head -n 3 "$D/austin.txt"; echo 'Thread 55b99aacdf10;<module> (work.py);L42;garbage 17'; } > "$TMP/badframe.txt"
expect_exit 3 "a frame that is not 'function (file)': refused" $TF -q top "$TMP/badframe.txt"
said "... naming the file, byte, line and frame" "badframe.txt' at byte [0-9]*: line 4: a frame that is not 'function (file)': 'garbage'"
{ head -n 3 "$D/austin.txt"; echo 'Thread 55b99aacdf10;<module> (work.py);L42'; } > "$TMP/nometric.txt"
expect_exit 3 "a line without metrics: refused" $TF -q top "$TMP/nometric.txt"
said "... naming the line" "line 4: no metrics at the end of the line"
{ head -n 3 "$D/austin.txt"; head -n 1 "$D/austin-full.txt"; } > "$TMP/mixed.txt"
expect_exit 3 "lines with another number of metrics: refused" $TF -q top -F austin "$TMP/mixed.txt"
said "... said so" "line 4: another number of metrics than the lines before"
gzip -c "$D/austin.txt" | head -c 3000 > "$TMP/cut.txt.gz"
check "a cut gzip file: its whole lines read, the cut one counted and noted" sh -c "
	$TF info -F austin '$TMP/cut.txt.gz' 2>&1 | grep -q 'is cut (no end of line, gzip data ends early): ignored'"
printf '\n\n' > "$TMP/empty.txt"
expect_exit 3 "no sample line (forced): an error, not an empty profile" $TF -q top -F austin "$TMP/empty.txt"
said "... said so" "no samples"
printf 'garbage\n' > "$TMP/garbage.txt"
expect_exit 3 "garbage forced with -F austin: refused" $TF -q top -F austin "$TMP/garbage.txt"
said "... naming the file, byte 0 and line 1" "garbage.txt' at byte 0: line 1: not an austin 1.x line"
printf '# austin: 3.5.0\n# mode: wall\nP4317;T0:7f1234;/w/work.py:<module>:42;/w/work.py:run:37 1172\n' > "$TMP/austin3.txt"
expect_exit 3 "austin 3.x output: refused" $TF -q top "$TMP/austin3.txt"
said "... by name, saying which versions are read" "line 3: austin 3.x output (P<pid>;T<iid>:<tid>;...): tracefold reads austin 1.x"

# --- sniffing, -F, gzip ------------------------------------------------------------------
cp "$D/austin-full.txt" "$TMP/prof.data"
check "sniffed by content under another name" sh -c "$TF -q info '$TMP/prof.data' | grep -q 'format austin'"
check "a folded-stacks file is still folded stacks" sh -c "printf 'a;b 3\n' > '$TMP/f.txt' && $TF -q fold '$TMP/f.txt' -o - | grep -qx 'a;b 3'"
check "-F austin forces it" sh -c "$TF -q info -F austin '$TMP/prof.data' | grep -q 'format austin'"
gzip -c "$D/austin-alt.txt" > "$TMP/alt.gz"
check "gzip: the same numbers" cmp_exp $TF "$EXP" austin-alt.txt "$TMP/alt.gz"
check "CRLF lines: the same numbers" sh -c "sed 's/\$/\r/' '$D/austin-sleepless.txt' > '$TMP/crlf.txt' &&
	python3 tests/tools/samples_compare.py --map time_us=elapsed --scale time_us=1000 $TF '$EXP' austin-sleepless.txt '$TMP/crlf.txt'"
finish
