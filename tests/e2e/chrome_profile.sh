# tracefold profile on every Chrome trace under tests/data/chrome (real
# fixtures and the hand-made rules/ traces; .json, .json.gz, JSON lines .jsonl,
# DFTracer .pfw and .pfw.gz), read back by go tool pprof and compared with an
# independent computation (tests/tools/chrome_expect.py, written from
# docs/stack-rules.md), with the hand-computed expectations in each folder's
# expect/ (rules/ and some fixtures) and, for pytorch-legacy-small, with
# PyTorch's own key_averages table.  A trace with a Kineto whole-trace span
# (cat "Trace") is also profiled with --keep-trace-span.
. tests/lib.sh
for t in $DATA/chrome/*/*.json $DATA/chrome/*/*.json.gz $DATA/chrome/*/*.jsonl $DATA/chrome/*/*.pfw $DATA/chrome/*/*.pfw.gz; do
	[ -f "$t" ] || continue
	case $t in */oracle/*|*/expect/*) continue ;; esac
	d=$(dirname "$t"); b=$(basename "$t")
	oracle=""
	[ -f "$d/oracle/key_averages.csv" ] && oracle="$d/oracle/key_averages.csv"
	keeps=""
	gzip -cdf "$t" | grep -qE '"cat" *: *"Trace"' && keeps="--keep-trace-span"
	for k in "" $keeps; do
		out=$TMP/$b$k.pb.gz
		if ! $TF -q profile $k "$t" -o "$out" 2>"$TMP/err"; then
			fail "profile${k:+ $k} $t"; sed 's/^/#   /' "$TMP/err"
			# the oracle against the expectations, even without a profile
			python3 tests/tools/compare_chrome.py "$t" --oracle-only $k || nfail=$((nfail + 1))
			continue
		fi
		ok "profile${k:+ $k} $t"
		info=""
		if $TF info --json "$t" > "$TMP/info.json" 2>"$TMP/err"; then
			info="--info $TMP/info.json"
		else
			fail "info --json $t"; sed 's/^/#   /' "$TMP/err"
		fi
		python3 tests/tools/compare_chrome.py "$t" "$out" $oracle $k $info || nfail=$((nfail + 1))
	done
done
# --clip-tolerance: the oracle with the same tolerance (0 cuts at any overhang)
for t in $DATA/chrome/rules/bazel-overlap.json $DATA/chrome/pytorch-legacy-small/trace.json; do
	for tol in 0 500ns 2us; do
		out=$TMP/tol.pb.gz
		if $TF -q profile --clip-tolerance $tol "$t" -o "$out" 2>"$TMP/err"; then
			python3 tests/tools/compare_chrome.py "$t" "$out" --clip-tolerance $tol || nfail=$((nfail + 1))
		else
			fail "profile --clip-tolerance $tol $t"; sed 's/^/#   /' "$TMP/err"
		fi
	done
done
# -o - writes the profile to stdout; output is deterministic
t=$DATA/chrome/pytorch-legacy-small/trace.json
$TF -q profile "$t" -o - > "$TMP/a.pb.gz" && $TF -q profile "$t" -o "$TMP/b.pb.gz"
check "profile -o - equals -o FILE, byte for byte" cmp "$TMP/a.pb.gz" "$TMP/b.pb.gz"
# several inputs aggregate into one profile: twice the same trace = twice the calls
$TF -q profile "$t" "$t" -o "$TMP/two.pb.gz"
one=$(python3 tests/tools/pprof_raw.py "$TMP/b.pb.gz" | python3 -c 'import json,sys; print(json.load(sys.stdin)["total"]["calls/count"])')
two=$(python3 tests/tools/pprof_raw.py "$TMP/two.pb.gz" | python3 -c 'import json,sys; print(json.load(sys.stdin)["total"]["calls/count"])')
check "two inputs aggregate: calls $two == 2 x $one" test "$two" -eq $((2 * one))
# the .pfw.gz and the .pfw give the same samples
r=$DATA/chrome/rules
if $TF -q profile "$r/pfw-style.pfw" -o "$TMP/pfw.pb.gz" 2>"$TMP/err" && $TF -q profile "$r/pfw-style.pfw.gz" -o "$TMP/pfwgz.pb.gz" 2>>"$TMP/err"; then
	for p in pfw pfwgz; do pprof -raw "$TMP/$p.pb.gz" 2>/dev/null | grep -v -e '^Comment:' -e '^1: 0x0/0x0/0x0 ' > "$TMP/$p.raw"; done
	check ".pfw.gz and .pfw give the same samples" cmp "$TMP/pfw.raw" "$TMP/pfwgz.raw"
else
	fail ".pfw and .pfw.gz profiles"; sed 's/^/#   /' "$TMP/err"
fi
# tracefold top shows the same U+FFFD name as pprof for a name holding \u0000
if $TF -q top "$r/names.json" > "$TMP/names.top" 2>"$TMP/err"; then
	check "top shows \\u0000 in a name as U+FFFD" grep -qF "nul$(printf '\357\277\275')byte" "$TMP/names.top"
	check "top shows an event without a name as [unnamed]" grep -qF "[unnamed]" "$TMP/names.top"
else
	fail "top $r/names.json"; sed 's/^/#   /' "$TMP/err"
fi
finish
