# The input filters --ranks LIST and --window START:END (docs/cli.md
# "Filters"), on the bundled TAU, OTF2 and Chrome traces: a rank's profile
# is that rank's part of the unfiltered timeline (summed from `tracefold
# chrome`'s per-pid slices), the ranks' profiles add up to the whole, a
# window over the whole run changes nothing, two windows that split the run
# add up to it to the nanosecond, absolute bounds equal relative ones, a
# timeline written through a window holds only what is inside it, and bad
# values and empty results are errors.
. tests/lib.sh
MPI=$DATA/tau/mpi_small
PP=$DATA/otf2/scorep-ping-pong-mpi
CH=$DATA/chrome/pytorch-legacy-small/trace.json
# the run's time span from info: first_ns and duration_ns
span() { $TF -q info --format json "$1" | python3 -c '
import json,sys
t=json.load(sys.stdin)["time_span"]; print(t["first_ns"], t["duration_ns"])'; }
# per-function self time of the tables given, summed (name -> ns)
sumself() { python3 -c '
import sys
s={}
for p in sys.argv[1:]:
    for l in open(p):
        n,self_,tot,calls=l.rstrip("\n").split("\t"); s[n]=s.get(n,0)+int(self_)
for n in sorted(s): print(n, s[n])' "$@"; }
selfonly() { sumself "$1"; }
expect_msg() { # DESC PATTERN: the last command's stderr has PATTERN
	if grep -q -- "$2" "$TMP/err"; then ok "$1"; else fail "$1: no '$2' in:"; sed 's/^/#   /' "$TMP/err"; fi; }

# ---- --ranks ----
for t in $MPI $PP; do
	b=$(basename "$t")
	table "$t" > "$TMP/all"
	$TF -q chrome "$t" -o "$TMP/all.json"
	for r in 0 1; do
		table --ranks $r "$t" > "$TMP/r$r"
		# the oracle: rank r's slices (pid r) of the unfiltered timeline
		check "$b: --ranks $r: every function's self time and calls are those of pid $r in the unfiltered timeline" \
			python3 -c '
import json,sys
from decimal import Decimal
ev=json.load(open(sys.argv[1]), parse_float=Decimal)["traceEvents"]
want={}
for e in ev:
    if e["ph"]=="X" and e["pid"]==int(sys.argv[2]):
        w=want.setdefault(e["name"],[0,0]); w[0]+=int(e["args"]["self_us"]*1000); w[1]+=1
got={}
for l in open(sys.argv[3]):
    n,s,t,c=l.rstrip("\n").split("\t"); got[n]=[int(s),int(c)]
assert got and got==want, (got,want)' "$TMP/all.json" $r "$TMP/r$r"
	done
	sumself "$TMP/r0" "$TMP/r1" > "$TMP/sum"; selfonly "$TMP/all" > "$TMP/one"
	check "$b: --ranks 0 plus --ranks 1: every function's self time is the whole run's" cmp "$TMP/sum" "$TMP/one"
	table --ranks 0-1 "$t" > "$TMP/r01"
	check "$b: --ranks 0-1 is the whole run" cmp "$TMP/r01" "$TMP/all"
	table --ranks 1,0 "$t" > "$TMP/r01"
	check "$b: --ranks 1,0 is the whole run" cmp "$TMP/r01" "$TMP/all"
	expect_exit 3 "$b: --ranks 5 keeps nothing: exit 3" $TF top --ranks 5 "$t"
	expect_msg "$b: ... naming the ranks present" "no track of rank 5 (ranks present: 0 1)"
	$TF -q info --format json --ranks 1 "$t" > "$TMP/info.json"
	check "$b: info --ranks 1: one track left out, counted" python3 -c '
import json,sys
d=json.load(open(sys.argv[1]))["diagnostics"]
assert d["ranks_tracks_out"]==1 and d["ranks_spans_out"]>0, d' "$TMP/info.json"
done
expect_exit 3 "--ranks on a trace without ranks (Chrome): exit 3" $TF top --ranks 0 "$CH"
expect_msg "... saying that no track has a rank" "no track of the inputs has an MPI rank"
expect_exit 3 "chrome --ranks on a trace without ranks: exit 3" $TF chrome --ranks 0 "$CH" -o "$TMP/none.json"
check "... and no output written" test ! -e "$TMP/none.json"
for bad in 1-x "" 3-1 1,,2 1, -1 " 1" 1.5 99999999999999999999; do
	expect_exit 2 "--ranks '$bad': usage error" $TF top --ranks "$bad" "$MPI"
done
expect_msg "... naming the bad part" "'99999999999999999999' is not a rank"
$TF top --ranks 1-x "$MPI" 2>"$TMP/err" >/dev/null
expect_msg "--ranks 1-x: the message names '1-x'" "'1-x' is not a rank or a range of ranks"

# ---- --window: values ----
for bad in 5 5:10 5s 5s:10 5x:10s 2s:1s 1s:1s @2s:@1s 1s:2s:3s 1..5s:2s -1s:2s .s:1s ; do
	expect_exit 2 "--window '$bad': usage error" $TF top --window "$bad" "$MPI"
done
$TF top --window 5:10s "$MPI" 2>"$TMP/err" >/dev/null
expect_msg "--window 5:10s: says the unit is missing" "'5' has no unit"
$TF top --window 1.0000000001s: "$MPI" 2>"$TMP/err" >/dev/null
expect_msg "--window 1.0000000001s: finer than a nanosecond" "finer than a nanosecond"

# ---- --window: semantics ----
for t in $MPI $PP $CH $DATA/chrome/catapult-unclosed-slices/*.json; do
	b=$(basename "$t")
	set -- $(span "$t"); first=$1; dur=$2
	table "$t" > "$TMP/all"
	table --window "0s:$((dur + 1))ns" "$t" > "$TMP/w"
	check "$b: a window over the whole run: the same profile" cmp "$TMP/w" "$TMP/all"
	table --window ":$((dur + 1))ns" "$t" > "$TMP/w"
	check "$b: --window :END over the whole run: the same profile" cmp "$TMP/w" "$TMP/all"
	selfonly "$TMP/all" > "$TMP/one"
	for cut in $((dur / 2)) $((dur / 3)) $((dur * 7 / 10 + 1)); do
		table --window ":${cut}ns" "$t" > "$TMP/h1"
		table --window "${cut}ns:" "$t" > "$TMP/h2"
		sumself "$TMP/h1" "$TMP/h2" > "$TMP/sum"
		check "$b: --window :${cut}ns plus ${cut}ns: : every function's self time is the whole run's, to the ns" \
			cmp "$TMP/sum" "$TMP/one"
	done
	a=$((dur / 4)); z=$((dur * 3 / 4))
	table --window "${a}ns:${z}ns" "$t" > "$TMP/rel"
	table --window "@$((first + a))ns:@$((first + z))ns" "$t" > "$TMP/abs"
	check "$b: an absolute window equals the same relative one" cmp "$TMP/abs" "$TMP/rel"
	table --window "@$((first + a))ns:${z}ns" "$t" > "$TMP/mix"
	check "$b: ... and a mixed one" cmp "$TMP/mix" "$TMP/rel"
	check "$b: the middle half holds less time than the whole" python3 -c '
import sys
t=lambda p: sum(int(l.split("\t")[1]) for l in open(p))
assert 0 < t(sys.argv[1]) < t(sys.argv[2])' "$TMP/rel" "$TMP/all"
	expect_exit 3 "$b: a window after the run: exit 3" $TF top --window "$((dur + 1000))ns:" "$t"
	expect_msg "$b: ... naming the window and the run's time span" "keeps nothing: it is .* the run's regions and events span"
	# the timeline holds only what is inside the window
	$TF -q chrome --window "${a}ns:${z}ns" "$t" -o "$TMP/w.json"
	check "$b: chrome --window: every slice, counter and instant inside [START, END)" python3 -c '
import json,sys
from decimal import Decimal
d=json.load(open(sys.argv[1]), parse_float=Decimal)
sh=int(d["otherData"].get("time_shift_ns",0)); lo=int(sys.argv[2]); hi=int(sys.argv[3])
n=0
for e in d["traceEvents"]:
    if e["ph"]=="M": continue
    ts=e["ts"]*1000+sh
    if e["ph"]=="X":
        assert lo <= ts and ts+e["dur"]*1000 <= hi, e
    else:
        assert lo <= ts < hi or (e["ph"] in "sf" and lo <= ts <= hi), e
    n+=1
assert n, "empty"' "$TMP/w.json" $((first + a)) $((first + z))
done
# what was left out is counted, in info and in the profile's comments
set -- $(span "$MPI"); dur=$2
$TF -q info --format json --window "$((dur / 3))ns:$((dur / 2))ns" "$MPI" > "$TMP/info.json"
check "info --window: spans left out and clipped are counted, with the time cut off" python3 -c '
import json,sys
d=json.load(open(sys.argv[1]))["diagnostics"]
assert d["window_spans_out"]>0 and d["window_clipped"]>0 and d["window_clipped_ns"]>0, d' "$TMP/info.json"
$TF -q profile --window "$((dur / 3))ns:$((dur / 2))ns" "$MPI" -o "$TMP/w.pb.gz"
check "profile --window: the comments say the filter and what it left out" sh -c \
	"gzip -dc '$TMP/w.pb.gz' | grep -a -q 'filter: --window' && gzip -dc '$TMP/w.pb.gz' | grep -a -q 'window_clipped_ns='"
# every command that reads traces takes them
check "events --window --ranks" $TF -q events --ranks 1 --window ":$((dur / 2))ns" "$MPI" -o "$TMP/ev"
check "convert --window --ranks" $TF -q convert --ranks 0 --window "$((dur / 2))ns:" "$MPI" -o "$TMP/c.pb.gz" -o "$TMP/c.trace.json"
check "diff --window (each side from its own first timestamp)" $TF -q diff --window ":$((dur / 2))ns" "$MPI" "$MPI"
$TF -q profile "$MPI" -o "$TMP/p.pb.gz"
expect_exit 2 "a pprof input with --ranks: usage error" $TF top --ranks 0 "$TMP/p.pb.gz"
expect_exit 2 "a relative window on standard input: usage error" sh -c "$TF top --window :1s - < '$CH'"
check "an absolute window on standard input" sh -c "$TF -q top --window '@0ns:' - < '$CH'"
finish
