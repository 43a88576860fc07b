# Replays the fuzz corpus (tests/fuzz/corpus/<target>/: the seeds, inputs
# fuzzing found interesting, and every input that once broke a reader)
# through each fuzz target's regression build (tests/fuzz/regress.c as
# main, built with `make unit` / `make san`).  Each input must keep the
# contract the targets check (tests/fuzz/fuzz.h): no crash, leak or
# undefined behaviour; a failed read names the file (and, for Chrome and
# TAU, a byte offset or event index); a successful read keeps the event
# accounting and writes a profile that reads back with the same totals.
# The release run uses build/rel/fuzz, the ASan+UBSan run build/san/fuzz.
. tests/lib.sh
case $TF in
*san*) B=build/san/fuzz ;;
*) B=build/rel/fuzz ;;
esac
export LSAN_OPTIONS="suppressions=$PWD/tests/fuzz/lsan.supp"
for src in tests/fuzz/fuzz_*.c; do
	t=$(basename "$src" .c)
	name=${t#fuzz_}
	dir=tests/fuzz/corpus/$name
	n=$(ls "$dir" 2>/dev/null | wc -l)
	if [ ! -x "$B/$t" ]; then
		fail "$t: $B/$t is not built (make unit san)"
		continue
	fi
	if [ "$n" -lt 5 ]; then
		fail "$t: corpus $dir has $n inputs"
		continue
	fi
	big=$(find "$dir" -type f -size +8k | head -1)
	[ -z "$big" ] || fail "$t: corpus input over 8 KiB: $big"
	opts=${ASAN_OPTIONS:-}
	# libotf2 allocates sizes read from the file; let such a malloc fail
	# (as it does in a release build) instead of aborting (docs/testing.md)
	[ "$name" = otf2 ] && opts="$opts:allocator_may_return_null=1:max_allocation_size_mb=256"
	if ASAN_OPTIONS=$opts "$B/$t" "$dir" >"$TMP/out" 2>"$TMP/err" && grep -qx "$n inputs replayed" "$TMP/out"; then
		ok "$t: $n corpus inputs keep the contract"
	else
		fail "$t: corpus replay"
		grep -v '^replay ' "$TMP/err" | head -20 | sed 's/^/#   /'
		grep '^replay ' "$TMP/err" | tail -1 | sed 's/^/#   last: /'
	fi
done
# the harness itself: a broken contract must be caught (not only crashes)
printf '[{"ph":"X","name":"a","pid":1,"tid":1,"ts":1,"dur":1}]' > "$TMP/ok.json"
check "fuzz_chrome accepts a valid trace" "$B/fuzz_chrome" "$TMP/ok.json"
FZ_SELFTEST=1 "$B/fuzz_chrome" "$TMP/ok.json" >"$TMP/out" 2>"$TMP/err"
if [ $? -ne 0 ] && grep -q "fuzz contract broken" "$TMP/err"; then
	ok "a broken contract (FZ_SELFTEST drops the error's file name) aborts the replay"
else
	fail "a broken contract (FZ_SELFTEST) is not caught"
fi
finish
