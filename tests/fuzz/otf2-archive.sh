#!/bin/sh
# tests/fuzz/otf2-archive.sh INPUT OUTDIR - rebuilds the archive that
# fuzz_otf2 reads for one of its inputs (a selector byte, then one file's new
# contents: see fuzz_otf2.c), to try it with tracefold or otf2-print.  Run
# from the repository root; OUTDIR must not exist yet.
in=$1; out=$2
[ -f "$in" ] && [ -n "$out" ] || { echo "usage: $0 INPUT OUTDIR" >&2; exit 2; }
[ -e "$out" ] && { echo "$0: $out exists" >&2; exit 2; }
mkdir -p "$out/traces" || exit 2
sel=$(od -An -tu1 -N1 "$in" | tr -d ' ')
if [ $((sel >> 7)) -eq 0 ]; then
	src=tests/data/otf2/tiny_otf2
	set -- traces.otf2 traces.def traces/0.def traces/0.evt
else
	src=tests/data/otf2/scorep-ping-pong-mpi
	set -- traces.otf2 traces.def traces/0.def traces/0.evt traces/1.def traces/1.evt
fi
k=$(( (sel & 127) % $# )); i=0
for f in "$@"; do
	if [ $i -eq $k ]; then tail -c +2 "$in" > "$out/$f"; which=$f; else cp "$src/$f" "$out/$f"; fi
	i=$((i + 1))
done
echo "$out/traces.otf2 ($which replaced)"
