# Issue 26, items 8-10 (docs/robustness.md "Own formats and inputs"): own
# outputs read back at any line length and forced with -F, --edf only where
# it belongs, strict JSON in skipped members, a corrupt OTF2 anchor bounded,
# option numbers decimal only, saturated counts printed as they are.
. tests/lib.sh
T=$DATA/tau

# ---- 8. own outputs are readable inputs
# a folded file whose first line is 10 KiB of frames (no newline in the 4 KiB
# the sniffers see)
python3 -c "
print(';'.join('f%d' % i for i in range(2000)) + ' 5')
print('a;b 3')" > "$TMP/long.folded"
check "a folded file with a 10 KiB first line is sniffed as folded stacks" \
	sh -c "$TF -q top '$TMP/long.folded' | grep -q 'total 8 in 2002 functions'"
# a deep stack written by tracefold fold itself: 600 nested regions, one line
python3 -c "
import json
ev = [{'ph': 'X', 'name': 'deep_function_%04d' % i, 'ts': 0, 'dur': 1000, 'pid': 1, 'tid': 1} for i in range(600)]
json.dump({'traceEvents': ev}, open('$TMP/deep.json', 'w'))"
$TF -q fold "$TMP/deep.json" -o "$TMP/deep.folded" || fail "fold of a 600-deep trace"
$TF -q fold "$TMP/deep.json" -o "$TMP/deep.folded.gz" || fail "fold of a 600-deep trace, gzipped"
check "the deep stack is one line over 4 KiB" test "$(awk '{print length($0)}' "$TMP/deep.folded")" -gt 4096
$TF -q top -n 0 --format json "$TMP/deep.json" > "$TMP/deep.top" || fail "top of the deep trace"
for f in deep.folded deep.folded.gz; do
	$TF -q top -n 0 --format json --sample-type samples "$TMP/$f" > "$TMP/f.top" 2>"$TMP/err" ||
		{ fail "fold's own deep output $f is read back"; sed 's/^/#   /' "$TMP/err"; continue; }
	check "fold's own deep output $f is read back: 600 functions, 1 ms in the leaf" python3 -c "
import json,sys
d = json.load(open('$TMP/f.top'))['functions']
assert len(d) == 600, len(d)
leaf = [f for f in d if f['name'] == 'deep_function_0599'][0]
assert leaf['self'] == 1000000, leaf"
done
check "... and it reads back through merge too" $TF -q merge "$TMP/deep.folded" -o "$TMP/deep.pb.gz"
# what is not frames stays unknown: a 10 KiB line of prose, of control bytes, with an empty frame
python3 -c "print('lorem ipsum ' * 900)" > "$TMP/prose.txt"
expect_exit 3 "a 10 KiB line of prose is not folded stacks" $TF top "$TMP/prose.txt"
python3 -c "print(';'.join(['a'] * 100 + [''] + ['b'] * 3000) + ' 1')" > "$TMP/empty.folded"
expect_exit 3 "... nor 10 KiB of frames with an empty one (';;')" $TF top "$TMP/empty.folded"
check "... which -F folded reads and names by line" sh -c "$TF top -F folded '$TMP/empty.folded' 2>&1 | grep -q 'line 1'"
# minified JSON traces over 4 KiB on one line are still Chrome traces
python3 -c "
import json
ev = [{'ph': 'X', 'name': 'f%d' % i, 'ts': i * 10, 'dur': 5, 'pid': 1, 'tid': 1} for i in range(300)]
json.dump(ev, open('$TMP/min.json', 'w'), separators=(',', ':'))"
check "a minified JSON array trace on one line is still a Chrome trace" \
	sh -c "$TF -q info '$TMP/min.json' | grep -q 'chrome'"
# -F takes every input format tracefold lists, with every command that reads inputs
S=samples/pytorch-cnn-train.trace.json.gz
$TF -q convert "$S" -o "$TMP/own.pb.gz" -o "$TMP/own.folded" --to chrome -o "$TMP/own.json"
$TF -q perfetto "$S" -o "$TMP/own.pftrace"
$TF -q otf2 "$S" -o "$TMP/own.otf2"
names=$($TF --help | sed -n '/^input formats/,/^$/p' | awk 'NR > 1 && NF { print $1 }')
check "tracefold --help lists seventeen input formats" test "$(echo $names)" = "telemetry nvidia-smi rocm-smi tables otf2 tau chrome xplane perfetto nsys xla-memory austin perf firefox speedscope pprof folded"
$TF -q events "$S" -o "$TMP/own.tables"
for n in $names; do
	st=
	case $n in
	otf2) in=$TMP/own.otf2;; tau) in=$T/mpi_small;; chrome) in=$TMP/own.json;;
	perfetto) in=$TMP/own.pftrace;; pprof) in=$TMP/own.pb.gz;; folded) in=$TMP/own.folded;;
	nsys) in=$DATA/nsys/h100-2gpu/h100_2gpu_1s.sqlite;; # read, not written, by tracefold
	xplane) in=$DATA/jax/jax0112-h200-mlp/vm.xplane.pb;; # likewise
	xla-memory) in=$DATA/jax/xla-memory-synthetic/tpu-host-0.memory_profile.json.gz # read, not written
		st="--sample-type alloc_space";; # memory events in zero-length regions: no wall time
	austin) in=$DATA/samples/austin/austin.txt;; # read, not written
	perf) in=$DATA/samples/perf-c-fp/perf.script;; # likewise
	firefox) in=$DATA/samples/firefox/single.json;; # likewise
	speedscope) $TF -q speedscope "$S" -o "$TMP/own.speedscope.json"; in=$TMP/own.speedscope.json;;
	tables) in=$TMP/own.tables;;
	# telemetry alone has counters, no regions to profile: info reads it
	telemetry|nvidia-smi|rocm-smi)
		case $n in telemetry) in=$DATA/telemetry/generic.csv;; *) in=$DATA/telemetry/$n.csv;; esac
		expect_exit 0 "info -F $n" $TF -q info -F $n "$in"
		grep -q "\`$n\`" docs/cli.md && ok "docs/cli.md's -F row names $n" || fail "docs/cli.md's -F row names $n"
		continue;;
	*) fail "no input for -F $n in this test"; continue;;
	esac
	expect_exit 0 "top -F $n" $TF -q top -F $n "$in"
	expect_exit 0 "merge -F $n" $TF -q merge -F $n "$in" -o "$TMP/m.pb.gz"
	expect_exit 0 "fold -F $n" $TF -q fold -F $n $st "$in" -o "$TMP/m.folded"
	grep -q "\`$n\`" docs/cli.md && ok "docs/cli.md's -F row names $n" || fail "docs/cli.md's -F row names $n"
done
expect_exit 2 "merge -F nosuch: usage error" $TF merge -F nosuch "$TMP/own.folded" -o "$TMP/m.pb.gz"
cp "$TMP/err" "$TMP/e1"
check "... listing the formats" grep -q "one of: pprof, telemetry, nvidia-smi, rocm-smi, austin, folded, perf, tables, otf2, tau, firefox, speedscope, chrome, xplane, perfetto, nsys or xla-memory" "$TMP/e1"

# ---- 9. --edf applies only to lone .trc files
mkdir -p "$TMP/lone" && cp "$T/tiny/tautrace.0.0.0.trc" "$TMP/lone/lone.trc"
expect_exit 2 "flame --diff LONE.trc DIR --edf: a TAU directory with its own EDFs is a usage error" \
	$TF flame --diff "$TMP/lone/lone.trc" "$T/mpi_small" --edf "$T/tiny/events.0.edf" -o "$TMP/d.svg"
cp "$TMP/err" "$TMP/e1"
check "... naming --edf's file and the directory" \
	grep -q "\-\-edf '$T/tiny/events.0.edf' is for a lone .trc file, and '$T/mpi_small' is a TAU directory" "$TMP/e1"
check "... and nothing is written" test ! -e "$TMP/d.svg"
expect_exit 2 "top DIR --edf: exit 2" $TF top "$T/mpi_small" --edf "$T/tiny/events.0.edf"
expect_exit 2 "top -j 2 DIR --edf: exit 2" $TF top -j 2 "$T/mpi_small" --edf "$T/tiny/events.0.edf"
expect_exit 2 "profile LONE.trc DIR --edf: exit 2" \
	$TF profile "$TMP/lone/lone.trc" "$T/threads" --edf "$T/tiny/events.0.edf" -o "$TMP/e.pb.gz"
expect_exit 0 "a lone .trc with --edf is read" $TF -q top "$TMP/lone/lone.trc" --edf "$T/tiny/events.0.edf"
check "... as its directory is read" test "$($TF -q top -n 0 "$TMP/lone/lone.trc" --edf "$T/tiny/events.0.edf")" = \
	"$($TF -q top -n 0 "$T/tiny")"
# a directory of trace files without EDFs of its own takes --edf for them
mkdir -p "$TMP/noedf" && cp "$T/tiny/tautrace.0.0.0.trc" "$TMP/noedf/"
check "a TAU directory without EDFs takes --edf" test "$($TF -q top -n 0 "$TMP/noedf" --edf "$T/tiny/events.0.edf")" = \
	"$($TF -q top -n 0 "$T/tiny")"
# a lone .trc with its own EDF beside it: --edf names the one to use (documented)
expect_exit 0 "--edf with a .trc that has an EDF beside it: --edf is used" \
	$TF -q info --edf "$T/tiny/events.0.edf" "$T/mpi_small/tautrace.0.0.0.trc"

# ---- 10a. strict JSON, skipped members included (JSON.parse refuses all of these)
ev='"ph":"X","name":"a","pid":1,"tid":1'
n=0
for bad in "[{$ev,\"ts\":1,\"dur\":2,\"args\":{\"a\":tru}}]" "[{$ev,\"ts\":1,\"dur\":2,\"foo\": 01}]" \
	"[{$ev,\"ts\":01,\"dur\":2}]" "[{$ev,\"ts\":1,\"dur\":2,\"args\":{\"a\":[1,2,]}}]" \
	"[{$ev,\"ts\":1,\"dur\":2,\"args\":{\"a\" 1}}]" "[{$ev,\"ts\":1,\"dur\":2,\"args\":{\"s\":\"\\x\"}}]" \
	"{\"traceEvents\":[{$ev,\"ts\":1,\"dur\":2}],\"otherData\":{\"v\":1.}}" \
	"{\"otherData\":{\"v\":[nul]},\"traceEvents\":[{$ev,\"ts\":1,\"dur\":2}]}"; do
	n=$((n + 1))
	printf '%s' "$bad" > "$TMP/bad$n.json"
	expect_exit 3 "malformed JSON $n is refused: $bad" $TF -q top "$TMP/bad$n.json"
	grep -q "cannot read '$TMP/bad$n.json' at byte [0-9]*: " "$TMP/err" && ok "... with the file and byte offset" ||
		{ fail "... with the file and byte offset"; sed 's/^/#   /' "$TMP/err"; }
done
# what JSON allows, and Python's NaN/Infinity, still read
printf '%s' "[{$ev,\"ts\":1e0,\"dur\":2.0,\"args\":{\"a\":-Infinity,\"b\":NaN,\"c\":[true,false,null,-0.5e-3,\"\\u00e9\\n\",[],{}]}}]" > "$TMP/okj.json"
expect_exit 0 "valid JSON with NaN, -Infinity, escapes and exponents still reads" $TF -q top "$TMP/okj.json"

# ---- 10b. a damaged OTF2 anchor is refused at once (libotf2 read 843 million
# empty properties for one byte: minutes, gigabytes)
PP=$DATA/otf2/scorep-ping-pong-mpi
for off in 46 58; do
	rm -rf "$TMP/anc" && cp -r "$PP" "$TMP/anc" && chmod -R u+w "$TMP/anc"
	python3 -c "
import sys
b = bytearray(open(sys.argv[1], 'rb').read()); b[$off] ^= 0xff; open(sys.argv[1], 'wb').write(b)" "$TMP/anc/traces.otf2"
	s=$(date +%s)
	expect_exit 3 "an anchor with byte $off damaged: exit 3" timeout 30 $TF -q info "$TMP/anc"
	cp "$TMP/err" "$TMP/e1"
	check "... within 5 s" test $(($(date +%s) - s)) -le 5
	check "... naming the anchor, the byte and the damage" \
		grep -q "cannot read '$TMP/anc/traces.otf2' at byte 62: damaged OTF2 anchor file" "$TMP/e1"
done
expect_exit 0 "the undamaged archive still reads" $TF -q info "$PP"

# ---- 10c. numbers of options: decimal only
$TF -q profile "$DATA/chrome/pytorch-legacy-small/trace.json" -o "$TMP/p.pb.gz"
expect_exit 0 "diff --fail-above 1e-320 (a subnormal) is taken" $TF -q diff --fail-above 1e-320 "$TMP/p.pb.gz" "$TMP/p.pb.gz"
for v in 0x10 inf nan 1e400 " 5" 5x; do
	expect_exit 2 "diff --fail-above '$v' is refused" $TF -q diff --fail-above "$v" "$TMP/p.pb.gz" "$TMP/p.pb.gz"
done
expect_exit 2 "--clip-tolerance 0x10us is refused" $TF -q top --clip-tolerance 0x10us "$TMP/p.pb.gz"
expect_exit 0 "--clip-tolerance 1.5e1us is taken" $TF -q top --clip-tolerance 1.5e1us "$DATA/chrome/pytorch-legacy-small/trace.json"

# ---- 10d. a saturated count prints as INT64_MAX, not INT64_MAX + 1
printf 'a;b 9223372036854775807\na;c 5\n' > "$TMP/sat.folded"
$TF -q top "$TMP/sat.folded" > "$TMP/sat.top" 2>/dev/null
check "top of a saturated count prints 9223372036854775807" grep -q "total 9223372036854775807 " "$TMP/sat.top"
check "... and never 9223372036854775808" sh -c "! grep -q 9223372036854775808 '$TMP/sat.top'"
$TF -q diff "$TMP/sat.folded" "$TMP/sat.folded" > "$TMP/sat.diff" 2>/dev/null
check "diff text of it neither" sh -c "grep -q 9223372036854775807 '$TMP/sat.diff' && ! grep -q 9223372036854775808 '$TMP/sat.diff'"
finish
