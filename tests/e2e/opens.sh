# Each input is resolved once (src/read/registry.c: one head read shown to
# every format's sniff) and read once: strace counts how often each command
# opens each input (docs/architecture.md, "Limits").  At most twice (sniff,
# read); a pre-pass (--window with a relative bound, --label-steps, diff
# --gate's steps) adds one.  Inside a trace directory, each data file is
# read once.
. tests/lib.sh
# LeakSanitizer cannot run under ptrace: the ASan build's leaks are checked
# by every other test, not by this one
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"
if ! strace -f -o /dev/null true 2>/dev/null; then
	ok "# SKIP strace cannot trace here (ptrace refused): opens not counted"
	finish
fi
# opens MAX DESC PATH CMD...: CMD opens PATH at most MAX times (and at least once)
opens() {
	max=$1; desc=$2; path=$3; shift 3
	strace -f -qq -e trace=open,openat,creat -o "$TMP/st" "$@" >"$TMP/out" 2>"$TMP/err"; rc=$?
	n=$(grep -c "\"$path\"" "$TMP/st")
	if [ "$rc" -ne 0 ]; then
		fail "$desc: exit $rc"; sed 's/^/#   /' "$TMP/err" | head -5
	elif [ "$n" -ge 1 ] && [ "$n" -le "$max" ]; then
		ok "$desc: opens its input $n times (at most $max)"
	else
		fail "$desc: opens its input $n times (want 1 to $max)"
	fi
}
J=$DATA/chrome/pytorch-legacy-small/trace.json
G=$DATA/chrome/kineto-resnet50-gpu/worker0.1623143089861.pt.trace.json.gz
$TF -q convert "$J" -o "$TMP/p.pb.gz" -o "$TMP/p.folded" -o "$TMP/p.pftrace" >/dev/null 2>&1 ||
	fail "the profile, folded and Perfetto inputs are made"
for f in "$J" "$G" "$TMP/p.pb.gz" "$TMP/p.folded"; do
	b=$(basename "$f")
	opens 2 "profile -j 1 $b" "$f" $TF -q profile -j 1 "$f" -o "$TMP/o.pb.gz"
	opens 2 "profile -j 2 $b" "$f" $TF -q profile -j 2 "$f" -o "$TMP/o.pb.gz"
	opens 2 "top $b" "$f" $TF -q top "$f"
	opens 2 "fold $b" "$f" $TF -q fold "$f" -o "$TMP/o.folded"
	opens 2 "flame $b" "$f" $TF -q flame "$f" -o "$TMP/o.svg"
	cp "$f" "$TMP/copy.$b"
	opens 2 "diff $b against a copy" "$f" $TF -q diff "$f" "$TMP/copy.$b"
	opens 2 "merge $b" "$f" $TF -q merge "$f" -o "$TMP/m.pb.gz"
done
for f in "$J" "$G" "$TMP/p.pftrace"; do
	b=$(basename "$f")
	opens 2 "info $b" "$f" $TF -q info "$f"
	opens 2 "convert $b to a timeline, tables and a profile" "$f" \
		$TF -q convert "$f" -o "$TMP/t.trace.json" --to parquet -o "$TMP/tables" -o "$TMP/c.pb.gz"
	opens 2 "profile -j 2 $b" "$f" $TF -q profile -j 2 "$f" -o "$TMP/o.pb.gz"
	opens 3 "profile --window 0s:3600s (relative: a pre-pass) $b" "$f" \
		$TF -q profile --window 0s:3600s "$f" -o "$TMP/o.pb.gz"
done
opens 3 "profile --label-steps (a pre-pass)" "$G" $TF -q profile --label-steps "$G" -o "$TMP/o.pb.gz"
opens 3 "diff --gate (the steps: a pre-pass)" "$DATA/gate/a0.json.gz" $TF -q diff --gate "$DATA/gate/a0.json.gz,$DATA/gate/a1.json.gz" \
	"$DATA/gate/a2.json.gz,$DATA/gate/a3.json.gz"
opens 3 "info --window 0s:3600s (a pre-pass)" "$G" $TF -q info --window 0s:3600s "$G"
# an Nsight Systems export: sniffed, then opened by SQLite
N=$DATA/nsys/h100-2gpu/h100_2gpu_1s.sqlite
opens 2 "top $(basename "$N")" "$N" $TF -q top "$N"
opens 2 "profile -j 2 $(basename "$N")" "$N" $TF -q profile -j 2 "$N" -o "$TMP/o.pb.gz"
# a directory: each trace file in it read once, with or without threads
for d in "$DATA/tau/mpi_small" "$DATA/otf2/scorep-ping-pong-mpi"; do
	for j in 1 2; do
		strace -f -qq -e trace=open,openat -o "$TMP/st" $TF -q profile -j $j "$d" -o "$TMP/o.pb.gz" >/dev/null 2>&1 ||
			fail "profile -j $j $d"
		worst=$(grep -oE "\"$d/[^\"]*\\.(trc|evt)\"" "$TMP/st" | sort | uniq -c | sort -rn | head -1)
		case $worst in
		"") fail "profile -j $j $(basename "$d"): no trace file opened" ;;
		" "*1\ *) ok "profile -j $j $(basename "$d"): each trace file opened once" ;;
		*) fail "profile -j $j $(basename "$d"): a trace file opened more than once: $worst" ;;
		esac
	done
done
finish
