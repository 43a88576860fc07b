#!/bin/sh
# Distributed mode and -j benchmark (docs/distributed.md): a TAU directory of
# BENCH_MPI_RANKS (32) per-rank traces of BENCH_MPI_BYTES (100 MB) each
# (bench/gen_tau.py, then bench/gen_tau_ranks.py), profiled by ./tracefold
# with -j 1 and -j 2 and by ./tracefold-mpi under mpirun with 1 and 2 processes, side by side
# in one run, each under /usr/bin/time -v; -v prints each process's read
# time and the reduction's.  Needs make MPI=1 (OpenMPI).
cd "$(dirname "$0")/.." || exit 2
ranks=${BENCH_MPI_RANKS:-32}
bytes=${BENCH_MPI_BYTES:-100000000}
out=bench/out/tau-ranks
[ -x ./tracefold ] && [ -x ./tracefold-mpi ] || { echo "bench-mpi: build ./tracefold and ./tracefold-mpi first (make MPI=1)"; exit 2; }
command -v mpirun >/dev/null || { echo "bench-mpi: mpirun is missing (apt-get install openmpi-bin)"; exit 2; }
stamp="$out/.made-$ranks-$bytes"
if [ ! -f "$stamp" ]; then
	rm -rf "$out" bench/out/tau-one
	python3 bench/gen_tau.py tests/data/tau/tiny/tautrace.0.0.0.trc tests/data/tau/tiny/events.0.edf bench/out/tau-one "$bytes" &&
	python3 bench/gen_tau_ranks.py bench/out/tau-one "$out" "$ranks" && touch "$stamp" || exit 1
	rm -rf bench/out/tau-one
fi
size=$(du -cb "$out"/*.trc | tail -1 | cut -f1)
records=$((size / 24))
export OMPI_MCA_btl=self,vader OMPI_MCA_btl_vader_single_copy_mechanism=none
MPIRUN="mpirun --allow-run-as-root --oversubscribe"
run() { # LABEL CMD...
	label=$1; shift
	/usr/bin/time -v "$@" >/dev/null 2>bench/out/mpi-time.txt || { echo "bench-mpi: $label failed"; cat bench/out/mpi-time.txt; return 1; }
	grep "^tracefold: .*process" bench/out/mpi-time.txt | sed 's/^/         /'
	wall=$(sed -n 's/.*Elapsed (wall clock) time (h:mm:ss or m:ss): //p' bench/out/mpi-time.txt)
	user=$(sed -n 's/.*User time (seconds): //p' bench/out/mpi-time.txt)
	rss=$(sed -n 's/.*Maximum resident set size (kbytes): //p' bench/out/mpi-time.txt)
	python3 - "$label" "$wall" "$user" "$rss" "$records" "$size" "$*" <<'PY'
import sys
label, wall, user, rss, records, size, cmd = sys.argv[1:]
parts = [float(p) for p in wall.split(":")]
secs = parts[-1] + 60 * (parts[-2] if len(parts) > 1 else 0)
print("%-10s %s" % (label, cmd))
print("           %.2f s wall (%.2f s CPU), %.1f M records/s, %.0f MB/s, peak RSS of one process %.1f MB"
      % (secs, float(user), int(records) / secs / 1e6, int(size) / secs / 1e6, int(rss) / 1024))
PY
}
echo "input: $out ($ranks files, $records records, $size bytes); $(nproc) cores"
cat "$out"/*.trc > /dev/null # in the page cache for all runs
for round in 1 2; do
	echo "-- round $round"
	run single ./tracefold -q profile -j 1 "$out" -o bench/out/mpi-single.pb.gz || exit 1
	run threads-j2 ./tracefold -q profile -j 2 "$out" -o bench/out/mpi-j2.pb.gz || exit 1
	run mpi-np1 $MPIRUN -np 1 ./tracefold-mpi -v -q profile --mpi "$out" -o bench/out/mpi-1.pb.gz || exit 1
	run mpi-np2 $MPIRUN -np 2 ./tracefold-mpi -v -q profile --mpi "$out" -o bench/out/mpi-2.pb.gz || exit 1
done
for n in 1 2 j2; do
	[ "$(gzip -dc bench/out/mpi-single.pb.gz | sha1sum)" = "$(gzip -dc bench/out/mpi-$n.pb.gz | sha1sum)" ] &&
		echo "np $n: the profile is byte-identical to the single process's" || { echo "np $n: the profile DIFFERS"; exit 1; }
done

# The reduction's cost grows with the aggregate, which grows with ranks x
# call paths (a sample per call path and rank): BENCH_MPI_MANY (4096) ranks
# of the tiny fixture, profiled with 2 processes: -v prints the bytes sent
# and the time of the reduction (packing, sending, adding up).
many=${BENCH_MPI_MANY:-4096}
if [ ! -f "bench/out/tau-many/.made-$many" ]; then
	rm -rf bench/out/tau-many
	python3 bench/gen_tau_ranks.py tests/data/tau/tiny bench/out/tau-many "$many" && touch "bench/out/tau-many/.made-$many" || exit 1
fi
size=$(du -cb bench/out/tau-many/*.trc | tail -1 | cut -f1)
records=$((size / 24))
echo "input: bench/out/tau-many ($many files, $records records, $size bytes)"
run many-np2 $MPIRUN -np 2 ./tracefold-mpi -v -q profile --mpi bench/out/tau-many -o bench/out/mpi-many.pb.gz || exit 1
run many-np1 $MPIRUN -np 1 ./tracefold-mpi -v -q profile --mpi bench/out/tau-many -o bench/out/mpi-many1.pb.gz || exit 1
