#!/bin/sh
# tests/golden/run.sh [--update]: runs every case of tests/golden/cases.txt
# with $TF and prints "NAME SHA256" of its output (a profile decompressed,
# so the hash does not depend on zlib's deflate).  With --update, writes
# tests/golden/outputs.sha256; else compares with it (tests/e2e/golden.sh).
cd "$(dirname "$0")/../.." || exit 2
: "${TF:=./tracefold}"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/tf-golden.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
out=$tmp/outputs.sha256
: > "$out"
tab=$(printf '\t')
grep -v '^#' tests/golden/cases.txt | while IFS="$tab" read -r name cmd; do
	[ -n "$name" ] || continue
	set -- $cmd
	c=$1; shift
	case $c in
	profile) $TF -q profile "$@" -o "$tmp/o.pb.gz" >/dev/null 2>&1 && gzip -dc "$tmp/o.pb.gz" > "$tmp/o" ;;
	*) $TF -q "$c" "$@" > "$tmp/o" 2>/dev/null ;;
	esac || { echo "$name FAILED" >> "$out"; continue; }
	echo "$name $(sha256sum < "$tmp/o" | cut -d' ' -f1)" >> "$out"
done
if [ "$1" = --update ]; then
	cp "$out" tests/golden/outputs.sha256
	echo "tests/golden/outputs.sha256: $(wc -l < "$out") outputs"
	exit 0
fi
diff tests/golden/outputs.sha256 "$out" > "$tmp/diff" && exit 0
sed -n 's/^> /changed: /p' "$tmp/diff"
exit 1
