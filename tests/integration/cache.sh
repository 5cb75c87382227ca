#!/bin/bash
# What a run does to the page cache, and the access order, against the kernel: a cold
# fio-matrix buffered (and mmap) randread cell is served by the device (the loop device's
# /sys/block/DEV/stat and /proc/self/io, through the JSON result); --invalidate leaves the set
# non-resident (sbio's mincore figure, and fincore); --fadvise reaches every descriptor and
# mapping (strace); --random-order=once over as many events as blocks reads each block once
# (strace of the pread64 offsets, 1 and 2 threads), where independent draws repeat some.
# Works only on its own loop device (ext4 on an image file under $TMP), detached in the trap.
# Needs root (loop device) and strace: skips otherwise.
source "$(dirname "$0")/lib.sh"

WL=$(cd "$(dirname "$0")/../../workloads" && pwd)
loop_test "loop devices" strace "strace is not installed: the kernel-side checks cannot be made"
loop_ext4 256M "$MNT"
ok "own loop device /dev/$LOOP with ext4 mounted at $MNT"

# --- a cold fio-matrix cell reads from the device what it reports ---
# 64 MiB set (2048 blocks of 32 KiB), 1024 requests per cell: half the blocks, each once, so
# no request can be served by an earlier one's page. Every cell before the randread ones
# (read sync, mmap, libaio) has read the whole set into the cache.
M=$MNT/matrix
mkdir -p "$M"
MX=(--dir="$M" --script "$WL/fio-matrix.lua" --size=64M --time=30 --events=1024)
expect_exit 0 "prepare the fio-matrix set on /dev/$LOOP" "$SBIO" prepare "${MX[@]}"
expect_exit 0 "fio-matrix runs its 16 cells" "$SBIO" run "${MX[@]}" -o "$TMP/matrix.json"
# cell_check NAME: the cell's reported read bytes, its device's and the process's.
cell_check() {
	python3 - "$TMP/matrix.json" "$1" "$LOOP" <<'EOF'
import json, sys
doc, name, loop = json.load(open(sys.argv[1])), sys.argv[2], sys.argv[3]
r = next(p for p in doc["phases"] if p["name"] == name)["jobs"][0]["result"]["result"]
dev = next((d for d in r["devices"] if d["name"] == loop), None)
print(r["op_types"]["read"]["bytes"], dev["bytes_read"] if dev else -1,
      r["process_io"]["read_bytes"] if r["process_io"] else -1, r["invalidation"]["resident_bytes"])
EOF
}
for cell in "randread sync" "randread mmap"; do
	read -r asked dev proc resident < <(cell_check "$cell")
	eq "$cell: the cell read 1024 blocks of 32 KiB" "$asked" $((1024 * 32768))
	eq "$cell: nothing of the set resident after invalidation" "$resident" 0
	check "$cell: /dev/$LOOP read at least 90% of the $asked bytes the cell reports (read $dev)" \
		[ "$dev" -ge $((asked * 9 / 10)) ]
	check "$cell: sbio's own reads (/proc/self/io) at least 90% of them (read $proc)" \
		[ "$proc" -ge $((asked * 9 / 10)) ]
	# With the random hints no readahead: the device reads about what was asked, not 8 MiB
	# windows (the whole set is 64 MiB: at most twice the asked bytes).
	check "$cell: no readahead beyond the requests (device $dev of $asked)" \
		[ "$dev" -le $((asked * 2)) ]
done

# --- --invalidate: the set leaves the cache, by sbio's mincore and by fincore ---
D=$MNT/set
mkdir -p "$D"
SET=(--dir="$D" --file-num=4 --file-total-size=16M --file-block-size=16K)
expect_exit 0 "prepare 4 x 4 MiB" "$SBIO" prepare "${SET[@]}"
# The set was just written: its pages are cached (and maybe dirty).
"$SBIO" run "${SET[@]}" --file-test-mode=seqrd --events=1024 >/dev/null 2>&1
fincore_bytes() { fincore -b -n -o RES "$D"/test_file.* | awk '{ s += $1 } END { print s + 0 }'; }
check "the set is cached before the check ($(fincore_bytes) bytes)" [ "$(fincore_bytes)" -gt 8000000 ]
expect_exit 0 "rndrd --invalidate=on --events=1" "$SBIO" run "${SET[@]}" --file-test-mode=rndrd \
	--invalidate=on --fadvise=random --events=1 -o "$TMP/inv.json"
eq "the JSON says 4 files invalidated" "$(json_get "$TMP/inv.json" result.invalidation.files)" 4
eq "the JSON says 0 bytes resident after it" \
	"$(json_get "$TMP/inv.json" result.invalidation.resident_bytes)" 0
check "fincore after the run: one block cached at most ($(fincore_bytes) bytes)" \
	[ "$(fincore_bytes)" -le 16384 ]
grep -q 'Page cache before the run: 0.0% of the set resident, 0 B of 16 MiB (invalidated 4 files)' \
	"$TMP/out"
check "the report says what invalidation achieved" [ $? -eq 0 ]
"$SBIO" run "${SET[@]}" --file-test-mode=seqrd --events=1024 -o "$TMP/noinv.json" >/dev/null 2>&1
eq "without --invalidate the JSON has no invalidation" \
	"$(json_get "$TMP/noinv.json" result.invalidation)" null

# --- --fadvise and madvise, as strace sees them ---
# trace_count OUT PATTERN ARGS…: sbio ARGS… under strace (every thread); how many calls match.
trace_count() {
	local out=$1 pat=$2
	shift 2
	strace -f -qq -e trace=fadvise64,madvise -o "$out" "$SBIO" "$@" >/dev/null 2>&1
	grep -c -- "$pat" "$out"
}
n=$(trace_count "$TMP/fa1" 'POSIX_FADV_RANDOM' run "${SET[@]}" --file-test-mode=rndrd --threads=2 \
	--fadvise=auto --events=10)
eq "--fadvise=auto, rndrd, 2 threads: POSIX_FADV_RANDOM on each thread's 4 files" "$n" 8
n=$(trace_count "$TMP/fa2" 'POSIX_FADV_SEQUENTIAL' run "${SET[@]}" --file-test-mode=seqrd \
	--fadvise=auto --events=10)
eq "--fadvise=auto, seqrd: POSIX_FADV_SEQUENTIAL on the 4 files" "$n" 4
n=$(trace_count "$TMP/fa3" 'MADV_RANDOM' run "${SET[@]}" --file-test-mode=rndrd --ioengine=mmap \
	--fadvise=auto --events=10)
eq "--fadvise=auto, mmap: MADV_RANDOM on the 4 mappings" "$n" 4
n=$(trace_count "$TMP/fa4" 'fadvise64' run "${SET[@]}" --file-test-mode=rndrd --events=10)
eq "by default (as sysbench): no fadvise64 at all" "$n" 0
n=$(trace_count "$TMP/fa5" 'POSIX_FADV_DONTNEED' run "${SET[@]}" --file-test-mode=rndrd \
	--invalidate=on --events=10)
eq "--invalidate: POSIX_FADV_DONTNEED on the 4 files" "$n" 4

# --- --random-order=once: every block once ---
# offsets THREADS ORDER: "distinct total" (file, offset) pairs of the workers' pread64 calls
# over as many events as the set has blocks (1024); one trace file per thread (-ff), so no
# call is split across lines.
offsets() {
	rm -rf "$TMP/pr"
	mkdir "$TMP/pr"
	strace -ff -qq -y -e trace=pread64 -o "$TMP/pr/tr" "$SBIO" run "${SET[@]}" \
		--file-test-mode=rndrd --threads="$1" --random-order="$2" --events=1024 >/dev/null 2>&1
	cat "$TMP/pr"/tr.* | grep -o '^pread64([0-9]*<[^>]*/test_file\.[0-9]*>.*, 16384, [0-9]*)' |
		sed 's/^pread64([0-9]*<\([^>]*\)>.*, 16384, \([0-9]*\))$/\1 \2/' |
		sort | uniq -c | awk '{ n++; t += $1 } END { print n + 0, t + 0 }'
}
eq "--random-order=once, 1 thread: 1024 reads, 1024 distinct blocks" "$(offsets 1 once)" "1024 1024"
eq "--random-order=once, 2 threads: 1024 reads, 1024 distinct blocks" "$(offsets 2 once)" "1024 1024"
read -r distinct total < <(offsets 1 draw)
check "--random-order=draw (sysbench's): 1024 draws repeat some blocks ($distinct distinct)" \
	[ "$total" -eq 1024 -a "$distinct" -lt 1000 ]
