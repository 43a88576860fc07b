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
