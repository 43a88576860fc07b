# Every row of the format tables has what it needs: each input format (a row
# of tf_formats[], src/read/registry.c) a docs page linked from
# docs/formats.md, a fuzz target and a test; each output format (a row of
# tf_writers[], src/write/registry.c) a docs page and an end-to-end test
# that writes it.  The names come from `tracefold --help` (its "input
# formats" and "output formats" sections, printed from the tables), not from
# a list here, so a new row fails this test until it has all of them.  Also:
# the message for an unreadable input and `profile --help` name every input
# format, `convert --help` lists every output format.  The test checks
# itself: an input format whose fuzz target is taken away must fail.
. tests/lib.sh

# The first word of each line of a help section: from the line that starts
# with $1 to the first blank line (lines in parentheses are remarks).
section() {
	awk -v h="$1" 'index($0, h) == 1 { on = 1; next }
		on && /^[[:space:]]*$/ { exit }
		on && $1 !~ /^\(/ { print $1 }'
}

# link_ok FILE TARGET: a Markdown link TARGET in FILE (relative to FILE's
# folder, with an optional #anchor) names a file that exists, and a heading
# of it whose GitHub anchor is the anchor.
link_ok() {
	lf=${2%%#*}
	la=${2#"$lf"}
	la=${la#\#}
	[ -n "$lf" ] && lf=$(dirname "$1")/$lf || lf=$1
	[ -f "$lf" ] || return 1
	[ -z "$la" ] && return 0
	python3 - "$lf" "$la" <<'PY'
import re, sys
fence = False
for line in open(sys.argv[1], encoding="utf-8"):
    if line.startswith("```"):
        fence = not fence
    m = None if fence else re.match(r"#+\s+(.*)", line)
    if m and re.sub(r"[^\w\- ]", "", m.group(1).strip().lower()).replace(" ", "-") == sys.argv[2]:
        sys.exit(0)
sys.exit(1)
PY
}

# The end-to-end scripts but this one.
E2E=$(ls tests/e2e/*.sh | grep -v '/registry\.sh$')

# check_input NAME [FUZZDIR]: what input format NAME lacks, a line each.
check_input() {
	n=$1
	fz=${2:-tests/fuzz}
	found=""
	for l in $(grep -oiE '\[[^]]*\]\([^) ]*\)' docs/formats.md | tr ' ' '_' | grep -i -- "$n"); do
		link_ok docs/formats.md "$(echo "$l" | sed 's/.*](\(.*\))$/\1/')" && found=1
	done
	[ -n "$found" ] || echo "docs/formats.md has no link naming '$n' to a page (and heading) that exists"
	set -- "$fz"/fuzz_"$n"*.c
	[ -f "$1" ] || echo "no fuzz target $fz/fuzz_$n*.c"
	set -- tests/unit/test_"$n"*.c
	[ -f "$1" ] || grep -qiw -- "$n" $E2E || echo "no test: no tests/unit/test_$n*.c, no tests/e2e/*.sh names it"
}

# The row of output format NAME in docs/cli.md's output table (the table
# after the paragraph that starts "Output formats").
cli_row() {
	awk -v n="| \`$1\` |" '/^Output formats/ { on = 1; next }
		on && /^\|/ { t = 1; if (index($0, n) == 1) print; next }
		t { exit }' docs/cli.md
}

# check_output NAME: what output format NAME lacks, a line each.
check_output() {
	n=$1
	found=""
	row=$(cli_row "$n")
	for l in $(echo "$row" | grep -oE '\]\([^) ]*\)' | sed 's/^](\(.*\))$/\1/'); do
		link_ok docs/cli.md "$l" && found=1
	done
	# "see `CMD`": the row points at its command's section of cli.md
	for c in $(echo "$row" | sed -n 's/.*see `\([a-z0-9]*\)`.*/\1/p'); do
		grep -q "^## tracefold $c\$" docs/cli.md && found=1
	done
	for p in docs/"$n"*.md; do
		[ -f "$p" ] && grep -qiw -- "$n" "$p" && found=1
	done
	[ -n "$found" ] || echo "no docs page: docs/cli.md's output table links none for '$n' and no docs/$n*.md names it"
	# a test: --to NAME, the command NAME, or one of its file names
	found=""
	grep -qE -- "--to $n([^a-z0-9_]|\$)" $E2E && found=1
	if echo "$commands" | grep -qx -- "$n"; then
		grep -qE -- "\\\$\{?TF\}?\"?( +-[qv])* +$n( |\$)" $E2E && found=1
	fi
	for s in $(grep -E "^  $n " "$TMP/convert_help" | sed -n 's/.*(\([^()]*\))$/\1/p'); do
		case $s in .*) grep -qF -- "$s" $E2E && found=1 ;; esac
	done
	[ -n "$found" ] || echo "no tests/e2e/*.sh writes '$n' (--to $n, its command or its file names)"
}

$TF --help >"$TMP/help" 2>&1
$TF convert --help >"$TMP/convert_help" 2>&1
$TF profile --help >"$TMP/profile_help" 2>&1
inputs=$(section "input formats" <"$TMP/help")
outputs=$(section "output formats" <"$TMP/help")
commands=$(section "commands:" <"$TMP/help")
if [ -n "$inputs" ] && [ -n "$outputs" ] && [ -n "$commands" ]; then
	ok "--help lists input formats ($(echo $inputs)), output formats ($(echo $outputs)) and commands"
else
	fail "--help: no input formats, output formats or commands section"
	sed 's/^/#   /' "$TMP/help" | head -40
fi

for n in $inputs; do
	p=$(check_input "$n")
	if [ -z "$p" ]; then ok "input format $n: docs page, fuzz target, test"; else
		fail "input format $n"; echo "$p" | sed 's/^/#   /'
	fi
done
for n in $outputs; do
	p=$(check_output "$n")
	if [ -z "$p" ]; then ok "output format $n: docs page, test"; else
		fail "output format $n"; echo "$p" | sed 's/^/#   /'
	fi
done

# The checks fail when a row lacks something: the first input format with
# its fuzz targets taken away (a copy of tests/fuzz without them).
first=$(echo "$inputs" | head -n 1)
mkdir "$TMP/fuzz"
for f in tests/fuzz/fuzz_*.c; do
	case ${f#tests/fuzz/} in fuzz_"$first"*) ;; *) cp "$f" "$TMP/fuzz/" ;; esac
done
p=$(check_input "$first" "$TMP/fuzz")
case $p in
*"no fuzz target"*) ok "a missing fuzz target fails the check ($first)" ;;
*) fail "input format $first without its fuzz target passed the check" ;;
esac

# Messages and help texts name every row.
printf 'no format\001\002 at all\n' >"$TMP/junk"
$TF profile "$TMP/junk" -o "$TMP/junk.pb.gz" >/dev/null 2>"$TMP/err"
rc=$?
missing=""
for n in $inputs; do grep -qw -- "$n" "$TMP/err" || missing="$missing $n"; done
if [ "$rc" = 3 ] && [ -z "$missing" ]; then ok "an unreadable input's message names every input format"; else
	fail "an unreadable input (exit $rc): its message lacks$missing"; sed 's/^/#   /' "$TMP/err" | head -5
fi
missing=""
for n in $inputs; do grep -qiw -- "$n" "$TMP/profile_help" || missing="$missing $n"; done
if [ -z "$missing" ]; then ok "profile --help names every input format"; else
	fail "profile --help lacks$missing"
fi
listed=$(section "output formats" <"$TMP/convert_help")
missing=""
for n in $outputs; do echo "$listed" | grep -qx -- "$n" || missing="$missing $n"; done
if [ -z "$missing" ]; then ok "convert --help lists every output format"; else
	fail "convert --help's output formats lack$missing"
fi
finish
