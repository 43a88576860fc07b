# The XLA profiler's memory profile (docs/format-xla-memory.md) and Chrome's
# v/V memory dumps (docs/format-chrome.md "Memory dumps").
# Memory profile: the synthetic tests/data/jax/xla-memory-synthetic (made
# from memory_profile.proto's documented schema: no real file was at hand)
# is sniffed as xla-memory and read as a track per allocator: allocations
# and frees, their bytes, alloc_space per allocator / op call path and the
# peak against tests/tools/xla_memory_check.py, which reads the JSON with
# Python.  Memory dumps: a hand-made trace (tests/data/chrome/memory-infra-dumps)
# whose allocator sizes and process totals must be counters memory:NAME
# (tests/tools/memdump_check.py).  With the previous binary 13 of the 18
# checks fail, and so do its profile and chrome commands (the profile is no
# input tracefold reads, the dumps are ev_other and no counter); the
# oracle's own and the four refusals pass.
. tests/lib.sh
m=$DATA/jax/xla-memory-synthetic/tpu-host-0.memory_profile.json.gz
check "the oracle on the profile alone: 2 allocators, their activities and peaks (the fixture's README)" sh -c "
	python3 tests/tools/xla_memory_check.py '$m' > '$TMP/o.txt' && grep -qx 'GPU_0_bfc: 60 snapshots, 34 allocations (26344960 bytes), 24 frees (21944064 bytes), peak 13142272' '$TMP/o.txt' &&
	grep -qx 'cuda_host_bfc: 25 snapshots, 15 allocations (12463872 bytes), 8 frees (7868416 bytes), peak 5644032' '$TMP/o.txt'"
check "info: sniffed as xla-memory, a track per allocator of process tpu-host-0 (the file's host), nothing skipped" python3 -c '
import json,subprocess,sys
i=json.loads(subprocess.run(sys.argv[1:], capture_output=True, check=True).stdout)
assert [x["format"] for x in i["inputs"]] == ["xla-memory"], i["inputs"]
t=sorted((x["process_name"], x["thread_name"]) for x in i["threads"])
assert t == [("tpu-host-0", "GPU_0_bfc"), ("tpu-host-0", "cuda_host_bfc")], t
d=i["diagnostics"]
assert d["ev_counter"] == 3 * (60 + 25) and d["ev_instant"] == 34 + 24 + 15 + 8, d
assert not d["bad_event"] and not d["ev_other"] and not d["end_without_begin"] and not d["begin_unclosed"], d' \
	$TF -q info --format json "$m"
$TF -q profile -o "$TMP/m.pb.gz" "$m" || fail "profile"
$TF -q chrome -o "$TMP/m.json" "$m" || fail "chrome"
check "alloc_space and alloc_objects per call path (allocator;op frames) in go tool pprof -raw = the oracle's" \
	python3 tests/tools/xla_memory_check.py "$m" --pprof "$TMP/m.pb.gz"
check "chrome timeline: per allocator its allocations, frees, bytes, counter samples, peak and last heap = the oracle's" \
	python3 tests/tools/xla_memory_check.py "$m" --chrome "$TMP/m.json"
check "top --sample-type alloc_space: each allocator's total, the op with the most bytes first" python3 -c '
import json,subprocess,sys
t=json.loads(subprocess.run(sys.argv[1:], capture_output=True, check=True).stdout)
f={x["name"]: x for x in t["functions"]}
assert t["total"] == 26344960 + 12463872, t["total"]
assert f["GPU_0_bfc"]["total"] == 26344960 and f["cuda_host_bfc"]["total"] == 12463872, (f["GPU_0_bfc"], f["cuda_host_bfc"])
assert t["functions"][0]["name"] == "dot_general" and f["dot_general"]["self"] == 21796864, t["functions"][0]
assert f["op with \"quotes\""]["self"] == 530176, f.get("op with \"quotes\"")' \
	$TF -q top -n 0 --format json --sample-type alloc_space "$m"
zcat "$m" > "$TMP/other-name.json"
check "not gzipped and named otherwise: sniffed by its keys, the process the file name" sh -c "
	$TF -q info '$TMP/other-name.json' | grep -q 'format xla-memory' && $TF -q info '$TMP/other-name.json' | grep -q 'process other-name.json'"
check "the same profile read plain or gzipped" sh -c "
	$TF -q fold --sample-type alloc_space '$m' -o '$TMP/a.folded' && $TF -q fold --sample-type alloc_space '$TMP/other-name.json' -o '$TMP/b.folded' && cmp '$TMP/a.folded' '$TMP/b.folded'"
check "-c all: the three counters per allocator as sample types" sh -c "
	$TF -q top -c all -n 1 --sample-type memory:peak_bytes_in_use '$m' | grep -q 'memory:peak_bytes_in_use'"
head -c 3000 "$TMP/other-name.json" | gzip > "$TMP/cut.memory_profile.json.gz"
expect_exit 3 "JSON cut short: an input error" $TF -q profile -o "$TMP/cut.pb.gz" "$TMP/cut.memory_profile.json.gz"
cp "$TMP/err" "$TMP/err1"
check "JSON cut short: the file and byte named, no output file" sh -c "
	grep -q 'cut.memory_profile.json.gz.* at byte 3000: the JSON object ends early' '$TMP/err1' && test ! -e '$TMP/cut.pb.gz'"
head -c 2000 "$m" > "$TMP/cut2.memory_profile.json.gz"
expect_exit 3 "gzip cut short: an input error" $TF -q top "$TMP/cut2.memory_profile.json.gz"
cp "$TMP/err" "$TMP/err2"
check "gzip cut short: said so" grep -q 'gzip data ends early' "$TMP/err2"
printf '{"memoryProfilePerAllocator": 3}' > "$TMP/bad.json"
expect_exit 3 "memoryProfilePerAllocator not an object: refused" $TF -q top "$TMP/bad.json"
printf '{"traceEvents": [{"ph":"X","name":"a","pid":1,"tid":1,"ts":1,"dur":2}], "memoryProfilePerAllocator": {}}' > "$TMP/trace.json"
check "a Chrome trace that names the key is still a Chrome trace" sh -c "$TF -q info '$TMP/trace.json' | grep -q 'format chrome'"
# Chrome memory dumps
d=$DATA/chrome/memory-infra-dumps/trace.json
$TF -q chrome -o "$TMP/d.json" "$d" || fail "chrome (dumps)"
check "v dumps: every allocator size and process total a counter memory:NAME with its time and bytes (memdump_check.py)" \
	python3 tests/tools/memdump_check.py "$d" "$TMP/d.json"
check "info: 12 counter samples, 7 counters; the two V dumps without allocators ev_other" python3 -c '
import json,subprocess,sys
i=json.loads(subprocess.run(sys.argv[1:], capture_output=True, check=True).stdout)
d=i["diagnostics"]
assert d["ev_counter"] == 12 and d["ev_other"] == 2 and not d["bad_event"], d
assert len(i["counters"]) == 7, i["counters"]' $TF -q info --format json "$d"
printf '[{"ph":"X","name":"a","pid":1,"tid":1,"ts":1,"dur":9},{"ph":"V"},{"ph":"v","args":{"dumps":{"process_totals":{"resident_set_bytes":"10"}}}},{"ph":"v","ts":2,"pid":1,"tid":1,"args":{"dumps":{"allocators":{"m":{"attrs":{"size":{"value":"zz"}}}}}}}]' > "$TMP/notime.json"
check "a dump without ts: ev_other when nothing in it is read (as before), bad_event when a value is" python3 -c '
import json,subprocess,sys
d=json.loads(subprocess.run(sys.argv[1:], capture_output=True, check=True).stdout)["diagnostics"]
assert d["ev_other"] == 2 and d["bad_event"] == 1 and d["ev_counter"] == 0, d' $TF -q info --format json "$TMP/notime.json"
check "-c memory:malloc: the browser's two malloc sizes at the call path they fired in" sh -c "
	$TF -q fold -c memory:malloc --sample-type memory:malloc -o - '$d' | grep -qx 'RunTask 2048000'"
finish
