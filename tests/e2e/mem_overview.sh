#!/bin/sh
# The overview's memory per rank-step (issue 33, target 4; docs/performance.md
# "The overview's rank-steps"): the samples under a step label are set aside
# in 24-byte notes, past half of --sort-mem in a temporary file, instead of
# a hashed sample with its labels each.  Two ranks of 400 distinct call
# paths a step, at 60 and 240 steps: the peak RSS of `overview -j 1` may
# not grow by more than 2 MiB (keeping a sample per call path per
# rank-step costs about 20 MiB more there).  The outputs are the same bytes
# with the notes on disk or in memory (--sort-mem 0), with -j 1 and -j 2,
# and each straggler's call path (tests/tools/overview_gen.py) is the
# injected delay; the temporary file leaves nothing in $TMPDIR, and
# without one (a $TMPDIR that does not exist) the report is the same.
. tests/lib.sh

cat > "$TMP/gen.py" <<'PY'
import sys
steps, rank, path = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
with open(path, 'w') as out:
    out.write('{"distributedInfo": {"backend": "nccl", "rank": %d, "world_size": 2},\n"traceEvents": [\n' % rank)
    t = 0
    for s in range(steps):
        out.write('{"ph":"X","cat":"user_annotation","name":"ProfilerStep#%d","pid":1,"tid":1,"ts":%d,"dur":%d,"args":{}},\n'
                  % (s, t, 400 * 10 + 5))
        for j in range(400):
            out.write('{"ph":"X","cat":"cpu_op","name":"op_%d","pid":1,"tid":1,"ts":%d,"dur":%d,"args":{}},\n'
                      % (j, t + 1 + 10 * j, 5 + (j + s + rank) % 4))
        t += 400 * 10 + 10
    out.write('{"ph":"M","name":"thread_name","pid":1,"tid":1,"args":{"name":"main"}}\n]}\n')
PY
for r in 0 1; do
	python3 "$TMP/gen.py" 60 $r "$TMP/s$r.json" && python3 "$TMP/gen.py" 240 $r "$TMP/b$r.json" || fail "generate the traces"
done

rss() { # OUT CMD...: the peak RSS (KiB) of the command
	o=$1; shift
	/usr/bin/time -f %M -o "$TMP/rss" "$@" -o "$o" >/dev/null 2>&1 && tail -1 "$TMP/rss"
}

# the same report with the notes on disk, in memory, on one thread or two
$TF -q overview -j 1 --sort-mem 0 "$TMP/b0.json" "$TMP/b1.json" -o "$TMP/m.json" 2>/dev/null
for o in "-j 1 --sort-mem 64K" "-j 2 --sort-mem 64K" "-j 2"; do
	$TF -q overview $o "$TMP/b0.json" "$TMP/b1.json" -o "$TMP/d.json" 2>/dev/null
	[ -s "$TMP/m.json" ] && cmp -s "$TMP/m.json" "$TMP/d.json" && ok "480 rank-steps: overview $o = -j 1 --sort-mem 0" ||
		fail "480 rank-steps: overview $o = -j 1 --sort-mem 0"
done

# stragglers: their call paths from the notes, the same on disk and in memory, -j 1 and -j 2
python3 tests/tools/overview_gen.py "$TMP/syn" --ranks 6 --steps 30 --delays 12 --seed 5 >/dev/null ||
	fail "generate the stragglers' traces"
for f in json txt html; do
	$TF -q overview -j 1 --sort-mem 0 "$TMP"/syn/rank*.json.gz -o "$TMP/w0.$f" 2>/dev/null
	for o in "-j 1 --sort-mem 1K" "-j 2 --sort-mem 1K" "-j 2"; do
		$TF -q overview $o "$TMP"/syn/rank*.json.gz -o "$TMP/w1.$f" 2>/dev/null
		[ -s "$TMP/w0.$f" ] && cmp -s "$TMP/w0.$f" "$TMP/w1.$f" && ok "stragglers: overview $o = --sort-mem 0 ($f)" ||
			fail "stragglers: overview $o = --sort-mem 0 ($f)"
	done
done
# the temporary file: unlinked at once (nothing left), and without one the notes stay in memory
mkdir "$TMP/tmpd"
TMPDIR="$TMP/tmpd" $TF -q overview -j 1 --sort-mem 1K "$TMP"/syn/rank*.json.gz -o "$TMP/w1.json" 2>/dev/null
cmp -s "$TMP/w0.json" "$TMP/w1.json" && [ -z "$(ls -A "$TMP/tmpd")" ] &&
	ok "stragglers: notes in \$TMPDIR, nothing left there" || fail "stragglers: notes in \$TMPDIR, nothing left there"
TMPDIR="$TMP/missing" $TF -q overview -j 1 --sort-mem 1K "$TMP"/syn/rank*.json.gz -o "$TMP/w1.json" 2>/dev/null
cmp -s "$TMP/w0.json" "$TMP/w1.json" && ok "stragglers: no temporary file, the same report" ||
	fail "stragglers: no temporary file, the same report"
python3 -c '
import json,sys
s=json.load(open(sys.argv[1]))["stragglers"]
assert len(s) >= 10, len(s)
assert all(x["where"].endswith(";injected_delay") for x in s), s' "$TMP/w0.json" &&
	ok "stragglers: each one's call path is the injected delay" || fail "stragglers: each one's call path"

# every region inside a step: the samples are all set aside, and still the
# run has them (it once failed "nothing to profile"); -j 2 the same
printf '%s\n' '{"traceEvents":[' \
	'{"ph":"X","cat":"user_annotation","name":"ProfilerStep#0","pid":1,"tid":1,"ts":0,"dur":100,"args":{}},' \
	'{"ph":"X","cat":"cpu_op","name":"op","pid":1,"tid":1,"ts":10,"dur":50,"args":{}}]}' > "$TMP/instep.json"
cp "$TMP/instep.json" "$TMP/instep1.json"
$TF -q overview "$TMP/instep.json" -o "$TMP/instep.txt" && grep -q "op" "$TMP/instep.txt" &&
	$TF -q overview -j 2 "$TMP/instep.json" "$TMP/instep1.json" -o "$TMP/instep2.txt" &&
	ok "every region in a step: a report" || fail "every region in a step: a report"
# a tie between two call paths' excess: the first made wins, even when the
# sample of the first was made by a counter's value in an earlier fold of
# the notes (16,384 samples apart) than its first wall time
mkdir -p "$TMP/tie"
python3 - "$TMP/tie" <<'PY'
import json, sys
for r, (xd, yd) in enumerate([(400, 100), (540, 170)]):
    ev = []
    def X(name, ts, dur, cat="cpu_op"):
        ev.append({"ph": "X", "cat": cat, "name": name, "pid": 1, "tid": 1, "ts": ts, "dur": dur, "args": {}})
    X("pre", -100, 50)
    X("ProfilerStep#0", 0, 2000, "user_annotation")
    X("opX", 10, xd)
    ev.append({"ph": "C", "name": "ca", "pid": 1, "tid": 1, "ts": 11, "args": {"v": 5}})
    X("opY", 20, yd)
    for i in range(16500):
        X("g%d" % i, round(21 + i * 0.004, 3), 0.002)
    X("c10d::allreduce_", 10 + xd + 10, 50)
    X("ProfilerStep#1", 2001, 1000, "user_annotation")
    X("c10d::allreduce_", 2010, 50)
    json.dump({"distributedInfo": {"backend": "nccl", "rank": r, "world_size": 2}, "traceEvents": ev},
              open("%s/rank%d.json" % (sys.argv[1], r), "w"))
PY
$TF -q overview -c all --late-min 1us "$TMP/tie/rank0.json" "$TMP/tie/rank1.json" --format json > "$TMP/tie.json" &&
	python3 -c '
import json,sys
w=[x["where"] for x in json.load(open(sys.argv[1]))["stragglers"]]
assert w == ["ProfilerStep;opX"], w' "$TMP/tie.json" &&
	ok "a tie: the call path made first" || fail "a tie: the call path made first"

case $TF in
*san*) ok "bounded memory: not measured under ASan" ;;
*)
	a=$(rss "$TMP/r.json" $TF -q overview -j 1 --sort-mem 256K "$TMP/s0.json" "$TMP/s1.json")
	b=$(rss "$TMP/r.json" $TF -q overview -j 1 --sort-mem 256K "$TMP/b0.json" "$TMP/b1.json")
	if [ -n "$a" ] && [ -n "$b" ] && [ "$b" -lt $((a + 2048)) ]; then
		ok "overview, 4x the rank-steps: $a -> $b KiB"
	else
		fail "overview, 4x the rank-steps: $a -> $b KiB"
	fi ;;
esac
finish
