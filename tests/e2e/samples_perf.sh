# Linux perf script text (docs/format-perf.md): every fixture of
# tests/data/samples/perf-* gives, per sample type, the total and each
# function's self and total that tests/tools/samples_expected.py computed
# from the text by perf's own rules (checked there against perf report);
# go tool pprof reads the profile with its names; threads, events and
# periods as perf recorded them; damage is refused naming the line and byte.
. tests/lib.sh
S=$DATA/samples
# said DESC PATTERN: the last command's stderr matches PATTERN (grep -E)
said() { cp "$TMP/err" "$TMP/said"; check "$1" grep -Eq -- "$2" "$TMP/said"; }
cmp_all() { # DIR [options]: every data file of DIR's expected.json
	d=$1; shift
	for f in $(python3 -c 'import json,sys; print(" ".join(sorted(json.load(open(sys.argv[1]))["files"])))' "$S/$d/expected.json"); do
		opt=""
		# perf's inline frames: perf report gives the self of an inlined
		# leaf to the function it was inlined into, tracefold (as pprof
		# and speedscope) to the inlined function; totals agree
		case "$d/$f" in perf-python-xperf/perf.script | perf-python-xperf/perf-fields.script | \
			perf-firefox-samples/graphviz.perf.gz | perf-firefox-samples/gzip.perf.gz) opt=--no-self ;; esac
		check "$d/$f: totals per type, self and total per function as expected.json${opt:+ (totals)}" \
			python3 tests/tools/samples_compare.py $opt "$TF" "$S/$d/expected.json" "$f" "$S/$d/$f"
	done
}
for d in perf-c-fp perf-c-dwarf perf-multi-event perf-python perf-python-xperf perf-firefox-samples perf-speedscope-samples; do
	cmp_all $d
done
# the same recordings without perf's inline expansion: self too
check "perf-python-xperf/perf-noinline.script: self of the functions inlined into" \
	python3 tests/tools/samples_compare.py "$TF" "$S/perf-python-xperf/expected.json" perf-noinline.script \
	"$S/perf-python-xperf/perf-noinline.script"

# --- pprof reads it: types, default, names, threads -------------------------
FP=$S/perf-c-fp/perf-fields.script
check "profile of perf script" $TF -q profile "$FP" -o "$TMP/fp.pb.gz"
pprof -raw "$TMP/fp.pb.gz" > "$TMP/raw" 2>&1
check "pprof: sample types samples/count and cpu-clock/nanoseconds only (no calls, no wall)" grep -qx "samples/count cpu-clock/nanoseconds\[dflt\]" "$TMP/raw"
pprof -top -nodecount=3 "$TMP/fp.pb.gz" > "$TMP/top" 2>&1
check "pprof: cpu-clock is the default type" grep -q "^Type: cpu-clock" "$TMP/top"
check "pprof: total 870.87ms (870 samples of 1001001 ns)" grep -q "870.87ms total" "$TMP/top"
check "pprof: spin first, 457.46ms flat" grep -Eq "^ +457.46ms .* spin$" "$TMP/top"
pprof -top -sample_index=samples "$TMP/fp.pb.gz" > "$TMP/tops" 2>&1
check "pprof: 870 samples" grep -q "of 870 total" "$TMP/tops"
pprof -tags "$TMP/fp.pb.gz" > "$TMP/tags" 2>&1
check "pprof: thread labels of both threads (5443 busy, 5445 worker)" \
	sh -c "grep -q 'busy' '$TMP/tags' && grep -q 'worker' '$TMP/tags'"
$TF -q info --format json "$FP" > "$TMP/info.json"
check "info: 2 threads of process 5443, 870 samples" python3 -c '
import json,sys
d = json.load(open(sys.argv[1]))
assert d["events_by_kind"]["sample"] == 870, d["events_by_kind"]
tr = d["threads"]
assert sorted(t["thread"] for t in tr) == ["5443", "5445"], tr
assert {t["process"] for t in tr} == {"5443"}, tr' "$TMP/info.json"
ME=$S/perf-multi-event/perf.script
check "two events: a sample type each, weighted by their periods" sh -c \
	"$TF -q profile '$ME' -o '$TMP/me.pb.gz' && go tool pprof -raw '$TMP/me.pb.gz' 2>&1 | grep -qx 'samples/count cpu-clock/period=1000000//nanoseconds.dflt. task-clock/period=4000000//nanoseconds'"

# perf record without -g: the frame on the header line; the default type is a time event's
printf 'app 1/1 1.000000: 1001 cpu-clock:  ffff81 func+0x1 ([kernel.kallsyms])\napp 1/1 1.001000: 1001 cpu-clock:  ffff82 other+0x2 (/bin/x)\n' > "$TMP/nog"
check "without -g: sniffed, each sample's one frame from its header" sh -c "$TF -q fold '$TMP/nog' -o - | sort | tr '\n' ' ' | grep -qx 'func 1001 other 1001 '"
printf 'app 1/1 1.0: 5 cycles:\n\t1 f (/x)\n\napp 1/1 1.1: 7 task-clock:\n\t1 g (/x)\n\n' > "$TMP/two"
check "cycles and task-clock: task-clock (nanoseconds) is the default" sh -c "$TF -q top '$TMP/two' | head -1 | grep -q '^task-clock (nanoseconds)'"

# --- any file name; -F perf ----------------------------------------------------
cp "$FP" "$TMP/noext"
check "sniffed by content under any name" sh -c "$TF -q top '$TMP/noext' | grep -q spin"
gzip -c "$FP" > "$TMP/fp.gz"
check "gzipped" sh -c "$TF -q top '$TMP/fp.gz' | grep -q spin"
{ printf '# a comment\n\n'; cat "$FP"; } > "$TMP/commented"
check "-F perf reads a file that opens with comments" sh -c "$TF -q top -F perf '$TMP/commented' | grep -q spin"

# --- damage ------------------------------------------------------------------------
{ head -20 "$FP"; echo "this is not a header"; } > "$TMP/bad"
off=$(head -20 "$FP" | wc -c)
expect_exit 3 "a line that is no header: refused" $TF -q top -F perf "$TMP/bad"
said "... naming the file, byte $off and line 21" "bad.*byte $off.*line 21: not a perf script sample header"
printf '\tffff main+0x1 (/bin/x)\n' > "$TMP/orphan"
expect_exit 3 "a stack line before any header: refused" $TF -q top -F perf "$TMP/orphan"
said "... naming byte 0" "byte 0.*a stack line outside a sample"
printf 'x 1 1.0: 1 cpu-clock:\n\tzz main (/bin/x)\n' > "$TMP/badframe"
expect_exit 3 "a stack line without an address: refused" $TF -q top -F perf "$TMP/badframe"
said "... naming line 2" "line 2: not a stack line"
: > "$TMP/empty.perf"
expect_exit 3 "an empty file read as perf: refused" $TF -q top -F perf "$TMP/empty.perf"
said "... saying there are no samples" "no perf script samples"
gzip -c "$FP" | head -c 3000 > "$TMP/cut.gz"
expect_exit 3 "a cut gzip stream: refused" $TF -q top "$TMP/cut.gz"
said "... as truncated" "truncated"
finish
