#!/bin/sh
# tests/fuzz/run.sh [TARGET...] - `make fuzz`: builds the libFuzzer targets
# (clang, ASan+UBSan) and fuzzes each for $FUZZ_SECONDS (default 60),
# starting from tests/fuzz/corpus/<target>/.  New interesting inputs go to
# build/fuzz/corpus/<target>/, crashes/leaks/timeouts to
# build/fuzz/artifacts/.  Without clang's libFuzzer it says so and exits 0.
cd "$(dirname "$0")/../.." || exit 2
: "${FUZZ_CC:=clang}" "${FUZZ_SECONDS:=60}" "${MAKE:=make}"
probe=build/fuzz/probe
mkdir -p build/fuzz/artifacts
printf '#include <stdint.h>\n#include <stddef.h>\nint LLVMFuzzerTestOneInput(const uint8_t *d, size_t n) { return 0; }\n' > $probe.c
if ! $FUZZ_CC -fsanitize=fuzzer,address,undefined $probe.c -o $probe 2>/dev/null; then
	echo "make fuzz: '$FUZZ_CC' with libFuzzer is not available (Debian: apt-get install clang); skipped"
	exit 0
fi
targets=$*
[ -n "$targets" ] || targets=$(ls tests/fuzz/fuzz_*.c | sed 's|.*/fuzz_\(.*\)\.c|\1|')
bins=; for t in $targets; do bins="$bins build/fuzz/fuzz_$t"; done
$MAKE -s FUZZ_CC="$FUZZ_CC" $bins || exit 1
status=0
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
export LSAN_OPTIONS=suppressions=$PWD/tests/fuzz/lsan.supp
for t in $targets; do
	mkdir -p build/fuzz/corpus/$t
	echo "== fuzz_$t: $FUZZ_SECONDS s"
	# libotf2 allocates sizes it reads from the file; a failed allocation is
	# an error it handles (docs/testing.md), so let malloc fail there
	ASAN_OPTIONS=detect_leaks=1
	[ "$t" = otf2 ] && ASAN_OPTIONS=$ASAN_OPTIONS:allocator_may_return_null=1:max_allocation_size_mb=256
	export ASAN_OPTIONS
	dict=; [ -f tests/fuzz/$t.dict ] && dict=-dict=tests/fuzz/$t.dict
	build/fuzz/fuzz_$t $dict -max_total_time="$FUZZ_SECONDS" -timeout=10 -rss_limit_mb=2048 -max_len=8192 \
		-print_final_stats=1 -artifact_prefix=build/fuzz/artifacts/$t- \
		build/fuzz/corpus/$t tests/fuzz/corpus/$t > build/fuzz/$t.log 2>&1
	rc=$?
	grep -E '^stat::(number_of_executed_units|peak_rss_mb)|^Done' build/fuzz/$t.log
	if [ $rc -ne 0 ]; then
		status=1
		echo "fuzz_$t FAILED (exit $rc): see build/fuzz/$t.log"
		grep -E 'ERROR|runtime error|contract broken|Test unit written' build/fuzz/$t.log | head -5
	fi
done
exit $status
