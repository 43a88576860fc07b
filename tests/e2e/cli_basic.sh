# Command line contract: help, version, exit codes, error messages.
. tests/lib.sh
t=$DATA/chrome/pytorch-legacy-small/trace.json
expect_exit 0 "--help" $TF --help
grep -q "^commands:" "$TMP/out" && ok "--help lists commands" || fail "--help lists commands"
expect_exit 0 "--version" $TF --version
grep -q "^tracefold [0-9]" "$TMP/out" && ok "--version prints the version" || fail "--version prints the version"
for c in profile info top diff merge; do
	expect_exit 0 "$c --help" $TF $c --help
	grep -q "^usage: tracefold $c" "$TMP/out" && ok "$c --help starts with usage" || fail "$c --help starts with usage"
	grep -q "^## tracefold $c" docs/cli.md && ok "docs/cli.md documents $c" || fail "docs/cli.md documents $c"
done
expect_exit 2 "unknown command" $TF frobnicate
expect_exit 2 "unknown global option" $TF --frob
expect_exit 2 "profile without -o" $TF profile "$t"
expect_exit 2 "profile without input" $TF profile -o "$TMP/x.pb.gz"
expect_exit 2 "profile with unknown option" $TF profile --bogus "$t" -o "$TMP/x.pb.gz"
expect_exit 2 "profile with unknown format" $TF profile -f nope "$t" -o "$TMP/x.pb.gz"
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
# every diagnostic counter is documented
missing=$(sed -n 's/^X(\([a-z_0-9]*\),.*/\1/p' src/core/diag.def | while read -r c; do grep -q "| \`$c\` |" docs/diagnostics.md || echo "$c"; done)
[ -z "$missing" ] && ok "docs/diagnostics.md describes every counter of diag.def" || fail "undocumented counters: $missing"
finish
