# The Chrome JSON reader end to end: event accounting of every fixture
# (reported in the profile's comments) against an independent count
# (tests/tools/chrome_counts.py) and the fixture's README; truncated and
# unterminated files; gzip, plain and stdin give the same profile; escapes;
# distributedInfo rank; malformed input names the byte offset.
. tests/lib.sh

# "events: a=1, b=2" comment of a profile -> the reader's counters, one per line
counters() {
	pprof -comments "$1" 2>/dev/null | sed -n 's/^events: //p' | tr -d ' ' | tr ',' '\n' |
		grep -E '^(events_read|ev_[a-z]+|bad_event|truncated_record|trace_span)=' | sort
}

for t in $DATA/chrome/*/*.json $DATA/chrome/*/*.json.gz; do
	[ -f "$t" ] || continue
	d=$(dirname "$t"); b=$(basename "$d"); out=$TMP/$b.pb.gz
	case $t in */rules/*) b=rules/$(basename "$t") ;; esac
	if ! $TF -q profile "$t" -o "$out" 2>"$TMP/err"; then
		fail "$b: profile"; sed 's/^/#   /' "$TMP/err"; continue
	fi
	counters "$out" > "$TMP/got"
	python3 tests/tools/chrome_counts.py "$t" | sort > "$TMP/want"
	if [ -s "$TMP/want" ] && cmp -s "$TMP/got" "$TMP/want"; then
		ok "$b: event counters equal the independent count ($(tr '\n' ' ' < "$TMP/got"))"
	else
		fail "$b: event counters"; diff "$TMP/want" "$TMP/got" | sed 's/^/#   /'
	fi
	case $t in
	*/rules/*) # hand-made traces: their count is in rules/expect/STEM.json
		s=$(basename "$t" .gz); s=${s%.*}
		readme=$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["comment"]["events_read"])' "$d/expect/$s.json") ;;
	*) # a trace with a CPU profile: its README's events_read (each ProfileChunk counts as its samples)
	   readme=$(sed -n 's/^- events_read: \([0-9,]*\).*/\1/p' "$d/README.md" | tr -d ,)
	   [ -n "$readme" ] || readme=$(sed -n 's/^- events: \([0-9,]*\).*/\1/p' "$d/README.md" | tr -d ,) ;;
	esac
	got=$(sed -n 's/^events_read=//p' "$TMP/got")
	check "$b: events_read $got == README's $readme" test "$got" = "$readme"
done

# gzip, plain and stdin: the same profile (-top and -raw samples, not the comments nor the mapping's name)
k=$DATA/chrome/kineto-resnet50-gpu/worker0.1623143089861.pt.trace.json.gz
gzip -dc "$k" > "$TMP/k.json"
$TF -q profile "$k" -o "$TMP/kz.pb.gz" && $TF -q profile "$TMP/k.json" -o "$TMP/kp.pb.gz" &&
	$TF -q profile - -o "$TMP/ks.pb.gz" < "$TMP/k.json"
for p in kz kp ks; do pprof -raw "$TMP/$p.pb.gz" 2>/dev/null | grep -v -e '^Comment:' -e '^1: 0x0/0x0/0x0 ' > "$TMP/$p.raw"; done
check "gzip and plain input give the same samples" cmp "$TMP/kz.raw" "$TMP/kp.raw"
check "stdin gives the same samples" cmp "$TMP/kz.raw" "$TMP/ks.raw"
check "samples are not empty" test "$(grep -c 'thread:' "$TMP/kz.raw")" -gt 100

# distributedInfo.rank becomes the rank label
pprof -raw "$TMP/hta-simple-add-gpu.pb.gz" 2>/dev/null > "$TMP/h.raw"
check "distributedInfo rank 0 is the rank label" grep -q 'rank:\[0\]' "$TMP/h.raw"
check "no pid label when the rank is known" sh -c "! grep -q 'pid:' '$TMP/h.raw'"

# a file cut inside an event: the complete events are read, the cut one counted
t=$DATA/chrome/pytorch-legacy-small/trace.json
head -c 200000 "$t" > "$TMP/cut.json"
full=$(grep -o '"name"' "$TMP/cut.json" | wc -l)   # every event starts with "name", the cut one too
check "a file cut inside an event is read" $TF -q profile "$TMP/cut.json" -o "$TMP/cut.pb.gz"
counters "$TMP/cut.pb.gz" > "$TMP/got"
check "the cut event is counted as truncated_record" grep -qx 'truncated_record=1' "$TMP/got"
check "all $full events are counted (the cut one too)" grep -qx "events_read=$full" "$TMP/got"

# TAU's tau_trace2json style: bare array, no closing bracket, trailing comma
python3 - "$t" "$TMP/tau.json" <<'PY'
import json, sys
ev = json.load(open(sys.argv[1]))[:100]
with open(sys.argv[2], "w") as f:
    f.write("[\n" + "".join(json.dumps({k: (str(v) if k in ("ts", "dur") else v) for k, v in e.items()}) + ",\n" for e in ev))
PY
check "unterminated array with a trailing comma is read" $TF -q profile "$TMP/tau.json" -o "$TMP/tau.pb.gz"
counters "$TMP/tau.pb.gz" > "$TMP/got"
check "its 100 events are read, nothing truncated" test "$(tr '\n' ' ' < "$TMP/got")" = "ev_duration=100 events_read=100 "

# escapes in names reach the profile decoded
printf '%s' '{"traceEvents":[{"ph":"X","name":"a\"b\\c \u00e9 \ud83d\ude00","ts":"1.5","dur":2,"pid":1,"tid":1}]}' > "$TMP/esc.json"
check "escaped names" $TF -q profile "$TMP/esc.json" -o "$TMP/esc.pb.gz"
pprof -top "$TMP/esc.pb.gz" 2>/dev/null > "$TMP/esc.top"
check "name decoded to UTF-8" grep -qF 'a"b\c é 😀' "$TMP/esc.top"
pprof -raw "$TMP/esc.pb.gz" 2>/dev/null > "$TMP/esc.raw"
check "dur 2 us is 2000 ns" grep -q ' 2000: 1 $' "$TMP/esc.raw"

# malformed JSON: exit 3, file and byte offset in the message
printf '[{"ph":"X","ts":1,"dur":1},\n {"ph":"X" "ts":2}]' > "$TMP/bad.json"
expect_exit 3 "malformed JSON is an input error" $TF -q profile "$TMP/bad.json" -o "$TMP/bad.pb.gz"
cp "$TMP/err" "$TMP/bad.err"
check "error names file and byte 39" grep -q "bad.json' at byte 39: expected ',' or '}'" "$TMP/bad.err"
finish
