# -j 2 on one Chrome JSON file (issue 33, target 2; src/read/chrome_pipe.c):
# a spare thread tokenizes the input (stage 1) while this one processes the
# events in file order (stage 2).  Every output is -j 1's, byte for byte
# (profile, chrome, events, overview; a Kineto trace with Python frames, a
# legacy one, and generated inputs with what the top level hands over:
# elements that are not events, distributedInfo, baseTimeNanoseconds, an
# event larger than the queue's blocks); every bad input gives -j 1's
# stderr and exit status (truncated, a bad byte early, late, in args, a gzip
# stream cut short), also when stage 2 fails (the temporary file cannot
# grow: ulimit -f) before a later syntax error that stage 1 has already met:
# stage 2's error must win.  -v -j 2 says two stages were used; -j 1 and
# TRACEFOLD_TWO_STAGE=0 and the default (off: docs/performance.md "One file
# on two threads") use one; the test says =1 for the rest, and runs the
# outputs and errors again with =2, where stage 1 only finds each event's
# end and stage 2 tokenizes it (raw events, tf_read_opts.two_stage): strings
# with brackets, quotes and backslashes; an error in a raw event before a
# later one that stage 1 meets first.
. tests/lib.sh
TRACEFOLD_TWO_STAGE=1
export TRACEFOLD_TWO_STAGE
C=$DATA/chrome
KIN=$C/pytorch211-h200-gpt/trace.json.gz
LEG=$C/pytorch-legacy-small/trace.json
python3 bench/gen-real.py legacy "$LEG" "$TMP/leg.json" 12 >/dev/null || fail "gen-real legacy"
# outs CMD INPUT... : runs CMD -j 1 and -j 2; same stdout, stderr, exit and output
outs() {
	cmd=$1; shift
	for j in 1 2; do
		rm -rf "$TMP/o" "$TMP/o.pb.gz" "$TMP/o.json"
		case $cmd in
		profile) "$TF" -q profile -j $j "$@" -o "$TMP/o.pb.gz" > "$TMP/s$j" 2>&1; echo "exit $?" >> "$TMP/s$j"
			gzip -dc "$TMP/o.pb.gz" > "$TMP/o$j" 2>/dev/null ;;
		chrome) "$TF" -q chrome -j $j "$@" -o "$TMP/o.json" > "$TMP/s$j" 2>&1; echo "exit $?" >> "$TMP/s$j"
			cp "$TMP/o.json" "$TMP/o$j" 2>/dev/null ;;
		events) "$TF" -q events -j $j "$@" -o "$TMP/o" > "$TMP/s$j" 2>&1; echo "exit $?" >> "$TMP/s$j"
			(cd "$TMP/o" && find . -type f | sort | xargs cat) > "$TMP/o$j" 2>/dev/null ;;
		overview) "$TF" overview --format json -j $j "$@" > "$TMP/o$j" 2> "$TMP/s$j"; echo "exit $?" >> "$TMP/s$j" ;;
		esac
	done
	if [ -s "$TMP/o1" ] && cmp -s "$TMP/o1" "$TMP/o2" && cmp -s "$TMP/s1" "$TMP/s2"; then
		ok "$cmd $(basename "$1"): -j 2 = -j 1"
	else
		fail "$cmd $*: -j 2 differs from -j 1"; diff "$TMP/s1" "$TMP/s2" | head -4 | sed 's/^/#   /'
	fi
}
for f in "$KIN" "$TMP/leg.json"; do
	for c in profile chrome events overview; do
		outs $c "$f"
	done
done
# raw events: strings that hold brackets, quotes and backslashes, nested
# args, events of every length mod 32 (stage 1 scans 32 bytes at a time)
python3 - "$TMP/raw.json" <<'PY'
import json, sys
names = ['a}b', 'x]y{z[', 'q"}"', '\\', 'br{ace}s', 'u\u00e9}', '[}]{', 'plain', 'a\\"]']
ev = []
for i in range(6000):
    n = names[i % len(names)] + 'x' * (i % 37)
    ev.append({"ph": "X", "name": n, "cat": "c%d" % (i % 3), "ts": i * 10, "dur": 9, "pid": 1, "tid": i % 4,
               "args": {"k]": [1, {"v}": "}{"}], "s": "x" * (i % 29)}})
open(sys.argv[1], 'w').write(json.dumps(ev))
PY
for c in profile chrome; do
	outs $c "$TMP/raw.json"
done
# the top level's facts at their place: a number and a string among the
# events (bad_event, an index each), the rank, the wall-clock base, an
# event of 600 KB (larger than a block of the queue), 3 MB of events after
python3 - "$TMP/top.json" <<'PY'
import json, sys
ev = [{"ph": "X", "name": "op%d" % (i % 7), "cat": "cpu_op", "ts": i * 10, "dur": 8, "pid": 1, "tid": i % 3,
       "args": {"External id": i}} for i in range(30000)]
ev.insert(5, 42)
ev.insert(900, "text")
ev.insert(1200, {"ph": "X", "name": "big", "ts": 1, "dur": 1, "pid": 1, "tid": 1, "args": {"blob": "x" * 600000}})
ev.insert(1300, {"ph": "C", "name": "mem", "ts": 5, "pid": 1, "args": {"a": 1, "b": 2}})
doc = '{"schemaVersion": 1, "deviceProperties": [{"id": 0}], "distributedInfo": {"rank": 3, "world_size": 4}, ' \
      '"traceEvents": %s, "baseTimeNanoseconds": 1700000000000000000}' % json.dumps(ev)
open(sys.argv[1], 'w').write(doc)
PY
for c in profile chrome overview; do
	outs $c "$TMP/top.json"
done
outs profile "$TMP/leg.json" "$TMP/top.json" "$KIN"
outs chrome "$TMP/leg.json" "$TMP/top.json"
# every event raw: stage 2 tokenizes them all
TRACEFOLD_TWO_STAGE=2
for f in "$KIN" "$TMP/leg.json" "$TMP/top.json" "$TMP/raw.json"; do
	for c in profile chrome; do
		outs $c "$f"
	done
done
"$TF" -v profile -j 2 "$TMP/leg.json" -o "$TMP/v.pb.gz" 2> "$TMP/vr"
grep -q "two stages.*; [1-9][0-9]* of [0-9]* events tokenized by stage 2" "$TMP/vr" &&
	ok "-v, TRACEFOLD_TWO_STAGE=2: $(sed -n 's/.*; \([0-9]* of [0-9]*\) events.*/\1/p' "$TMP/vr") events tokenized by stage 2" ||
	fail "-v does not say that stage 2 tokenized events"
TRACEFOLD_TWO_STAGE=1
"$TF" -q info --format json "$TMP/top.json" | grep -q '"bad_event": 2' && ok "top.json: its two bad events" ||
	fail "top.json: bad_event is not 2"
# -v: two stages with -j 2, one with -j 1 and with TRACEFOLD_TWO_STAGE=0
"$TF" -v profile -j 2 "$TMP/leg.json" -o "$TMP/v.pb.gz" 2> "$TMP/v2"
"$TF" -v profile -j 1 "$TMP/leg.json" -o "$TMP/v.pb.gz" 2> "$TMP/v1"
TRACEFOLD_TWO_STAGE=0 "$TF" -v profile -j 2 "$TMP/leg.json" -o "$TMP/v.pb.gz" 2> "$TMP/v0"
grep -q "in two stages on two threads" "$TMP/v2" && ok "-v -j 2: read in two stages" || fail "-v -j 2 does not say two stages"
! grep -q "two stages" "$TMP/v1" && ok "-v -j 1: one stage" || fail "-j 1 used two stages"
! grep -q "two stages" "$TMP/v0" && ok "TRACEFOLD_TWO_STAGE=0: one stage" || fail "TRACEFOLD_TWO_STAGE=0 used two stages"
env -u TRACEFOLD_TWO_STAGE "$TF" -v profile -j 2 "$TMP/leg.json" -o "$TMP/v.pb.gz" 2> "$TMP/vd"
! grep -q "two stages" "$TMP/vd" && ok "TRACEFOLD_TWO_STAGE unset: one stage (off by default)" ||
	fail "two stages without TRACEFOLD_TWO_STAGE=1"
# standard input is read on one thread (stage 1 blocked on a pipe would hold stage 2's return)
"$TF" -v profile -j 2 - -o "$TMP/s2.pb.gz" < "$TMP/leg.json" 2> "$TMP/vs"
"$TF" -q profile -j 1 - -o "$TMP/s1.pb.gz" < "$TMP/leg.json"
! grep -q "two stages" "$TMP/vs" && cmp -s "$TMP/s2.pb.gz" "$TMP/s1.pb.gz" && ok "standard input: one stage, -j 1's profile" ||
	fail "standard input"

# bad inputs: -j 2's stderr and exit status are -j 1's
errs() { # NAME FILE [OPTIONS...]
	name=$1 f=$2; shift 2
	"$TF" profile -j 1 "$@" "$f" -o "$TMP/e.pb.gz" > "$TMP/e1" 2>&1; r1=$?
	"$TF" profile -j 2 "$@" "$f" -o "$TMP/e.pb.gz" > "$TMP/e2" 2>&1; r2=$?
	if [ $r1 = $r2 ] && cmp -s "$TMP/e1" "$TMP/e2"; then
		ok "$name: -j 2 = -j 1 (exit $r1: $(head -1 "$TMP/e1" | cut -c1-70))"
	else
		fail "$name: exit $r1 / $r2"; diff "$TMP/e1" "$TMP/e2" | head -4 | sed 's/^/#   /'
	fi
}
python3 - "$TMP/leg.json" "$TMP" <<'PY'
import sys
b = open(sys.argv[1], 'rb').read()
d = sys.argv[2]
open(d + '/cut.json', 'wb').write(b[:len(b) * 2 // 3])                      # truncated in an event
open(d + '/early.json', 'wb').write(b[:40] + b'\x01' + b[41:])              # a bad byte early
k = b.rindex(b'"dur"', 0, len(b) - 3000)
open(d + '/late.json', 'wb').write(b[:k] + b'"dur";' + b[k + 6:])           # late: ';' for ':'
k = b.index(b'"args": {', len(b) // 2) + 9
open(d + '/args.json', 'wb').write(b[:k] + b'"x": [1,, 2], ' + b[k:])       # in args
PY
python3 - "$TMP/leg.json" "$TMP" <<'PY'
import sys
b = open(sys.argv[1], 'rb').read()
d = sys.argv[2]
# event K's ts is no number, or it lacks a ',' (stage 2 tokenizes it when
# raw); 2000 events on, the separator between two events is ';' (stage 1's
# top level meets it first)
k = b.index(b'"ts": ', len(b) // 2) + 6
j = b.index(b'}, {', k + 2000 * 115) + 1
open(d + '/two.json', 'wb').write(b[:k] + b'1.2.3' + b[k + 5:j] + b';' + b[j + 1:])
k = b.index(b'"ph": "X", ', len(b) // 2) + 9
open(d + '/comma.json', 'wb').write(b[:k] + b' ' + b[k + 1:j] + b';' + b[j + 1:])
PY
for mode in 1 2; do
	TRACEFOLD_TWO_STAGE=$mode
	errs "truncated in an event ($mode)" "$TMP/cut.json"
	errs "a bad byte early ($mode)" "$TMP/early.json"
	errs "a bad byte late ($mode)" "$TMP/late.json"
	errs "a bad value in args ($mode)" "$TMP/args.json"
	errs "elements that are not events, --strict ($mode)" "$TMP/top.json" --strict
	errs "a bad ts, later a bad separator ($mode)" "$TMP/two.json"
	grep -q "malformed JSON number" "$TMP/e2" && ok "... the first error is said (the bad ts)" ||
		fail "two.json: not the first error: $(head -1 "$TMP/e2")"
	errs "no ',' in an event, later a bad separator ($mode)" "$TMP/comma.json"
	grep -q "expected ',' or '}' in an event" "$TMP/e2" && ok "... the first error is said (no ',')" ||
		fail "comma.json: not the first error: $(head -1 "$TMP/e2")"
done
TRACEFOLD_TWO_STAGE=1
gzip -c "$TMP/leg.json" | head -c 300000 > "$TMP/cut.json.gz"
"$TF" -v profile -j 1 "$TMP/cut.json.gz" -o "$TMP/e.pb.gz" > "$TMP/e1" 2>&1
"$TF" -v profile -j 2 "$TMP/cut.json.gz" -o "$TMP/e.pb.gz" 2>&1 | grep -v "two stages\|on two threads: [0-9]* of" > "$TMP/e2"
grep -q "gzip data ends early" "$TMP/e1" && cmp -s "$TMP/e1" "$TMP/e2" && ok "a gzip stream cut short: -v -j 2 = -j 1" ||
	{ fail "a gzip stream cut short"; diff "$TMP/e1" "$TMP/e2" | head -4 | sed 's/^/#   /'; }

# stage 2 fails first: the temporary run file cannot grow (--sort-mem 64K,
# ulimit -f) at event K; a syntax error just after K, which stage 1 meets
# while stage 2 is still before K, must not be the error said.  K is found
# by bisection with -j 1 (the last event whose damage -j 1 never reaches).
spill() { # FILE J: stderr of a run whose temporary file is limited
	sh -c 'ulimit -f 100; trap "" XFSZ; exec "$0" profile -j "$2" --sort-mem 64K "$1" -o "$3"' \
		"$TF" "$1" "$2" "$TMP/sp.pb.gz" > "$TMP/sp.err" 2>&1
	echo "exit $?" >> "$TMP/sp.err"
}
python3 - "$TMP/leg.json" "$TMP/ev.txt" <<'PY'
import sys
b = open(sys.argv[1], 'rb').read()
# the offset of each "dur" key, one per event, for the damage below
import re
open(sys.argv[2], 'w').write('\n'.join(str(m.start()) for m in re.finditer(rb'"dur"', b)))
PY
damage() { # N: TMP/dmg.json with event N's "dur" key damaged
	python3 -c 'import sys; b = open(sys.argv[1], "rb").read(); k = int(sys.argv[3])
open(sys.argv[2], "wb").write(b[:k] + b"\"dur\";" + b[k + 6:])' "$TMP/leg.json" "$TMP/dmg.json" "$(sed -n "$(($1 + 1))p" "$TMP/ev.txt")"
}
nev=$(wc -l < "$TMP/ev.txt")
damage $((nev - 1)); spill "$TMP/dmg.json" 1
if grep -q "temporary run file" "$TMP/sp.err"; then
	lo=0 hi=$((nev - 1)) # damage at hi: -j 1 fails in stage 2 first
	while [ $((hi - lo)) -gt 1 ]; do
		mid=$(((lo + hi) / 2))
		damage $mid; spill "$TMP/dmg.json" 1
		if grep -q "temporary run file" "$TMP/sp.err"; then hi=$mid; else lo=$mid; fi
	done
	damage $hi; spill "$TMP/dmg.json" 1; cp "$TMP/sp.err" "$TMP/sp1"
	good=0
	for i in 1 2 3 4 5; do
		spill "$TMP/dmg.json" 2
		cmp -s "$TMP/sp1" "$TMP/sp.err" && good=$((good + 1))
	done
	[ $good = 5 ] && ok "stage 2's error (temporary file, event $hi) before stage 1's (event $hi's syntax): -j 2 = -j 1, 5 runs of 5" ||
		{ fail "stage 2's error first: -j 2 = -j 1 in $good runs of 5"; diff "$TMP/sp1" "$TMP/sp.err" | head -4 | sed 's/^/#   /'; }
	damage $lo; spill "$TMP/dmg.json" 1
	grep -q "expected ':' after a key" "$TMP/sp.err" && ok "... and one event earlier the syntax error is said (the bisection's bound)" ||
		fail "the bisection's lower bound"
else
	fail "the limited temporary file does not fail the run: $(head -1 "$TMP/sp.err")"
fi
finish
