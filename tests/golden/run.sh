#!/bin/sh
# tests/golden/run.sh [--update]: runs every case of tests/golden/cases.txt
# with $TF and compares the text form of its output with
# tests/golden/expected/NAME.txt (tests/e2e/golden.sh): for each case that
# differs it prints "changed: NAME" and the start of a unified diff, then a
# summary line, and exits 1.  With --update, rewrites tests/golden/expected/
# instead (`make golden-update`, for an intended change only).
#
# The text form: top/diff/info print their stdout as is; a profile (profile,
# merge) is printed by tests/tools/pprof_text.py, every field of the
# decompressed profile in wire order after its SHA-256, so that a diff shows
# what changed and not only that something did.  A command that fails adds
# "!exit STATUS" and its stderr, as "!stderr " lines.
cd "$(dirname "$0")/../.." || exit 2
mode=$1
: "${TF:=./tracefold}"
exp=tests/golden/expected
lines=40		# of each case's diff
tmp=$(mktemp -d "${TMPDIR:-/tmp}/tf-golden.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
mkdir "$tmp/out"
: > "$tmp/names"
: > "$tmp/dups"
tab=$(printf '\t')

# run NAME COMMAND ARGS...: a profile into $tmp/pb/NAME.pb.gz (its text
# comes later, all at once), any other output into $tmp/out/NAME.txt
run() {
	name=$1 c=$2; shift 2
	case $c in
	profile|merge)
		$TF -q "$c" "$@" -o "$tmp/pb/$name.pb.gz" > /dev/null 2> "$tmp/err" ;;
	*)	$TF -q "$c" "$@" > "$tmp/out/$name.txt" 2> "$tmp/err" ;;
	esac
	rc=$?
	if [ "$rc" = 0 ]; then
		[ "$c" != profile ] && [ "$c" != merge ] || [ -f "$tmp/pb/$name.pb.gz" ] ||
			echo "!error no profile written" > "$tmp/out/$name.txt"
		return
	fi
	rm -f "$tmp/pb/$name.pb.gz"
	{ echo "!exit $rc"; sed 's/^/!stderr /' "$tmp/err"; } >> "$tmp/out/$name.txt"
}

mkdir "$tmp/pb"
grep -v '^#' tests/golden/cases.txt | while IFS="$tab" read -r name cmd; do
	[ -n "$name" ] || continue
	if grep -qxF "$name" "$tmp/names"; then
		echo "$name" >> "$tmp/dups"
		continue
	fi
	echo "$name" >> "$tmp/names"
	# word splitting of the command is meant: cases.txt has no quoting
	# shellcheck disable=SC2086
	run "$name" $cmd
done
# a dumper error is an "!error" line of that case's text, which the
# comparison shows
set -- "$tmp"/pb/*.pb.gz
[ -e "$1" ] && python3 tests/tools/pprof_text.py --into "$tmp/out" "$@"

if [ "$mode" = --update ]; then
	# a failed case or a duplicate name is no expected output
	bad=$(cd "$tmp/out" && grep -l '^!\(exit\|error\) ' ./*.txt | sed 's,^\./,,; s,\.txt$,,')
	if [ -n "$bad$(cat "$tmp/dups")" ]; then
		echo "not updated; failed: $(echo "$bad" | tr '\n' ' ')duplicate: $(sort -u "$tmp/dups" | tr '\n' ' ')"
		for name in $bad; do head -n "$lines" "$tmp/out/$name.txt"; done
		exit 1
	fi
	mkdir -p "$exp"
	rm -f "$exp"/*.txt
	cp "$tmp"/out/*.txt "$exp"/
	echo "$exp: $(wc -l < "$tmp/names") cases, $(du -sk "$exp" | cut -f1) KiB"
	exit 0
fi

changed=
[ -s "$tmp/dups" ] && changed=$(sort -u "$tmp/dups" | sed 's/^/ /' | tr -d '\n') &&
	echo "duplicate names in tests/golden/cases.txt:$changed"
while read -r name; do
	if [ ! -f "$exp/$name.txt" ]; then
		echo "new: $name (no $exp/$name.txt; make golden-update)"
		head -n "$lines" "$tmp/out/$name.txt"
		changed="$changed $name"
		continue
	fi
	cmp -s "$exp/$name.txt" "$tmp/out/$name.txt" && continue
	changed="$changed $name"
	echo "changed: $name"
	diff -u --label "$exp/$name.txt" --label "now" \
		"$exp/$name.txt" "$tmp/out/$name.txt" > "$tmp/diff"
	head -n "$lines" "$tmp/diff"
	n=$(wc -l < "$tmp/diff")
	[ "$n" -le "$lines" ] || echo "... ($n lines of diff in all)"
done < "$tmp/names"
for f in "$exp"/*.txt; do
	[ -e "$f" ] || continue
	name=${f##*/}; name=${name%.txt}
	grep -qxF "$name" "$tmp/names" && continue
	echo "stale: $f has no case in tests/golden/cases.txt (make golden-update)"
	changed="$changed $name"
done
[ -z "$changed" ] && exit 0
echo "$(echo "$changed" | wc -w) of $(wc -l < "$tmp/names") cases differ:$changed"
exit 1
