# MPI wait states of `tracefold overview` (the JSON "mpi" object: late
# sender, late receiver, waits at collectives, MPI time per rank and per
# call path; each rank-step's mpi_ns and comm_wait_ns) on the hand-made OTF2
# archive tests/data/otf2/handmade-late-sender (3 ranks; its README's table
# computed by hand), Score-P's MPI ping-pong and TAU's mpi_small.  Oracle:
# tests/tools/overview_mpi_check.py, which reads the archives with Debian's
# python3-otf2 (TAU: the records and EDF in Python, as tau_count.py does)
# and applies the spec's definitions (Scalasca's Late Sender, Late Receiver,
# Wait at N x N); it must itself reproduce the hand table, and it must see a
# change of 1 ns in the tool's JSON.
. tests/lib.sh
PY=/usr/bin/python3 # Debian's python3, which has python3-otf2
C=tests/tools/overview_mpi_check.py
h=$DATA/otf2/handmade-late-sender
$PY -c 'import otf2' 2>/dev/null || { fail "python3-otf2 is not installed (sh tests/deps.sh test)"; finish; }

# the oracle on the hand-made archive = the numbers worked out by hand
check "overview_mpi_check.py on handmade-late-sender = the README's hand table (expect.json)" \
	$PY $C --expect $h/expect.json $h/traces.otf2
# the committed archive is the one make.py writes: definitions and events byte for
# byte; the anchor file but its trace id (8 random bytes libotf2 draws, bytes 54-61)
mkdir "$TMP/regen" && $PY $h/make.py "$TMP/regen"
check "handmade-late-sender: make.py writes the committed archive (all but the anchor's random trace id)" sh -c \
	"cd '$h' && for f in traces.def traces/*; do cmp \"\$f\" '$TMP/regen/'\"\$f\" || exit 1; done &&
	cmp -l traces.otf2 '$TMP/regen/traces.otf2' | awk '\$1 < 54 || \$1 > 61 { print; bad = 1 } END { exit bad }'"

# cmp_tap NAME ARGS...: runs the checker with ARGS, one ok/not ok for all its lines
cmp_tap() {
	n=$1; shift
	if $PY $C "$@" > "$TMP/tap" 2>&1; then
		ok "$n: $(grep -c '^ok' "$TMP/tap") checks of the mpi object and the rank-steps = overview_mpi_check.py's"
	else
		fail "$n: overview's mpi numbers"; grep -v '^ok' "$TMP/tap" | sed 's/^/#   /' | head -20
	fi
}
for in in $h/traces.otf2 $DATA/otf2/scorep-ping-pong-mpi/traces.otf2 $DATA/tau/mpi_small; do
	n=$(basename "$in"); [ "$n" = traces.otf2 ] && n=$(basename "$(dirname "$in")")
	if ! $TF -q overview "$in" -o "$TMP/$n.json" 2>"$TMP/err"; then
		fail "$n: tracefold overview"; sed 's/^/#   /' "$TMP/err" | head -5; continue
	fi
	check "$n: overview JSON is strict JSON with schema tracefold-overview/1" $PY -c '
import json, sys
d = json.load(open(sys.argv[1]), parse_constant=lambda c: sys.exit("not JSON: " + c))
assert d["schema"] == "tracefold-overview/1", d.get("schema")' "$TMP/$n.json"
	cmp_tap "$n" --compare "$TMP/$n.json" "$in"
done
# the tool against the hand table itself (not only through the checker)
[ -f "$TMP/handmade-late-sender.json" ] &&
	check "handmade-late-sender: overview's mpi object = the hand table (totals, ranks, where)" $PY -c '
import json, sys
m, h = json.load(open(sys.argv[1]))["mpi"], json.load(open(sys.argv[2]))
for f in ("late_sender_ns", "late_receiver_ns", "coll_wait_ns"):
    assert m[f] == h[f], (f, m[f], h[f])
key = lambda r: r["rank"]
got = [{f: r[f] for f in h["ranks"][0]} for r in sorted(m["ranks"], key=key)]
assert got == h["ranks"], (got, h["ranks"])
want = {(w["kind"], w["path"]): w["ns"] for w in h["where"]}
got = {(w["kind"], w["path"]): w["ns"] for w in m["where"] if w["ns"]}
assert got == want, (sorted(got.items()), sorted(want.items()))' "$TMP/handmade-late-sender.json" $h/expect.json
# the checker sees a change of 1 ns (late sender of rank 1) and a lost where row
if [ -f "$TMP/handmade-late-sender.json" ]; then
	$PY -c '
import json, sys
d = json.load(open(sys.argv[1]))
[r for r in d["mpi"]["ranks"] if r["rank"] == 1][0]["late_sender_ns"] += 1
json.dump(d, open(sys.argv[2], "w"))
d = json.load(open(sys.argv[1]))
d["mpi"]["where"] = [w for w in d["mpi"]["where"] if w["path"] != "main;MPI_Wait"]
json.dump(d, open(sys.argv[3], "w"))' "$TMP/handmade-late-sender.json" "$TMP/bad1.json" "$TMP/bad2.json"
	expect_exit 1 "the checker fails on rank 1's late_sender_ns off by 1 ns" $PY $C --compare "$TMP/bad1.json" $h/traces.otf2
	expect_exit 1 "the checker fails on a missing where row (main;MPI_Wait)" $PY $C --compare "$TMP/bad2.json" $h/traces.otf2
fi
finish
