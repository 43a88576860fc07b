#!/bin/sh
# Runs every test: unit tests (cmocka) and end-to-end scripts, each against
# the release build and the ASan+UBSan build.  Ends with "N passed, N failed".
cd "$(dirname "$0")/.." || exit 2
pass=0; fail=0
log=build/test.log
mkdir -p build; : > "$log"
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=0 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1

count_cmocka() { # file rc name
	# a test program may run several groups: add them up
	p=$(sed -n 's/^\[  PASSED  \] \([0-9]*\) test.*/\1/p' "$1" | awk '{ s += $1 } END { print s + 0 }')
	f=$(sed -n 's/^\[  FAILED  \] \([0-9]*\) test.*/\1/p' "$1" | awk '{ s += $1 } END { print s + 0 }')
	p=${p:-0}; f=${f:-0}
	if [ "$2" -ne 0 ] && [ "$f" -eq 0 ]; then f=1; fi
	pass=$((pass + p)); fail=$((fail + f))
	[ "$f" -ne 0 ] && { echo "FAIL: $3"; grep -E "FAIL|ERROR|Sanitizer|runtime error" "$1" | head -20; }
}

for variant in rel san; do
	for t in build/$variant/tests/test_*; do
		[ -x "$t" ] || continue
		out=build/$variant/tests/$(basename "$t").out
		"$t" > "$out" 2>&1; rc=$?
		cat "$out" >> "$log"
		count_cmocka "$out" $rc "$t"
	done
done

# The end-to-end scripts, each against both builds, TEST_JOBS at a time
# (default: one per core); each writes build/NAME.VARIANT.out and .rc, which
# are added up below in a fixed order.
jobs=${TEST_JOBS:-$(nproc 2>/dev/null || echo 2)}
for variant in rel san; do
	for s in tests/e2e/*.sh; do [ -f "$s" ] && echo "$variant $s"; done
done | xargs -P "$jobs" -L 1 sh -c '
	variant=$1 s=$2
	if [ "$variant" = rel ]; then TF=./tracefold; else TF=build/san/tracefold; fi
	out=build/$(basename "$s" .sh).$variant.out
	if [ -x "$TF" ]; then TF=$TF sh "$s" > "$out" 2>&1; echo $? > "$out.rc"; else echo 127 > "$out.rc"; : > "$out"; fi
' sh
for variant in rel san; do
	if [ $variant = rel ]; then TF=./tracefold; else TF=build/san/tracefold; fi
	[ -x "$TF" ] || { echo "FAIL: $TF not built"; fail=$((fail + 1)); continue; }
	for s in tests/e2e/*.sh; do
		[ -f "$s" ] || continue
		out=build/$(basename "$s" .sh).$variant.out
		rc=$(cat "$out.rc" 2>/dev/null || echo 1)
		cat "$out" >> "$log"
		p=$(grep -c '^ok ' "$out"); f=$(grep -c '^not ok ' "$out")
		if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then f=1; echo "FAIL: $s ($variant) exited $rc"; tail -5 "$out"; fi
		pass=$((pass + p)); fail=$((fail + f))
		[ "$f" -ne 0 ] && { echo "FAIL: $s ($variant)"; grep -A12 '^not ok ' "$out" | head -40; }
		echo "$s ($variant): $p passed, $f failed"
	done
done
echo "full log: $log"
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
