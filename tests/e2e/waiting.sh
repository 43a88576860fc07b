# Threads that only wait (docs/stack-rules.md "Threads that only wait"):
# info reports them and their wall time apart (text and JSON), top, diff and
# diff --gate leave them out unless --keep-waiting, a profile keeps them
# labelled waiting=1 so that top of the profile equals top of the trace.
# Oracle: tests/tools/waiting_check.py (the written rule applied to the
# trace JSON with Python's json), and the trace with the oracle's waiting
# threads deleted (made here), whose top and gate with --keep-waiting
# must equal the original's without it.  Fixtures: the Kineto-shaped and the
# legacy torch 1.13 traces made for this (tests/data/chrome/
# torch113-waiting-threads: 4 waiting threads, a busy Python thread and
# one with an op that are not; torch113-legacy-threads: the legacy
# exporter writes no background thread), and the real Kineto traces (tracelens: tqdm's monitor thread
# waits; the others have none).  With the binary before this change 25 of
# its 29 checks fail (no "waiting" in info, top and diff count the waiting
# threads, --keep-waiting is a usage error); the 4 that pass were so before:
# no info line where no thread waits, top of a profile = top of its trace
# (twice), and top -q prints nothing on stderr.
. tests/lib.sh
W=$DATA/chrome/torch113-waiting-threads
K=$W/kineto-shaped.json.gz
TL=$DATA/chrome/tracelens-bert-small-h100/gaunernst_bert-small-uncased__1016001.json.gz

cmp_info() { # ORACLE INFO.json: info's waiting object = the oracle's
	python3 -c '
import json,sys
o=json.load(open(sys.argv[1])); w=json.load(open(sys.argv[2]))["waiting"]
assert w["wall_ns"] == o["waiting_wall_ns"], (w["wall_ns"], o["waiting_wall_ns"])
assert w["total_wall_ns"] == o["total_wall_ns"], (w["total_wall_ns"], o["total_wall_ns"])
got=sorted((t["labels"]["thread"], t["wall_ns"]) for t in w["threads"])
want=sorted((t["thread"] or str(t["tid"]), t["wall_ns"]) for t in o["threads"] if t["waiting"])
assert got == want, (got, want)' "$1" "$2"
}
top_total() { # TOP.json ORACLE WHICH: top's total = the oracle's total (less the waiting: WHICH=left)
	python3 -c '
import json,sys
t=json.load(open(sys.argv[1]))["total"]; o=json.load(open(sys.argv[2]))
want=o["total_wall_ns"] - (o["waiting_wall_ns"] if sys.argv[3] == "left" else 0)
assert t == want, (t, want)' "$1" "$2" "$3"
}
diff_total() { # DIFF.json ORACLE WHICH: diff's base and new totals, as top_total
	python3 -c '
import json,sys
t=json.load(open(sys.argv[1]))["total"]; o=json.load(open(sys.argv[2]))
want=o["total_wall_ns"] - (o["waiting_wall_ns"] if sys.argv[3] == "left" else 0)
assert t["base"] == want and t["new"] == want, (t, want)' "$1" "$2" "$3"
}
same() { [ -s "$1" ] && cmp "$1" "$2"; } # A B: the same, and not empty
# deftable [OPTIONS] INPUT: as lib.sh's table, but top as it is by default
deftable() { $TF -q top -n 0 --format json "$@" | python3 -c '
import json,sys
for f in sorted(json.load(sys.stdin)["functions"], key=lambda f: f["name"]):
    print(f["name"], f["self"], f["total"], f["calls"], sep="\t")'; }
strip_waiting() { # TRACE ORACLE OUT: the trace without the oracle's waiting threads' events
	python3 -c '
import gzip,json,sys
raw=gzip.open(sys.argv[1]).read()
doc=json.loads(raw); o=json.load(open(sys.argv[2]))
gone={(t["pid"], t["tid"]) for t in o["threads"] if t["waiting"]}
ev=doc["traceEvents"] if isinstance(doc, dict) else doc
ev[:]=[e for e in ev if (e.get("pid"), e.get("tid")) not in gone]
json.dump(doc, open(sys.argv[3], "w"))' "$1" "$2" "$3"
}

for f in "$K" "$DATA/chrome/torch113-legacy-threads/legacy.json.gz" "$TL" \
	"$DATA/chrome/kineto-resnet50-gpu/worker0.1623143089861.pt.trace.json.gz" \
	"$DATA/chrome/pytorch211-h200-gpt/trace.json.gz" \
	"$DATA/chrome/hta-amd-mi250-rocm/mi250_minitoy_train_ROCm6_2_kineto.json.gz"; do
	n=$(basename "$f")
	python3 tests/tools/waiting_check.py "$f" > "$TMP/o.json" || fail "$n: waiting_check.py"
	$TF -q info --format json "$f" > "$TMP/info.json" || fail "$n: info --format json"
	check "$n: info's waiting threads and their wall = the oracle's" cmp_info "$TMP/o.json" "$TMP/info.json"
done

python3 tests/tools/waiting_check.py "$K" > "$TMP/k.json"
python3 -c '
import json,sys
o={t["thread"].split("(")[1].rstrip(")"): t["waiting"] for t in json.load(open(sys.argv[1]))["threads"]}
assert o == {"MainThread": False, "q_worker": True, "recv_worker": True, "sleep_worker": True,
	     "event_worker": True, "busy_worker": False, "op_worker": False}, o' "$TMP/k.json" ||
	fail "kineto-shaped: the oracle finds the 4 blocked threads waiting, not main, busy_worker, op_worker"
python3 tests/tools/waiting_check.py "$TL" > "$TMP/tl.json"

# info's text: the line and one row per thread
$TF -q info "$K" > "$TMP/info.txt"
check "info (text): 4 waiting threads and their share" grep -q '^waiting threads: 4, 851.812 ms of 1.46858 s wall (58.0%)' "$TMP/info.txt"
check "info (text): one row per waiting thread" test "$(grep -c '^  pid=.* thread=thread .*_worker): ' "$TMP/info.txt")" = 4
$TF -q info "$DATA/chrome/pytorch211-h200-gpt/trace.json.gz" > "$TMP/info2.txt"
check "info (text): no line where no thread waits" sh -c "! grep -q '^waiting threads' '$TMP/info2.txt'"

for t in "$K:k" "$TL:tl"; do
	f=${t%:*} o=$TMP/${t#*:}.json n=$(basename "$f")
	$TF -q top -n 0 --format json "$f" > "$TMP/top.json"
	check "$n: top leaves the waiting threads out" top_total "$TMP/top.json" "$o" left
	$TF -q top -n 0 --format json --keep-waiting "$f" > "$TMP/topk.json"
	check "$n: top --keep-waiting keeps them" top_total "$TMP/topk.json" "$o" kept
	$TF -q diff --format json "$f" "$f" > "$TMP/diff.json"
	check "$n: diff leaves them out" diff_total "$TMP/diff.json" "$o" left
	$TF -q diff --format json --keep-waiting "$f" "$f" > "$TMP/diffk.json"
	check "$n: diff --keep-waiting keeps them" diff_total "$TMP/diffk.json" "$o" kept
	# leaving them out = deleting them from the trace
	strip_waiting "$f" "$o" "$TMP/stripped.json"
	deftable "$f" > "$TMP/t1"
	table --keep-waiting "$TMP/stripped.json" > "$TMP/t2"
	check "$n: top = top --keep-waiting of the trace without the waiting threads" same "$TMP/t1" "$TMP/t2"
	# a profile keeps them, labelled: top of it = top of the trace, with and without the option
	$TF -q profile "$f" -o "$TMP/p.pb.gz"
	deftable "$TMP/p.pb.gz" > "$TMP/t3"
	check "$n: top of the profile = top of the trace" same "$TMP/t1" "$TMP/t3"
	table --keep-waiting "$f" > "$TMP/t4"
	table --keep-waiting "$TMP/p.pb.gz" > "$TMP/t5"
	check "$n: top --keep-waiting of the profile = of the trace" same "$TMP/t4" "$TMP/t5"
done
check "the profile labels the waiting samples waiting=1" sh -c \
	"go tool pprof -tags '$TMP/p.pb.gz' 2>/dev/null | grep -A1 ' waiting: ' | grep -q '100%): 1$'"

# the gate: the per-step values without the waiting threads = those of the trace without them
strip_waiting "$K" "$TMP/k.json" "$TMP/kstripped.json"
gate_total() { $TF -q diff --gate --format json "$@" | python3 -c 'import json,sys; print(json.load(sys.stdin)["total"]["base"])'; }
a=$(gate_total "$K" "$K") b=$(gate_total --keep-waiting "$TMP/kstripped.json" "$TMP/kstripped.json")
c=$(gate_total --keep-waiting "$K" "$K")
check "diff --gate: per-step total without the waiting threads ($a) = the stripped trace's ($b)" test "$a" = "$b"
check "diff --gate --keep-waiting: their time in the steps counts ($c > $a)" python3 -c "assert $c > $a"
$TF diff --gate "$K" "$K" > /dev/null 2> "$TMP/gate.err"
check "diff --gate says what it left out" grep -q 'left out 4 threads that only wait (1.704 s wall' "$TMP/gate.err"
$TF top "$K" > /dev/null 2> "$TMP/top.err"
check "top says what it left out, on stderr" grep -q 'left out 4 threads that only wait (851.81 ms wall' "$TMP/top.err"
$TF -q top "$K" > /dev/null 2> "$TMP/topq.err"
check "top -q says nothing" test ! -s "$TMP/topq.err"
finish
