# tracefold overview on real multi-rank PyTorch DDP traces with injected
# stragglers (tests/data/chrome/torch113-ddp-stragglers: Debian torch 1.13,
# 4 gloo ranks, ProfilerStep#1..6, one c10d::allreduce_ per step; the rank
# is in the file name only).  Oracle: how the run was made (make.py): in
# delayed/ rank 2 sleeps 80 ms in every step and rank 1 in step 4 only,
# inside "injected_delay" before the forward pass, so those and only those
# (rank, step) are stragglers, the delay is their call path and the other
# ranks wait for them in the all_reduce; nodelay/ has none.  Every per-rank
# per-step number is also compared with tests/tools/overview_check.py (the
# spec applied to the JSON with Python) where that script is present.
. tests/lib.sh
D=$DATA/chrome/torch113-ddp-stragglers
CHK=tests/tools/overview_check.py
# the (rank, step) pairs made late, as "rank step" lines sorted
want_delayed="1 4
2 1
2 2
2 3
2 4
2 5
2 6"

pairs() { # OVERVIEW.json: the stragglers' "rank step" lines, sorted
	python3 -c '
import json,sys
for s in sorted(json.load(open(sys.argv[1]))["stragglers"], key=lambda s: (s["rank"], s["step"])):
    print(s["rank"], s["step"])' "$1"
}
run_facts() { # OVERVIEW.json NRANKS: schema, ranks from file names, 4 ranks of steps 1..6
	python3 -c '
import json,sys
d=json.load(open(sys.argv[1])); r=d["run"]
assert d["schema"] == "tracefold-overview/1", d["schema"]
assert r["ranks_from"] == "file names", r["ranks_from"]
assert r["nranks"] == 4, r["nranks"]
assert r["steps_from"] == "ProfilerStep", r["steps_from"]
got=[(k["rank"], [s["step"] for s in k["steps"]]) for k in d["ranks"]]
assert got == [(n, [1, 2, 3, 4, 5, 6]) for n in range(4)], got' "$1"
}
where_delay() { # OVERVIEW.json: every straggler's call path ends in injected_delay
	python3 -c '
import json,sys
for s in json.load(open(sys.argv[1]))["stragglers"]:
    assert s["where"].split(";")[-1] == "injected_delay", s' "$1"
}
sorted_late() { # OVERVIEW.json: largest late_ns first (ties: rank, step)
	python3 -c '
import json,sys
s=[(-x["late_ns"], x["rank"], x["step"]) for x in json.load(open(sys.argv[1]))["stragglers"]]
assert s == sorted(s), s' "$1"
}
others_waited() { # OVERVIEW.json: in each straggler step, the ranks not late waited in the all_reduce:
	# gloo's worker (gloo:all_reduce) runs each call until the late rank came, so each waited at
	# least half the 80 ms delay (docs/overview.md: a gloo call ends with its worker region)
	python3 -c '
import json,sys
d=json.load(open(sys.argv[1]))
late={(s["rank"], s["step"]) for s in d["stragglers"]}
seen=0
for r in d["ranks"]:
    for s in r["steps"]:
        if (r["rank"], s["step"]) in late or all((k, s["step"]) not in late for k in range(4)):
            continue
        assert s["comm_wait_ns"] > 40_000_000, (r["rank"], s)
        seen += 1
assert seen == 3 * 5 + 2, seen' "$1"
}
late_is_delay() { # OVERVIEW.json TRACE2 TRACE1: rank 2 late by about its own delay where
	# it alone was delayed (within 10 ms), rank 1 and 2 by 0.3 to 0.7 of it in step 4
	python3 -c '
import gzip,json,sys
d=json.load(open(sys.argv[1]))
late={(s["rank"], s["step"]): s["late_ns"] for s in d["stragglers"]}
def delays(p): # step -> the injected_delay inside ProfilerStep#step, ns
    ev=json.load(gzip.open(p)); out={}
    st=[e for e in ev if e["name"].startswith("ProfilerStep#")]
    for e in ev:
        if e["name"] == "injected_delay":
            n=[int(s["name"][13:]) for s in st if s["ts"] <= e["ts"] < s["ts"] + s["dur"]]
            out[n[0]]=e["dur"] * 1000
    return out
d2=delays(sys.argv[2]); d1=delays(sys.argv[3])
assert sorted(d2) == [1, 2, 3, 4, 5, 6] and sorted(d1) == [4], (d2, d1)
for n in (1, 2, 3, 5, 6):
    assert abs(late[(2, n)] - d2[n]) <= 10000000, (n, late[(2, n)], d2[n])
for r, dd in ((1, d1), (2, d2)):
    assert 0.3 * dd[4] <= late[(r, 4)] <= 0.7 * dd[4], (r, late[(r, 4)], dd[4])' "$@"
}
same_as_checker() { # OVERVIEW.json CHECKER.json: every per-rank per-step field, late_min, stragglers
	python3 -c '
import json,sys
t=json.load(open(sys.argv[1])); c=json.load(open(sys.argv[2]))
assert t["run"]["late_min_ns"] == c["late_min_ns"], (t["run"]["late_min_ns"], c["late_min_ns"])
assert [r["rank"] for r in t["ranks"]] == [r["rank"] for r in c["ranks"]]
n=0
for tr, cr in zip(t["ranks"], c["ranks"]):
    assert [s["step"] for s in tr["steps"]] == [s["step"] for s in cr["steps"]], tr["rank"]
    for ts, cs in zip(tr["steps"], cr["steps"]):
        for k in cs:
            assert k in ts, (tr["rank"], ts["step"], k, "missing")
            assert ts[k] == cs[k], (tr["rank"], ts["step"], k, ts[k], cs[k])
            n += 1
assert n >= 24 * 12, n
key=lambda s: (s["rank"], s["step"], s["late_ns"])
assert [key(s) for s in t["stragglers"]] == [key(s) for s in c["stragglers"]], (t["stragglers"], c["stragglers"])' "$1" "$2"
}

# delayed/: JSON
$TF -q overview $D/delayed/*.json.gz -o "$TMP/o.json" || fail "delayed: overview -o o.json"
check "delayed: schema, ranks from file names, 4 ranks, ProfilerStep 1..6 on each" run_facts "$TMP/o.json"
pairs "$TMP/o.json" > "$TMP/pairs"
check "delayed: stragglers = rank 2 in steps 1..6 and rank 1 in step 4, no other" \
	test "$(cat "$TMP/pairs")" = "$want_delayed"
check "delayed: each straggler's where ends in injected_delay" where_delay "$TMP/o.json"
check "delayed: stragglers largest late first" sorted_late "$TMP/o.json"
check "delayed: the other ranks waited over 40 ms (comm_wait_ns) in the stragglers' steps" others_waited "$TMP/o.json"
check "delayed: rank 2 late by its injected delay, by about half of it in step 4 (two late ranks)" \
	late_is_delay "$TMP/o.json" $D/delayed/rank2.pt.trace.json.gz $D/delayed/rank1.pt.trace.json.gz

# delayed/: text on stdout and Markdown name the same stragglers and the delay
$TF -q overview $D/delayed/*.json.gz > "$TMP/o.txt" || fail "delayed: overview (text)"
sed -n 's/^  rank \([0-9]*\) step \([0-9]*\): .* late, the difference in .*;injected_delay$/\1 \2/p' "$TMP/o.txt" |
	sort > "$TMP/tpairs"
check "delayed: text names the 7 stragglers and injected_delay" test "$(cat "$TMP/tpairs")" = "$want_delayed"
check "delayed: text counts them" grep -q '^7 stragglers ' "$TMP/o.txt"
$TF -q overview $D/delayed/*.json.gz -o "$TMP/o.md" || fail "delayed: overview -o o.md"
sed -n 's/^  - rank \([0-9]*\) step \([0-9]*\): .* late, the difference in `.*;injected_delay`$/\1 \2/p' "$TMP/o.md" |
	sort > "$TMP/mpairs"
check "delayed: Markdown names the 7 stragglers and injected_delay" test "$(cat "$TMP/mpairs")" = "$want_delayed"

# nodelay/: no straggler in any output
$TF -q overview $D/nodelay/*.json.gz -o "$TMP/n.json" || fail "nodelay: overview -o n.json"
check "nodelay: schema, ranks from file names, 4 ranks, ProfilerStep 1..6 on each" run_facts "$TMP/n.json"
check "nodelay: no straggler" python3 -c '
import json,sys
assert json.load(open(sys.argv[1]))["stragglers"] == []' "$TMP/n.json"
$TF -q overview $D/nodelay/*.json.gz > "$TMP/n.txt" || fail "nodelay: overview (text)"
check "nodelay: text says no straggler" sh -c "grep -q '^no straggler' '$TMP/n.txt' && ! grep -q '^  rank [0-9]* step [0-9]*:' '$TMP/n.txt'"
$TF -q overview $D/nodelay/*.json.gz -o "$TMP/n.md" || fail "nodelay: overview -o n.md"
check "nodelay: Markdown says no straggler" sh -c "grep -q '^- no straggler' '$TMP/n.md' && ! grep -q '^  - rank [0-9]* step [0-9]*:' '$TMP/n.md'"

# every per-rank per-step number = the independent checker's
if [ -f "$CHK" ]; then
	for c in delayed:o nodelay:n; do
		python3 "$CHK" $D/${c%:*}/*.json.gz > "$TMP/chk.json" || fail "${c%:*}: $CHK"
		check "${c%:*}: every rank's step numbers, late_min and stragglers = $CHK's" \
			same_as_checker "$TMP/${c#*:}.json" "$TMP/chk.json"
	done
else
	ok "# SKIP $CHK not here: per-step numbers not compared with it"
fi
finish
