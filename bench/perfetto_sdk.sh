#!/bin/sh
# Perfetto's own tracing SDK beside libtracefold-record (docs/performance.md,
# "Recording overhead"): builds bench/record_bench_perfetto.cc against the
# SDK's amalgamated perfetto.h and perfetto.cc in PERFETTO_SDK_DIR (not in
# this repository: docs/performance.md says which snapshot was used), runs
# it for 1 and 2 threads with the SDK's default shared memory (256 KiB) and
# with 32 MiB, and counts the slices that reached each kept trace with
# protoc --decode (the SDK drops what does not fit, by default).  The build
# goes to $BUILD (/tmp/tf-perfetto-build); perfetto.o is kept there (it
# takes minutes to compile).  make bench runs it where PERFETTO_SDK_DIR is
# set (bench/bench-record.sh).
# Usage: PAIRS=1000000 sh bench/perfetto_sdk.sh PERFETTO_SDK_DIR
[ -f "$1/perfetto.h" ] && [ -f "$1/perfetto.cc" ] || { echo "usage: $0 PERFETTO_SDK_DIR (with perfetto.h and perfetto.cc)" >&2; exit 2; }
cd "$(dirname "$0")/.." || exit 2
SDK=$(cd "$1" && pwd)
BUILD=${BUILD:-/tmp/tf-perfetto-build}
PAIRS=${PAIRS:-1000000}
CXX=${CXX:-g++}
mkdir -p "$BUILD"
if [ ! -f "$BUILD/perfetto.o" ] || [ "$SDK/perfetto.cc" -nt "$BUILD/perfetto.o" ]; then
	echo "# compiling perfetto.cc (minutes)"
	$CXX -std=c++17 -O2 -DNDEBUG -pthread -c "$SDK/perfetto.cc" -o "$BUILD/perfetto.o" || exit 2
fi
$CXX -std=c++17 -O2 -DNDEBUG -pthread -Wall -Wextra -I"$SDK" bench/record_bench_perfetto.cc "$BUILD/perfetto.o" \
	-o "$BUILD/record_bench_perfetto" || exit 2
count() { # TRACE: "begins ends" in it, by protoc
	protoc --proto_path=proto --decode=perfetto.protos.Trace proto/perfetto_trace.proto < "$1" > "$BUILD/dec.txt" || return 1
	echo "$(grep -c 'type: TYPE_SLICE_BEGIN' "$BUILD/dec.txt") $(grep -c 'type: TYPE_SLICE_END' "$BUILD/dec.txt")"
}
for t in 1 2; do
	for shm in 0 32768; do
		"$BUILD/record_bench_perfetto" "$t" "$PAIRS" --keep --shm-kb "$shm" > "$BUILD/run.txt" 2> "$BUILD/run.err" || { cat "$BUILD/run.err"; exit 1; }
		grep -v '^# kept' "$BUILD/run.txt"
		f=$(sed -n 's/^# kept: //p' "$BUILD/run.txt")
		set -- $(count "$f")
		echo "#   last run's trace: $1 begins, $2 ends of $((t * PAIRS)) pairs recorded ($(((t * PAIRS - $1) * 100 / (t * PAIRS)))% lost)"
		rm -rf "$(dirname "$f")"
	done
done
