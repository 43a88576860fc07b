#!/bin/sh
# bench/gen-real.py kineto --rank (issue 33's multi-GB sets, bench/bench-gb.sh):
# N copies of a real Kineto trace read as one rank's trace: the rank from
# distributedInfo.rank (written when the trace has none: the single-process
# PyTorch 2.11 fixture; replaced when it has one), every event N times but
# the metadata once.
. tests/lib.sh

K=$DATA/chrome/pytorch211-h200-gpt/trace.json.gz
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
