# tracefold overview (docs/overview.md): the worked example's two-rank
# trace (tests/data/chrome/overview-handmade), every number of it computed
# by hand in docs/overview.md and written here; the outputs (text,
# Markdown, JSON, HTML) and their safety (written aside, a failed run
# leaves the old report, an error names the file); --late-min; a trace
# with MPI messages.  The per-rank per-step numbers of real and generated
# traces are checked against tests/tools/overview_check.py by
# overview_synth.sh and overview_ddp.sh; the MPI wait states by
# overview_mpi.sh.  With the binary before the command existed every
# check fails (no such command).
. tests/lib.sh
H=$DATA/chrome/overview-handmade
R0=$H/rank0.json
R1=$H/rank1.json

check "overview: the hand-made run as JSON" $TF -q overview $R0 $R1 -o $TMP/o.json
check "overview: every number equals the hand computation (docs/overview.md)" python3 -c '
import json,sys
o=json.load(open(sys.argv[1]))
assert o["schema"] == "tracefold-overview/1"
r=o["run"]
assert (r["nranks"], r["devices"], r["threads"], r["rank_steps"], r["steps_from"]) == (2, 2, 2, 4, "ProfilerStep"), r
assert (r["wall_ns"], r["late_min_ns"], r["collectives"]["matched"]) == (220000, 11000, 2), r
F=("time_ns","cpu_ns","gpu_compute_ns","gpu_comm_ns","gpu_memcpy_ns","gpu_memset_ns","gpu_idle_ns","comm_exposed_ns","comm_wait_ns","late_ns","bound")
want={(0,1):(100,50,40,30,0,0,40,20,30,-15,"gpu"),(0,2):(120,50,40,50,0,0,30,50,0,0,"gpu"),
      (1,1):(100,65,40,18,0,0,42,18,0,15,"gpu"),(1,2):(120,50,40,50,0,0,30,50,0,0,"gpu")}
got={}
for k in o["ranks"]:
    for s in k["steps"]:
        got[(k["rank"],s["step"])]=tuple(s[f] if f=="bound" else s[f]//1000 for f in F)
assert got == want, (got, want)
assert [(s["rank"],s["step"],s["late_ns"],s["where"]) for s in o["stragglers"]] == [(1,1,15000,"ProfilerStep;injected_delay")], o["stragglers"]
' $TMP/o.json
check "overview: text on stdout names the straggler and where" sh -c "$TF -q overview $R0 $R1 | grep -q 'rank 1 step 1: 15.00 us late, the difference in ProfilerStep;injected_delay'"
check "overview: Markdown (-o x.md) puts the verdict first" sh -c "$TF -q overview $R0 $R1 -o $TMP/o.md && head -3 $TMP/o.md | grep -q '^- 1 straggler' && grep -q '^| rank | step |' $TMP/o.md"
check "overview: --format json on stdout equals -o x.json" sh -c "$TF -q overview --format json $R0 $R1 | cmp - $TMP/o.json"
check "overview: --late-min 20us: no straggler" sh -c "$TF -q overview --late-min 20us --format json $R0 $R1 | python3 -c 'import json,sys; o=json.load(sys.stdin); assert o[\"stragglers\"] == [] and o[\"run\"][\"late_min_ns\"] == 20000'"
check "overview: one rank alone: its steps, no straggler" sh -c "$TF -q overview --format json $R1 | python3 -c 'import json,sys; o=json.load(sys.stdin); assert o[\"stragglers\"] == [] and len(o[\"ranks\"]) == 1 and o[\"run\"][\"collectives\"][\"unmatched_calls\"] == 2'"
check "overview: the HTML page is one self-contained file" sh -c "$TF -q overview $R0 $R1 -o $TMP/o.html && grep -qi '<html' $TMP/o.html && ! grep -qiE 'src=\"https?:|href=\"https?:' $TMP/o.html"

# ranks: the file names' (rank3.json), else the inputs' order
cp $R0 $TMP/a-rank_7.json; cp $R1 $TMP/b-rank-3.json
python3 - $TMP/a-rank_7.json $TMP/b-rank-3.json <<'PY'
import json,sys
for p in sys.argv[1:]:
    d=json.load(open(p)); del d["distributedInfo"]; json.dump(d, open(p,"w"))
PY
check "overview: ranks from file names (rank_7, rank-3)" sh -c "$TF -q overview --format json $TMP/a-rank_7.json $TMP/b-rank-3.json | python3 -c 'import json,sys; o=json.load(sys.stdin); assert [k[\"rank\"] for k in o[\"ranks\"]] == [3,7] and o[\"run\"][\"ranks_from\"] == \"file names\"'"
cp $TMP/a-rank_7.json $TMP/x.json; cp $TMP/b-rank-3.json $TMP/y.json
check "overview: else one rank per input, in their order" sh -c "$TF -q overview --format json $TMP/y.json $TMP/x.json | python3 -c 'import json,sys; o=json.load(sys.stdin); assert [k[\"rank\"] for k in o[\"ranks\"]] == [0,1] and o[\"run\"][\"ranks_from\"] == \"inputs\"; assert o[\"stragglers\"][0][\"rank\"] == 0'"

# safety: errors name the file; a failed run leaves the old report
echo '{"traceEvents": [{"ph": "X", "name": "a", "ts": 1' > $TMP/bad.json
cp $TMP/o.json $TMP/keep.json
expect_exit 3 "overview: a damaged input is an error (exit 3)" $TF overview $R0 $TMP/bad.json -o $TMP/keep.json
cp $TMP/err $TMP/err1
check "overview: ... naming the file" grep -q "bad.json" $TMP/err1
check "overview: ... and the old report is left as it was" cmp $TMP/keep.json $TMP/o.json
expect_exit 3 "overview: an output that cannot be written is an error" $TF overview $R0 $R1 -o $TMP/no/such/dir/o.json
cp $TMP/err $TMP/err2
check "overview: ... naming the output" grep -q "no/such/dir/o.json" $TMP/err2
expect_exit 2 "overview: no input is a usage error" $TF overview
expect_exit 2 "overview: an output that is an input is refused" $TF overview $R0 $R1 -o $R0
check "overview: --help" sh -c "$TF overview --help | grep -q 'usage: tracefold overview'"

# -j: shares of whole inputs on threads, the same report byte for byte
D=$DATA/chrome/torch113-ddp-stragglers/delayed
$TF -q overview -j 1 --format json $R0 $R1 $D/*.json.gz > $TMP/j1.json
check "overview -j 3: the same JSON as -j 1 (6 inputs in 3 shares)" sh -c "$TF -q overview -j 3 --format json $R0 $R1 $D/*.json.gz | cmp - $TMP/j1.json"
check "overview -j 2: the same text as -j 1" sh -c "$TF -q overview -j 1 $D/*.json.gz > $TMP/t1.txt && $TF -q overview -j 2 $D/*.json.gz | cmp - $TMP/t1.txt"
expect_exit 2 "overview --mpi: refused for now (docs/overview.md)" $TF overview --mpi $R0 $R1

# MPI: the Score-P ping-pong (2 ranks, 16 messages)
check "overview: the MPI ping-pong: 16 messages matched, its wait states" sh -c "$TF -q overview --format json $DATA/otf2/scorep-ping-pong-mpi/traces.otf2 | python3 -c 'import json,sys; o=json.load(sys.stdin); m=o[\"mpi\"]; assert m[\"messages\"] == {\"matched\": 16, \"unmatched\": 0}, m; assert o[\"run\"][\"ranks_from\"] == \"trace\"; assert m[\"late_sender_ns\"] > 0 and m[\"late_receiver_ns\"] > 0'"
finish
