# tracefold info on every fixture of every format: exit 0, valid JSON, the
# text and JSON forms agree on the totals, and the accounting invariant holds
# (events_read = the per-kind counters + the skip/warn counters).
. tests/lib.sh
n=0
for t in $DATA/chrome/*/*.json $DATA/chrome/*/*.json.gz $DATA/tau/tiny $DATA/tau/threads $DATA/tau/threads/merged \
	$DATA/tau/mpi_small $DATA/otf2/*/traces.otf2; do
	[ -e "$t" ] || continue
	case $t in */oracle/*) continue ;; esac
	n=$((n + 1))
	if ! $TF info --json "$t" >"$TMP/i.json" 2>"$TMP/err"; then
		fail "info --json $t"; sed 's/^/#   /' "$TMP/err" | head -5; continue
	fi
	$TF info "$t" >"$TMP/i.txt" 2>&1
	python3 - "$TMP/i.json" "$TMP/i.txt" "$t" <<'PY'
import json, re, sys
j = json.load(open(sys.argv[1]))
txt = open(sys.argv[2]).read()
d = j["diagnostics"]
skips = ("ev_other", "ev_tracer", "tau_trigger_frame", "trace_span", "truncated_record", "bad_event", "unknown_event_id")
kinds = sum(v for k, v in d.items() if k.startswith("ev_") and k not in skips)
bad = []
if d["events_read"] != kinds + sum(d.get(k, 0) for k in skips):
    bad.append("events_read %d != kinds %d + skips" % (d["events_read"], kinds))
if sum(j["events_by_kind"].values()) != kinds:
    bad.append("events by kind %d != %d" % (sum(j["events_by_kind"].values()), kinds))
if sum(i["events"] for i in j["inputs"]) != d["events_read"]:
    bad.append("per-input events do not add up")
if "events: %d decoded" % d["events_read"] not in txt:
    bad.append("text total differs")
if "threads: %d\n" % len(j["threads"]) not in txt:
    bad.append("text thread count differs")
print(("ok - " if not bad else "not ok - ") + "info %s: %d events, %d threads, JSON and text agree %s"
      % (sys.argv[3], d["events_read"], len(j["threads"]), "; ".join(bad)))
sys.exit(1 if bad else 0)
PY
	[ $? -eq 0 ] || nfail=$((nfail + 1))
done
check "info saw fixtures ($n)" test "$n" -ge 5
expect_exit 2 "info without input: usage error" $TF info
expect_exit 2 "info --format bogus: usage error" $TF info --format bogus $DATA/tau/tiny
expect_exit 3 "info of a missing file: exit 3" $TF info "$TMP/missing.json"
check "info --help" $TF info --help
finish
