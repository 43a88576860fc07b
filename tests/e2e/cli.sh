# top, diff, merge and the pprof reader, checked against pprof itself
# (go tool pprof), an independent protobuf decoder (tests/tools/pprof.py) and
# numbers written into the test's own profiles.
. tests/lib.sh
P="python3 tests/tools/pprof.py"
dump() { $P dump "$1"; }
jq_py() { c=$1; shift; python3 -c "import json,sys; d=json.load(open(sys.argv[1])); $c" "$@"; }

# --- test profiles, written by the independent encoder ---------------------
# 3 ranks; kernel: 20/22/24 ms inclusive per rank, io 3/1/2 ms
cat > "$TMP/all.spec" <<'EOF'
type wall nanoseconds
type calls count
default wall
time 1700000000000000000 90000000
sample main 100 1 rank=0 thread=main
sample main;compute 5000000 10 rank=0 thread=main
sample main;compute;kernel 20000000 100 rank=0 thread=main
sample main;io 3000000 5 rank=0 thread=main
sample main;compute 6000000 10 rank=1 thread=main
sample main;compute;kernel 22000000 100 rank=1 thread=main
sample main;io 1000000 5 rank=1 thread=main
sample main;compute;rec;rec;rec 700 3 rank=1 thread=worker
sample main;compute 4000000 10 rank=2 thread=main
sample main;compute;kernel 24000000 100 rank=2 thread=main
sample main;io 2000000 5 rank=2 thread=main
EOF
for r in 0 1 2; do
	{ head -4 "$TMP/all.spec"; grep "rank=$r " "$TMP/all.spec"; } > "$TMP/r$r.spec"
	$P make "$TMP/r$r.spec" "$TMP/r$r.pb.gz"
done
$P make "$TMP/all.spec" "$TMP/all.pb.gz"
# NEW: kernel 50% slower on rank 0 (+10 ms); everything else equal
sed 's/^sample main;compute;kernel 20000000 /sample main;compute;kernel 30000000 /' "$TMP/all.spec" > "$TMP/slow.spec"
$P make "$TMP/slow.spec" "$TMP/slow.pb.gz"

# --- a foreign profile: Go runtime CPU profile (inlined frames) -----------
if go build -o "$TMP/gocpu" tests/tools/gocpu/main.go 2>"$TMP/err" && "$TMP/gocpu" "$TMP/go.pb.gz"; then
	ok "built and ran a Go runtime/pprof CPU profiler"
else
	fail "build the Go CPU profiler"; sed 's/^/#   /' "$TMP/err"
fi

# --- pprof reader: round trips ------------------------------------------------
check "merge of one profile" $TF merge "$TMP/all.pb.gz" -o "$TMP/rt.pb.gz"
dump "$TMP/all.pb.gz" > "$TMP/d1"; dump "$TMP/rt.pb.gz" > "$TMP/d2"
check "round trip pprof -> agg -> pprof keeps every sample (independent decoder)" cmp "$TMP/d1" "$TMP/d2"
check "round trip of a round trip is byte-identical" sh -c "$TF merge '$TMP/rt.pb.gz' -o '$TMP/rt2.pb.gz' && $P dump '$TMP/rt2.pb.gz' | cmp - '$TMP/d2'"
check "Go CPU profile reads back with the same samples" sh -c "$TF merge '$TMP/go.pb.gz' -o '$TMP/go-rt.pb.gz' && $P dump '$TMP/go.pb.gz' > '$TMP/g1' && $P dump '$TMP/go-rt.pb.gz' | cmp - '$TMP/g1'"
# its mappings (the Go binary first) become our one symbolized mapping, named like its first
one_mapping() { # PROFILE NAME
	$P mappings "$1" > "$TMP/gm" && [ "$(sed -n 1p "$TMP/gm")" = "mapping 1 $2 0 0 0 1 1 1 0" ] &&
		[ "$(wc -l < "$TMP/gm")" -eq 2 ] && grep -Eq '^locations [1-9][0-9]* mapping_ids 1$' "$TMP/gm"
}
gofile=$($P mappings "$TMP/go.pb.gz" | sed -n '1s/^mapping [0-9]* \([^ ]*\) .*/\1/p')
check "Go CPU profile: the merge has one mapping named like its first ($gofile), every location in it" one_mapping "$TMP/go-rt.pb.gz" "$gofile"
gunzip -c "$TMP/all.pb.gz" > "$TMP/raw.pb"
check "an uncompressed profile.proto is read too" sh -c "$TF top --format json '$TMP/raw.pb' > '$TMP/rawtop.json'"
$P make /dev/stdin "$TMP/bad.pb.gz" <<'EOF'
type wall nanoseconds
sample a 1
EOF
# corrupt it: string_table[0] must be "" -- re-encode with a non-empty first string
python3 - "$TMP/bad.pb.gz" <<'EOF'
import gzip, sys
b = gzip.decompress(open(sys.argv[1], "rb").read())
i = b.index(b"\x32\x00")  # the first string_table entry, ""
b = b[:i] + b"\x32\x01X" + b[i + 2:]
open(sys.argv[1], "wb").write(gzip.compress(b))
EOF
expect_exit 3 "invalid profile (string_table[0] not empty) is an input error" $TF top "$TMP/bad.pb.gz"
grep -q "bad.pb.gz.*string_table\[0\]" "$TMP/err" && ok "invalid profile error names the file and the rule" || { fail "invalid profile error names the file and the rule"; sed 's/^/#   /' "$TMP/err"; }

# --- top vs go tool pprof -top --------------------------------------------------
for p in all go; do
	go tool pprof -top -unit=ns -nodefraction=0 -nodecount=1000000 "$TMP/$p.pb.gz" > "$TMP/ptop.txt" 2>/dev/null
	$TF top --format json -n 0 "$TMP/$p.pb.gz" > "$TMP/ttop.json"
	check "top self/total of every function == pprof flat/cum ($p.pb.gz)" python3 tests/tools/cmp_top.py "$TMP/ptop.txt" "$TMP/ttop.json"
done
$TF top --format json "$TMP/all.pb.gz" > "$TMP/top.json"
check "top JSON: totals, shares, order, calls" jq_py '
f = {x["name"]: x for x in d["functions"]}
assert d["schema"] == "tracefold-top/1" and d["sample_type"] == "wall" and d["value_unit"] == "nanoseconds", d
assert d["total"] == 87000800 and d["calls_total"] == 349, (d["total"], d["calls_total"])
assert sum(x["self"] for x in d["functions"]) == d["total"]
assert [x["name"] for x in d["functions"]] == ["kernel", "compute", "io", "rec", "main"], [x["name"] for x in d["functions"]]
assert f["kernel"]["self"] == 66000000 and f["kernel"]["calls"] == 300
assert f["compute"]["total"] == 81000700 and f["main"]["total"] == d["total"]
assert f["rec"]["self"] == 700 and f["rec"]["total"] == 700, f["rec"]   # recursion counted once
assert abs(f["kernel"]["self_pct"] - 100 * 66000000 / 87000800) < 1e-3
' "$TMP/top.json"
check "top JSON: per-rank min/mean/max/imbalance of inclusive time" jq_py '
assert d["ranks"] == 3
k = {x["name"]: x for x in d["functions"]}["kernel"]["rank_total"]
assert (k["min"], k["mean"], k["max"]) == (20000000, 22000000, 24000000), k
assert abs(k["imbalance"] - 24 / 22) < 1e-3, k
i = {x["name"]: x for x in d["functions"]}["io"]["rank_total"]
assert (i["min"], i["max"]) == (1000000, 3000000) and abs(i["imbalance"] - 1.5) < 1e-3, i
' "$TMP/top.json"
$TF top --format json --by calls -n 2 "$TMP/all.pb.gz" > "$TMP/calls.json"
check "top --by calls -n 2" jq_py 'assert [x["name"] for x in d["functions"]] == ["kernel", "compute"] and len(d["functions"]) == 2' "$TMP/calls.json"
$TF top --format json --by total "$TMP/all.pb.gz" > "$TMP/tot.json"
check "top --by total" jq_py 'assert [x["name"] for x in d["functions"]][:3] == ["main", "compute", "kernel"]' "$TMP/tot.json"
$TF top --format json --sample-index calls "$TMP/all.pb.gz" > "$TMP/si.json"
check "top --sample-index calls" jq_py 'assert d["sample_type"] == "calls" and d["total"] == 349 and d["calls_total"] is None' "$TMP/si.json"
$TF top --format json "$TMP/r0.pb.gz" "$TMP/r1.pb.gz" "$TMP/r2.pb.gz" > "$TMP/top3.json"
jq_py 'print(json.dumps(d["functions"]))' "$TMP/top.json" > "$TMP/f1" ; jq_py 'print(json.dumps(d["functions"]))' "$TMP/top3.json" > "$TMP/f2"
check "top of three per-rank profiles has the same rows as the whole" cmp "$TMP/f1" "$TMP/f2"
$TF top "$TMP/all.pb.gz" > "$TMP/top.txt"
check "top text: aligned columns, times with units" python3 - "$TMP/top.txt" <<'EOF'
import sys
lines = open(sys.argv[1]).read().splitlines()
assert lines[0].startswith("wall (nanoseconds): total 87.00 ms, 349 calls in 5 functions, 3 ranks"), lines[0]
hdr = lines[1]
col = hdr.index("function")
for l in lines[2:]:
    assert l[col - 2:col] == "  " and l[col] != " ", (l, col)
    assert len(l[:col]) == len(hdr[:col])
k = [l for l in lines if l.endswith("  kernel")][0]
assert "66.00 ms" in k and "75.86%" in k and "22.00 ms" in k and "1.09" in k, k
EOF
$TF top --format markdown "$TMP/all.pb.gz" > "$TMP/top.md"
check "top Markdown is a well-formed GitHub table" python3 tests/tools/check_md.py "$TMP/top.md" 10 5
$TF top --format markdown "$TMP/go.pb.gz" > "$TMP/gotop.md"
check "top Markdown without calls or ranks" python3 tests/tools/check_md.py "$TMP/gotop.md" 5

# --- diff ---------------------------------------------------------------------
expect_exit 0 "diff A A --fail-above 0 exits 0" $TF diff --fail-above 0 --format json "$TMP/all.pb.gz" "$TMP/all.pb.gz"
cp "$TMP/out" "$TMP/same.json"
check "diff A A reports no change" jq_py '
assert not d["regression"] and d["total"]["delta"] == 0 and d["new_count"] == 0 and d["gone_count"] == 0
assert all(r["self"]["delta"] == 0 and r["total"]["delta"] == 0 and r["status"] == "both" for r in d["rows"]), d["rows"]
' "$TMP/same.json"
expect_exit 0 "diff of per-rank profiles (comma-joined) against the whole: no change" $TF diff --fail-above 0 "$TMP/r2.pb.gz,$TMP/r0.pb.gz,$TMP/r1.pb.gz" "$TMP/all.pb.gz"
expect_exit 1 "diff with a slower kernel exits 1 with --fail-above 10" $TF diff --fail-above 10 --format json "$TMP/all.pb.gz" "$TMP/slow.pb.gz"
cp "$TMP/out" "$TMP/diff.json"; cp "$TMP/err" "$TMP/diff.err"
check "diff names the slower function first, with the right numbers" jq_py '
r = d["rows"][0]
assert r["name"] == "kernel" and r["regressed"], r
assert r["self"] == {"base": 66000000, "new": 76000000, "delta": 10000000, "delta_pct": round(100 * 10 / 66, 4)}, r["self"]
assert d["total"]["delta"] == 10000000 and d["regression"] and d["total_regressed"] is True
assert [x["name"] for x in d["rows"] if x["regressed"]] == ["kernel"]
' "$TMP/diff.json"
grep -q "regression: function 'kernel' self wall time grew by 15.2%" "$TMP/diff.err" && ok "diff says why on stderr" || { fail "diff says why on stderr"; sed 's/^/#   /' "$TMP/diff.err"; }
expect_exit 0 "the same diff under a 20% threshold passes" $TF diff --fail-above 20 "$TMP/all.pb.gz" "$TMP/slow.pb.gz"
grep -q "no regression above 20%" "$TMP/out" && ok "diff prints the verdict" || fail "diff prints the verdict"
expect_exit 0 "a 15% growth of a function below --min-share is not a regression" $TF diff --fail-above 12 --min-share 80 "$TMP/all.pb.gz" "$TMP/slow.pb.gz"
expect_exit 1 "total growth above the threshold is a regression" $TF diff --fail-above 10 --min-share 100 "$TMP/all.pb.gz" "$TMP/slow.pb.gz"
expect_exit 1 "total growth above 5% with no function checked (min-share 101)" $TF diff --fail-above 5 --min-share 101 "$TMP/all.pb.gz" "$TMP/slow.pb.gz"
grep -q "the total wall grew by 11.5%" "$TMP/err" && ok "total regression is explained" || { fail "total regression is explained"; sed 's/^/#   /' "$TMP/err"; }
expect_exit 0 "--normalize: kernel's share grew by less than 5%" $TF diff --normalize --fail-above 5 --format json "$TMP/all.pb.gz" "$TMP/slow.pb.gz"
cp "$TMP/out" "$TMP/norm.json"
check "--normalize scales NEW to BASE's total" jq_py '
assert d["normalized"] and d["total"]["new"] == d["total"]["base"] == 87000800, d["total"]
k = d["rows"][0]; assert k["name"] == "kernel" and k["self"]["new"] == round(76000000 * 87000800 / 97000800), k
' "$TMP/norm.json"
$TF diff --paths --format json "$TMP/all.pb.gz" "$TMP/slow.pb.gz" > "$TMP/paths.json"
check "diff --paths: the slower call path first" jq_py 'assert d["paths"] and d["rows"][0]["name"] == "main;compute;kernel" and d["rows"][0]["total"]["delta"] == 10000000, d["rows"][0]' "$TMP/paths.json"
$TF diff --format json "$TMP/r0.pb.gz" "$TMP/r1.pb.gz" > "$TMP/newgone.json"
check "diff: new functions are flagged" jq_py 'r = {x["name"]: x for x in d["rows"]}; assert r["rec"]["status"] == "new" and r["rec"]["self"]["delta_pct"] is None and d["new_count"] == 1, r["rec"]' "$TMP/newgone.json"
$TF diff --format json "$TMP/r1.pb.gz" "$TMP/r0.pb.gz" > "$TMP/gone.json"
check "diff: vanished functions are flagged" jq_py 'r = {x["name"]: x for x in d["rows"]}; assert r["rec"]["status"] == "gone" and r["rec"]["self"]["new"] == 0 and d["gone_count"] == 1' "$TMP/gone.json"
expect_exit 1 "a new function above --min-share is a regression" $TF diff --fail-above 1000 --min-share 0 "$TMP/r0.pb.gz" "$TMP/r1.pb.gz"
grep -q "new function 'rec'" "$TMP/err" && ok "new function regression is explained" || { fail "new function regression is explained"; sed 's/^/#   /' "$TMP/err"; }
$TF diff --format markdown --fail-above 10 "$TMP/all.pb.gz" "$TMP/slow.pb.gz" > "$TMP/diff.md" 2>/dev/null
check "diff Markdown is a well-formed GitHub table" python3 tests/tools/check_md.py "$TMP/diff.md" 9 5
grep -q '^\*\*REGRESSION: 1 function above 10%' "$TMP/diff.md" && ok "diff Markdown carries the verdict" || fail "diff Markdown carries the verdict"
$TF diff -n 2 "$TMP/all.pb.gz" "$TMP/slow.pb.gz" > "$TMP/diff.txt"
check "diff text: -n 2 rows, kernel first, the rest counted" python3 - "$TMP/diff.txt" <<'EOF'
import sys
l = open(sys.argv[1]).read().splitlines()
assert l[0].startswith("wall (nanoseconds): total 87.00 ms -> 97.00 ms (+10.00 ms, +11.5%)"), l[0]
assert l[2].endswith("  kernel") and "+10.00 ms" in l[2] and "+15.2%" in l[2], l[2]
assert l[4] == "(3 more functions not shown; -n 0 shows all)", l[4]
EOF
# a sample type one side lacks is 0 there (a profile with Kineto [memory] events against one without)
expect_exit 0 "diff of profiles without a common sample type: the type BASE has is 0 in NEW" $TF diff "$TMP/all.pb.gz" "$TMP/go.pb.gz"
grep -q "^wall (nanoseconds): total 87.00 ms -> 0 (-87.00 ms, gone)" "$TMP/out" && ok "... every function gone" || { fail "... every function gone"; sed 's/^/#   /' "$TMP/out" | head -3; }
expect_exit 0 "diff --sample-type cpu: a type only NEW has may be named" $TF diff --sample-type cpu "$TMP/all.pb.gz" "$TMP/go.pb.gz"
grep -q "^cpu (nanoseconds): total 0 -> " "$TMP/out" && ok "... from 0" || { fail "... from 0"; sed 's/^/#   /' "$TMP/out" | head -3; }
# pprof's own diff works on our profiles
go tool pprof -top -unit=ns -nodefraction=0 -diff_base "$TMP/all.pb.gz" "$TMP/slow.pb.gz" > "$TMP/pdiff.txt" 2>"$TMP/err"
check "go tool pprof -diff_base on our profiles: kernel +10 ms flat" grep -Eq "^ *10000000ns .* kernel$" "$TMP/pdiff.txt"
$TF merge "$TMP/all.pb.gz" -o "$TMP/m-all.pb.gz"; $TF merge "$TMP/slow.pb.gz" -o "$TMP/m-slow.pb.gz"
go tool pprof -top -unit=ns -nodefraction=0 -diff_base "$TMP/m-all.pb.gz" "$TMP/m-slow.pb.gz" > "$TMP/pdiff2.txt" 2>"$TMP/err"
check "go tool pprof -diff_base on tracefold-written profiles" grep -Eq "^ *10000000ns .* kernel$" "$TMP/pdiff2.txt"

# --- merge ---------------------------------------------------------------------
dump "$TMP/all.pb.gz" > "$TMP/want"
for order in "0 1 2" "2 1 0" "1 2 0"; do
	set -- $order
	$TF merge "$TMP/r$1.pb.gz" "$TMP/r$2.pb.gz" "$TMP/r$3.pb.gz" -o "$TMP/m.pb.gz"
	dump "$TMP/m.pb.gz" > "$TMP/got"
	check "merge of per-rank profiles (order $order) == the profile of all ranks" cmp "$TMP/want" "$TMP/got"
done
$TF merge "$TMP/r0.pb.gz" "$TMP/r1.pb.gz" -o "$TMP/m01.pb.gz" && $TF merge "$TMP/m01.pb.gz" "$TMP/r2.pb.gz" -o "$TMP/ma.pb.gz"
$TF merge "$TMP/r1.pb.gz" "$TMP/r2.pb.gz" -o "$TMP/m12.pb.gz" && $TF merge "$TMP/r0.pb.gz" "$TMP/m12.pb.gz" -o "$TMP/mb.pb.gz"
dump "$TMP/ma.pb.gz" > "$TMP/ga"; dump "$TMP/mb.pb.gz" > "$TMP/gb"
check "merge is associative: (r0+r1)+r2 == r0+(r1+r2) == all" sh -c "cmp '$TMP/ga' '$TMP/gb' && cmp '$TMP/ga' '$TMP/want'"
go tool pprof -raw "$TMP/ma.pb.gz" > "$TMP/raw.txt" 2>&1
check "go tool pprof -raw reads the merged profile" grep -q "^PeriodType: wall nanoseconds" "$TMP/raw.txt"
check "merged profile keeps the span" grep -q "^Duration: 90ms" "$TMP/raw.txt"
expect_exit 0 "merge of a Go CPU profile and ours (different sample types): the union of the types" $TF merge "$TMP/all.pb.gz" "$TMP/go.pb.gz" -o "$TMP/union.pb.gz"
go tool pprof -raw "$TMP/union.pb.gz" > "$TMP/union.txt" 2>&1
check "... go tool pprof reads all four types" grep -q "^wall/nanoseconds\(\[dflt\]\)\? calls/count samples/count cpu/nanoseconds" "$TMP/union.txt"
a=$($P total "$TMP/go.pb.gz" cpu); b=$($P total "$TMP/union.pb.gz" cpu); c=$($P total "$TMP/all.pb.gz" wall); d=$($P total "$TMP/union.pb.gz" wall)
check "... each type's total is its own input's ($a, $c)" test "$a/$c" = "$b/$d"
# one name in two units cannot be added up
printf 'main;f 5\n' > "$TMP/us.folded"
expect_exit 3 "merge of wall/microseconds and wall/nanoseconds fails" $TF merge --folded-type wall/microseconds "$TMP/all.pb.gz" "$TMP/us.folded" -o "$TMP/bad-merge.pb.gz"
grep -q "sample type 'wall' has another unit" "$TMP/err" && grep -q "wall/microseconds" "$TMP/err" \
	&& ok "the clash message names the type and both units" || { fail "the clash message names the type and both units"; sed 's/^/#   /' "$TMP/err"; }
[ ! -e "$TMP/bad-merge.pb.gz" ] && ok "no output written on a clash" || fail "no output written on a clash"
$TF merge "$TMP/go.pb.gz" "$TMP/go.pb.gz" -o "$TMP/go2.pb.gz"
a=$($P total "$TMP/go.pb.gz" cpu); b=$($P total "$TMP/go2.pb.gz" cpu)
check "merge of a Go CPU profile with itself doubles it ($a -> $b)" test "$b" -eq $((2 * a))

# --- exit codes and usage --------------------------------------------------------
for c in top diff merge; do
	expect_exit 0 "$c --help" $TF $c --help
	expect_exit 2 "$c with an unknown option" $TF $c --bogus "$TMP/all.pb.gz"
done
expect_exit 2 "top without input" $TF top
expect_exit 2 "top --by nonsense" $TF top --by nonsense "$TMP/all.pb.gz"
expect_exit 2 "top --format nonsense" $TF top --format xml "$TMP/all.pb.gz"
expect_exit 2 "top -n needs a number" $TF top -n x "$TMP/all.pb.gz"
expect_exit 3 "top --sample-index of a missing type" $TF top --sample-index bogus "$TMP/all.pb.gz"
expect_exit 3 "top of a missing file" $TF top "$TMP/missing.pb.gz"
expect_exit 2 "diff with one input" $TF diff "$TMP/all.pb.gz"
expect_exit 2 "diff with three inputs" $TF diff "$TMP/all.pb.gz" "$TMP/all.pb.gz" "$TMP/all.pb.gz"
expect_exit 2 "diff --fail-above needs a percentage" $TF diff --fail-above ten "$TMP/all.pb.gz" "$TMP/all.pb.gz"
expect_exit 3 "diff with a missing baseline" $TF diff "$TMP/missing.pb.gz" "$TMP/all.pb.gz"
expect_exit 2 "merge without -o" $TF merge "$TMP/all.pb.gz"
expect_exit 2 "merge without input" $TF merge -o "$TMP/x.pb.gz"
expect_exit 3 "merge to an unwritable place" $TF merge "$TMP/all.pb.gz" -o "$TMP/no/such/dir/x.pb.gz"
for s in "## tracefold top" "## tracefold diff" "## tracefold merge"; do
	grep -q "^$s\$" docs/cli.md && ok "docs/cli.md has '$s'" || fail "docs/cli.md has '$s'"
done
for o in --count --by --format --sample-index --input-format --fail-above --min-share --normalize --paths --output; do
	grep -q -- "$o" docs/cli.md && ok "docs/cli.md documents $o" || fail "docs/cli.md documents $o"
done

# --- Chrome traces (when the Chrome reader is built in) -----------------------------
t=$DATA/chrome/pytorch-legacy-small/trace.json
if [ -f "$t" ] && $TF -q profile "$t" -o "$TMP/c.pb.gz" 2>/dev/null; then
	python3 tests/tools/slow_chrome.py "aten::addmm" 3 "$t" "$TMP/slow.json"
	$TF -q profile "$TMP/slow.json" -o "$TMP/cslow.pb.gz"
	expect_exit 1 "Chrome trace with aten::addmm 3x slower: diff exits 1" $TF -q diff --fail-above 10 --format json "$t" "$TMP/slow.json"
	cp "$TMP/out" "$TMP/cdiff.json"
	check "diff of the traces names aten::addmm first" jq_py 'assert d["rows"][0]["name"] == "aten::addmm" and d["rows"][0]["regressed"], d["rows"][:2]' "$TMP/cdiff.json"
	expect_exit 0 "diff of a trace with itself exits 0" $TF -q diff --fail-above 0 "$t" "$t"
	$TF -q top --format json - < "$t" > "$TMP/stdin.json" && $TF -q top --format json "$t" > "$TMP/file.json"
	check "top of a trace on stdin == top of the file" jq_py 'e = json.load(open(sys.argv[2])); assert d["functions"] == e["functions"] and d["total"] == e["total"] > 0' "$TMP/stdin.json" "$TMP/file.json"
	expect_exit 0 "diff of a trace with its profile: no change" $TF -q diff --fail-above 0 "$t" "$TMP/c.pb.gz"
	go tool pprof -top -unit=ns -nodefraction=0 -nodecount=1000000 "$TMP/c.pb.gz" > "$TMP/ptop.txt" 2>/dev/null
	$TF -q top --format json -n 0 "$t" > "$TMP/ttop.json"
	check "top of the Chrome trace == go tool pprof -top of its profile" python3 tests/tools/cmp_top.py "$TMP/ptop.txt" "$TMP/ttop.json"
	ci_trace=$PWD/$t; ci_slow=$TMP/slow.json
else
	ok "# SKIP Chrome-trace checks: no Chrome reader or fixture yet (the CI step below runs on profiles)"
	ci_trace=$TMP/all.pb.gz; ci_slow=$TMP/slow.pb.gz
fi

# --- TAU MPI traces (when the TAU reader is built in) -----------------------------------
d=$DATA/tau/mpi_small
if [ -d "$d" ] && $TF -q profile "$d" -o "$TMP/tau-all.pb.gz" 2>/dev/null; then
	$TF -q profile "$d/tautrace.1.0.0.trc" -o "$TMP/tau1.pb.gz"
	$TF -q profile "$d/tautrace.0.0.0.trc" -o "$TMP/tau0.pb.gz"
	$TF merge "$TMP/tau1.pb.gz" "$TMP/tau0.pb.gz" -o "$TMP/tau-m.pb.gz"
	dump "$TMP/tau-all.pb.gz" > "$TMP/ta"; dump "$TMP/tau-m.pb.gz" > "$TMP/tb"
	check "TAU: merge of the per-rank profiles (1, 0) == the profile of the trace directory" cmp "$TMP/ta" "$TMP/tb"
	check "TAU: the per-rank dump is not empty" test "$(grep -c rank= "$TMP/ta")" -gt 10
	$TF -q top --format json -n 5 "$d" > "$TMP/tautop.json"
	for r in 0 1; do
		go tool pprof -top -unit=ns -nodefraction=0 -nodecount=1000000 "-tagfocus=rank=^$r\$" "$TMP/tau-all.pb.gz" > "$TMP/tau-r$r.txt" 2>/dev/null
	done
	check "TAU: top's per-rank min/max == pprof -tagfocus=rank=N cum" python3 - "$TMP/tautop.json" "$TMP/tau-r0.txt" "$TMP/tau-r1.txt" <<'PY'
import json, re, sys
d = json.load(open(sys.argv[1]))
assert d["ranks"] == 2, d["ranks"]
cums = []
for f in sys.argv[2:]:
    c = {}
    for l in open(f):
        m = re.match(r"^\s*(\S+)\s+\S+%\s+\S+%\s+(\S+)\s+\S+%\s+(.*?)\s*$", l)
        if m and m.group(1) != "flat":
            c[m.group(3)] = int(float(m.group(2).rstrip("ns") or 0))
    cums.append(c)
for fn in d["functions"]:
    v = [c.get(fn["name"], 0) for c in cums]
    rt = fn["rank_total"]
    assert (rt["min"], rt["max"]) == (min(v), max(v)), (fn["name"], rt, v)
    assert abs(rt["imbalance"] - max(v) / (sum(v) / 2)) < 1e-3
print("per-rank numbers match for", [f["name"] for f in d["functions"]])
PY
else
	ok "# SKIP TAU checks: no TAU reader or fixture"
fi

# --- README.md "Use in CI": the job step runs as shown -------------------------------------------
python3 - README.md > "$TMP/ci-step.sh" <<'EOF'
import sys, textwrap
lines = open(sys.argv[1]).read().splitlines()
i = next(k for k, l in enumerate(lines) if l.strip() == "run: |")
body = []
for l in lines[i + 1:]:
    if l.strip() and not l.startswith(" " * 8):
        break
    body.append(l)
print(textwrap.dedent("\n".join(body)))
EOF
mkdir -p "$TMP/bin" "$TMP/ci/perf"
case $TF in /*) tfabs=$TF ;; *) tfabs=$PWD/$TF ;; esac
ln -sf "$tfabs" "$TMP/bin/tracefold"
run_ci() { # BASE_TRACE NEW_TRACE
	rm -f "$TMP/ci/summary.md"
	cp "$2" "$TMP/ci/trace.json"
	(cd "$TMP/ci" && PATH="$TMP/bin:$PATH" tracefold -q profile "$1" -o perf/baseline.pb.gz) || return 9
	(cd "$TMP/ci" && PATH="$TMP/bin:$PATH" GITHUB_STEP_SUMMARY="$TMP/ci/summary.md" PR_NUMBER= sh -e "$TMP/ci-step.sh")
}
grep -q "tracefold diff perf/baseline.pb.gz new.pb.gz" "$TMP/ci-step.sh" && ok "extracted the CI step from README.md" || fail "extracted the CI step from README.md"
run_ci "$ci_trace" "$ci_trace" >"$TMP/out" 2>"$TMP/err"; rc=$?
[ $rc = 0 ] && ok "CI step: an unchanged run passes" || { fail "CI step: an unchanged run passes (exit $rc)"; sed 's/^/#   /' "$TMP/err"; }
check "CI step: posts a well-formed Markdown table" python3 tests/tools/check_md.py "$TMP/ci/summary.md" 9 1
check "CI step: draws the differential flame graph (well-formed SVG)" xmllint --noout "$TMP/ci/perf-diff.svg"
check "CI step: ... and the posted report links to it" grep -q '](perf-diff.svg)$' "$TMP/ci/summary.md"
run_ci "$ci_trace" "$ci_slow" >"$TMP/out" 2>"$TMP/err"; rc=$?
[ $rc = 1 ] && ok "CI step: a slower run fails the job with exit 1" || { fail "CI step: a slower run fails the job (exit $rc)"; sed 's/^/#   /' "$TMP/err"; }
grep -q "REGRESSION" "$TMP/ci/summary.md" && ok "CI step: the posted table says REGRESSION" || fail "CI step: the posted table says REGRESSION"
grep -q "regression:" "$TMP/err" && ok "CI step: the log says why" || fail "CI step: the log says why"
finish
