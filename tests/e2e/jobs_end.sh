#!/bin/sh
# jobs_end.sh - the end of an input on two threads (issue 33 target 2,
# src/core/stack_par.c): with -j 2 and one input, its CPU tracks are nested
# on two threads into two aggregates added up.  profile, top, flame and fold
# (and diff) with -j 2 must be byte-identical to -j 1, with the same stderr
# (-v: repair counts) and exit status: a legacy trace on several threads, the
# Kineto fixtures (GPU streams, Python frames, memory events: their tracks
# stay on one thread), a generated input of 40 tracks of unequal sizes with
# repairs (negative durations, overlaps, unclosed B, unnamed events, Python
# frames past their parents, one track's ids out of order), in
# memory and spilled (--sort-mem 1K), with the two-stage reader on and off,
# and a temporary file that cannot grow (ulimit -f).  An oracle of its own:
# the generated input's calls, counted by the generator, are what -j 2's
# top says (a track lost or nested twice by the split changes them).
. tests/lib.sh
C=$DATA/chrome
LEG=$C/pytorch-legacy-small/trace.json
python3 bench/gen-real.py legacy "$LEG" "$TMP/leg.json" 12 --threads 5 >/dev/null || fail "gen-real legacy"
python3 - "$TMP/gen.json" "$TMP/gen.calls" <<'PY'
import json, random, sys
random.seed(33)
ev, calls = [], 0
names = ["step", "fwd", "bwd", "matmul", "relu", "copy", "optim", "io"]
for tid in range(40):
    n = 50 + (tid * 37) % 900 if tid else 5          # track 0 small: the twin takes early ones too
    t = 1000 * tid
    for i in range(n):
        d = random.randint(10, 400)
        ev.append({"ph": "X", "name": names[i % 8], "cat": "op", "pid": 1, "tid": tid, "ts": t, "dur": d})
        ev.append({"ph": "X", "name": names[(i + 3) % 8], "pid": 1, "tid": tid, "ts": t + 2, "dur": d // 2})
        calls += 2
        if i % 50 == 7:   # a child past its parent's end: overlap_cut
            ev.append({"ph": "X", "name": "late", "pid": 1, "tid": tid, "ts": t + d - 3, "dur": 80}); calls += 1
        if i % 70 == 11:  # a negative duration
            ev.append({"ph": "X", "name": "neg", "pid": 1, "tid": tid, "ts": t + 1, "dur": -5}); calls += 1
        if i % 90 == 13:  # no name
            ev.append({"ph": "X", "pid": 1, "tid": tid, "ts": t + 3, "dur": 1}); calls += 1
        if i % 60 == 5:   # a B/E pair
            ev.append({"ph": "B", "name": "be", "pid": 1, "tid": tid, "ts": t + 4})
            ev.append({"ph": "E", "pid": 1, "tid": tid, "ts": t + 6}); calls += 1
        t += d + random.randint(0, 30)
    if tid % 7 == 3:      # unclosed at the track's end
        ev.append({"ph": "B", "name": "open", "pid": 1, "tid": tid, "ts": t - 5}); calls += 1
    ev.append({"ph": "M", "name": "thread_name", "pid": 1, "tid": tid, "args": {"name": "worker %d" % tid}})
pid_ = 1000
for tid in range(40, 44):  # Python frames (Kineto): children past their parent (python_parent_clipped)
    t, ids = 50000, []
    for i in range(300):
        pid_ += 1
        par = pid_ if i % 3 == 0 else pid_ - 1
        if i % 3 == 0:
            ev.append({"ph": "X", "cat": "python_function", "name": "f%d.py(%d): run" % (tid, i % 5), "pid": 1,
                       "tid": tid, "ts": t, "dur": 100, "args": {"Python id": pid_, "Python parent id": 0}})
        else:      # a child ending 1 us past its parent; track 43's ids go down (the exact path)
            ev.append({"ph": "X", "cat": "python_function", "name": "g.py(%d): step" % (i % 4), "pid": 1,
                       "tid": tid, "ts": t + 10 * (i % 3), "dur": 91 if i % 3 == 1 else 85,
                       "args": {"Python id": (pid_ if tid != 43 else 10**6 - pid_), "Python parent id": par if tid != 43 else 10**6 - par}})
        calls += 1
        if i % 3 == 2:
            t += 120
random.shuffle(ev)
json.dump({"traceEvents": ev}, open(sys.argv[1], "w"))
open(sys.argv[2], "w").write(str(calls))
PY
# same NAME CMD... : CMD with -j 1 and -j 2 (OUT in place of the output):
# same output, stdout+stderr and exit status
same() {
	name=$1; shift
	for j in 1 2; do
		rm -f "$TMP/out.x"
		"$@" -j $j > "$TMP/s$j.raw" 2>&1; echo "exit $?" >> "$TMP/s$j.raw"
		# -v's lines for -j 2's reader and end
		grep -v 'in two stages on two threads\|on two threads: [0-9]* of [0-9]* CPU tracks' "$TMP/s$j.raw" > "$TMP/s$j"
		if [ -f "$TMP/out.x" ]; then
			case $(head -c 2 "$TMP/out.x" | od -An -tx1 | tr -d ' ') in
			1f8b) gzip -dc "$TMP/out.x" > "$TMP/o$j" ;;
			*) cp "$TMP/out.x" "$TMP/o$j" ;;
			esac
		else # its output on stdout
			cp "$TMP/s$j" "$TMP/o$j"
		fi
	done
	if cmp -s "$TMP/o1" "$TMP/o2" && cmp -s "$TMP/s1" "$TMP/s2" && { [ -s "$TMP/o1" ] || grep -q 'exit [^0]' "$TMP/s1"; }; then
		ok "$name: -j 2 = -j 1"
	else
		fail "$name: -j 2 differs from -j 1"; diff "$TMP/s1" "$TMP/s2" | head -6 | sed 's/^/#   /'
	fi
}
for f in "$TMP/leg.json" "$TMP/gen.json" $C/pytorch211-h200-gpt/trace.json.gz $C/kineto-resnet50-gpu/*.json* \
	$C/pytorch-legacy-small/trace.json; do
	b=$(basename "$f")
	for ts in 0 1; do
		export TRACEFOLD_TWO_STAGE=$ts
		same "profile -v $b (two stages $ts)" "$TF" -v profile "$f" -o "$TMP/out.x"
		same "top $b (two stages $ts)" "$TF" -q top -n 0 --keep-waiting "$f"
	done
	unset TRACEFOLD_TWO_STAGE
	same "flame $b" "$TF" -q flame "$f" -o "$TMP/out.x"
	same "fold $b" "$TF" -q fold "$f" -o "$TMP/out.x"
done
"$TF" -q profile -j 1 "$LEG" -o "$TMP/base.pb.gz" || fail "base profile"
same "diff base leg" "$TF" -q diff "$TMP/base.pb.gz" "$TMP/leg.json"
for m in 0 1K 4K; do
	same "profile -v --sort-mem $m gen" "$TF" -v profile --sort-mem $m "$TMP/gen.json" -o "$TMP/out.x"
	same "profile -v --sort-mem $m leg" "$TF" -v profile --sort-mem $m "$TMP/leg.json" -o "$TMP/out.x"
	same "top --sort-mem $m kineto" "$TF" -q top -n 0 --sort-mem $m $C/pytorch211-h200-gpt/trace.json.gz
done
same "profile -v --raw-names gen" "$TF" -v profile --raw-names "$TMP/gen.json" -o "$TMP/out.x"
# the generator's count of calls: every track nested once
want=$(cat "$TMP/gen.calls")
for m in 0 1K; do
	got=$("$TF" -q top -j 2 -n 0 --keep-waiting --sort-mem $m --format json "$TMP/gen.json" |
		python3 -c 'import json,sys; print(sum(f["calls"] for f in json.load(sys.stdin)["functions"]))')
	[ "$got" = "$want" ] && ok "gen --sort-mem $m: -j 2's calls are the generator's ($want)" ||
		fail "gen --sort-mem $m: -j 2's calls $got, the generator's $want"
done
# the split happened where it should, and not where it must not (-v says it)
split() { "$TF" -v profile -j 2 "$@" -o "$TMP/out.x" 2>&1 | grep -o 'on two threads: [0-9]* of [0-9]* CPU tracks'; }
for f in "$TMP/leg.json" "$TMP/gen.json"; do
	got=$(split "$f")
	case $got in
	*": 0 of"* | "") fail "$(basename "$f"): not split (-v: '$got')" ;;
	*) ok "$(basename "$f"): split ($got)" ;;
	esac
done
got=$(split $C/pytorch211-h200-gpt/trace.json.gz)
[ -z "$got" ] && ok "kineto (its CPU tracks launch GPU work): not split" || fail "kineto split: $got"
# a call path's time past the int64 range: one thread counts and says it,
# and so must -j 2 (not split: two aggregates would clamp it silently)
python3 - "$TMP/sat.json" "$TMP/sat2.json" <<'PY'
import json, sys
ev = []
for tid in range(4):   # each track's two spans alone pass 2^63 ns
    ev.append({"ph": "X", "name": "big", "pid": 1, "tid": tid, "ts": -4.62e15, "dur": 4.62e15})
    ev.append({"ph": "X", "name": "big", "pid": 1, "tid": tid, "ts": 0, "dur": 4.62e15})
json.dump({"traceEvents": ev}, open(sys.argv[1], "w"))
ev = []
for tid in range(2):   # only the two tracks' sum passes it
    ev.append({"ph": "X", "name": "big", "pid": 1, "tid": tid, "ts": 0, "dur": 4.7e15})
    ev += [{"ph": "X", "name": "s", "pid": 1, "tid": tid, "ts": 4.7e15 + 10 * i, "dur": 1} for i in range(30)]
    ev.append({"ph": "M", "name": "thread_name", "pid": 1, "tid": tid, "args": {"name": "w"}})
json.dump({"traceEvents": ev}, open(sys.argv[2], "w"))
PY
for f in sat sat2; do
	same "profile -v $f (saturated: the note once)" "$TF" -v profile "$TMP/$f.json" -o "$TMP/out.x"
	same "profile -v --strict $f (saturated)" "$TF" -v profile --strict "$TMP/$f.json" -o "$TMP/out.x"
	grep -q 'saturated=[1-9]' "$TMP/s2" && grep -q '^exit 3' "$TMP/s2" &&
		ok "$f: -j 2 says the saturation and fails --strict" || fail "$f: -j 2 lost the saturation"
done
# long distinct names: the second thread's copy of the strings would
# double the peak; not split
python3 -c '
import sys
pad = "x" * 2000
ev = ",".join("{\"ph\":\"X\",\"name\":\"f%d_%d_%s\",\"pid\":1,\"tid\":%d,\"ts\":%d,\"dur\":5}" % (t, i, pad, t, 10 * i)
              for t in range(4) for i in range(500))
open(sys.argv[1], "w").write("{\"traceEvents\":[" + ev + "]}")' "$TMP/long.json"
got=$(split "$TMP/long.json")
[ -z "$got" ] && ok "long distinct names: not split" || fail "long distinct names split: $got"
same "profile -v long names" "$TF" -v profile "$TMP/long.json" -o "$TMP/out.x"
# a temporary file that cannot grow: the same error and exit status
lim() { sh -c 'ulimit -f 20; trap "" XFSZ; exec "$0" "$@"' "$@"; }
same "profile, temporary file cut (ulimit -f)" lim "$TF" profile --sort-mem 1K "$TMP/leg.json" -o "$TMP/out.x"
grep -q 'cannot write the temporary run file' "$TMP/s2" && ok "the temporary file's error said" || fail "no temporary file error"
finish
