# --mpi (docs/distributed.md): tracefold-mpi under mpirun with 1, 2 and 3
# processes gives byte for byte the profile one process gives, on a
# directory of per-rank TAU traces, multi-location OTF2 archives and several
# Chrome files; top, diff and fold print the same; Parquet parts read in
# DuckDB and hyparquet (tests/tools/events_check.mjs) to the numbers of the
# single-process profile; a corrupt file on one process fails every process
# quickly, naming the file; the plain build says how to get --mpi.
. tests/lib.sh
TFM=${TF}-mpi # ./tracefold-mpi, build/san/tracefold-mpi
T=$DATA/tau
# the plain build says how to get --mpi (checked with or without tracefold-mpi)
plain_refuses() {
	expect_exit 2 "plain tracefold: --mpi says how to get it" "$TF" profile --mpi $T/threads -o "$TMP/x.pb.gz"
	grep -q "make MPI=1" "$TMP/err" && ok "... naming make MPI=1" || fail "the message names make MPI=1"
}
# make test builds tracefold-mpi only where mpicc is found; make check always
if [ ! -x "$TFM" ]; then
	ok "# SKIP $TFM is not built (no mpicc; make check or make MPI=1 builds it): mpirun checks skipped"
	plain_refuses
	finish
fi
command -v mpirun >/dev/null || { fail "mpirun is missing (tests/deps.sh installs openmpi-bin)"; finish; }
# as root in a container: --allow-run-as-root; more processes than cores: --oversubscribe
MPIRUN="mpirun --allow-run-as-root --oversubscribe"
# one machine, no network: shared memory only (and no cross-memory attach,
# which containers forbid)
export OMPI_MCA_btl=self,vader OMPI_MCA_btl_vader_single_copy_mechanism=none
# libmpi's own allocations outlive MPI_Finalize: no leak report for them
case $TF in *san*) export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" ;; esac
mpi() { np=$1; shift; timeout 300 $MPIRUN -np "$np" "$TFM" "$@"; }

T=$DATA/tau O=$DATA/otf2 C=$DATA/chrome
CHROME="$C/kineto-resnet50-gpu/worker0.1623143089861.pt.trace.json.gz $C/hta-simple-add-gpu/benchmark_result_493459_1694039959_trace.json.gz $C/pytorch-legacy-small/trace.json $C/lighthouse-cpu-profiler-m86/cpu-profiler-m86.trace.json"

# same NAME OPTS... -- INPUTS...: the profile of 1, 2 and 3 processes is the single one's, byte for byte
same() {
	name=$1; shift
	"$TF" -q profile "$@" -o "$TMP/one.pb.gz" 2>"$TMP/one.err" || { fail "$name: single process: $(head -3 "$TMP/one.err")"; return; }
	gzip -dc "$TMP/one.pb.gz" > "$TMP/one.pb"
	for np in 1 2 3; do
		rm -f "$TMP/mpi.pb.gz"
		if ! mpi "$np" -q profile --mpi "$@" -o "$TMP/mpi.pb.gz" > "$TMP/mpi.out" 2>&1; then
			fail "$name: mpirun -np $np"; sed 's/^/#   /' "$TMP/mpi.out" | head -10; continue
		fi
		gzip -dc "$TMP/mpi.pb.gz" > "$TMP/mpi.pb"
		if cmp -s "$TMP/one.pb" "$TMP/mpi.pb"; then ok "$name: mpirun -np $np: byte-identical profile"
		else fail "$name: mpirun -np $np: the profile differs from one process's"
			table "$TMP/one.pb.gz" > "$TMP/t1"; table "$TMP/mpi.pb.gz" > "$TMP/t2"
			diff "$TMP/t1" "$TMP/t2" | head -5 | sed 's/^/#   /'; fi
	done
}

same "TAU directory of per-thread traces" $T/threads
same "TAU per-rank traces (2 files, 3 processes: one reads nothing)" $T/mpi_small
same "TAU, -c all" -c all $T/threads $T/mpi_small
same "OTF2 multi-location archive (Score-P, MPI)" $O/scorep-ping-pong-mpi
same "OTF2 archive with GPU locations (Score-P, HIP)" $O/scorep-mi300-hip
same "OTF2, -c all" -c all $O/scorep-mi300-hip
$TF -q otf2 samples/pytorch-cnn-train.trace.json.gz -o "$TMP/cnn-otf2" || fail "tracefold otf2 of the sample"
same "OTF2 written by tracefold (GPU streams nested under launches: one part)" "$TMP/cnn-otf2"
same "several Chrome files (GPU, memory)" $CHROME
same "Chrome, TAU and OTF2 together" $C/pytorch-legacy-small/trace.json $T/threads $O/scorep-ping-pong-mpi
same "--ranks" --ranks 1 $T/mpi_small $O/scorep-ping-pong-mpi

# what the other commands print is the single process's too
for c in "top -n 20" "fold -o -" "diff $T/mpi_small"; do
	set -- $c
	cmd=$1; shift
	"$TF" -q $cmd "$@" $T/threads > "$TMP/one.txt" 2>/dev/null
	if mpi 3 -q $cmd --mpi "$@" $T/threads > "$TMP/mpi.txt" 2>"$TMP/mpi.err" && cmp -s "$TMP/one.txt" "$TMP/mpi.txt"; then
		ok "$cmd --mpi under mpirun -np 3 prints what one process prints"
	else
		fail "$cmd --mpi under mpirun -np 3"; diff "$TMP/one.txt" "$TMP/mpi.txt" | head -5 | sed 's/^/#   /'; head -3 "$TMP/mpi.err"
	fi
done

# Parquet parts: each process writes its part-N files; DuckDB and hyparquet
# read the whole folder to the single-process profile's numbers
command -v node >/dev/null && [ -d tests/node_modules/@duckdb/node-api ] || fail "node and tests/node_modules are needed (tests/deps.sh)"
for set in "$T/threads $T/mpi_small" "$CHROME"; do
	rm -rf "$TMP/ev"
	if mpi 3 -q events --mpi $set -o "$TMP/ev" > "$TMP/mpi.out" 2>&1; then
		n=$(ls "$TMP/ev/slices" | wc -l)
		[ "$n" = 3 ] && ok "events --mpi -np 3: three parts of slices ($(ls "$TMP/ev/slices" | tr '\n' ' '))" || fail "events --mpi: $n parts of slices, want 3"
		$TF -q events $set -o "$TMP/ev1" >/dev/null 2>&1
		node tests/tools/pq_totals.mjs "$TMP/ev1" > "$TMP/t1.txt" 2>&1; node tests/tools/pq_totals.mjs "$TMP/ev" > "$TMP/t3.txt" 2>&1
		if grep -q '^slices' "$TMP/t1.txt" && cmp -s "$TMP/t1.txt" "$TMP/t3.txt"; then ok "events --mpi: DuckDB totals per table, name and rank equal the single process's ($(wc -l < "$TMP/t1.txt") rows)"
		else fail "events --mpi: DuckDB totals differ"; diff "$TMP/t1.txt" "$TMP/t3.txt" | head -8 | sed 's/^/#   /'; fi
		rm -rf "$TMP/ev1"
	else
		fail "events --mpi on $set"; head -5 "$TMP/mpi.out" | sed 's/^/#   /'
	fi
done

# a corrupt file on one process: every process exits non-zero, quickly, and
# the file is named; nothing is written
mkdir -p "$TMP/bad"
for f in $CHROME; do cp "$f" "$TMP/bad/"; done
printf '{"traceEvents": [{"ph": "X", "name": "a", "ts": 1, "dur": 2, "pid": 1, "tid": 1} {"ph": "X"}]}' > "$TMP/bad/broken.json"
start=$(date +%s)
mpi 3 profile --mpi "$TMP"/bad/* -o "$TMP/bad.pb.gz" > "$TMP/bad.out" 2>&1; rc=$?
took=$(( $(date +%s) - start ))
[ "$rc" = 3 ] && [ "$took" -lt 30 ] && ok "a corrupt file on one of 3 processes: mpirun exits $rc in ${took}s" ||
	{ fail "a corrupt file: mpirun exit $rc after ${took}s"; sed 's/^/#   /' "$TMP/bad.out" | head; }
grep -q "broken.json.*byte" "$TMP/bad.out" && ok "the error names the file and the byte" ||
	{ fail "the error names the file"; sed 's/^/#   /' "$TMP/bad.out" | head; }
[ ! -e "$TMP/bad.pb.gz" ] && ok "no profile written" || fail "a profile was written"
# a corrupt part of a TAU directory
cp -r $T/threads "$TMP/badtau"
head -c 100 /dev/urandom > "$TMP/badtau/tautrace.0.0.3.trc"
$TF -q profile "$TMP/badtau" -o "$TMP/bad1.pb.gz" > /dev/null 2>&1; rc1=$?
mpi 2 -q profile --mpi "$TMP/badtau" -o "$TMP/bad.pb.gz" > "$TMP/bad.out" 2>&1; rc=$?
[ "$rc" = "$rc1" ] && ok "a TAU directory with a garbage trace file under mpirun -np 2: exit $rc, as one process" ||
	{ fail "a garbage TAU trace under mpirun: exit $rc, one process $rc1"; sed 's/^/#   /' "$TMP/bad.out" | head; }

# an output one process cannot open: every process stops (no hang)
mpi_mpmd() { timeout 120 $MPIRUN "$@"; }
mpi_mpmd -np 2 "$TFM" -q events --mpi $T/threads -o "$TMP/evA" : -np 1 "$TFM" -q events --mpi $T/threads -o /proc/nope/ev > "$TMP/o.out" 2>&1; rc=$?
[ "$rc" != 0 ] && [ "$rc" != 124 ] && ok "an output one of 3 processes cannot create: all stop, exit $rc" ||
	{ fail "an output one process cannot create: exit $rc"; sed 's/^/#   /' "$TMP/o.out" | head -5; }
# a run that fails at the end (--strict) leaves no part of the tables
mpi 3 -q events --mpi --strict $C/catapult-unclosed-slices/main_thread_has_unclosed_slices.json $T/threads -o "$TMP/s3" > "$TMP/o.out" 2>&1; rc=$?
n=$(find "$TMP/s3" -name '*.parquet' 2>/dev/null | wc -l)
[ "$rc" = 3 ] && [ "$n" = 0 ] && ok "events --mpi --strict with repairs: exit 3 and no part written" ||
	{ fail "events --mpi --strict: exit $rc, $n files"; sed 's/^/#   /' "$TMP/o.out" | head -5; }
# parts of an earlier run with more processes go when a run succeeds
rm -rf "$TMP/st"
mpi 3 -q events --mpi $T/threads -o "$TMP/st" >/dev/null 2>&1 && mpi 2 -q events --mpi $T/threads -o "$TMP/st" >/dev/null 2>&1
[ ! -e "$TMP/st/slices/part-2.parquet" ] && [ -e "$TMP/st/slices/part-1.parquet" ] &&
	ok "an earlier run's part-2 is gone after a run of 2 processes" || fail "stale part files stay: $(ls "$TMP/st/slices" | tr '\n' ' ')"
$TF -q events $T/threads -o "$TMP/st" >/dev/null 2>&1
[ "$(ls "$TMP/st/slices")" = part-0.parquet ] && ok "... and after a single-process run, only part-0" ||
	fail "stale part files after one process: $(ls "$TMP/st/slices" | tr '\n' ' ')"
# a directory that looks different to one process than to the plan: an error, not a silent loss
cp -r $T/threads "$TMP/dA" && cp -r $T/threads "$TMP/dB" && rm "$TMP/dB/tautrace.0.0.4.trc"
mpi_mpmd -np 1 "$TFM" -q profile --mpi "$TMP/dA" -o "$TMP/mm.pb.gz" : -np 1 "$TFM" -q profile --mpi "$TMP/dB" -o "$TMP/mm.pb.gz" > "$TMP/o.out" 2>&1; rc=$?
[ "$rc" = 3 ] && grep -q "when the run was planned" "$TMP/o.out" && ok "a directory that changed after the plan: exit 3, said" ||
	{ fail "a directory that changed after the plan: exit $rc"; sed 's/^/#   /' "$TMP/o.out" | head -5; }

# what is refused, and said
plain_refuses
expect_exit 2 "--mpi with a Chrome timeline output: refused" "$TFM" chrome --mpi $T/threads -o "$TMP/x.json"
expect_exit 2 "--mpi with a relative --window: refused" mpi 1 profile --mpi --window 0s:1s $T/threads -o "$TMP/x.pb.gz"
expect_exit 2 "--mpi with a profile input: refused" mpi 1 profile --mpi "$TMP/one.pb.gz" -o "$TMP/x.pb.gz"
expect_exit 2 "... with 3 processes: exit 2 on every one" mpi 3 profile --mpi "$TMP/one.pb.gz" -o "$TMP/x.pb.gz"
expect_exit 2 "info --mpi: refused" "$TFM" info --mpi $T/threads
check "tracefold-mpi without --mpi is a plain tracefold" "$TFM" -q profile $T/threads -o "$TMP/plain.pb.gz"
finish
