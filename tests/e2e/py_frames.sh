#!/bin/sh
# Kineto's Python frames without pinning their track (issue 33;
# docs/stack-rules.md "Python frames", src/core/pyframe.c): a frame is
# clipped to its parent by id as it comes while the track's ids rise and
# its parent is open, and its track's spans go to the temporary file past
# --sort-mem like any other's; odd tracks (a child before its parent, an id
# again, a parent missing or closed, a frame naming itself, ids not rising,
# ids of another thread) replay the rule at the track's end.
#  - memory: 4x the frames (tests/tools/gen_pyframes.py mem: two threads,
#    names by depth, no B/E) at --sort-mem 256K, the peak RSS of profile may
#    grow by 2 MiB at most, where pinning the tracks grew it by 8 MiB
#    (34e9878: 8,480 -> 16,688 KiB for 2 x 10k -> 2 x 40k frames)
#  - every odd case alone and all together, and a track in order: profile,
#    timeline and Parquet tables at --sort-mem 1K (spans and the frames' log
#    in runs, read back for the replay) the same bytes as at --sort-mem 0.
#    That they are the old rule's: tests/golden (pyframes-*, expected
#    written by 34e9878) and tests/unit/test_spans.c (test_python_frames).
. tests/lib.sh
G=tests/tools/gen_pyframes.py

rss() { # OUT CMD...: the peak RSS (KiB) of the command
	o=$1; shift
	/usr/bin/time -f %M -o "$TMP/rss" "$@" -o "$o" >/dev/null 2>&1 && tail -1 "$TMP/rss"
}

# same DESC A B: the (decompressed) bytes are equal and not empty
same() {
	if [ -s "$2" ] && [ -s "$3" ] && gzip -dcf "$2" > "$TMP/s1" && gzip -dcf "$3" > "$TMP/s2" && cmp -s "$TMP/s1" "$TMP/s2"; then
		ok "$1"
	else
		fail "$1"
	fi
}

for odd in "" fwd dup missing self closed shuffle outside neg nodur reuse \
	"fwd dup missing self closed shuffle outside neg nodur reuse"; do
	# shellcheck disable=SC2086
	python3 $G 7 1500 "$TMP/o.json" $odd || fail "generate ${odd:-in order}"
	for m in 0 1K; do
		$TF -q profile --sort-mem $m "$TMP/o.json" -o "$TMP/p$m.pb.gz" 2>/dev/null
		$TF -q chrome --sort-mem $m "$TMP/o.json" -o "$TMP/c$m.json" 2>/dev/null
		rm -rf "$TMP/e$m"
		$TF -q events --sort-mem $m "$TMP/o.json" -o "$TMP/e$m" 2>/dev/null
	done
	same "${odd:-in order}: profile at --sort-mem 1K = 0" "$TMP/p0.pb.gz" "$TMP/p1K.pb.gz"
	same "${odd:-in order}: timeline at --sort-mem 1K = 0" "$TMP/c0.json" "$TMP/c1K.json"
	if [ -s "$TMP/e0/slices/part-0.parquet" ] && diff -r "$TMP/e0" "$TMP/e1K" >/dev/null; then
		ok "${odd:-in order}: Parquet tables at --sort-mem 1K = 0"
	else
		fail "${odd:-in order}: Parquet tables at --sort-mem 1K = 0"
	fi
done

# a long odd track: its frames' log in over 32 runs (a log's runs are
# never merged: read back one after another for the replay)
python3 $G 11 40000 "$TMP/l.json" dup shuffle || fail "generate the long odd trace"
$TF -q profile --sort-mem 0 "$TMP/l.json" -o "$TMP/l0.pb.gz" 2>/dev/null
$TF -q profile --sort-mem 1K "$TMP/l.json" -o "$TMP/l1.pb.gz" 2>/dev/null
same "2 x 40k frames, ids again, ids not rising: profile at --sort-mem 1K = 0" "$TMP/l0.pb.gz" "$TMP/l1.pb.gz"

case $TF in
*san*) ok "bounded memory: not measured under ASan" ;;
*)
	python3 $G 5 10000 "$TMP/m1.json" mem && python3 $G 5 40000 "$TMP/m4.json" mem || fail "generate the traces"
	a=$(rss "$TMP/r.pb.gz" $TF -q profile --sort-mem 256K "$TMP/m1.json")
	b=$(rss "$TMP/r.pb.gz" $TF -q profile --sort-mem 256K "$TMP/m4.json")
	if [ -n "$a" ] && [ -n "$b" ] && [ "$b" -lt $((a + 2048)) ]; then
		ok "profile, 4x the Python frames: $a -> $b KiB"
	else
		fail "profile, 4x the Python frames: $a -> $b KiB"
	fi ;;
esac
finish
