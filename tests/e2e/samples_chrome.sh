# Chrome's V8 CPU profile inside a trace (Profile / ProfileChunk, ph P;
# docs/format-chrome-cpuprofile.md): samples on the profiled thread under
# its trace regions.  Each fixture against the independent checker
# tests/tools/chrome_cpuprofile_check.py (samples, cpu ns, self and total
# per function, samples under each region and outside all, the
# samples_outside counter); the hand-made trace against its README's
# numbers (chunks before their Profile, negative deltas, children lists);
# go tool pprof; sniffing a copy by content and -F chrome; damaged input.
. tests/lib.sh
H=$DATA/chrome/cpuprofile-handmade/trace.json
DT=$DATA/chrome/chrome-devtools-116/Trace-20230603T221323.json
LH=$DATA/chrome/lighthouse-cpu-profiler-m86/cpu-profiler-m86.trace.json
chk() { python3 tests/tools/chrome_cpuprofile_check.py "$TF" "$@" > "$TMP/chk" 2>&1; }

# --- against the independent checker -------------------------------------------
for c in "$H 6" "$DT 1600" "$LH 50294"; do
	set -- $c
	if chk "$1" --expect-samples "$2"; then
		ok "$(basename "$1"): $2 samples, cpu ns, functions and regions equal the checker's ($(grep -E '^(samples|functions)' "$TMP/chk" | tr '\n' ' '))"
	else
		fail "$(basename "$1"): the checker disagrees"; sed 's/^/#   /' "$TMP/chk"
	fi
done
# the checker can fail: a trace whose profile tracefold reads with another start
sed 's/"startTime": 1000/"startTime": 1010/' "$H" > "$TMP/shift.json"
$TF -q fold --raw-names --sample-type samples "$TMP/shift.json" -o - > "$TMP/shift.fold"
check "a startTime 10 us later moves the samples out of Task [1000, 1020) us (fold)" \
	test "$(grep -c '^Task;' "$TMP/shift.fold")" = 0
chk "$TMP/shift.json"; check "... and the checker follows it" test $? = 0
# a fake tracefold that reads the shifted trace instead: the checker must disagree
printf '#!/bin/sh\nfor a; do shift; [ "$a" = "%s" ] && a="%s"; set -- "$@" "$a"; done\nexec "%s" "$@"\n' \
	"$H" "$TMP/shift.json" "$TF" > "$TMP/faketf"; chmod +x "$TMP/faketf"
python3 tests/tools/chrome_cpuprofile_check.py "$TMP/faketf" "$H" > "$TMP/fake.out" 2>&1; rc=$?
check "the checker fails when tracefold's numbers are not the trace's ($(grep -c '^DIFF' "$TMP/fake.out") differences)" \
	test "$rc" = 1 -a "$(grep -c '^DIFF' "$TMP/fake.out")" -gt 0

# --- the hand-made trace: the README's numbers -----------------------------------
$TF -q fold --raw-names --sample-type cpu "$H" -o - | sort > "$TMP/h.cpu"
printf '%s\n' '(idle) 20000' 'Task;main a.js:1 5000' 'Task;main a.js:1;(anonymous) a.js:5 10000' \
	'main a.js:1 20000' | sort > "$TMP/h.cpu.want"
check "hand-made: cpu ns per stack as its README (chunk before Profile, negative delta, sorted by time)" \
	cmp -s "$TMP/h.cpu" "$TMP/h.cpu.want"
$TF -q fold --raw-names --sample-type samples "$H" -o - | sort > "$TMP/h.n"
printf '%s\n' '(idle) 1' 'Task;main a.js:1 1' 'Task;main a.js:1;(anonymous) a.js:5 1' 'f 1' \
	'main a.js:1 1' 'main a.js:1;(anonymous) a.js:5 1' | sort > "$TMP/h.n.want"
check "hand-made: samples per stack (the children-list profile's one sample: f)" cmp -s "$TMP/h.n" "$TMP/h.n.want"
$TF -q info --format json "$H" > "$TMP/h.info"
d() { python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["diagnostics"][sys.argv[2]])' "$TMP/h.info" "$1"; }
check "hand-made: samples_outside 3, ev_sample 6, ev_metadata 3 (M, two Profile), ev_other 1, events_read 11" \
	test "$(d samples_outside) $(d ev_sample) $(d ev_metadata) $(d ev_other) $(d events_read)" = "3 6 3 1 11"
$TF info "$H" > "$TMP/h.txt" 2>&1
check "tracefold info shows samples_outside" grep -qE '^ +3 +samples_outside' "$TMP/h.txt"
check "the samples are on the Profile's thread (Main: 1 region + 5 samples), no track of the chunks' tid 9" \
	sh -c 'grep -q "thread 1 \"Main\": 6 events" "$1" && ! grep -q "thread 9" "$1"' sh "$TMP/h.txt"

# --- go tool pprof ------------------------------------------------------------------
$TF -q profile "$DT" -o "$TMP/dt.pb.gz"
pprof -top -sample_index=cpu -unit=ns -nodecount=1000 "$TMP/dt.pb.gz" > "$TMP/dt.top" 2>"$TMP/dt.err"
check "go tool pprof -top reads the cpu samples (total 265139000 ns)" grep -q "of 265139000ns total" "$TMP/dt.top"
check "... and names the JS function gamma" grep -q "gamma file:///" "$TMP/dt.top"
pprof -top -sample_index=samples "$TMP/dt.pb.gz" > "$TMP/dt.topn" 2>/dev/null
check "... samples: 1600 in all" grep -q "of 1600 total" "$TMP/dt.topn"

# --- sniffing and forcing -------------------------------------------------------------
cp "$DT" "$TMP/recording.dat"
$TF -q fold --raw-names --sample-type cpu "$DT" -o "$TMP/a.fold"
$TF -q fold --raw-names --sample-type cpu "$TMP/recording.dat" -o "$TMP/b.fold"
check "a copy named .dat is read by content: the same folded cpu stacks" cmp -s "$TMP/a.fold" "$TMP/b.fold"
$TF -q fold -F chrome --raw-names --sample-type cpu "$TMP/recording.dat" -o "$TMP/c.fold"
check "-F chrome: the same" cmp -s "$TMP/a.fold" "$TMP/c.fold"

# --- damaged input ---------------------------------------------------------------------
sed 's/\[4, 2, 3\]/[4, 2, x]/' "$H" > "$TMP/garbage.json"
expect_exit 3 "a bad value in a ProfileChunk's samples is an input error" $TF -q profile "$TMP/garbage.json" -o "$TMP/g.pb.gz"
$TF -q profile "$TMP/garbage.json" -o "$TMP/g.pb.gz" 2>"$TMP/gerr"
check "... the message names the file and the byte" grep -q "garbage.json' at byte 1003: invalid JSON literal" "$TMP/gerr"
sed -n '1p;3p' "$H" | sed 's/,$//' > "$TMP/orphan.json"; echo ']}' >> "$TMP/orphan.json"
expect_exit 3 "only chunks without their Profile event: nothing usable, an error" $TF -q profile "$TMP/orphan.json" -o "$TMP/o.pb.gz"
$TF -q profile "$TMP/orphan.json" -o "$TMP/o.pb.gz" 2> "$TMP/oerr"
check "... its message names the file and the skipped samples (bad_event=2)" grep -q "orphan.json': nothing in it could be read (bad_event=2)" "$TMP/oerr"
head -c $(($(head -5 "$H" | wc -c) + 80)) "$H" > "$TMP/cut.json" # inside the second chunk
$TF -q fold --raw-names --sample-type samples "$TMP/cut.json" -o "$TMP/cut.fold" 2>/dev/null
check "a trace cut inside a later chunk: the samples before the cut are kept (2)" \
	test "$(awk '{s += $NF} END {print s}' "$TMP/cut.fold")" = 2
sed 's/"timeDeltas": \[30, -20, 40\]/"timeDeltas": [30, -20]/' "$H" > "$TMP/short.json"
$TF -q info --format json "$TMP/short.json" > "$TMP/short.info"
check "a chunk with fewer time deltas than samples: its extra sample skipped, bad_event 1 (5 samples)" \
	python3 -c 'import json,sys; d=json.load(open(sys.argv[1]))["diagnostics"]; sys.exit(not (d["bad_event"] == 1 and d["ev_sample"] == 5))' "$TMP/short.info"
finish
