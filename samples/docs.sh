#!/bin/sh
# make docs: the pictures of README.md and docs/flame.md, drawn from the
# bundled sample by the tracefold being built:
#   docs/img/flame.svg       the flame graph of the sample
#   docs/img/flame-diff.svg  the differential flame graph of its last third
#                            against its first third (normalized)
#   docs/img/flame-diff.md   the Markdown report of the same diff, which is
#                            also copied into README.md between its markers
#   docs/img/record-flame.svg  the flame graph of the C program traced with
#                            libtracefold-record (docs/record.md)
# usage: sh samples/docs.sh [OUTDIR]   (another OUTDIR leaves README.md alone;
# tests/e2e/flame.sh draws them there and compares with the committed ones)
set -e
cd "$(dirname "$0")/.."
TF=${TF:-./tracefold}
top=$(pwd)
case "$TF" in /*) ;; *) TF="$top/$TF" ;; esac
out=${1:-docs/img}
mkdir -p "$out"
case "$out" in /*) ;; *) out="$top/$out" ;; esac
tmp=$(mktemp -d "${TMPDIR:-/tmp}/tf-docs.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
cp samples/pytorch-cnn-train.trace.json.gz tests/data/record/example.pftrace "$tmp/"
mkdir "$tmp/docs" && ln -s "$out" "$tmp/docs/img"
cd "$tmp" # relative names: the pictures and the report name their files
S=pytorch-cnn-train.trace.json.gz
"$TF" -q flame "$S" -o "$out/flame.svg"
# the run's first and last 128 ms (of 385): warm-up against steady state
"$TF" -q profile "$S" --window :128ms -o first-third.pb.gz
"$TF" -q profile "$S" --window 256ms: -o last-third.pb.gz
"$TF" -q diff first-third.pb.gz last-third.pb.gz --normalize --format markdown -n 8 \
	--flame docs/img/flame-diff.svg > "$out/flame-diff.md"
"$TF" -q flame example.pftrace -o "$out/record-flame.svg"
cd "$top"
if [ "$out" = "$top/docs/img" ]; then
	# README.md: the report between <!-- make docs: flame-diff.md --> and <!-- end -->
	awk -v md="$out/flame-diff.md" '
		/^<!-- make docs: flame-diff.md -->$/ { print; while ((getline l < md) > 0) print l; skip = 1; next }
		/^<!-- end -->$/ && skip { skip = 0 }
		!skip { print }' README.md > README.md.tmp && mv README.md.tmp README.md
	echo "docs/img: flame.svg flame-diff.svg flame-diff.md record-flame.svg (and README.md) redrawn"
fi
