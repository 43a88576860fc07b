# Never lose a file, never pass a broken run, never blow up
# (docs/robustness.md): output safety, inputs with nothing usable, and
# growth that must stay linear (two sizes compared in one run).
. tests/lib.sh
t=$DATA/chrome/pytorch-legacy-small/trace.json
$TF -q profile "$t" -o "$TMP/good.pb.gz" || fail "profile of a fixture"
cp "$TMP/good.pb.gz" "$TMP/good.copy"

# ---- 1. outputs: temporary file + rename
# a failed run (bad input) leaves an existing output untouched and no temporary
printf '[{"ph":"X","ts":1,"dur":' > "$TMP/bad.json"
printf '{"ph":"X","ts":1,"dur":"x"' > "$TMP/bad2.json"
cp "$TMP/good.copy" "$TMP/out.pb.gz"
expect_exit 3 "a run with an unusable input fails" $TF profile "$TMP/bad2.json" -o "$TMP/out.pb.gz"
check "... and leaves the existing output as it was" cmp "$TMP/out.pb.gz" "$TMP/good.copy"
check "... and no temporary file" test -z "$(ls -A "$TMP" | grep '^\.')"
# a full disk: a small tmpfs (needs root; skipped otherwise)
if [ "$(id -u)" = 0 ] && mkdir -p "$TMP/mnt" && mount -t tmpfs -o size=64k tmpfs "$TMP/mnt" 2>/dev/null; then
	cp "$TMP/good.copy" "$TMP/mnt/run.pb.gz"
	head -c 200000 /dev/urandom > "$TMP/mnt/filler" 2>/dev/null # fills the rest
	expect_exit 3 "full disk: profile exits 3" $TF profile "$t" -o "$TMP/mnt/run.pb.gz"
	grep -q "cannot write '$TMP/mnt/run.pb.gz'" "$TMP/err" && ok "full disk: the error names the output" ||
		{ fail "full disk: the error names the output"; sed 's/^/#   /' "$TMP/err"; }
	check "full disk: the profile that was there is intact" cmp "$TMP/mnt/run.pb.gz" "$TMP/good.copy"
	check "full disk: no temporary file is left" test -z "$(ls -A "$TMP/mnt" | grep '^\.')"
	$TF -q profile "$t" -o "$TMP/new.pb.gz"
	expect_exit 3 "full disk: merge run.pb.gz other -o run.pb.gz exits 3" \
		$TF merge "$TMP/mnt/run.pb.gz" "$TMP/new.pb.gz" -o "$TMP/mnt/run.pb.gz"
	check "full disk: merge did not destroy its own input" cmp "$TMP/mnt/run.pb.gz" "$TMP/good.copy"
	check "full disk: the intact input is a valid profile" sh -c "go tool pprof -top '$TMP/mnt/run.pb.gz' >/dev/null 2>&1"
	rm -f "$TMP/mnt/filler"
	expect_exit 0 "merge in place with space: exit 0" $TF merge "$TMP/mnt/run.pb.gz" "$TMP/new.pb.gz" -o "$TMP/mnt/run.pb.gz"
	calls() { python3 tests/tools/pprof_raw.py "$1" | python3 -c 'import json,sys; print(json.load(sys.stdin)["total"]["calls/count"])'; }
	check "merge in place: twice the calls" test "$(calls "$TMP/mnt/run.pb.gz")" -eq $((2 * $(calls "$TMP/good.copy")))
	umount "$TMP/mnt"
else
	ok "# SKIP full-disk cases: mounting a tmpfs needs root"
fi
# the output keeps the usual permissions (not the temporary's 0600)
(umask 022 && $TF -q profile "$t" -o "$TMP/mode.pb.gz")
check "the output has mode 0644 under umask 022" test "$(stat -c %a "$TMP/mode.pb.gz")" = 644
# an output that exists keeps its mode (a private profile stays private)
cp "$TMP/good.copy" "$TMP/private.pb.gz" && chmod 600 "$TMP/private.pb.gz"
$TF -q profile "$t" -o "$TMP/private.pb.gz"
check "an existing 0600 output stays 0600" test "$(stat -c %a "$TMP/private.pb.gz")" = 600
# a symbolic link as output: the file it points to is replaced, the link stays
ln -s "$TMP/good.copy" "$TMP/link.pb.gz"
$TF -q profile "$t" -o "$TMP/link.pb.gz"
check "a link as output stays a link" test -L "$TMP/link.pb.gz"
# devices are written directly
expect_exit 0 "-o /dev/null" $TF -q profile "$t" -o /dev/null
check "/dev/null is still a device" test -c /dev/null

# ---- 2. the output may not be an input
cp "$t" "$TMP/x.json"
expect_exit 2 "profile x.json -o x.json is refused" $TF profile "$TMP/x.json" -o "$TMP/x.json"
check "... and the trace is intact" cmp "$TMP/x.json" "$t"
ln "$TMP/x.json" "$TMP/hard.json"
expect_exit 2 "a hard link of the input as output is refused" $TF profile "$TMP/x.json" -o "$TMP/hard.json"

# ---- 3-5. nothing usable is an error; diff never passes on an empty side
printf '[' > "$TMP/open.json"
printf '{"foo":1}' > "$TMP/obj.json"
printf '{"events":[{"ph":"X","name":"a","ts":1,"dur":1}]}' > "$TMP/events.json"
printf '[{"ph":"X"},{"ph":"B"},{}]' > "$TMP/undecodable.json"
printf '[{"ph":"M","name":"thread_name","pid":1,"tid":1,"args":{"name":"t"}}]' > "$TMP/meta.json"
printf '[{"ph":"C","name":"mem","pid":1,"tid":1,"ts":1,"args":{"v":5}}]' > "$TMP/ctr.json"
for f in open obj events undecodable meta; do
	expect_exit 3 "profile of $f.json: exit 3" $TF profile "$TMP/$f.json" -o "$TMP/e.pb.gz"
	grep -q "$f.json" "$TMP/err" && ok "$f.json: the error names it" || { fail "$f.json: the error names it"; sed 's/^/#   /' "$TMP/err"; }
	check "$f.json: no output written" test ! -e "$TMP/e.pb.gz"
	expect_exit 3 "diff --fail-above 5 BASE $f.json: exit 3" $TF diff --fail-above 5 "$t" "$TMP/$f.json"
	expect_exit 3 "diff $f.json BASE: exit 3" $TF diff "$TMP/$f.json" "$t"
	expect_exit 3 "top $f.json: exit 3" $TF top "$TMP/$f.json"
	expect_exit 3 "info $f.json: exit 3" $TF info "$TMP/$f.json"
done
grep -q "without a \"traceEvents\" array" "$TMP/err" || $TF info "$TMP/events.json" 2>"$TMP/err.txt"
grep -q "without a \"traceEvents\" array" "$TMP/err.txt" && ok "an object without traceEvents says what was expected" ||
	{ fail "an object without traceEvents says what was expected"; sed 's/^/#   /' "$TMP/err.txt"; }
expect_exit 3 "counters only, without -c: nothing to profile" $TF profile "$TMP/ctr.json" -o "$TMP/e.pb.gz"
grep -q "select them with -c" "$TMP/err" && ok "... says to select them with -c" || fail "... says to select them with -c"
expect_exit 0 "counters only, with -c mem: a profile" $TF profile -c mem "$TMP/ctr.json" -o "$TMP/e.pb.gz"
# 5. every event lost, in each reader: exit 3 naming the input
cp -r "$DATA/otf2/tiny_otf2" "$TMP/notraces" && rm -rf "$TMP/notraces/traces"
expect_exit 3 "OTF2 archive without its traces/ folder: exit 3" $TF profile "$TMP/notraces/traces.otf2" -o "$TMP/e.pb.gz"
grep -q "cannot use '$TMP/notraces/traces.otf2': nothing in it could be read (missing_location=1)" "$TMP/err" &&
	ok "... says nothing could be read" || { fail "... says nothing could be read"; sed 's/^/#   /' "$TMP/err"; }
mkdir -p "$TMP/tauids" && cp "$DATA/tau/tiny/tautrace.0.0.0.trc" "$TMP/tauids/"
sed 's/^\([0-9]*\) /9\1 /' "$DATA/tau/tiny/events.0.edf" > "$TMP/tauids/events.0.edf" # no id defined
expect_exit 3 "TAU with every region id missing from the EDF: exit 3" $TF profile "$TMP/tauids" -o "$TMP/e.pb.gz"
grep -q "unknown_event_id=617" "$TMP/err" && ok "... counts the 617 records it could not use" || { fail "... counts the 617 records it could not use"; sed 's/^/#   /' "$TMP/err"; }
python3 - "$DATA/tau/tiny/tautrace.0.0.0.trc" "$TMP/swapped.trc" <<'PY'
import sys
d = open(sys.argv[1], "rb").read()
out = bytearray()
for i in range(24, len(d) - len(d) % 24, 24):   # without the first record (EV_INIT), byte-swapped
    r = d[i:i + 24]
    out += r[0:8][::-1] + r[8:10][::-1] + r[10:12][::-1] + r[12:16][::-1] + r[16:24][::-1]
open(sys.argv[2], "wb").write(out)
PY
expect_exit 3 "a byte-swapped .trc without its EV_INIT record: exit 3" $TF profile --edf "$DATA/tau/tiny/events.0.edf" "$TMP/swapped.trc" -o "$TMP/e.pb.gz"

# most of an input lost: said prominently; --strict makes it an error
python3 -c 'import json; print(json.dumps([{"ph":"X","name":"a","ts":1,"dur":1}] + [{"ph":"X","name":"b","ts":"bad","dur":1}] * 5))' > "$TMP/lossy.json"
expect_exit 0 "an input that lost most events: exit 0" $TF profile "$TMP/lossy.json" -o "$TMP/l.pb.gz"
grep -q "WARNING: most of '$TMP/lossy.json' could not be read: 1 events read, bad_event=5" "$TMP/err" &&
	ok "... with a WARNING saying how much" || { fail "... with a WARNING saying how much"; sed 's/^/#   /' "$TMP/err"; }
expect_exit 3 "--strict: a lossy input is an error" $TF profile --strict "$TMP/lossy.json" -o "$TMP/s.pb.gz"
check "--strict: no output written" test ! -e "$TMP/s.pb.gz"
expect_exit 0 "--strict: a clean input passes" $TF profile --strict "$DATA/chrome/hta-amd-mi250-rocm/mi250_minitoy_train_ROCm6_2_kineto.json.gz" -o /dev/null
expect_exit 3 "--strict: top exits 3, no table" $TF top --strict "$TMP/lossy.json"
cp "$TMP/out" "$TMP/strict.out"
check "--strict: ... nothing on stdout" test ! -s "$TMP/strict.out"
expect_exit 3 "--strict: diff exits 3" $TF diff --strict "$TMP/lossy.json" "$TMP/lossy.json"
expect_exit 3 "--strict: flame exits 3, no picture" $TF flame --strict "$TMP/lossy.json" -o "$TMP/s.svg"
check "--strict: ... no picture" test ! -e "$TMP/s.svg"
expect_exit 3 "--strict: info exits 3 after its report" $TF info --strict "$TMP/lossy.json"
grep -q "bad_event" "$TMP/out" && ok "--strict: info printed its report first" || fail "--strict: info printed its report first"
# an empty pprof profile is no input either
python3 - "$TMP/empty.pb.gz" <<'PY'
import gzip, sys
# profile.proto with one sample type (calls/count) and no samples:
# string_table = ["", "calls", "count"], sample_type {type: 1, unit: 2}
def s(tag, b): return bytes([tag << 3 | 2, len(b)]) + b
data = s(1, bytes([8, 1, 16, 2])) + s(6, b"") + s(6, b"calls") + s(6, b"count")
gzip.open(sys.argv[1], "wb").write(data)
PY
expect_exit 3 "top of a profile with no samples: exit 3" $TF top "$TMP/empty.pb.gz"
expect_exit 3 "diff against a profile with no samples: exit 3" $TF diff --fail-above 5 "$TMP/good.copy" "$TMP/empty.pb.gz"
# info on a pprof profile says so
expect_exit 3 "info of a pprof profile" $TF info "$TMP/good.copy"
grep -q "is a pprof profile, not a trace: use 'tracefold top'" "$TMP/err" && ok "... says it is a pprof profile" || fail "... says it is a pprof profile"

# ---- 6. counters named like built-in sample types stay apart
cat > "$TMP/cn.json" <<'JSON'
[{"ph":"X","name":"f","pid":1,"tid":1,"ts":0,"dur":10},
{"ph":"C","name":"calls","pid":1,"tid":1,"ts":5,"args":{"v":9}},
{"ph":"C","name":"wall","pid":1,"tid":1,"ts":5,"args":{"v":7}}]
JSON
$TF -q profile -c all "$TMP/cn.json" -o "$TMP/cn.pb.gz"
check "counters 'calls' and 'wall' get their own sample types; f keeps 1 call and 10 us" python3 -c '
import json, subprocess, sys
d = json.loads(subprocess.check_output([sys.executable, "tests/tools/pprof_raw.py", sys.argv[1]]))
t = d["total"]
assert t["calls/count"] == 1 and t["wall/nanoseconds"] == 10000, t
assert t["counter:calls/count"] == 9 and t["counter:wall/count"] == 7, t' "$TMP/cn.pb.gz"
$TF top -c all --sample-index counter:calls --format json "$TMP/cn.json" > "$TMP/cn.json.out"
check "top --sample-index counter:calls" python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d["total"] == 9, d["total"]' "$TMP/cn.json.out"

# ---- 8. saturated sums are said and never flip sign
python3 -c 'import json; print(json.dumps([{"ph":"X","name":"long","pid":1,"tid":t,"ts":0,"dur":5000000000000000} for t in (1, 2)] + [{"ph":"X","name":"long","pid":1,"tid":3,"ts":t,"dur":4000000000000000} for t in (-4000000000000000, 0, 4000000000000000)]))' > "$TMP/sat.json"
$TF top --format json "$TMP/sat.json" > "$TMP/sat.top" 2>"$TMP/sat.err"
check "top --format json: a saturated total stays positive" python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d["total"] == 2**63 - 1 and all(f["self"] > 0 for f in d["functions"]), d' "$TMP/sat.top"
grep -q "WARNING: sums exceed the int64 range" "$TMP/sat.err" && ok "top says the sums were clamped" || fail "top says the sums were clamped"
$TF -q profile "$TMP/sat.json" -o "$TMP/sat.pb.gz"
$TF diff --format json "$TMP/good.copy" "$TMP/sat.pb.gz" > "$TMP/sat.diff" 2>/dev/null
check "diff --format json: the delta to a saturated total is positive" python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d["total"]["delta"] > 0 and d["total"]["new"] == 2**63 - 1, d["total"]' "$TMP/sat.diff"
$TF info "$TMP/sat.json" > "$TMP/sat.info" 2>/dev/null
check "info: a call path whose time saturates is counted (saturated=1)" grep -q "saturated" "$TMP/sat.info"

# ---- 9. no undefined behaviour on extreme timestamps (the ASan/UBSan build
# makes UB fatal: -fno-sanitize-recover=all)
printf '[{"ph":"X","name":"a","pid":1,"tid":1,"ts":-9223372036854775,"dur":1},{"ph":"X","name":"b","pid":1,"tid":1,"ts":9223372036854775,"dur":0}]' > "$TMP/ends.json"
expect_exit 0 "info: timestamps at both ends of int64" $TF info "$TMP/ends.json"
grep -q "time span: 9.22337e+09 s" "$TMP/out" && ok "info: the span saturates, not wraps" || { fail "info: the span saturates, not wraps"; sed 's/^/#   /' "$TMP/out" | grep span; }
expect_exit 0 "info --format json: timestamps at both ends of int64" $TF info --format json "$TMP/ends.json"
# a span from before 0 to near the end of int64 on a trace with a GPU
# activity: its duration in the events table and the Chrome trace, and the
# overview's step time and GPU idle time, saturate instead of overflowing
printf '[{"ph":"X","cat":"kernel","name":"k","pid":1,"tid":1,"ts":0,"dur":1},{"ph":"B","name":"a","pid":1,"tid":1,"ts":-1},{"ph":"E","name":"a","pid":1,"tid":1,"ts":9223372036854775}]' > "$TMP/wide.json"
expect_exit 0 "events: a span from -1 us to the end of int64" $TF -q events "$TMP/wide.json" -o "$TMP/wide.parquet"
expect_exit 0 "chrome: the same span" $TF -q chrome "$TMP/wide.json" -o "$TMP/wide.chrome.json"
for fmt in json html md; do
	expect_exit 0 "overview ($fmt): the same span" $TF -q overview "$TMP/wide.json" -o "$TMP/wide.ov.$fmt"
done

# ---- 10. one JSON string writer: invalid UTF-8 never reaches JSON output
printf '[{"ph":"M","name":"thread_name","pid":1,"tid":1,"args":{"name":"bad \377\376 utf8"}},{"ph":"X","name":"f\377","pid":1,"tid":1,"ts":1,"dur":2}]' > "$TMP/badutf8.json"
$TF info --format json "$TMP/badutf8.json" > "$TMP/i.json" 2>/dev/null
check "info --format json with invalid UTF-8 parses" python3 -c 'import json,sys; d=json.load(open(sys.argv[1], encoding="utf-8")); assert any("\ufffd" in (t.get("thread_name") or "") for t in d["threads"]), d["threads"]' "$TMP/i.json"
$TF top --format json "$TMP/badutf8.json" > "$TMP/t.json" 2>/dev/null
check "top --format json with invalid UTF-8 parses" python3 -c 'import json,sys; json.load(open(sys.argv[1], encoding="utf-8"))' "$TMP/t.json"

# ---- 19. pprof errors say pprof and where
$TF -q profile "$t" -o "$TMP/p.pb.gz"
gzip -dc "$TMP/p.pb.gz" | head -c 5000 > "$TMP/cut.pb"
expect_exit 3 "top of a truncated pprof profile" $TF top "$TMP/cut.pb"
grep -q "cannot read '$TMP/cut.pb' at byte 5000: truncated pprof profile: the field at byte [0-9]* runs past the end" "$TMP/err" &&
	ok "... names the file, pprof and the byte offset" || { fail "... names the file, pprof and the byte offset"; sed 's/^/#   /' "$TMP/err"; }

# ---- 20. sniffing: leading whitespace, UTF-16
{ i=0; while [ $i -lt 200 ]; do echo; i=$((i + 1)); done; cat "$t"; } > "$TMP/ws.json"
expect_exit 0 "JSON after 200 blank lines is sniffed" $TF profile "$TMP/ws.json" -o "$TMP/ws.pb.gz"
if command -v iconv >/dev/null; then
	printf '[{"ph":"X","name":"a","ts":1,"dur":1}]' | iconv -f UTF-8 -t UTF-16 > "$TMP/u16.json"
	expect_exit 3 "UTF-16 input" $TF profile "$TMP/u16.json" -o "$TMP/u.pb.gz"
	grep -q "is UTF-16 text; tracefold reads JSON traces as UTF-8" "$TMP/err" && ok "... is named as UTF-16" || { fail "... is named as UTF-16"; sed 's/^/#   /' "$TMP/err"; }
fi

# ---- 22. stdout, "--", terminal escapes
$TF profile "$t" -o - >&- 2>"$TMP/closed.err"; rc=$?
check "profile -o - to a closed stdout: exit 3" test "$rc" = 3
check "... with one message" test "$(wc -l < "$TMP/closed.err")" = 1
cp "$t" "$TMP/-o"
tfabs=$(cd "$(dirname "$TF")" && pwd)/$(basename "$TF")
(cd "$TMP" && "$tfabs" -q profile -o dash.pb.gz -- -o) && ok "'--' ends the options (an input named -o)" || fail "'--' ends the options (an input named -o)"
(cd "$TMP" && "$tfabs" info -- -o >/dev/null) && ok "info -- -o" || fail "info -- -o"
printf '[{"ph":"M","name":"thread_name","pid":1,"tid":1,"args":{"name":"\\u001b[31mRED"}},{"ph":"X","name":"\\u001b[2Jclear","pid":1,"tid":1,"ts":1,"dur":2}]' > "$TMP/ansi.json"
$TF top "$TMP/ansi.json" > "$TMP/top.txt"
$TF info "$TMP/ansi.json" >> "$TMP/top.txt"
check "text output escapes ESC (no raw terminal sequences)" sh -c "! grep -q \"\$(printf '\\033')\" '$TMP/top.txt' && grep -q '\\\\x1b\\[2Jclear' '$TMP/top.txt' && grep -q '\\\\x1b\\[31mRED' '$TMP/top.txt'"

# ---- growth: twice (or 4x) the input costs about twice (4x) the CPU time
# cputime CMD...: user+sys seconds of the command (and its children)
cat > "$TMP/cpu.py" <<'PY'
import resource, subprocess, sys
subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
r = resource.getrusage(resource.RUSAGE_CHILDREN)
print("%.4f" % (r.ru_utime + r.ru_stime))
PY
# linear SMALL BIG DESC CMD...: CMD runs with {} replaced by the small and the
# big input (4x); passes when big/small < 8 (linear: about 4; quadratic: 16)
linear() {
	small=$1; big=$2; desc=$3; shift 3
	a=$(python3 "$TMP/cpu.py" $(echo "$@" | sed "s|{}|$small|g"))
	b=$(python3 "$TMP/cpu.py" $(echo "$@" | sed "s|{}|$big|g"))
	if python3 -c "import sys; a, b = float(sys.argv[1]), float(sys.argv[2]); sys.exit(0 if b < 8 * max(a, 0.02) else 1)" "$a" "$b"; then
		ok "$desc: linear (${a}s -> ${b}s for 4x)"
	else
		fail "$desc: super-linear (${a}s -> ${b}s for 4x)"
	fi
}
# 14. Chrome process_name / thread_name metadata
python3 - "$TMP" <<'PY'
import json, sys
for n, name in ((25000, "meta1"), (100000, "meta4")):
    with open("%s/%s.json" % (sys.argv[1], name), "w") as f:
        f.write("[")
        for i in range(n):
            f.write('{"ph":"M","name":"thread_name","pid":1,"tid":%d,"args":{"name":"t%d"}},' % (i, i))
            f.write('{"ph":"M","name":"process_name","pid":%d,"args":{"name":"GPU %d"}},' % (i, i))
            f.write('{"ph":"M","name":"process_labels","pid":%d,"args":{"labels":"GPU %d"}},\n' % (i, i))
        f.write('{"ph":"X","name":"a","pid":1,"tid":1,"ts":0,"dur":1}]')
PY
linear "$TMP/meta1.json" "$TMP/meta4.json" "Chrome thread/process metadata" $TF profile {} -o /dev/null
# 15. one huge event (a long args string) read in 256 KiB chunks
python3 - "$TMP" <<'PY'
import sys
for mb, name in ((24, "huge1"), (96, "huge4")):
    with open("%s/%s.json" % (sys.argv[1], name), "w") as f:
        f.write('[{"ph":"X","name":"a","ts":1,"dur":1,"args":{"s":"')
        f.write("x" * (mb << 20))
        f.write('"}}]')
PY
linear "$TMP/huge1.json" "$TMP/huge4.json" "one huge event" $TF profile {} -o /dev/null
# 13. many comments in a pprof input (merge and top de-duplicate them)
python3 - "$TMP" <<'PY'
import gzip, sys
def varint(v):
    out = b""
    while True:
        b = v & 0x7f; v >>= 7
        if v: out += bytes([b | 0x80])
        else: return out + bytes([b])
def field(tag, b): return varint(tag << 3 | 2) + varint(len(b)) + b
def vfield(tag, v): return varint(tag << 3) + varint(v)
for n, name in ((10000, "com1"), (40000, "com4")):
    strs = [b"", b"calls", b"count", b"f"] + [b"comment %d" % i for i in range(n)]
    p = field(1, vfield(1, 1) + vfield(2, 2))                       # sample_type calls/count
    p += field(2, vfield(1, 1) + vfield(2, 1))                      # sample: location 1, value 1
    p += field(4, vfield(1, 1) + field(4, vfield(1, 1)))            # location 1 -> function 1
    p += field(5, vfield(1, 1) + vfield(2, 3))                      # function 1 "f"
    p += b"".join(field(6, s) for s in strs)
    p += b"".join(vfield(13, 4 + i) for i in range(n))              # comments
    gzip.open("%s/%s.pb.gz" % (sys.argv[1], name), "wb").write(p)
PY
linear "$TMP/com1.pb.gz" "$TMP/com4.pb.gz" "merge of a profile with many comments" $TF merge {} {} -o /dev/null
linear "$TMP/com1.pb.gz" "$TMP/com4.pb.gz" "top of a profile with many comments" $TF top {}
# ---- growth: memory (docs/robustness.md, "Memory and time growth")
# maxrss CMD...: peak resident set size of CMD in KiB (GNU time; without it,
# python's getrusage, which also counts the forked python before exec)
maxrss() {
	if [ -x /usr/bin/time ]; then
		/usr/bin/time -f %M -o "$TMP/rss" "$@" >/dev/null 2>&1
		tail -1 "$TMP/rss"
	else
		python3 -c 'import resource, subprocess, sys
subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)' "$@"
	fi
}
# linear_mem SMALL BIG DESC CMD...: as linear, for peak memory: passes when
# big < 8 x small (the input grows 4x; quadratic would be about 16x)
linear_mem() {
	small=$1; big=$2; desc=$3; shift 3
	a=$(maxrss $(echo "$@" | sed "s|{}|$small|g"))
	b=$(maxrss $(echo "$@" | sed "s|{}|$big|g"))
	if [ -n "$a" ] && [ -n "$b" ] && [ "$b" -lt $((8 * a)) ]; then
		ok "$desc: memory linear (${a} KiB -> ${b} KiB for 4x)"
	else
		fail "$desc: memory super-linear (${a} KiB -> ${b} KiB for 4x)"
	fi
}
cat > "$TMP/pb.py" <<'PY'
# profile.proto by hand (the encoding of tests/tools/pprof.py, kept tiny here)
def varint(v):
    out = bytearray()
    while True:
        b = v & 0x7f; v >>= 7
        if v: out.append(b | 0x80)
        else: out.append(b); return bytes(out)
def field(tag, b): return varint(tag << 3 | 2) + varint(len(b)) + b
def vfield(tag, v): return varint(tag << 3) + varint(v)
PY
# 16. top -n 0: per-rank statistics of every function.  N functions on N
# ranks, each on `per` ranks spread over all of them (rank labels first seen
# in rank order): a functions x ranks matrix is N^2, the values are per*N.
python3 - "$TMP" <<'PY'
import gzip, sys
sys.path.insert(0, sys.argv[1])
from pb import field, vfield
def ranks(path, n, per):
    strs = [b"", b"wall", b"nanoseconds", b"rank"] + [b"fn%d" % i for i in range(n)] + [b"%d" % r for r in range(n)]
    p = [field(1, vfield(1, 1) + vfield(2, 2))]
    for r in range(n):  # samples in rank order
        for k in range(per):
            i = (r - k * (n // per)) % n  # function i runs on ranks i + k*n/per
            p.append(field(2, vfield(1, i + 1) + vfield(2, 1000 + r) + field(3, vfield(1, 3) + vfield(2, 4 + n + r))))
    for i in range(n):
        p.append(field(4, vfield(1, i + 1) + field(4, vfield(1, i + 1))))
        p.append(field(5, vfield(1, i + 1) + vfield(2, 4 + i)))
    p += [field(6, s) for s in strs]
    with gzip.open(path, "wb", compresslevel=1) as f:
        f.write(b"".join(p))
ranks(sys.argv[1] + "/ranks1.pb.gz", 2000, 16)
ranks(sys.argv[1] + "/ranks4.pb.gz", 8000, 16)
ranks(sys.argv[1] + "/ranks100k.pb.gz", 100000, 1)
PY
linear_mem "$TMP/ranks1.pb.gz" "$TMP/ranks4.pb.gz" "top -n 0, N functions on N ranks" $TF top -n 0 {}
linear "$TMP/ranks1.pb.gz" "$TMP/ranks4.pb.gz" "top -n 0, N functions on N ranks" $TF top -n 0 {}
expect_exit 0 "top -n 0 of 100k functions on 100k ranks (a dense matrix: 80 GB)" $TF top -n 0 --format json "$TMP/ranks100k.pb.gz"
python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))
f = {x["name"]: x["rank_total"] for x in d["functions"]}
assert d["ranks"] == 100000 and d["functions_count"] == 100000, (d["ranks"], d["functions_count"])
# fn7 ran on rank 7 only (1007 ns): min 0, mean 1007/100000 -> 0, max 1007
assert f["fn7"] == {"min": 0, "mean": 0, "max": 1007, "imbalance": 100000.0}, f["fn7"]' "$TMP/out" 2>"$TMP/err" &&
	ok "... with each function's rank statistics" || { fail "... with each function's rank statistics"; sed 's/^/#   /' "$TMP/err" | tail -3; }
# 17. the pprof writer: L distinct call paths D deep (a chain of D nested
# X events, L leaves in the innermost: 7 MB for 100k x 4000).  The profile
# lists D location ids per sample (800 MB before gzip), but the writer
# streams it: its memory follows the tree (L + D nodes), not L x D.
python3 - "$TMP" <<'PY'
import sys
def deep(path, leaves, depth):
    end = depth + 2 * leaves + 1
    with open(path, "w") as f:
        f.write("[")
        for k in range(depth):
            f.write('{"ph":"X","name":"f%d","pid":1,"tid":1,"ts":%d,"dur":%d},\n' % (k, k, end + depth - 1 - 2 * k))
        for i in range(leaves):
            f.write('{"ph":"X","name":"l%d","pid":1,"tid":1,"ts":%d,"dur":1},\n' % (i, depth + 2 * i))
        f.write('{"ph":"X","name":"z","pid":1,"tid":1,"ts":%d,"dur":1}]\n' % (2 * end + depth))
deep(sys.argv[1] + "/deep1.json", 25000, 1000)
deep(sys.argv[1] + "/deep4.json", 100000, 4000)
PY
linear_mem "$TMP/deep1.json" "$TMP/deep4.json" "profile of L call paths D deep (25k x 1000 vs 100k x 4000)" $TF profile {} -o /dev/null
p=$(maxrss $TF profile "$TMP/deep4.json" -o "$TMP/deep4.pb.gz")
q=$(maxrss $TF top "$TMP/deep4.json")
if [ -n "$p" ] && [ -n "$q" ] && [ "$p" -lt $((3 * q)) ]; then
	ok "profile of 100k call paths 4000 deep: peak memory within 3x top's ($p KiB vs $q KiB)"
else
	fail "profile of 100k call paths 4000 deep: peak memory within 3x top's ($p KiB vs $q KiB)"
fi
check "... and is whole: preorder, f0 .. f0;...;f3999 then leaves of 4001 frames, 800+ MB in all" python3 -c 'import gzip, sys
f = gzip.open(sys.argv[1]); d = f.read(32 << 20)  # the first 4001 samples: 16 MB
def varint(i):
    v = s = 0
    while True:
        b = d[i]; i += 1; v |= (b & 0x7f) << s; s += 7
        if b < 0x80: return v, i
i = 0; counts = []
while len(counts) < 4002:  # top-level fields up to the samples (field 2), all length-delimited
    key, i = varint(i); ln, i = varint(i)
    if key == 0x12:  # a sample: its location ids, packed, come first
        k, j = varint(i); assert k == 0x0a, k
        pl, j = varint(j); e = j + pl; c = 0
        while j < e: _, j = varint(j); c += 1
        counts.append(c)
    i += ln
n = len(d) + sum(len(b) for b in iter(lambda: f.read(1 << 20), b""))
assert counts == list(range(1, 4001)) + [4001, 4001] and n > 800e6, (counts[:5], counts[3998:], n)' "$TMP/deep4.pb.gz"
# 18. -c all with N counters in N regions: N + 2 sample types, a value for
# each only where its counter was sampled (N of them, not N^2)
python3 - "$TMP" <<'PY'
import sys
def counters(path, n):
    with open(path, "w") as f:
        f.write("[")
        for i in range(n):  # region r<i>, and counter c<i> sampled inside it
            f.write('{"ph":"X","name":"r%d","pid":1,"tid":1,"ts":%d,"dur":2},\n' % (i, 3 * i))
            f.write('{"ph":"C","name":"c%d","pid":1,"tid":1,"ts":%d,"args":{"v":%d}},\n' % (i, 3 * i + 1, i + 1))
        f.write('{"ph":"X","name":"z","pid":1,"tid":1,"ts":%d,"dur":1}]\n' % (3 * n))
counters(sys.argv[1] + "/ctr1.json", 1000)
counters(sys.argv[1] + "/ctr4.json", 4000)
PY
$TF -q profile -c all "$TMP/ctr1.json" -o "$TMP/ctr1.pb.gz" 2>"$TMP/err" || fail "profile -c all of 1000 counters"
# more than 64 sample types in a profile: top and merge read it
expect_exit 0 "top of a profile with 1002 sample types" $TF top --sample-index c999 "$TMP/ctr1.pb.gz"
grep -q "^counter:c999 (count): total 1000, " "$TMP/out" && grep -Eq "^ *1000 +100.00% .* r999$" "$TMP/out" && ok "... its counter c999 is 1000 in r999" ||
	{ fail "... its counter c999 is 1000 in r999"; sed 's/^/#   /' "$TMP/out" | head -3; }
expect_exit 0 "merge of two profiles with 1002 sample types" $TF merge "$TMP/ctr1.pb.gz" "$TMP/ctr1.pb.gz" -o "$TMP/ctr2.pb.gz"
linear_mem "$TMP/ctr1.json" "$TMP/ctr4.json" "profile -c all, N counters in N regions" $TF profile -c all {} -o /dev/null
linear_mem "$TMP/ctr1.json" "$TMP/ctr4.json" "top -c all, N counters in N regions" $TF top -c all {}
finish
