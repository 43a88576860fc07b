# The profile's one mapping (src/write/pprof.c): id 1, named after the
# bytewise least input name, no addresses, has_functions/filenames/
# line_numbers set, every location in it; so go tool pprof neither symbolizes nor says "Main binary
# filename not available".  Checked with an independent decoder
# (tests/tools/pprof.py mappings) and with go tool pprof itself.
. tests/lib.sh
P="python3 tests/tools/pprof.py"
t=$DATA/chrome/pytorch-legacy-small/trace.json
want_map() { # FILE NAME: one mapping named NAME, every location in it
	$P mappings "$1" > "$TMP/maps"
	printf 'mapping 1 %s 0 0 0 1 1 1 0\n' "$2" > "$TMP/want"
	head -1 "$TMP/maps" | cmp -s - "$TMP/want" && [ "$(wc -l < "$TMP/maps")" -eq 2 ] &&
		grep -Eq '^locations [1-9][0-9]* mapping_ids 1$' "$TMP/maps" && return 0
	sed 's/^/#   /' "$TMP/maps"
	return 1
}

$TF -q profile "$t" -o "$TMP/a.pb.gz"
check "profile: one mapping named after the input (trace.json), symbolized, every location in it" want_map "$TMP/a.pb.gz" trace.json
$TF -q profile "$t" -o "$TMP/b.pb.gz"
check "the profile is still byte-for-byte deterministic" cmp "$TMP/a.pb.gz" "$TMP/b.pb.gz"
go tool pprof -top "$TMP/a.pb.gz" > "$TMP/top.txt" 2> "$TMP/top.err"
check "go tool pprof -top reads it" grep -q "^Type: wall" "$TMP/top.txt"
if grep -q "Main binary filename not available" "$TMP/top.txt" "$TMP/top.err"; then
	fail "go tool pprof -top does not say 'Main binary filename not available'"; sed 's/^/#   /' "$TMP/top.err"
else
	ok "go tool pprof -top does not say 'Main binary filename not available'"
fi
check "go tool pprof -top names the input (File: trace.json)" grep -q "^File: trace.json$" "$TMP/top.txt"
go tool pprof -raw "$TMP/a.pb.gz" > "$TMP/raw.txt" 2>&1
check "go tool pprof -raw: mapping 1 with functions, file names and lines" grep -Eq '^1: 0x0/0x0/0x0 trace.json +\[FN\]\[FL\]\[LN\]$' "$TMP/raw.txt"

# the name: base name of the input; stdin; a directory
$TF -q profile - -o "$TMP/stdin.pb.gz" < "$t"
check "a trace on stdin: mapping 'stdin'" want_map "$TMP/stdin.pb.gz" stdin
if [ -d "$DATA/tau/mpi_small" ]; then
	$TF -q profile "$DATA/tau/mpi_small/" -o "$TMP/tau.pb.gz"
	check "a trace directory (trailing /): mapping 'mpi_small'" want_map "$TMP/tau.pb.gz" mpi_small
fi

# merge keeps the original input's name and a valid mapping
$TF -q merge "$TMP/a.pb.gz" -o "$TMP/m.pb.gz"
check "merge of our profile keeps its mapping (trace.json)" want_map "$TMP/m.pb.gz" trace.json
# several inputs: the bytewise least name, whatever their order
$TF -q merge "$TMP/stdin.pb.gz" "$TMP/a.pb.gz" -o "$TMP/m2.pb.gz"
check "merge of two profiles: the least mapping name" want_map "$TMP/m2.pb.gz" stdin
$TF -q merge "$TMP/a.pb.gz" "$TMP/stdin.pb.gz" -o "$TMP/m2r.pb.gz"
check "merge of two profiles in the other order: the same name" want_map "$TMP/m2r.pb.gz" stdin
$TF -q merge "$TMP/m2.pb.gz" -o "$TMP/m3.pb.gz"
check "a merge of that merge keeps it" want_map "$TMP/m3.pb.gz" stdin
go tool pprof -top "$TMP/m2.pb.gz" > "$TMP/top.txt" 2> "$TMP/top.err"
check "go tool pprof -top on the merged profile: no note, File: stdin" sh -c "! grep -q 'Main binary' '$TMP/top.err' && grep -q '^File: stdin$' '$TMP/top.txt'"
# a profile without mappings (another tool's): named after its own file
cat > "$TMP/nomap.spec" <<'EOF'
type wall nanoseconds
type calls count
sample main;work 100 1
EOF
$P make "$TMP/nomap.spec" "$TMP/nomap.pb.gz"
$TF -q merge "$TMP/nomap.pb.gz" -o "$TMP/m4.pb.gz"
check "merge of a profile without mappings: mapping named after the file" want_map "$TMP/m4.pb.gz" nomap.pb.gz
$TF -q profile "$TMP/nomap.pb.gz" "$t" -o "$TMP/mix.pb.gz" 2>/dev/null
check "a profile then a trace: the least name (the profile's)" want_map "$TMP/mix.pb.gz" nomap.pb.gz
$TF -q profile "$t" "$TMP/nomap.pb.gz" -o "$TMP/mix2.pb.gz" 2>/dev/null
check "a trace then a profile: the same name" want_map "$TMP/mix2.pb.gz" nomap.pb.gz
finish
