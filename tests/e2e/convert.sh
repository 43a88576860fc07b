# tracefold convert: one read of the inputs, several outputs from it
# (docs/cli.md "tracefold convert"; the writer table src/write/registry.c).
. tests/lib.sh
events() { # events_read of a -v run's stderr
	sed -n 's/.*; events_read=\([0-9]*\).*/\1/p' "$1" | head -1
}
for t in $DATA/chrome/pytorch-legacy-small/trace.json $DATA/tau/mpi_small $DATA/otf2/tiny_otf2/traces.otf2; do
	b=$(basename "$t")
	$TF -q profile "$t" -o "$TMP/p.pb.gz" || fail "$b: profile"
	$TF -v convert "$t" -o "$TMP/a.pb.gz" -o "$TMP/b.pprof" 2>"$TMP/v.err" || fail "$b: convert"
	check "$b: convert -o a.pb.gz is byte-identical to profile" cmp "$TMP/a.pb.gz" "$TMP/p.pb.gz"
	check "$b: convert -o b.pprof too" cmp "$TMP/b.pprof" "$TMP/p.pb.gz"
	# one read: the events decoded are what info counts for one read, not twice that
	n=$($TF info --format json "$t" | python3 -c 'import json,sys; print(json.load(sys.stdin)["diagnostics"]["events_read"])')
	check "$b: two outputs, one read ($(events "$TMP/v.err") events decoded == info's $n)" test "$(events "$TMP/v.err")" = "$n"
	check "$b: -v names both outputs" sh -c "grep -q 'a.pb.gz (pprof)' '$TMP/v.err' && grep -q 'b.pprof (pprof)' '$TMP/v.err'"
done
t=$DATA/chrome/pytorch-legacy-small/trace.json
# standard input can only be read once: two outputs from it
$TF -q convert - -o "$TMP/s1.pb.gz" -o "$TMP/s2.pb.gz" < "$t"
check "stdin: two identical outputs" cmp "$TMP/s1.pb.gz" "$TMP/s2.pb.gz"
# --to for a name no writer claims
expect_exit 2 "an output name no writer claims" $TF convert "$t" -o "$TMP/x.txt"
grep -q "use --to FORMAT" "$TMP/err" && ok "... says to use --to" || fail "... says to use --to"
expect_exit 0 "--to pprof -o x.txt" $TF convert "$t" --to pprof -o "$TMP/x.txt"
$TF -q profile "$t" -o "$TMP/p.pb.gz"
check "--to pprof: the pprof profile" cmp "$TMP/x.txt" "$TMP/p.pb.gz"
expect_exit 2 "--to an unknown format" $TF convert "$t" --to nope -o "$TMP/y"
expect_exit 2 "the same output twice" $TF convert "$t" -o "$TMP/d.pb.gz" -o "$TMP/d.pb.gz"
expect_exit 2 "an output that is an input" $TF convert "$TMP/x.txt" -o "$TMP/x.txt"
expect_exit 2 "profile takes one output" $TF profile "$t" -o "$TMP/e.pb.gz" -o "$TMP/f.pb.gz"
# the writers' own options (tf_writer_opt), given by convert to each output
# whose writer takes them, checked by that writer
$TF -q perfetto --compression deflate "$t" -o "$TMP/w1.pftrace" || fail "perfetto --compression deflate"
expect_exit 0 "convert --to perfetto --compression deflate (perfetto's value)" \
	$TF -q convert "$t" --compression deflate --to perfetto -o "$TMP/w2.pftrace"
check "... the same bytes as perfetto --compression deflate" cmp "$TMP/w1.pftrace" "$TMP/w2.pftrace"
expect_exit 2 "convert --compression deflate with a parquet output: parquet refuses it" \
	$TF convert "$t" --compression deflate --to parquet -o "$TMP/w3"
grep -q "none, zstd or gzip" "$TMP/err" && ok "... with parquet's values" || fail "... with parquet's values"
test ! -e "$TMP/w3" && ok "... and writes nothing" || fail "... and writes nothing"
expect_exit 0 "convert --compression none: parquet and perfetto outputs both take it" \
	$TF -q convert "$t" --compression none --to parquet -o "$TMP/w4" --to perfetto -o "$TMP/w4.pftrace"
$TF -q perfetto --compression none "$t" -o "$TMP/w5.pftrace"
check "... the perfetto output in plain packets" cmp "$TMP/w4.pftrace" "$TMP/w5.pftrace"
expect_exit 0 "convert --compression gzip: the parquet output takes it, perfetto keeps its default" \
	$TF -q convert "$t" --compression gzip --to parquet -o "$TMP/w9" --to perfetto -o "$TMP/w9.pftrace"
$TF -q perfetto "$t" -o "$TMP/w10.pftrace"
check "... the perfetto output as by default" cmp "$TMP/w9.pftrace" "$TMP/w10.pftrace"
expect_exit 2 "convert --phases be with no chrome output" $TF convert "$t" --phases be -o "$TMP/w6.pb.gz"
grep -q -- "--phases is an option of chrome output" "$TMP/err" && ok "... says whose option it is" || fail "... says whose option it is"
expect_exit 2 "chrome --partition rank: not chrome's" $TF chrome "$t" --partition rank -o "$TMP/w7.json"
expect_exit 2 "convert --to otf2 -o -: a folder" $TF convert "$t" --to otf2 -o -
grep -q "give -o DIR" "$TMP/err" && ok "... says give -o DIR" || fail "... says give -o DIR: $(cat "$TMP/err")"
expect_exit 2 "chrome --mpi in the plain build: the MPI message first, whatever the inputs" \
	$TF chrome --mpi "$TMP/no-such-input.json" -o "$TMP/w11.json"
grep -q -- "--mpi: chrome output is not supported" "$TMP/err" && ok "... says so" || fail "... says so: $(cat "$TMP/err")"
expect_exit 2 "convert --to chrome -o -: a file" $TF convert "$t" --to chrome -o -
grep -q "give -o FILE" "$TMP/err" && ok "... says give -o FILE" || fail "... says give -o FILE"
$TF -q convert "$t" --to flame -o - > "$TMP/w8.svg" && xmllint --noout "$TMP/w8.svg" &&
	ok "convert --to flame -o -: an SVG on standard output" || fail "convert --to flame -o -: an SVG on standard output"
# the writers' commands come from the writer table
nc=0; bad=""
for c in $($TF --help | sed -n '/^commands:/,/^$/p' | awk 'NR > 1 && NF { print $1 }'); do
	nc=$((nc + 1))
	$TF $c --help > "$TMP/h" 2>&1 && grep -q "^usage: tracefold $c" "$TMP/h" || bad="$bad $c"
done
[ "$nc" -ge 10 ] && [ -z "$bad" ] && ok "each of the $nc commands of tracefold --help has a --help with its usage" ||
	fail "commands of tracefold --help ($nc) without a usage:$bad"
# the writer table is what --help lists
$TF convert --help > "$TMP/h"
check "convert --help lists the pprof writer and its names" grep -q "pprof .*\.pb\.gz" "$TMP/h"
$TF --help > "$TMP/h"
check "tracefold --help lists output formats" grep -q "^output formats:" "$TMP/h"
finish
