# Samples under traced regions (docs/samples.md): a trace and perf samples
# of the same threads on one clock (tests/data/samples/perf-regions) give
# each sample the regions open on its thread at its time, as
# tests/tools/samples_regions_check.py finds them by interval (independent
# of the C code): per region, the samples and the cpu-clock weight under it;
# the samples outside every region counted (samples_outside); the same
# whatever the inputs' order or -j; --clock-offset moves the samples.
. tests/lib.sh
D=$DATA/samples/perf-regions
T=$D/regions.json
P=$D/traced.perf.gz
said() { cp "$TMP/err" "$TMP/said"; check "$1" grep -Eq -- "$2" "$TMP/said"; }
check "samples under the regions of their thread, per region and outside = the interval check" \
	python3 tests/tools/samples_regions_check.py --check "$TF" "$T" "$P"
$TF -q fold --sample-type samples "$T" "$P" -o "$TMP/a.folded"
check "step holds 1193 samples (expected.json)" sh -c "grep '^step' '$TMP/a.folded' | awk '{s+=\$NF} END {exit s != 1193}'"
$TF -q fold --sample-type samples "$P" "$T" -o "$TMP/b.folded"
check "samples given before the trace: the same" cmp "$TMP/a.folded" "$TMP/b.folded"
$TF -q fold -j 2 --sample-type samples "$T" "$P" -o "$TMP/c.folded"
check "-j 2: the same" cmp "$TMP/a.folded" "$TMP/c.folded"
$TF -q fold --sample-type wall "$T" -o "$TMP/w1.folded"
$TF -q fold --sample-type wall "$T" "$P" -o "$TMP/w2.folded"
check "the regions' wall time is not changed by the samples" cmp "$TMP/w1.folded" "$TMP/w2.folded"
$TF -q profile "$T" "$P" -o "$TMP/j.pb.gz"
pprof -raw "$TMP/j.pb.gz" > "$TMP/raw" 2>&1
check "pprof: calls, wall (default), samples, cpu-clock:ppp" grep -q "^calls/count wall/nanoseconds\[dflt\] samples/count cpu-clock:ppp/nanoseconds" "$TMP/raw"
pprof -top -sample_index=samples "$TMP/j.pb.gz" > "$TMP/top" 2>&1
check "pprof: 1803 samples" grep -q "of 1803 total" "$TMP/top"

# --- Parquet: each sample's slice is the innermost region open --------------------
$TF -q events "$T" "$P" -o "$TMP/ev"
node tests/tools/samples_slices.mjs "$TMP/ev" > "$TMP/slices.json" 2>"$TMP/err"
python3 tests/tools/samples_regions_check.py "$T" "$P" > "$TMP/exp.json"
check "Parquet samples.slice_id (DuckDB): per slice name = the innermost open region, null outside" python3 -c '
import json, sys
got = json.load(open(sys.argv[1]))
e = json.load(open(sys.argv[2]))
want = dict(e["innermost"], null=e["outside"])
assert got == want, (got, want)' "$TMP/slices.json" "$TMP/exp.json"

# --- clocks: a copy of the samples 2.5 s later, moved back by --clock-offset --
python3 - "$P" "$TMP/late.perf" <<'PY'
import gzip, re, sys
out = open(sys.argv[2], "w")
for line in gzip.open(sys.argv[1], "rt"):
    m = re.match(r"^(\S.*?\s)(\d+)\.(\d{6}):(.*)$", line, re.S)
    if m:
        t = int(m.group(2)) * 10**6 + int(m.group(3)) + 2500000
        line = "%s%d.%06d:%s" % (m.group(1), t // 10**6, t % 10**6, m.group(4))
    out.write(line)
PY
$TF -q fold --sample-type samples --clock-offset -2.5s "$T" "$TMP/late.perf" -o "$TMP/d.folded"
check "--clock-offset -2.5s on samples 2.5 s late: the same" cmp "$TMP/a.folded" "$TMP/d.folded"
check "... the interval check with the offset agrees" \
	python3 tests/tools/samples_regions_check.py --offset-ns -2500000000 --check "$TF" "$T" "$TMP/late.perf"
check "without it, the check agrees too (other regions)" \
	python3 tests/tools/samples_regions_check.py --check "$TF" "$T" "$TMP/late.perf"
$TF -q fold --sample-type samples "$T" "$TMP/late.perf" -o "$TMP/e.folded"
check "... and the result differs" sh -c "! cmp -s '$TMP/a.folded' '$TMP/e.folded'"
expect_exit 2 "--clock-offset without a unit: a usage error" $TF -q top --clock-offset 5 "$T" "$P"
said "... naming the option" "clock-offset"

# --- a streamed trace (OTF2): its thread sorted with the samples, its regions unchanged --
# Score-P's ping-pong: rank 0 (location group 0, thread 0) is in MPI_Init
# from 0.346 ms to 193.6 ms; 50 samples of "0/0" from 0.4 ms every 3.9 ms
# fall in it, one at 0.1 ms before every region
O=$DATA/otf2/scorep-ping-pong-mpi
python3 - "$TMP/otf2.perf" <<'PY'
import sys
out = open(sys.argv[1], "w")
for t in [100000] + [400000 + k * 3900000 for k in range(50)]:
    out.write("app 0/0 %d.%09d: 1000000 cpu-clock: \n\t4004 leaf_fn+0x4 (/bin/app)\n\t4000 main+0x10 (/bin/app)\n\n"
              % (t // 10**9, t % 10**9))
PY
$TF -q fold --sample-type wall "$O" -o "$TMP/o1.folded"
$TF -q fold --sample-type wall "$O" "$TMP/otf2.perf" -o "$TMP/o2.folded"
check "OTF2 with samples: its regions' wall time unchanged (the thread sorted)" cmp "$TMP/o1.folded" "$TMP/o2.folded"
$TF -q fold --sample-type samples "$O" "$TMP/otf2.perf" -o "$TMP/o3.folded"
check "... 50 samples under main;MPI_Init, their frames below it" \
	grep -qx "int main(int, char\*\*);MPI_Init;main;leaf_fn 50" "$TMP/o3.folded"
check "... the one before every region: under its own frames, counted outside" sh -c \
	"grep -qx 'main;leaf_fn 1' '$TMP/o3.folded' && $TF -q info '$O' '$TMP/otf2.perf' | grep -Eq '^ +1 +samples_outside'"

# --- a sample after the trace's last event does not stretch a region left open;
# samples outside are counted with --ranks too
printf '{"distributedInfo":{"rank":0},"traceEvents":[{"ph":"B","name":"open","pid":1,"tid":1,"ts":1000000},{"ph":"X","name":"x","pid":1,"tid":1,"ts":1000000,"dur":1}]}' > "$TMP/t.json"
printf 'app 1/1 1.000000500: 1 cpu-clock:\n\t1 f (/x)\n\napp 1/1 9.000000: 1 cpu-clock:\n\t1 f (/x)\n\n' > "$TMP/t.perf"
$TF -q fold --sample-type wall "$TMP/t.json" -o "$TMP/t1.folded"
$TF -q fold --sample-type wall "$TMP/t.json" "$TMP/t.perf" -o "$TMP/t2.folded"
check "a sample 8 s after the trace's end: the region left open still ends at the trace's end" cmp "$TMP/t1.folded" "$TMP/t2.folded"
check "... the sample at 9 s is outside (1), with --ranks 0 too" sh -c \
	"$TF -q info '$TMP/t.json' '$TMP/t.perf' | grep -Eq '^ +1 +samples_outside' && $TF -q info --ranks 0 '$TMP/t.json' '$TMP/t.perf' | grep -Eq '^ +1 +samples_outside'"
expect_exit 2 "overview of a trace with samples: a usage error" $TF -q overview "$T" "$P" -o "$TMP/ov.txt"
said "... naming the sampled input" "traced.perf.gz' is a sampled profile"

# --- samples of other threads stay on their own --------------------------------
C=$DATA/samples/perf-c-fp/perf.script
check "samples of threads the trace lacks: on their own threads, nothing outside" \
	python3 tests/tools/samples_regions_check.py --check "$TF" "$T" "$C"
check "... their profile is the samples' own (cpu-clock as expected.json)" \
	python3 tests/tools/samples_compare.py --types cpu-clock "$TF" "$DATA/samples/perf-c-fp/expected.json" perf.script "$C"
finish
