# --sort-mem (docs/stack-rules.md "Memory"): past its budget the stack
# builder writes the buffered events of sorted tracks (Chrome JSON, Perfetto)
# as sorted runs to a temporary file and merges them back at the track's
# end.  Every output must be byte-identical to keeping everything in memory
# (--sort-mem 0): profiles of every Chrome fixture and rule file (X, B/E,
# Python ids, X without dur, GPU streams attributed to their launches,
# memory events), timelines and Parquet events.  A 1-byte budget spills after every event, so runs merge
# into higher levels (tf_spill's fan-in) too.  That the file is really used
# is seen through TMPDIR: an unusable one gives a note, and the same output.
. tests/lib.sh

# same DESC A B: the (decompressed) bytes are equal and not empty
same() {
	if [ -s "$2" ] && [ -s "$3" ] && gzip -dcf "$2" > "$TMP/s1" && gzip -dcf "$3" > "$TMP/s2" && cmp -s "$TMP/s1" "$TMP/s2"; then
		ok "$1"
	else
		fail "$1"; cmp "$TMP/s1" "$TMP/s2" 2>&1 | sed 's/^/#   /' | head -3
	fi
}

n=0
for f in $DATA/chrome/*/*.json $DATA/chrome/*/*.json.gz $DATA/chrome/*/*.pfw.gz $DATA/chrome/rules/*.json \
	 $DATA/chrome/rules/*.jsonl; do
	[ -f "$f" ] || continue
	n=$((n + 1))
	$TF -q profile --sort-mem 0 "$f" -o "$TMP/a.pb.gz" 2>/dev/null
	# 1 byte: spans and events spill at every event (the launch table's
	# half is 0: never); 64 bytes: the launch table spills too, so GPU
	# streams are attributed by the sort-merge join
	for m in 1 64; do
		$TF -q profile --sort-mem $m "$f" -o "$TMP/b.pb.gz" 2>"$TMP/err"
		same "profile --sort-mem $m = --sort-mem 0: ${f#$DATA/}" "$TMP/a.pb.gz" "$TMP/b.pb.gz"
	done
done
[ "$n" -ge 12 ] && ok "sort_mem: $n Chrome inputs compared" || fail "sort_mem: only $n Chrome inputs found"

K=$DATA/chrome/kineto-resnet50-gpu/worker0.1623143089861.pt.trace.json.gz
T=$DATA/chrome/tracelens-bert-small-h100/gaunernst_bert-small-uncased__1016001.json.gz
for out in trace.json pftrace; do
	for f in "$K" "$T"; do
		$TF -q convert --sort-mem 0 "$f" -o "$TMP/a.$out" 2>/dev/null
		$TF -q convert --sort-mem 1 "$f" -o "$TMP/b.$out" 2>/dev/null
		same "convert -o .$out --sort-mem 1 = --sort-mem 0: ${f##*/}" "$TMP/a.$out" "$TMP/b.$out"
	done
done
for f in "$K" "$T"; do
	$TF -q events --sort-mem 0 "$f" -o "$TMP/a.parquet" 2>/dev/null
	$TF -q events --sort-mem 1 "$f" -o "$TMP/b.parquet" 2>/dev/null
	if [ -s "$TMP/a.parquet/slices/part-0.parquet" ] && diff -r "$TMP/a.parquet" "$TMP/b.parquet" >/dev/null; then
		ok "events (Parquet) --sort-mem 1 = --sort-mem 0: ${f##*/}"
	else
		fail "events (Parquet) --sort-mem 1 = --sort-mem 0: ${f##*/}"; ls -R "$TMP/a.parquet" | head -5 | sed 's/^/#   /'
	fi
done

# Perfetto input is sorted per track too
$TF -q convert "$K" -o "$TMP/k.pftrace" 2>/dev/null
$TF -q profile --sort-mem 0 "$TMP/k.pftrace" -o "$TMP/a.pb.gz" 2>/dev/null
$TF -q profile --sort-mem 1 "$TMP/k.pftrace" -o "$TMP/b.pb.gz" 2>/dev/null
same "profile of Perfetto input: --sort-mem 1 = --sort-mem 0" "$TMP/a.pb.gz" "$TMP/b.pb.gz"

# -j 2 (two stack builders, each with its own file)
$TF -q profile -j 2 --sort-mem 0 "$K" "$T" -o "$TMP/a.pb.gz" 2>/dev/null
$TF -q profile -j 2 --sort-mem 1K "$K" "$T" -o "$TMP/b.pb.gz" 2>/dev/null
same "-j 2 --sort-mem 1K = --sort-mem 0" "$TMP/a.pb.gz" "$TMP/b.pb.gz"

# the file is used: with TMPDIR unusable, a warning says so, and nothing changes
$TF -q profile --sort-mem 0 "$K" -o "$TMP/a.pb.gz" 2>/dev/null
TMPDIR=$TMP/none $TF profile --sort-mem 1K "$K" -o "$TMP/c.pb.gz" 2>"$TMP/err"
if grep -q "cannot make a temporary file in $TMP/none" "$TMP/err"; then ok "unusable TMPDIR: a warning names it"; else
	fail "unusable TMPDIR: a warning names it"; sed 's/^/#   /' "$TMP/err" | head -5; fi
same "unusable TMPDIR: the same profile, from memory" "$TMP/a.pb.gz" "$TMP/c.pb.gz"
TMPDIR=$TMP/none $TF profile "$K" -o "$TMP/c.pb.gz" 2>"$TMP/err"
if grep -q "temporary file" "$TMP/err"; then fail "default budget: a small trace stays in memory"; else
	ok "default budget: a small trace stays in memory"; fi
# and nothing is left in TMPDIR (the file is unlinked when made)
mkdir "$TMP/tmpd"
TMPDIR=$TMP/tmpd $TF -q profile --sort-mem 1 "$K" -o "$TMP/c.pb.gz" 2>/dev/null
[ -z "$(ls -A "$TMP/tmpd")" ] && ok "nothing left in TMPDIR" || fail "nothing left in TMPDIR: $(ls "$TMP/tmpd")"

# bounded: 4x the events in about the same memory (release build only:
# ASan's quarantine keeps freed memory).  A Kineto-like trace with a fixed
# set of call paths: ops written when they end (children first), runtime
# launches with correlation ids, their kernels on a GPU stream.
cat > "$TMP/gen.py" <<'PY'
import sys
n, out = int(sys.argv[1]), open(sys.argv[2], "w")
out.write('{"traceEvents": [\n')
ts, corr = 1000, 0
for i in range(n):
    t = 1 + i % 2
    corr += 1
    ev = [
        '{"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":%d,"ts":%d,"dur":2,"args":{"correlation":%d}}' % (t, ts + 2, corr),
        '{"ph":"X","cat":"cpu_op","name":"aten::mm","pid":1,"tid":%d,"ts":%d,"dur":5,"args":{}}' % (t, ts + 1),
        '{"ph":"X","cat":"cpu_op","name":"aten::linear","pid":1,"tid":%d,"ts":%d,"dur":8,"args":{}}' % (t, ts),
        '{"ph":"X","cat":"kernel","name":"gemm","pid":0,"tid":7,"ts":%d,"dur":3,"args":{"correlation":%d}}' % (ts + 5, corr),
    ]
    out.write(",\n".join(ev) + ",\n")
    ts += 10
out.write('{"ph":"M","name":"process_labels","pid":0,"tid":0,"args":{"labels":"GPU 0"}}\n]}\n')
PY
case $TF in
*san*) ok "bounded memory: not measured under ASan" ;;
*)
	python3 "$TMP/gen.py" 25000 "$TMP/small.json" && python3 "$TMP/gen.py" 100000 "$TMP/big.json"
	$TF -q profile --sort-mem 0 "$TMP/big.json" -o "$TMP/a.pb.gz" 2>/dev/null
	$TF -q profile --sort-mem 64K "$TMP/big.json" -o "$TMP/b.pb.gz" 2>/dev/null
	same "generated trace, 400k events: --sort-mem 64K = --sort-mem 0" "$TMP/a.pb.gz" "$TMP/b.pb.gz"
	rss() { /usr/bin/time -f %M -o "$TMP/rss" $TF -q profile "$@" -o "$TMP/r.pb.gz" >/dev/null 2>&1; tail -1 "$TMP/rss"; }
	a=$(rss --sort-mem 64K "$TMP/small.json"); b=$(rss --sort-mem 64K "$TMP/big.json")
	a0=$(rss --sort-mem 0 "$TMP/small.json"); b0=$(rss --sort-mem 0 "$TMP/big.json")
	# in memory, the 4x trace costs about 19 MB more (48-byte spans, 16-byte
	# launches): the check can tell; bounded, it costs less than 2 MB more
	if [ -n "$a" ] && [ -n "$b" ] && [ "$b" -lt $((a + 2048)) ] && [ "$b0" -gt $((a0 + 8192)) ]; then
		ok "bounded memory: 4x the events, ${a} -> ${b} KiB (in memory: ${a0} -> ${b0} KiB)"
	else
		fail "bounded memory: 4x the events, ${a} -> ${b} KiB (in memory: ${a0} -> ${b0} KiB)"
	fi ;;
esac

expect_exit 2 "--sort-mem 12X is a usage error" $TF profile --sort-mem 12X "$K" -o "$TMP/d.pb.gz"
grep -q "'--sort-mem' needs a size" "$TMP/err" && ok "--sort-mem error names the option" || fail "--sort-mem error names the option"
[ ! -e "$TMP/d.pb.gz" ] && ok "no output after a usage error" || fail "no output after a usage error"
check "--sort-mem 64M accepted" $TF -q profile --sort-mem 64M "$K" -o "$TMP/d.pb.gz"
finish
