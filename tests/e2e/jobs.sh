# -j N (docs/distributed.md "Threads"): the inputs' parts read on N threads
# give byte for byte the profile of -j 1, on TAU directories, OTF2 archives,
# several Chrome files and all of them together, with counters; what the
# other commands print is the same; a broken input among others fails with
# its own message; bad values are usage errors.
. tests/lib.sh
T=$DATA/tau O=$DATA/otf2 C=$DATA/chrome
CHROME="$C/kineto-resnet50-gpu/worker0.1623143089861.pt.trace.json.gz $C/hta-simple-add-gpu/benchmark_result_493459_1694039959_trace.json.gz $C/pytorch-legacy-small/trace.json $C/lighthouse-cpu-profiler-m86/cpu-profiler-m86.trace.json"
same() { # NAME ARGS...: -j 2, 3 and 7 write -j 1's bytes
	name=$1; shift
	"$TF" -q profile -j 1 "$@" -o "$TMP/one.pb.gz" 2>"$TMP/one.err" || { fail "$name: -j 1: $(head -2 "$TMP/one.err")"; return; }
	gzip -dc "$TMP/one.pb.gz" > "$TMP/one.pb"
	for j in 2 3 7; do
		if "$TF" -q profile -j $j "$@" -o "$TMP/j.pb.gz" 2>"$TMP/j.err" && gzip -dc "$TMP/j.pb.gz" | cmp -s - "$TMP/one.pb"; then
			ok "$name: -j $j: byte-identical to -j 1"
		else
			fail "$name: -j $j"; head -3 "$TMP/j.err" | sed 's/^/#   /'
		fi
	done
}
same "TAU per-thread directory" $T/threads
same "TAU per-rank directory" $T/mpi_small
same "TAU, -c all" -c all $T/threads $T/mpi_small
same "OTF2 (Score-P MPI)" $O/scorep-ping-pong-mpi
same "OTF2 with GPU locations, -c all" -c all $O/scorep-mi300-hip
same "four Chrome files" $CHROME
same "Chrome, TAU and OTF2" $C/pytorch-legacy-small/trace.json $T/threads $O/scorep-mi300-hip
for c in "top -n 20" "fold -o -" "diff $T/mpi_small"; do
	set -- $c
	cmd=$1; shift
	"$TF" -q $cmd -j 1 "$@" $T/threads > "$TMP/a.txt" 2>&1
	"$TF" -q $cmd -j 3 "$@" $T/threads > "$TMP/b.txt" 2>&1
	cmp -s "$TMP/a.txt" "$TMP/b.txt" && [ -s "$TMP/a.txt" ] && ok "$cmd -j 3 prints what -j 1 prints" || fail "$cmd -j 3 differs from -j 1"
done
# a broken file among good ones: its own message, exit 3, nothing written
printf '{"traceEvents": [{"ph": "X", "name": "a", "ts": 1, "dur": 2, "pid": 1, "tid": 1} {"ph": "X"}]}' > "$TMP/broken.json"
expect_exit 3 "-j 3 with a broken file among four: exit 3" "$TF" profile -j 3 $C/pytorch-legacy-small/trace.json "$TMP/broken.json" $T/threads $T/mpi_small -o "$TMP/bad.pb.gz"
grep -q "broken.json' at byte 81" "$TMP/err" && ok "... naming the file and the byte" || { fail "... naming the file"; sed 's/^/#   /' "$TMP/err"; }
[ ! -e "$TMP/bad.pb.gz" ] && ok "... and writing nothing" || fail "a profile was written"
# OTF2 archives are read by processes (docs/distributed.md "Threads"): an
# archive's locations in parallel.  A location cut short is read as -j 1
# reads it, every time (two libotf2 readers on two threads once misread it
# as complete in 3 runs of 30)
cp -r "$O/scorep-ping-pong-mpi" "$TMP/pp" && chmod -R u+w "$TMP/pp"
head -c 700 "$O/scorep-ping-pong-mpi/traces/1.evt" > "$TMP/pp/traces/1.evt"
"$TF" -v profile -j 1 "$TMP/pp" -o "$TMP/cut1.pb.gz" 2> "$TMP/cut1.err"
good=0
for i in 1 2 3 4 5 6 7 8 9 10 11 12; do
	"$TF" -v profile -j 2 "$TMP/pp" -o "$TMP/cut2.pb.gz" 2> "$TMP/cut2.err" &&
		cmp -s "$TMP/cut1.pb.gz" "$TMP/cut2.pb.gz" && sed "s|cut2.pb.gz|cut1.pb.gz|" "$TMP/cut2.err" | cmp -s - "$TMP/cut1.err" &&
		good=$((good + 1))
done
grep -q "truncated_record=1" "$TMP/cut1.err" && [ $good = 12 ] && ok "OTF2 location cut short: -j 2 = -j 1 (profile and report), 12 runs of 12" ||
	{ fail "OTF2 location cut short: -j 2 = -j 1 in $good runs of 12"; diff "$TMP/cut1.err" "$TMP/cut2.err" | head -5 | sed 's/^/#   /'; }
# a worker process that dies: an error naming it, nothing written, no process left waiting
TRACEFOLD_TEST_WORKER_DIES=1 "$TF" profile -j 2 $O/scorep-ping-pong-mpi -o "$TMP/dead.pb.gz" > "$TMP/out" 2> "$TMP/err"
rc=$?
[ $rc -ne 0 ] && grep -q "worker process 1 ended without a result (signal 9)" "$TMP/err" && ok "a dead worker process: exit $rc, named" ||
	{ fail "a dead worker process: exit $rc"; sed 's/^/#   /' "$TMP/err" | head -3; }
[ ! -e "$TMP/dead.pb.gz" ] && ok "... and nothing written" || fail "a profile was written after a worker died"
TRACEFOLD_TEST_WORKER_DIES=1 "$TF" -q profile -j 1 $O/scorep-ping-pong-mpi -o "$TMP/one.pb.gz" &&
	ok "... (-j 1 has no worker processes)" || fail "-j 1 with TRACEFOLD_TEST_WORKER_DIES"
# -v: each thread's share, the parts adding up to the plan's (two TAU
# ranks and the Chrome file: 3 parts), their bytes to the inputs'
"$TF" -v -q profile -j 2 $T/mpi_small $C/pytorch-legacy-small/trace.json -o "$TMP/v.pb.gz" 2> "$TMP/v.err"
want=$(( $(du -cb $T/mpi_small/*.trc | tail -1 | cut -f1) + $(wc -c < $C/pytorch-legacy-small/trace.json) ))
n=$(grep -c '^tracefold: \[thread [01] of 2\] read [0-9]* parts* ([0-9.]* MB) in [0-9.]* s (CPU [0-9.]* s), the slowest done at [0-9.]* s; reduction [0-9.]* s$' "$TMP/v.err")
parts=$(sed -n 's/.*\] read \([0-9]*\) part.*/\1/p' "$TMP/v.err" | awk '{ s += $1 } END { print s + 0 }')
mb=$(sed -n 's/.* part[s]* (\([0-9.]*\) MB).*/\1/p' "$TMP/v.err" | awk '{ s += $1 } END { print s + 0 }')
# (each figure rounded to 0.1 MB)
[ "$n" = 2 ] && [ "$parts" = 3 ] && awk -v m="$mb" -v w="$want" 'BEGIN { d = m - w / 1e6; exit !(d < 0.1 && d > -0.1) }' &&
	ok "-v -j 2: a line per thread, 3 parts and $mb MB in all" ||
	{ fail "-v -j 2: $n thread lines, $parts parts, $mb MB (want 3 parts, $want bytes)"; sed 's/^/#   /' "$TMP/v.err"; }
"$TF" -v -q profile -j 1 $T/mpi_small -o "$TMP/v1.pb.gz" 2> "$TMP/v1.err"
! grep -q '\[thread' "$TMP/v1.err" && ok "-v -j 1: no thread lines" || fail "-v -j 1 printed thread lines"
expect_exit 2 "-j 0 is a usage error" "$TF" profile -j 0 $T/threads -o "$TMP/x.pb.gz"
expect_exit 2 "-j x is a usage error" "$TF" profile -j x $T/threads -o "$TMP/x.pb.gz"
check "--jobs=2 and -j2 are taken" "$TF" -q profile --jobs=2 -j2 $T/threads -o "$TMP/x.pb.gz"
finish
