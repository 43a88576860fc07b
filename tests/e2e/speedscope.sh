# tracefold speedscope (docs/speedscope.md): speedscope's JSON file format.
# Each file is checked against speedscope's own JSON schema and the facts
# its importer relies on (tests/tools/speedscope_check.py: frame indices,
# O/C nesting and time order, samples and weights), its sampled profile
# against `fold` and `top` of the same input, its evented profiles against
# its sampled one; then opened in the real viewer: speedscope (npm, pinned in
# tests/package.json) in headless Chromium from a local HTTP server
# (#profileURL=, as tests/e2e/viewer.sh), whose DOM must name the file and
# every profile, and whose sandwich table must list each function once with
# top's self and total time.
. tests/lib.sh
SS=tests/node_modules/speedscope/dist/release
SCHEMA=$SS/file-format-schema.json
[ -f "$SCHEMA" ] || { fail "speedscope is not installed (sh tests/deps.sh test)"; finish; }
# said DESC TEXT: the last command's stderr has TEXT
said() { cp "$TMP/err" "$TMP/said"; check "$1" grep -qF -- "$2" "$TMP/said"; }
chk() { python3 tests/tools/speedscope_check.py "$SCHEMA" "$@"; }
# the folded stacks' values added up: the default type's total
fold_total() { $TF -q fold "$1" -o - | python3 -c 'import sys; print(sum(int(l.rsplit(" ", 1)[1]) for l in sys.stdin))'; }

TAU=$DATA/tau/mpi_small
OTF2=$DATA/otf2/scorep-ping-pong-mpi
PT=$DATA/chrome/pytorch-legacy-small/trace.json
GPU=$DATA/chrome/hta-simple-add-gpu/benchmark_result_493459_1694039959_trace.json.gz

# --- the file: schema, nesting, values ----------------------------------------
i=0
for t in "$TAU" "$OTF2" "$PT" "$GPU"; do
	i=$((i + 1)); b=$(basename "$t")
	if ! $TF -q speedscope "$t" -o "$TMP/s$i.speedscope.json" 2>"$TMP/err"; then
		fail "$b: speedscope"; sed 's/^/#   /' "$TMP/err"; continue
	fi
	tot=$(fold_total "$t")
	$TF -q top -n 0 --format json "$t" > "$TMP/top$i.json"
	check "$b: speedscope's schema, frames in range, O/C nested in time order, weights = fold's total ($tot) and top's self per function" \
		chk "$TMP/s$i.speedscope.json" --total "$tot" --top "$TMP/top$i.json"
	if [ "$t" != "$GPU" ]; then # GPU streams' time is not wall time
		check "$b: the threads' evented self time per call path = the sampled profile" \
			chk "$TMP/s$i.speedscope.json" --evented-is-sampled
	fi
done
check "GPU streams: overlapping activities on lanes of their own" grep -q '"name":"[^"]*(overlap 1)"' "$TMP/s4.speedscope.json"
n=$(grep -c '"type":"O","frame":[0-9]*,"at"' "$TMP/s1.speedscope.json")
calls=$($TF -q top -n 0 --format json --sample-index calls "$TAU" | python3 -c 'import json,sys; print(sum(f["self"] for f in json.load(sys.stdin)["functions"]))')
check "TAU: one O event per call ($n, top says $calls)" test "$n" = "$calls"
check "MPI_Send() is one frame" test "$(grep -c '{"name":"MPI_Send()"}' "$TMP/s1.speedscope.json")" = 1

# the checks can fail
sed '0,/"type":"C","frame":\([0-9]*\)/s//"type":"C","frame":999/' "$TMP/s1.speedscope.json" > "$TMP/bad1.json"
expect_exit 1 "the check fails on a frame index out of range" chk "$TMP/bad1.json"
python3 -c '
import json,sys
d=json.load(open(sys.argv[1])); p=d["profiles"][1]["events"]; p[2], p[3] = p[3], p[2]
json.dump(d, open(sys.argv[2], "w"))' "$TMP/s1.speedscope.json" "$TMP/bad2.json"
expect_exit 1 "... on a C before its O" chk "$TMP/bad2.json"
python3 -c '
import json,sys
d=json.load(open(sys.argv[1])); d["profiles"][0]["weights"].pop()
json.dump(d, open(sys.argv[2], "w"))' "$TMP/s1.speedscope.json" "$TMP/bad3.json"
expect_exit 1 "... on fewer weights than samples" chk "$TMP/bad3.json"
sed 's/"unit":"nanoseconds"/"unit":"ticks"/' "$TMP/s1.speedscope.json" > "$TMP/bad4.json"
expect_exit 1 "... on a unit the schema does not know" chk "$TMP/bad4.json"
expect_exit 1 "... on another total" chk "$TMP/s1.speedscope.json" --total 1

# --- the command line ------------------------------------------------------------
$TF -q speedscope "$TAU" -o "$TMP/again.speedscope.json"
check "the same bytes twice" cmp "$TMP/s1.speedscope.json" "$TMP/again.speedscope.json"
$TF -q convert "$TAU" -o "$TMP/c.speedscope.json" -o "$TMP/c.pb.gz"
check "convert picks it by the name .speedscope.json (beside a pprof output)" cmp "$TMP/s1.speedscope.json" "$TMP/c.speedscope.json"
$TF -q convert "$TAU" --to speedscope -o "$TMP/c.json"
check "convert --to speedscope" cmp "$TMP/s1.speedscope.json" "$TMP/c.json"
expect_exit 0 "speedscope --help" $TF speedscope --help
check "convert --help lists it" sh -c "$TF convert --help | grep -q '^  speedscope .*(.speedscope.json)'"
check "tracefold --help lists the command" sh -c "$TF --help | grep -q '^  speedscope '"
expect_exit 2 "-o - is a usage error" $TF speedscope "$TAU" -o -
said "... that says so" "speedscope cannot write to standard output"
expect_exit 2 "no output: a usage error" $TF speedscope "$TAU"
expect_exit 2 "--compression: not an option of speedscope" $TF speedscope --compression none "$TAU" -o "$TMP/x.speedscope.json"
expect_exit 3 "an unwritable output: exit 3" $TF speedscope "$TAU" -o "$TMP/no/such/dir/x.speedscope.json"
said "... naming the output" "cannot create '$TMP/no/such/dir/x.speedscope.json'"
check "... and nothing written" test ! -e "$TMP/no/such/dir/x.speedscope.json"
cp "$TMP/s1.speedscope.json" "$TMP/old.speedscope.json"
printf '{"traceEvents":[{"ph":"X","name":"a","pid":1,"tid":1,"ts":1,"dur":2},{"ph":x}]}' > "$TMP/broken.json"
expect_exit 3 "a broken input: exit 3" $TF speedscope "$TMP/broken.json" -o "$TMP/old.speedscope.json"
said "... naming it and the byte" "cannot read '$TMP/broken.json' at byte 75"
check "... the old output intact" cmp "$TMP/s1.speedscope.json" "$TMP/old.speedscope.json"
printf '{"traceEvents":[{"ph":"C","name":"c","pid":1,"tid":1,"ts":1,"args":{"v":1}}]}' > "$TMP/counters.json"
expect_exit 3 "counters and no region: nothing to write, exit 3" $TF speedscope -c all "$TMP/counters.json" -o "$TMP/old.speedscope.json"
said "... said so" "nothing to write to '$TMP/old.speedscope.json': no region in the inputs"
check "... the old output intact" cmp "$TMP/s1.speedscope.json" "$TMP/old.speedscope.json"
$TF -q profile "$TAU" -o "$TMP/p.pb.gz"
expect_exit 2 "a profile as input: a usage error (no spans in a profile)" $TF speedscope "$TMP/p.pb.gz" -o "$TMP/old.speedscope.json"
check "... the old output intact" cmp "$TMP/s1.speedscope.json" "$TMP/old.speedscope.json"
check "no temporary file left" sh -c "! ls -A '$TMP' | grep -q '^\.'"

# --- the viewer ----------------------------------------------------------------
CHROMIUM=$(command -v chromium || command -v chromium-browser || true)
[ -n "$CHROMIUM" ] || { fail "chromium is not installed (sh tests/deps.sh test)"; finish; }
mkdir -p "$TMP/www"
cp -r "$SS"/. "$TMP/www/"
python3 tests/tools/serve.py "$TMP/www" > "$TMP/port" 2>/dev/null &
srv=$!
trap 'kill $srv 2>/dev/null; rm -rf "$TMP"' EXIT
for _ in 1 2 3 4 5 6 7 8 9 10; do [ -s "$TMP/port" ] && break; sleep 0.5; done
port=$(head -1 "$TMP/port")
render() { # FILE [HASH]: the DOM speedscope rendered for it
	timeout 60 "$CHROMIUM" --headless --no-sandbox --disable-gpu --disable-dev-shm-usage \
		--user-data-dir="$TMP/profile" --virtual-time-budget=20000 --dump-dom \
		"http://127.0.0.1:$port/index.html#profileURL=/$1$2" 2>/dev/null
}
cat > "$TMP/sandwich.py" <<'EOF'
# DOM TOP.json: speedscope's sandwich rows (total, self, name) = top's, each
# function once, to the two decimals speedscope shows; the table renders the
# rows that fit the window (all of them for a short one)
import html, json, re, sys
dom = open(sys.argv[1]).read()
cells = [html.unescape(c.strip()) for c in re.split(r"<[^>]+>", dom) if c.strip()]
unit = {"ns": 1, "µs": 1e3, "ms": 1e6, "s": 1e9, "min": 60e9}
num = re.compile(r"^([\d.]+)(ns|µs|ms|s|min) \([<>]?[\d.]+%\)$")
def ns(c):
    m = num.match(c)
    return float(m.group(1)) * unit[m.group(2)], unit[m.group(2)]
rows = [(cells[i + 2], ns(cells[i]), ns(cells[i + 1])) for i in range(len(cells) - 2)
        if num.match(cells[i]) and num.match(cells[i + 1])]
top = {f["name"]: (f["total"], f["self"]) for f in json.load(open(sys.argv[2]))["functions"] if f["total"]}
names = [r[0] for r in rows]
assert len(names) == len(set(names)), "a function listed twice: %r" % names
assert set(names) <= set(top), sorted(set(names) - set(top))
assert len(names) >= min(len(top), 10), "speedscope shows %d rows of %d" % (len(names), len(top))
for name, (total, tu), (self, su) in rows:
    t, s = top[name]
    assert abs(total - t) <= 0.0051 * tu and abs(self - s) <= 0.0051 * su, (name, total, self, t, s)
print(len(rows), "rows of", len(top), "equal top's")
EOF
i=0
for t in "$TAU" "$OTF2" "$PT"; do
	i=$((i + 1)); b=$(basename "$t")
	cp "$TMP/s$i.speedscope.json" "$TMP/www/v$i.speedscope.json"
	render "v$i.speedscope.json" > "$TMP/dom$i"
	name=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["name"])' "$TMP/s$i.speedscope.json")
	check "$b: speedscope opened it (title '$name - speedscope')" grep -qF "<title>$name - speedscope</title>" "$TMP/dom$i"
	check "$b: ... no error page" sh -c "! grep -q 'Something went wrong' '$TMP/dom$i'"
	chk "$TMP/s$i.speedscope.json" --names > "$TMP/names$i"
	np=$(wc -l < "$TMP/names$i")
	check "$b: ... its $np profiles listed" grep -q "(1/$np)" "$TMP/dom$i"
	missing=0
	while read -r pn; do
		grep -qF "$pn" "$TMP/dom$i" || { fail "$b: speedscope does not show '$pn'"; missing=1; }
	done < "$TMP/names$i"
	[ $missing = 0 ] && ok "$b: ... each profile named as tracefold wrote it"
	render "v$i.speedscope.json" "&view=sandwich" > "$TMP/sw$i"
	check "$b: the sandwich table lists each function once with top's self and total" \
		python3 "$TMP/sandwich.py" "$TMP/sw$i" "$TMP/top$i.json"
done
# the check can fail: a file speedscope cannot import shows its error page
sed 's/"type":"C","frame":\([0-9]*\)/"type":"C","frame":0/' "$TMP/s1.speedscope.json" > "$TMP/www/bad.speedscope.json"
render bad.speedscope.json > "$TMP/badom"
check "a C naming another frame: speedscope's error page, and the check sees it" sh -c "grep -q 'Something went wrong' '$TMP/badom' && ! grep -q 'mpi_small - speedscope' '$TMP/badom'"
finish
