#!/bin/sh
# telemetry.sh - samples a machine's CPU and memory (and GPUs) into
# tracefold's telemetry CSV, to read beside a trace (docs/telemetry.md):
#
#   sh samples/telemetry.sh -o node01.telemetry.csv -i 0.5 &   # then run the job
#   kill $!                                                    # when it is done
#   tracefold overview trace.json node01.telemetry.csv
#
# Options:
#   -o FILE        where to write (default: stdout)
#   -i SECONDS     the interval (default 1; a fraction such as 0.2 needs a
#                  sleep that takes one: GNU coreutils, busybox)
#   -d SECONDS     stop after about this long (default: until killed)
#   -n HOST        the host name in the header (default: hostname)
#   --nvidia-smi   also each GPU's utilization, memory, power, SM clock and
#                  temperature from nvidia-smi
#   --rocm-smi     the same from rocm-smi --csv
#
# Rows (time,track,name,value), time in CLOCK_REALTIME ns (date +%s%N):
#   track CPU      cpu.utilization      % of all CPUs busy since the previous sample (/proc/stat)
#   track CPU N    cpu.utilization      % of CPU N busy
#   track host     mem.total, mem.available, mem.free, mem.buffers, mem.cached,
#                  mem.swap_total, mem.swap_free: bytes (/proc/meminfo)
#   track GPU N    gpu.utilization %, gpu.memory_used bytes, gpu.power W,
#                  gpu.sm_clock MHz, gpu.temperature C
# A value the tool cannot give ([N/A]) is written as it is: tracefold skips
# and counts it.  POSIX sh and awk; Linux /proc.
set -u
out=-
interval=1
duration=
host=$(hostname 2>/dev/null || uname -n)
nvidia=false
rocm=false
while [ $# -gt 0 ]; do
	case $1 in
	-o) out=$2; shift 2 ;;
	-i) interval=$2; shift 2 ;;
	-d) duration=$2; shift 2 ;;
	-n) host=$2; shift 2 ;;
	--nvidia-smi) nvidia=true; shift ;;
	--rocm-smi) rocm=true; shift ;;
	-h|--help) sed -n '2,29p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
	*) echo "telemetry.sh: unknown option '$1' (-h lists them)" >&2; exit 2 ;;
	esac
done
[ -r /proc/stat ] && [ -r /proc/meminfo ] || { echo "telemetry.sh: no /proc/stat or /proc/meminfo (Linux only)" >&2; exit 1; }
case $(date +%N) in
*[!0-9]*|'') echo "telemetry.sh: this date has no %N (nanoseconds): install GNU coreutils" >&2; exit 1 ;;
esac
if [ "$out" != - ]; then exec >"$out" || exit 1; fi
tmp=$(mktemp -d "${TMPDIR:-/tmp}/telemetry.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
trap 'exit 0' INT TERM HUP

printf '# tracefold-telemetry unit=ns clock=realtime host=%s\n' "$host"
echo 'time,track,name,value'

# CPU busy % per line of /proc/stat since the previous copy: busy = total
# - idle - iowait, total = user+nice+system+idle+iowait+irq+softirq+steal
# (guest time is inside user already)
cpu_mem() {
	awk -v t="$1" '
	FILENAME == ARGV[1] && /^cpu/ { for (i = 2; i <= 9; i++) tot[$1] += $i; idle[$1] = $5 + $6; next }
	FILENAME == ARGV[2] && /^cpu/ {
		c = 0; for (i = 2; i <= 9; i++) c += $i
		dt = c - tot[$1]; di = $5 + $6 - idle[$1]
		if (($1 in tot) && dt > 0) {
			track = $1 == "cpu" ? "CPU" : "CPU " substr($1, 4)
			printf "%s,%s,cpu.utilization,%.2f\n", t, track, 100 * (dt - di) / dt
		}
		next
	}
	FILENAME == ARGV[3] {
		k = $1; sub(":", "", k)
		n = k == "MemTotal" ? "total" : k == "MemAvailable" ? "available" : k == "MemFree" ? "free" : \
		    k == "Buffers" ? "buffers" : k == "Cached" ? "cached" : k == "SwapTotal" ? "swap_total" : \
		    k == "SwapFree" ? "swap_free" : ""
		if (n != "") printf "%s,host,mem.%s,%.0f\n", t, n, $2 * 1024
	}' "$tmp/prev" "$tmp/cur" /proc/meminfo
}

gpu_nvidia() {
	nvidia-smi --query-gpu=index,utilization.gpu,memory.used,power.draw,clocks.sm,temperature.gpu \
		--format=csv,noheader,nounits 2>/dev/null | awk -F', *' -v t="$1" '
	NF == 6 {
		g = "GPU " $1
		m = $3 ~ /^[0-9.]+$/ ? sprintf("%.0f", $3 * 1048576) : $3
		printf "%s,%s,gpu.utilization,%s\n%s,%s,gpu.memory_used,%s\n%s,%s,gpu.power,%s\n", t, g, $2, t, g, m, t, g, $4
		printf "%s,%s,gpu.sm_clock,%s\n%s,%s,gpu.temperature,%s\n", t, g, $5, t, g, $6
	}'
}

# rocm-smi --csv: a header line "device,..." then one "cardN,..." per GPU;
# columns found by their header names (rocm_smi.py's)
gpu_rocm() {
	rocm-smi --showuse --showpower --showmemuse --showtemp --csv 2>/dev/null | awk -F, -v t="$1" '
	$1 == "device" { for (i = 2; i <= NF; i++) {
		h = $i
		name[i] = h == "GPU use (%)" ? "gpu.utilization" : h ~ /^(Average|Current Socket) Graphics Package Power \(W\)$/ ? "gpu.power" : \
			  h == "Temperature (Sensor edge) (C)" ? "gpu.temperature" : h ~ /^GPU (memory use \(%\)|Memory Allocated \(VRAM%\))$/ ? \
			  "gpu.memory_utilization" : h == "VRAM Total Used Memory (B)" ? "gpu.memory_used" : ""
		}; next }
	$1 ~ /^card[0-9]+$/ { g = "GPU " substr($1, 5)
		for (i = 2; i <= NF; i++) if (name[i] != "") printf "%s,%s,%s,%s\n", t, g, name[i], $i }'
}

cat /proc/stat >"$tmp/prev"
start=$(date +%s)
sleep "$interval"
while :; do
	t=$(date +%s%N)
	cat /proc/stat >"$tmp/cur"
	cpu_mem "$t"
	mv "$tmp/cur" "$tmp/prev"
	if $nvidia; then gpu_nvidia "$t"; fi
	if $rocm; then gpu_rocm "$t"; fi
	if [ -n "$duration" ] && [ $(($(date +%s) - start)) -ge "${duration%.*}" ]; then break; fi
	sleep "$interval"
done
