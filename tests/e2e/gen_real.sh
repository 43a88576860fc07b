# bench/gen-real.py (issue 33's real-trace benchmarks: docs/performance.md)
# makes large traces out of real ones; what they measure is only worth
# something if the copies are the real trace again: K copies of the PyTorch
# 2.11 GPU trace give every function K times its calls, self and total
# time (Python frames under their parents by the moved ids, GPU work under
# its launch by the moved correlation ids), K times its steps, and their
# bytes are the original's but for the moved numbers; copies of the legacy
# trace go round robin onto 3 threads.  --rank R (bench/bench-gb.sh's
# 8-rank sets): a trace without distributedInfo gets one and reads as rank
# R, a ranked one has its rank replaced; the metadata is written once.
. tests/lib.sh
K=$DATA/chrome/pytorch211-h200-gpt/trace.json.gz L=$DATA/chrome/pytorch-legacy-small/trace.json
ktimes() { # A.tsv B.tsv K: every row of B is K times A's
	python3 - "$@" <<'PY'
import sys
a = {l.split('\t')[0]: l.rstrip('\n').split('\t')[1:] for l in open(sys.argv[1])}
b = {l.split('\t')[0]: l.rstrip('\n').split('\t')[1:] for l in open(sys.argv[2])}
k = int(sys.argv[3])
bad = sorted(set(a) ^ set(b)) + [n for n in a if n in b and [k * int(x) for x in a[n]] != [int(x) for x in b[n]]]
print(len(a), "functions;", len(bad), "not", k, "times:", bad[:3])
sys.exit(1 if bad or not a else 0)
PY
}
check "kineto: 3 copies made" python3 bench/gen-real.py kineto "$K" "$TMP/k3.json" 3
check "... strict JSON" python3 -c 'import json,sys; json.load(open(sys.argv[1]))' "$TMP/k3.json"
table "$K" > "$TMP/a.tsv"; table "$TMP/k3.json" > "$TMP/b.tsv"
check "... every function: 3 x calls, self and total wall" ktimes "$TMP/a.tsv" "$TMP/b.tsv" 3
table --sample-type gpu "$K" > "$TMP/ga.tsv"; table --sample-type gpu "$TMP/k3.json" > "$TMP/gb.tsv"
[ -s "$TMP/ga.tsv" ] && check "... GPU time under the launches: 3 x" ktimes "$TMP/ga.tsv" "$TMP/gb.tsv" 3 ||
	fail "no GPU profile of $K"
steps() { "$TF" -q overview --format json "$1" | python3 -c 'import json,sys; print(json.load(sys.stdin)["run"]["rank_steps"])'; }
[ "$(steps "$K")" = 3 ] && [ "$(steps "$TMP/k3.json")" = 9 ] && ok "... 9 steps (3 x 3)" ||
	fail "steps: $(steps "$K") -> $(steps "$TMP/k3.json")"
# the bytes: each copy's events are the original's text with only the moved numbers changed
python3 - "$K" "$TMP/k3.json" > "$TMP/bytes.txt" <<'PY' && ok "... each event's text is the original's but for ts, ids and step numbers" || { fail "event text changed"; head -3 "$TMP/bytes.txt" | sed 's/^/#   /'; }
import gzip, re, sys
num = re.compile(r'("(?:ts|External id|correlation|id|Python id|Python parent id|Sequence number)": )-?\d+(\.\d+)?|ProfilerStep#\d+')
def events(text):
    body = text[text.index('[', text.index('"traceEvents"')) + 1:text.rindex(']')]
    return [num.sub('N', e).strip().strip('{}').strip() for e in re.split(r'\},\s*\{', body)]
a = events(gzip.open(sys.argv[1], 'rt').read())
b = events(open(sys.argv[2]).read())
orig = set(a)
bad = [e for e in b if e not in orig and not e.lstrip().startswith('"ph": "M"')]
print(len(b), "events,", len(bad), "not in the original:", bad[:1])
sys.exit(1 if bad else 0)
PY
check "legacy: 6 copies made" python3 bench/gen-real.py legacy "$L" "$TMP/l6.json" 6
table "$L" > "$TMP/la.tsv"; table "$TMP/l6.json" > "$TMP/lb.tsv"
check "... every function: 6 x calls, self and total wall" ktimes "$TMP/la.tsv" "$TMP/lb.tsv" 6
th=$("$TF" -q info --format json "$TMP/l6.json" | python3 -c 'import json,sys; print(len(json.load(sys.stdin)["threads"]))')
[ "$th" = 3 ] && ok "... on 3 threads" || fail "legacy copies on $th threads, want 3"
expect_exit 2 "a mode it does not know: usage, exit 2" python3 bench/gen-real.py nosuch "$L" "$TMP/x.json" 2
python3 bench/gen-real.py kineto "$K" "$TMP/a.json" 2 --rank 5 || fail "gen-real.py kineto 2 copies --rank 5"
$TF info "$K" > "$TMP/i1" 2>&1
$TF info "$TMP/a.json" > "$TMP/i2" 2>&1
grep -q "^processes: .*(ranks 5)" "$TMP/i2" && ok "no distributedInfo: one written, rank 5" ||
	fail "no distributedInfo: one written, rank 5"
n1=$(sed -n 's/^input 0: .*(format chrome, \([0-9]*\) events)/\1/p' "$TMP/i1")
n2=$(sed -n 's/^input 0: .*(format chrome, \([0-9]*\) events)/\1/p' "$TMP/i2")
m=$(awk '$2 == "ev_metadata" { print $1 }' "$TMP/i1")
[ -n "$n1" ] && [ -n "$m" ] && [ "$n2" = $((2 * n1 - m)) ] && ok "2 copies: $n2 events = 2 x $n1 - $m metadata" ||
	fail "2 copies: $n2 events, not 2 x $n1 - $m metadata"
python3 bench/gen-real.py kineto "$DATA/chrome/overview-handmade/rank1.json" "$TMP/b.json" 2 --rank 6 ||
	fail "gen-real.py kineto --rank 6 of a ranked trace"
$TF info "$TMP/b.json" > "$TMP/i3" 2>&1
grep -q "^processes: .*(ranks 6)" "$TMP/i3" && [ "$(grep -c distributedInfo "$TMP/b.json")" = 1 ] &&
	ok "distributedInfo.rank 1 replaced by 6, not added twice" || fail "distributedInfo.rank 1 replaced by 6"
finish
