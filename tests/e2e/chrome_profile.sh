# tracefold profile on every Chrome/PyTorch fixture, read back by go tool pprof
# and compared with an independent computation (tests/tools/chrome_expect.py)
# and, for pytorch-legacy-small, with PyTorch's own key_averages table.
. tests/lib.sh
for t in $DATA/chrome/*/*.json $DATA/chrome/*/*.json.gz; do
	[ -f "$t" ] || continue
	case $t in */oracle/*) continue ;; esac
	d=$(dirname "$t"); out=$TMP/$(basename "$d").pb.gz
	if ! $TF -q profile "$t" -o "$out" 2>"$TMP/err"; then
		fail "profile $t"; sed 's/^/#   /' "$TMP/err"; continue
	fi
	ok "profile $t"
	oracle=""
	[ -f "$d/oracle/key_averages.csv" ] && oracle="$d/oracle/key_averages.csv"
	python3 tests/tools/compare_chrome.py "$t" "$out" $oracle || nfail=$((nfail + 1))
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
finish
