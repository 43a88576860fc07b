# The Parquet collectives table (docs/schema.md "collectives", issue 31):
# one row per collective call per rank.  Fixtures: the hand-made Kineto
# NCCL ranks (record_param_comms with PyTorch 2.x args, ncclDevKernel_*
# kernels, a lone ncclKernel_), the real gloo DDP ranks of PyTorch 1.13
# (c10d:: calls, gloo: worker regions that are no calls), the hand-made
# OTF2 MPI archive (MpiCollectiveBegin/End: op, communicator, root, sizes)
# (also read by the OTF2 reader's pipelined path) and TAU's mpi_small
# (MPI_Allreduce() by name).  Oracles: every row =
# tests/tools/coll_table_check.py's, computed from the JSON events and, for
# OTF2, from python3-otf2 (the OTF2 project's reader); TAU's own profile
# files for the TAU calls; the numbers of the OTF2 fixture's README for the
# documented skew and bytes-per-kind queries, run by DuckDB; a --mpi run
# gives the same rows.
. tests/lib.sh
command -v node >/dev/null || { fail "node is missing (tests/deps.sh installs it)"; finish; }
PY=/usr/bin/python3 # Debian's, with python3-otf2
[ -x $PY ] || PY=python3
C="read_parquet('\$DIR/collectives/**/*.parquet')"
Q="SELECT t.input, c.rank, c.match_id, c.kind, c.communicator, c.root, c.bytes, c.bytes_received, c.nelems,
c.begin_ns, c.end_ns, c.gpu_begin_ns, c.gpu_end_ns, c.slice_id IS NOT NULL
FROM $C c JOIN read_parquet('\$DIR/tracks/**/*.parquet') t USING (track_id)"
q() { node tests/tools/duckdb_query.mjs "$1" "$2"; }
# qeq DIR SQL WANT: the rows of SQL as JSON are WANT
qeq() { got=$(q "$1" "$2") || return 1; [ "$got" = "$3" ] || { echo "got  $got" >&2; echo "want $3" >&2; return 1; }; }
rows_check() { # NAME MODE DIR INPUT...
	n=$1 mode=$2 dir=$3; shift 3
	if q "$dir" "$Q" > "$TMP/$n.json" 2>"$TMP/err" &&
		$PY tests/tools/coll_table_check.py $mode "$TMP/$n.json" "$@" > "$TMP/$n.tap"; then
		ok "$n: every row = coll_table_check.py's from the raw trace ($(grep -c '^ok' "$TMP/$n.tap") checks)"
	else
		fail "$n: rows"; sed 's/^/#   /' "$TMP/err"; grep -v '^ok' "$TMP/$n.tap" | sed 's/^/#   /'
	fi
}
K=$DATA/chrome/kineto-collectives-handmade
G=$DATA/chrome/torch113-gloo-ddp
O=$DATA/otf2/handmade-late-sender/traces.otf2
$TF -q events $K/*.json.gz -o "$TMP/k" || fail "events $K"
$TF -q events $G/*.json.gz -o "$TMP/g" || fail "events $G"
$TF -q events $O -o "$TMP/o" || fail "events $O"
$TF -q events $DATA/tau/mpi_small -o "$TMP/t" || fail "events tau/mpi_small"
rows_check kineto-nccl chrome "$TMP/k" $K/*.json.gz
rows_check gloo-ddp chrome "$TMP/g" $G/*.json.gz
rows_check otf2-mpi otf2 "$TMP/o" $O
# the OTF2 reader's pipelined path (a decode thread): the same rows
TRACEFOLD_THREADS=2 $TF -q events $O -o "$TMP/op" || fail "events $O (pipelined)"
rows_check otf2-mpi-pipelined otf2 "$TMP/op" $O

# every match id: once per rank, one kind, one size; the Kineto groups' ranks all there
check "kineto: each match_id once on each rank of its group ([0,1]), same kind and bytes; 5 ids" qeq "$TMP/k" \
	"SELECT match_id, count(*), count(DISTINCT rank), count(DISTINCT kind), count(DISTINCT coalesce(bytes, -1)),
	any_value(group_ranks) FROM $C GROUP BY ALL ORDER BY 1" \
	'[["#0",2,2,1,1,null],["0#0",2,2,1,1,"[0,1]"],["0#1",2,2,1,1,"[0,1]"],["0#2",2,2,1,1,"[0,1]"],["1#0",2,2,1,1,"[0,1]"]]'
check "gloo: 9 calls per input (c10d::), each match_id twice with one kind" qeq "$TMP/g" "SELECT count(*), count(DISTINCT match_id), bool_and(n = 2 AND k = 1) FROM
  (SELECT match_id, count(*) AS n, count(DISTINCT kind) AS k FROM $C GROUP BY match_id)" '[[9,9,true]]'

# the documented queries (docs/schema.md "collectives"): skew per collective
SKEW="SELECT communicator, match_id, any_value(kind) AS kind, count(*) AS ranks,
       max(begin_ns) - min(begin_ns) AS arrival_skew_ns, max(end_ns) - min(end_ns) AS end_skew_ns,
       arg_max(rank, begin_ns) AS last_rank
FROM $C GROUP BY communicator, match_id ORDER BY arrival_skew_ns DESC, match_id"
check "skew per collective (OTF2, the README's timeline): all_reduce 20 us late rank 1, barrier 8 us rank 2, bcast 5 us rank 2, rank 0's barrier in MPI_Finalize alone" \
	qeq "$TMP/o" "$SKEW" \
	'[["0","0#0","all_reduce",3,20000,0,1],["0","0#1","barrier",3,8000,0,2],["0","0#2","broadcast",3,5000,7000,2],["0","0#3","barrier",1,0,0,0]]'
BYTES="SELECT kind, count(*) AS calls, sum(bytes) AS bytes, sum(bytes_received) AS bytes_received,
       sum(end_ns - begin_ns) AS wall_ns, sum(gpu_end_ns - gpu_begin_ns) AS gpu_ns
FROM $C GROUP BY kind ORDER BY kind"
check "bytes per kind (OTF2): 3 all_reduce 24 B, 4 barrier 32 B, 3 broadcast 24 B (8 B each way per call)" qeq "$TMP/o" "$BYTES" \
	'[["all_reduce",3,24,24,60000,null],["barrier",4,32,32,27000,null],["broadcast",3,24,24,17000,null]]'
# make.py: per rank record_param_comms of 60, 50, 45, 40 us; kernels of 300+r, 310+r, 120+r,
# 50+r us (r the rank); a lone 70 us ncclKernel_AllReduce per rank
check "bytes per kind (Kineto, make.py's numbers): all_reduce 6 calls (2 lone kernels: no size) 16 MiB, wall 2x110+2x70 us, gpu 1222+140 us; all_gather 16 KiB, gpu 241 us; broadcast 4 KiB" qeq "$TMP/k" "$BYTES" \
	'[["all_gather",2,16384,null,90000,241000],["all_reduce",6,16777216,null,360000,1362000],["broadcast",2,4096,null,80000,101000]]'

# TAU: MPI collectives by name, sizes unknown; calls = TAU's own profile files
tau_calls() { # TAU's own profile files: the calls of MPI_Allreduce() and MPI_Barrier() per rank
	q "$TMP/t" "SELECT rank, kind, count(*), count(bytes) FROM $C GROUP BY ALL ORDER BY ALL" > "$TMP/t.json" &&
	python3 - "$TMP/t.json" $DATA/tau/mpi_small <<'PYEOF'
import json, re, sys
got, want = json.load(open(sys.argv[1])), []
for r in (0, 1):
    for line in open(sys.argv[2] + "/profile.%d.0.0" % r):
        m = re.match(r'"MPI_(Allreduce|Barrier)\(\) *" (\d+) ', line)
        if m:
            want.append([r, {"Allreduce": "all_reduce", "Barrier": "barrier"}[m.group(1)], int(m.group(2)), 0])
assert sorted(got) == sorted(want) and len(want) == 4, (got, want)
PYEOF
}
check "tau mpi_small: per rank and kind the calls of TAU's profile.N.0.0 (MPI_Allreduce(), MPI_Barrier()), bytes null" tau_calls

# --mpi: each process writes its part; match ids agree all the same
TFM=${TF}-mpi
if [ -x "$TFM" ] && command -v mpirun >/dev/null; then
	export OMPI_MCA_btl=self,vader OMPI_MCA_btl_vader_single_copy_mechanism=none
	case $TF in *san*) export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" ;; esac
	M="timeout 120 mpirun --allow-run-as-root --oversubscribe"
	$M -np 2 "$TFM" -q events --mpi $K/*.json.gz -o "$TMP/km" > "$TMP/m.out" 2>&1 || { fail "mpirun events kineto"; sed 's/^/#   /' "$TMP/m.out"; }
	rows_check kineto-nccl-mpi2 chrome "$TMP/km" $K/*.json.gz
	$M -np 3 "$TFM" -q events --mpi $O -o "$TMP/om" > "$TMP/m.out" 2>&1 || { fail "mpirun events otf2"; sed 's/^/#   /' "$TMP/m.out"; }
	rows_check otf2-mpi-mpi3 otf2 "$TMP/om" $O
	check "--mpi -np 3: collective_id unique across the parts" qeq "$TMP/om" "SELECT count(DISTINCT collective_id) = count(*) AND count(*) = 10 FROM $C" '[[true]]'
else
	ok "# SKIP $TFM or mpirun missing: the --mpi checks"
fi
finish
