# Command line contract: help, version, exit codes, error messages.
. tests/lib.sh
t=$DATA/chrome/pytorch-legacy-small/trace.json
expect_exit 0 "--help" $TF --help
grep -q "^commands:" "$TMP/out" && ok "--help lists commands" || fail "--help lists commands"
expect_exit 0 "--version" $TF --version
grep -q "^tracefold [0-9]" "$TMP/out" && ok "--version prints the version" || fail "--version prints the version"
for c in profile convert events info top diff merge fold; do
	expect_exit 0 "$c --help" $TF $c --help
	grep -q "^usage: tracefold $c" "$TMP/out" && ok "$c --help starts with usage" || fail "$c --help starts with usage"
	grep -q "^## tracefold $c" docs/cli.md && ok "docs/cli.md documents $c" || fail "docs/cli.md documents $c"
done
expect_exit 2 "unknown command" $TF frobnicate
expect_exit 2 "unknown global option" $TF --frob
expect_exit 2 "profile without -o" $TF profile "$t"
expect_exit 2 "profile without input" $TF profile -o "$TMP/x.pb.gz"
expect_exit 2 "profile with unknown option" $TF profile --bogus "$t" -o "$TMP/x.pb.gz"
expect_exit 2 "profile with unknown input format" $TF profile -F nope "$t" -o "$TMP/x.pb.gz"
expect_exit 3 "profile of a missing file" $TF profile "$TMP/missing.json" -o "$TMP/x.pb.gz"
grep -q "cannot read '$TMP/missing.json'" "$TMP/err" && ok "missing file is named in the error" || fail "missing file is named in the error"
printf 'hello, not a trace\n' > "$TMP/junk.txt"
expect_exit 3 "profile of an unrecognised file" $TF profile "$TMP/junk.txt" -o "$TMP/x.pb.gz"
printf '[{"name":"a","ph":"X","ts":1,"dur":2,"pid":1,"tid":1},\n {"name":"b","ph":"X","ts":@@}]' > "$TMP/bad.json"
expect_exit 3 "malformed JSON is an input error" $TF profile "$TMP/bad.json" -o "$TMP/x.pb.gz"
grep -q "bad.json' at byte [0-9]" "$TMP/err" && ok "malformed JSON error names file and byte offset" || { fail "malformed JSON error names file and byte offset"; sed 's/^/#   /' "$TMP/err"; }
if [ -w /dev/full ]; then
	expect_exit 3 "a full disk is an error" $TF profile "$t" -o /dev/full
fi
expect_exit 3 "unwritable output directory" $TF profile "$t" -o "$TMP/no/such/dir/x.pb.gz"
# damaged input is repaired, counted and reported
printf '[{"name":"a","ph":"B","ts":1,"pid":1,"tid":1},{"name":"b","ph":"E","ts":0.5,"pid":1,"tid":1},{"name":"c","ph":"X","ts":2,"dur":1,"pid":1,"tid":1}]' > "$TMP/rep.json"
expect_exit 0 "repairable damage is not fatal" $TF profile "$TMP/rep.json" -o "$TMP/rep.pb.gz"
grep -q "end_without_begin=1" "$TMP/err" && grep -q "begin_unclosed=1" "$TMP/err" && ok "repairs are reported on stderr" || { fail "repairs are reported on stderr"; sed 's/^/#   /' "$TMP/err"; }
# --help and docs/cli.md agree: every long option a command's --help names is documented
for c in profile convert events info top diff merge fold; do
	$TF $c --help > "$TMP/help.txt"
	undoc=$(grep -o -- '--[a-z][a-z-]*' "$TMP/help.txt" | sort -u | while read -r o; do grep -q -- "$o" docs/cli.md || echo "$o"; done)
	[ -z "$undoc" ] && ok "$c: every option of --help is in docs/cli.md" || fail "$c: undocumented options: $undoc"
done
# the trace input options are shared and behave the same everywhere
for c in profile info top diff; do
	expect_exit 2 "$c -F with an unknown reader" $TF $c -F nope "$t"
	expect_exit 2 "$c --edf without a value" $TF $c --edf
done
expect_exit 0 "info -F tau reads a TAU directory" $TF info -F tau $DATA/tau/tiny
expect_exit 3 "info -F chrome on a TAU directory is an input error" $TF info -F chrome $DATA/tau/tiny
$TF top -c 'bytes processed' --sample-index 'bytes processed' --format json $DATA/tau/tiny > "$TMP/ctr.json" 2>"$TMP/err"
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); b=[f for f in d["functions"] if f["name"]=="B"][0]; sys.exit(0 if b["self"]==122880 else 1)' "$TMP/ctr.json" \
	&& ok "top -c: TAU counter 'bytes processed' is attributed to B (sum 122880)" || { fail "top -c counter attribution"; head -c 600 "$TMP/ctr.json" | sed 's/^/#   /'; }
# every diagnostic counter is documented
missing=$(sed -n 's/^X(\([a-z_0-9]*\),.*/\1/p' include/tracefold/diag.def | while read -r c; do grep -q "| \`$c\` |" docs/diagnostics.md || echo "$c"; done)
[ -z "$missing" ] && ok "docs/diagnostics.md describes every counter of diag.def" || fail "undocumented counters: $missing"
finish
