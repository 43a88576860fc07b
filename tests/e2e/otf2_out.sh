# OTF2 out (tracefold otf2, docs/otf2-out.md): every fixture converts into an
# archive that otf2-print (libotf2's own dump tool) reads without an error
# or warning and that the OTF2 project's Python reader (Debian's
# python3-otf2, tests/tools/otf2_out_check.py) reads with its locations in
# time order, Enter/Leave nested, event counts as defined and as `info` and
# `top` of the input count them; the archive read back by tracefold gives
# the input's profile; equal timestamps keep their nesting.
. tests/lib.sh
PY=/usr/bin/python3 # Debian's python3, which has python3-otf2
$PY -c 'import otf2' 2>/dev/null || { fail "python3-otf2 is not installed (sh tests/deps.sh test)"; finish; }
# profile_of INPUT [--sample-type T]: every function's self, total and calls
profile_of() { f=$1; shift; table "$@" "$f"; }
# same_paths A B: A and B have the same sample types and, for each, the same
# call paths with the same self, total and calls (tracefold diff --paths)
same_paths() {
	# Kineto's [memory] instants (alloc_*, free_*, inuse_*: docs/memory.md) and
	# sampled stacks (samples, cpu: Chrome's CPU profile, docs/samples.md) are not
	# in the archive (docs/otf2-out.md): every other type
	$TF -q profile "$1" -o "$TMP/types.pb.gz" || return 1
	types=$(python3 tests/tools/pprof.py dump "$TMP/types.pb.gz" | sed -n '1s/^types //p' | tr ' ' '\n' |
		sed -n '/^\(alloc\|free\|inuse\)_\|^samples\/\|^cpu\//!s|/.*||p')
	[ -n "$types" ] || return 1
	for ty in $types; do
		$TF -q diff --paths --keep-waiting --sample-type "$ty" -n 0 --format json "$1" "$2" | python3 -c '
import json, sys
d = json.load(sys.stdin)
bad = [r["name"] for r in d["rows"] if r["status"] != "both" or r["self"]["delta"] or r["total"]["delta"]
       or (r["calls"] and r["calls"]["delta"])]
if bad: sys.exit("%s: %d of %d call paths differ: %s" % (sys.argv[1], len(bad), d["rows_count"], bad[:3]))' "$ty" || return 1
	done
}
i=0
for t in $DATA/tau/* $DATA/otf2/*/traces.otf2 $DATA/chrome/*/*.json $DATA/chrome/*/*.json.gz \
	$DATA/chrome/*/*.pfw.gz; do
	case $t in */README.md | */FILES.md | */expect/* | */oracle/*) continue ;; esac
	[ -e "$t" ] || continue
	i=$((i + 1)); b=$(basename "$t")
	[ "$b" = traces.otf2 ] && b=$(basename "$(dirname "$t")")
	a=$TMP/a$i
	if ! $TF -q otf2 "$t" -o "$a" 2> "$TMP/err"; then
		fail "$b: tracefold otf2"; sed 's/^/#   /' "$TMP/err" | head -5; continue
	fi
	check "$b: otf2-print reads it, no error or warning" sh -c "otf2-print '$a/traces.otf2' > '$TMP/print' 2> '$TMP/perr' && test ! -s '$TMP/perr'"
	check "$b: otf2-print -G reads its definitions" sh -c "otf2-print -G '$a/traces.otf2' > /dev/null 2> '$TMP/perr' && test ! -s '$TMP/perr'"
	$TF -q info --format json "$t" > "$TMP/info.json"
	$TF -q top --format json -n 1 --keep-waiting "$t" > "$TMP/top.json"
	check "$b: python3-otf2: time order, nesting, counts = info's and top's" \
		$PY tests/tools/otf2_out_check.py "$a/traces.otf2" "$TMP/info.json" "$TMP/top.json"
	check "$b: read back, the same profile: every sample type, call path by call path (GPU work under its launch)" \
		same_paths "$t" "$a"
done

# equal timestamps: zero-length regions and B/E pairs at one time keep the
# nesting the stack builder gave them (file order), not a sort by time
cat > "$TMP/eq.json" <<'EOF'
{"traceEvents":[
{"ph":"B","name":"outer","pid":1,"tid":1,"ts":10},
{"ph":"B","name":"a","pid":1,"tid":1,"ts":10},
{"ph":"E","name":"a","pid":1,"tid":1,"ts":10},
{"ph":"B","name":"b","pid":1,"tid":1,"ts":10},
{"ph":"X","name":"c","pid":1,"tid":1,"ts":10,"dur":0},
{"ph":"E","name":"b","pid":1,"tid":1,"ts":10},
{"ph":"E","name":"outer","pid":1,"tid":1,"ts":12}
]}
EOF
cat > "$TMP/eq.expect" <<'EOF'
thread 1 Enter 10000 outer
thread 1 Enter 10000 a
thread 1 Leave 10000 a
thread 1 Enter 10000 b
thread 1 Enter 10000 c
thread 1 Leave 10000 c
thread 1 Leave 10000 b
thread 1 Leave 12000 outer
EOF
$TF -q otf2 "$TMP/eq.json" -o "$TMP/eq"
$TF -q info --format json "$TMP/eq.json" > "$TMP/info.json"
$TF -q top --format json -n 1 "$TMP/eq.json" > "$TMP/top.json"
check "equal timestamps: Enter/Leave in the input's nesting (a, then b holding c, inside outer)" \
	$PY tests/tools/otf2_out_check.py "$TMP/eq/traces.otf2" "$TMP/info.json" "$TMP/top.json" --expect "$TMP/eq.expect"
# the check can fail: the same events in another order
{ sed -n 1p "$TMP/eq.expect"; sed -n 4p "$TMP/eq.expect"; sed -n 2,3p "$TMP/eq.expect"; sed -n '5,$p' "$TMP/eq.expect"; } > "$TMP/eq.wrong"
expect_exit 1 "... and the check fails on another order" \
	$PY tests/tools/otf2_out_check.py "$TMP/eq/traces.otf2" "$TMP/info.json" "$TMP/top.json" --expect "$TMP/eq.wrong"

# MPI: messages on MPI_COMM_WORLD; a rank left out still has its place
$TF -q otf2 --ranks 1 $DATA/tau/mpi_small -o "$TMP/r1"
check "--ranks 1: otf2-print reads it (rank 0 an empty process)" sh -c "otf2-print '$TMP/r1/traces.otf2' > /dev/null 2> '$TMP/perr' && test ! -s '$TMP/perr'"
check "--ranks 1: MPI_COMM_WORLD lists both ranks, rank 0 '(not in this trace)'" sh -c "
	otf2-print -G '$TMP/r1/traces.otf2' | grep -q 'COMM_LOCATIONS, Paradigm: MPI, Flags: NONE, 2 Members: \"(not in this trace)\"'"
check "--ranks 1: read back, rank 1 is still rank 1" sh -c "$TF -q info '$TMP/r1' | grep -q 'rank 1, thread 0 \"thread 0\": 82 events'"
profile_of $DATA/tau/mpi_small --ranks 1 > "$TMP/p1"
profile_of "$TMP/r1" > "$TMP/p2"
check "--ranks 1: read back, rank 1's profile" cmp "$TMP/p1" "$TMP/p2"
check "messages: the receiver of a send is the other rank" sh -c "
	otf2-print '$TMP/a1/traces.otf2' 2>/dev/null | grep MPI_SEND | head -1 | grep -q 'Receiver: 1'" 

# repairs: an attribute on the Leave
printf '{"traceEvents":[{"ph":"X","name":"p","pid":1,"tid":1,"ts":0,"dur":10},{"ph":"X","name":"c","pid":1,"tid":1,"ts":5,"dur":5.5}]}' > "$TMP/clip.json"
$TF -q otf2 "$TMP/clip.json" -o "$TMP/clip"
check "a clipped region's Leave carries tracefold::repaired = clipped" sh -c "
	otf2-print '$TMP/clip/traces.otf2' | grep -A1 'LEAVE.*Region: \"c\"' | grep -q 'tracefold::repaired.*\"clipped\"'"

# the folder: replaced when it holds an archive, refused when it holds anything else
$TF -q otf2 $DATA/tau/tiny -o "$TMP/a1"
table $DATA/tau/tiny > "$TMP/p1"
table "$TMP/a1" > "$TMP/p2"
check "an earlier archive at DIR (mpi_small's) is replaced by the new one (tau/tiny's profile)" cmp "$TMP/p1" "$TMP/p2"
check "... and no old archive is left beside it" sh -c "! ls -a '$TMP' | grep -q '^\.a1\.'"
# a Score-P experiment folder holds more than the archive: never emptied
mkdir -p "$TMP/sp" && cp -r $DATA/otf2/scorep-ping-pong-mpi/. "$TMP/sp/"
ls -R "$TMP/sp" > "$TMP/sp.before"
expect_exit 3 "a folder holding traces.otf2 and more (Score-P's scorep.cfg): exit 3" \
	$TF -q otf2 $DATA/otf2/tiny_otf2/traces.otf2 -o "$TMP/sp"
cp "$TMP/err" "$TMP/err1"
check "... saying what is in the way" grep -q "it holds '.*', which tracefold did not write" "$TMP/err1"
expect_exit 2 "... and as the output of its own archive: exit 2 (the output holds the input)" \
	$TF -q otf2 "$TMP/sp/traces.otf2" -o "$TMP/sp"
check "... and every file of it is still there" sh -c "ls -R '$TMP/sp' | cmp - '$TMP/sp.before'"
# a damaged message peer (rank 200000 in a 1-rank run): MPI_COMM_WORLD stays
# the run's size, and a warning says so (python3-otf2 writes the input)
$PY - "$TMP/bp" <<'EOF'
import otf2, sys
with otf2.writer.open(sys.argv[1], timer_resolution=1000000) as t:
    node = t.definitions.system_tree_node("node")
    lg = t.definitions.location_group("rank 0", system_tree_parent=node)
    loc = t.definitions.location("thread", group=lg)
    f = t.definitions.region("main")
    g = t.definitions.group("locs", group_type=otf2.GroupType.COMM_LOCATIONS, paradigm=otf2.Paradigm.MPI, members=[loc])
    cg = t.definitions.group("world", group_type=otf2.GroupType.COMM_GROUP, paradigm=otf2.Paradigm.MPI, members=[0])
    comm = t.definitions.comm("world", group=cg)
    w = t.event_writer_from_location(loc)
    w.enter(1000, f)
    w(otf2.events.MpiSend(1500, receiver=200000, communicator=comm, msg_tag=1, msg_length=8))
    w.leave(2000, f)
EOF
$TF otf2 "$TMP/bp/traces.otf2" -o "$TMP/bpo" 2> "$TMP/bperr"
check "a message to rank 200000 of a 1-rank run: said on stderr" grep -q "messages name peers up to rank 200000, beyond the run's ranks (0..0)" "$TMP/bperr"
check "... the archive has 1 location, not 200,001" sh -c "test \$(ls '$TMP/bpo/traces' | wc -l) -eq 2"
check "... and otf2-print reads it" sh -c "otf2-print '$TMP/bpo/traces.otf2' > /dev/null 2> '$TMP/perr' && test ! -s '$TMP/perr'"
# negative timestamps (robustness.md, issue 26 item 7): a run that starts
# before 0 is shifted to start at 0; a later input that starts earlier than
# the first one written is an error that says so, nothing left behind
printf '{"traceEvents":[{"ph":"X","name":"a","pid":1,"tid":1,"ts":-5,"dur":10}]}' > "$TMP/neg.json"
printf '{"traceEvents":[{"ph":"X","name":"b","pid":2,"tid":2,"ts":1,"dur":10}]}' > "$TMP/pos.json"
check "a run that starts before 0: written from 0" sh -c "$TF -q otf2 '$TMP/neg.json' -o '$TMP/neg0' &&
	otf2-print '$TMP/neg0/traces.otf2' | grep -E '^ENTER' | grep -q ' 0  Region: \"a\"'"
expect_exit 3 "a later input before 0: exit 3" $TF otf2 "$TMP/pos.json" "$TMP/neg.json" -o "$TMP/neg"
cp "$TMP/err" "$TMP/err1"
check "... saying why (and nothing of libotf2's own printing)" sh -c "grep -q \"'a' of '$TMP/neg.json' (process 1, thread 1) is at -5000 ns, before 0\" '$TMP/err1' && ! grep -q '^\[OTF2\]' '$TMP/err1'"
check "... and no archive or temporary folder" sh -c "test ! -e '$TMP/neg' && ! ls -a '$TMP' | grep -q '^\.neg\.'"
# the pipelined OTF2 reader reads tracefold's attributes back the same way
k=$(ls $DATA/chrome/kineto-resnet50-gpu/*.json.gz)
$TF -q otf2 "$k" -o "$TMP/k2"
check "Kineto read back by the pipelined OTF2 reader (TRACEFOLD_THREADS=2): the same call paths" \
	sh -c "TRACEFOLD_THREADS=2 $TF -q profile '$TMP/k2' -o '$TMP/k2.pb.gz' && $TF -q profile '$TMP/k2' -o '$TMP/k1.pb.gz' && cmp '$TMP/k1.pb.gz' '$TMP/k2.pb.gz'"
check "-o DIR/ (a trailing slash) writes DIR" sh -c "$TF -q otf2 $DATA/tau/tiny -o '$TMP/slash/' && test -f '$TMP/slash/traces.otf2'"
mkdir -p "$TMP/other" && echo keep > "$TMP/other/notes.txt"
expect_exit 3 "a folder that is not an archive is not replaced: exit 3" $TF -q otf2 $DATA/tau/tiny -o "$TMP/other"
check "... it is untouched" grep -qx keep "$TMP/other/notes.txt"
check "... and no temporary folder is left" sh -c "! ls -a '$TMP' | grep -q '^\.other\.'"
expect_exit 2 "-o -: usage error (an archive is a folder)" $TF -q otf2 $DATA/tau/tiny -o -
expect_exit 2 "no -o: usage error" $TF -q otf2 $DATA/tau/tiny
printf '{"traceEvents":[{"ph":"M","name":"process_name","pid":1,"args":{"name":"x"}}]}' > "$TMP/empty.json"
expect_exit 3 "nothing usable in the input: exit 3" $TF -q otf2 "$TMP/empty.json" -o "$TMP/e"
check "... and nothing written" test ! -e "$TMP/e"
$TF -q convert --to otf2 -o "$TMP/conv" $DATA/tau/mpi_small
check "convert --to otf2 writes the same archive" sh -c "
	otf2-print '$TMP/conv/traces.otf2' > '$TMP/c1' && otf2-print '$TMP/a1/traces.otf2' > /dev/null && $TF -q otf2 $DATA/tau/mpi_small -o '$TMP/a1b' && otf2-print '$TMP/a1b/traces.otf2' > '$TMP/c2' && cmp '$TMP/c1' '$TMP/c2'"
finish
