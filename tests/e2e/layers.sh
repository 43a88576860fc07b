# The layers of docs/architecture.md, checked from the includes: no file
# includes a header of a higher layer, and each library layer lives in its
# own folder.  Layers, bottom up (a layer may use every one below it):
#   0 base      src/base, err.h strtab.h diag.h diag.def progress.h, buf.h hmap.h grow.h sat.h jsonq.h fmt.h msort.h stats.h utf8.h clock.h
#   1 core      src/core, ctx.h event.h sink.h cpath.h span.h stack.h agg.h agg_pack.h agg_sink.h filter.h names.h gate.h coll.h waiting.h overview.h samples.h spill.h
#   1 io        src/io, io.h outdir.h lake.h
#   2 parquet   src/parquet, pq.h pq_read.h (a Parquet file library: base and io only)
#   3 read      src/read, reader.h          3 write  src/write, writer.h pprof.h folded.h flame.h
#   4 pipeline  src/pipeline, pipeline.h
#   5 parallel  src/parallel, dist.h (a distributed run over a transport the caller gives)
#   6 cmd       src/cmd (cmd.h report.h; mpi.c: MPI itself), src/main.c
# and beside them, in no layer: src/record, libtracefold-record (record.h),
# which includes nothing of the rest and which nothing of the rest includes.
. tests/lib.sh
layer_of_header() {
	case $1 in
	err.h|strtab.h|diag.h|diag.def|buf.h|hmap.h|grow.h|sat.h|jsonq.h|fmt.h|msort.h|stats.h|utf8.h|clock.h|version.h|progress.h) echo 0 ;;
	ctx.h|event.h|sink.h|cpath.h|span.h|stack.h|agg.h|agg_pack.h|agg_sink.h|filter.h|names.h|gate.h|coll.h|waiting.h|overview.h|samples.h|spill.h|io.h|outdir.h|lake.h) echo 1 ;;
	pq.h|pq_int.h|pq_read.h|pq_rint.h) echo 2 ;;
	reader.h|writer.h|pprof.h|folded.h|flame.h|pair.h|tids.h|chrome.h|chrome_int.h|json.h|tau.h|otf2.h|profile.pb-c.h|perfetto_trace.pb-c.h|xplane.pb-c.h) echo 3 ;;
	pipeline.h) echo 4 ;;
	dist.h) echo 5 ;;
	cmd.h|report.h|help.h) echo 6 ;;
	record.h|record_int.h|record_enc.h) echo R ;;
	*) echo unknown ;;
	esac
}
layer_of_file() {
	case $1 in
	src/base/*) echo 0 ;;
	src/core/*|src/io/*) echo 1 ;;
	src/parquet/*) echo 2 ;;
	src/read/*|src/write/*) echo 3 ;;
	src/pipeline/*) echo 4 ;;
	src/parallel/*) echo 5 ;;
	src/cmd/*|src/main.c) echo 6 ;;
	src/record/*) echo R ;;
	include/tracefold/*) layer_of_header "$(basename "$1")" ;;
	*) echo unknown ;;
	esac
}
bad=""
for f in src/*/*.c src/*/*.h src/main.c include/tracefold/*.h include/tracefold/diag.def; do
	[ -f "$f" ] || continue
	mine=$(layer_of_file "$f")
	[ "$mine" = unknown ] && { bad="$bad\n$f: a file in no layer"; continue; }
	for h in $(sed -n 's/^#include "\(.*\)"/\1/p' "$f"); do
		# a private header beside the file is of the file's layer
		if [ -f "$(dirname "$f")/$h" ]; then l=$(layer_of_file "$(dirname "$f")/$h"); else l=$(layer_of_header "$(basename "$h")"); fi
		if [ "$l" = R ] || [ "$mine" = R ]; then
			# the recording library and the rest know nothing of each other
			[ "$l" = "$mine" ] || bad="$bad\n$f includes $h: the recording library (src/record) stands alone"
		elif [ "$l" = unknown ]; then
			bad="$bad\n$f includes $h: a header of no layer"
		elif [ "$l" -gt "$mine" ]; then
			bad="$bad\n$f (layer $mine) includes $h (layer $l)"
		fi
	done
done
if [ -z "$bad" ]; then ok "no file includes a header of a higher layer"; else fail "includes that run up:"; printf "$bad\n" | sed 's/^/#   /'; fi
# the Parquet library knows nothing of traces: base and io headers only
q=$(for f in src/parquet/*; do
	for h in $(sed -n 's/^#include "\(.*\)"/\1/p' "$f"); do
		[ -f "src/parquet/$h" ] && continue
		case $(basename "$h") in io.h) ;; *) [ "$(layer_of_header "$(basename "$h")")" = 0 ] || echo "$f includes $h" ;; esac
	done
done)
if [ -z "$q" ]; then ok "src/parquet includes base and io headers only"; else fail "src/parquet includes more than base and io:"; echo "$q" | sed 's/^/#   /'; fi
# the library never prints: no printf/puts/exit outside src/cmd and main.c
# (snprintf into buffers is fine; fprintf to a FILE the caller passes is the
# pprof writer's none: it writes through tf_out)
p=$(grep -nE '(^|[^sn_a-z])printf\(|fprintf\(std|[^_a-z]puts\(|[^_]exit\(' src/base/* src/core/* src/io/* src/parquet/* src/read/* src/write/* src/pipeline/* src/parallel/* src/record/* | grep -v '^\S*:[0-9]*: *\*\|/\*' || true)
if [ -z "$p" ]; then ok "the library never prints or exits"; else fail "the library prints or exits:"; echo "$p" | sed 's/^/#   /'; fi
# MPI is one file's business: the plain build has no MPI dependency
m=$(grep -l '#include <mpi.h>' src/*/*.c src/main.c include/tracefold/*.h | grep -v '^src/cmd/mpi.c$' || true)
if [ -z "$m" ]; then ok "only src/cmd/mpi.c includes <mpi.h>"; else fail "MPI outside src/cmd/mpi.c: $m"; fi
finish
