#!/bin/bash
# A job's invalidate = "pass" against the kernel, as fio's invalidate=1 in a time-based job
# (fio drops a file's pages each time it starts a new pass over it): on a set smaller than the
# job's traffic, a sequential read with "pass" reads the device on every pass (the loop
# device's own counters, /sys/block/DEV/stat through the JSON result: device bytes = bytes
# reported) where "once" reads the cache after the first pass; POSIX_FADV_DONTNEED is called
# passes x files times (strace), as fio does over as many passes (--loops); the report counts
# the drops (JSON and text). file_service = "roundrobin" visits the files as fio's default
# file service: one request per file in turn, each from its start (strace of the preads).
# fio-matrix.lua's read sync cell does the same. Its own loop device (ext4 on an image file
# under $TMP), detached in the trap. Needs root (loop device) and strace: skips otherwise.
source "$(dirname "$0")/lib.sh"

WL=$(cd "$(dirname "$0")/../../workloads" && pwd)
loop_test "loop devices" strace "strace is not installed: the kernel-side checks cannot be made"
loop_ext4 128M "$MNT"
ok "own loop device /dev/$LOOP with ext4 mounted at $MNT"

# Ten files of 1 MiB (32 blocks of 32 KiB each): 1600 requests are 5 passes over the set.
cat >"$TMP/inv.lua" <<'EOF'
option("inv", "pass", "invalidate: pass, once")
option("fs", "set", "file service: set, roundrobin")
option("mode", "seqrd", "seqrd, rndrd")
fileset { files = 10, size = "10M" }
local rnd = options.mode:match("^rnd")
phase("cell") { events = 1600, job("j") {
    mode = options.mode, block = "32k", fsync_freq = 0, fsync_end = false, fadvise = "auto",
    invalidate = options.inv, random_order = rnd and "once" or nil,
    file_service = not rnd and options.fs or nil } }
EOF
D=$MNT/set
mkdir -p "$D"
expect_exit 0 "prepare the 10-file set on /dev/$LOOP" "$SBIO" prepare --script "$TMP/inv.lua" --dir="$D"

# cell INV FS MODE: run the cell under strace ($TMP/INV-FS-MODE.st); prints "reported device
# pass_drops": the read bytes the result reports, the loop device's, the drops at a pass.
cell() {
	local out=$TMP/$1-$2-$3
	strace -f -qq -e trace=fadvise64 -o "$out.st" "$SBIO" run --script "$TMP/inv.lua" --dir="$D" \
		--inv="$1" --fs="$2" --mode="$3" -o "$out.json" >"$out.txt" 2>"$out.err" || echo "exit $?" >&2
	python3 - "$out.json" "$LOOP" <<'EOF'
import json, sys
doc, loop = json.load(open(sys.argv[1])), sys.argv[2]
r = doc["phases"][0]["jobs"][0]["result"]["result"]
dev = next((d for d in r["devices"] if d["name"] == loop), None)
inv = r["invalidation"] or {}
print(r["op_types"]["read"]["bytes"], dev["bytes_read"] if dev else -1, inv.get("pass_drops", -1))
EOF
}

MIB50=$((1600 * 32768))
for fs in set roundrobin; do
	read -r asked dev drops < <(cell pass "$fs" seqrd)
	dontneed=$(grep -c 'POSIX_FADV_DONTNEED' "$TMP/pass-$fs-seqrd.st")
	eq "pass, $fs: the cell read 5 passes of 10 MiB" "$asked" "$MIB50"
	near "pass, $fs: /dev/$LOOP read what the cell reports, every pass from the device" \
		"$dev" "$MIB50" 3
	eq "pass, $fs: 40 drops at the start of passes 2 to 5 (JSON pass_drops)" "$drops" 40
	eq "pass, $fs: POSIX_FADV_DONTNEED 5 passes x 10 files (strace)" "$dontneed" 50
done
grep -q '^Page cache at each new pass: 40 drops of a file.s pages, outside the requests. latencies$' \
	"$TMP/pass-set-seqrd.txt"
check "the text report counts the drops" [ $? -eq 0 ]

# --- the command line's job: --invalidate=pass ---
SET=(--dir="$MNT/cl" --file-num=4 --file-total-size=4M --file-block-size=32k)
mkdir -p "$MNT/cl"
expect_exit 0 "prepare a 4-file set" "$SBIO" prepare "${SET[@]}"
strace -f -qq -e trace=fadvise64 -o "$TMP/cl.st" "$SBIO" run "${SET[@]}" --file-test-mode=seqrd \
	--invalidate=pass --events=384 -o "$TMP/cl.json" >"$TMP/cl.txt" 2>&1
eq "--invalidate=pass, seqrd over 3 passes: POSIX_FADV_DONTNEED 3 passes x 4 files (strace)" \
	"$(grep -c 'POSIX_FADV_DONTNEED' "$TMP/cl.st")" 12
eq "--invalidate=pass: 8 drops at a pass in the JSON, config.invalidate_pass true" \
	"$(json_get "$TMP/cl.json" result.invalidation.pass_drops config.invalidate_pass | paste -sd ' ')" "8 true"
grep -q '^Page cache: the set.s pages dropped before the run and each file.s again at each new pass over it (--invalidate=pass)$' "$TMP/cl.txt"
check "--invalidate=pass: the report says so" [ $? -eq 0 ]
expect_exit 2 "--invalidate=pass with rndrd in independent draws: refused" "$SBIO" run "${SET[@]}" \
	--file-test-mode=rndrd --invalidate=pass --events=10
expect_exit 2 "--invalidate=pass with --script: refused (a job says it)" "$SBIO" run \
	--script "$TMP/inv.lua" --dir="$D" --invalidate=pass

read -r asked dev drops < <(cell once set seqrd)
eq "once: the cell read 5 passes of 10 MiB" "$asked" "$MIB50"
check "once: /dev/$LOOP read the set about once, the cache served the other passes (read $dev of $asked)" \
	[ "$dev" -le $((MIB50 * 2 / 5)) ]
eq "once: no drop at a pass (JSON pass_drops)" "$drops" 0
eq "once: POSIX_FADV_DONTNEED once per file (strace)" "$(grep -c 'POSIX_FADV_DONTNEED' "$TMP/once-set-seqrd.st")" 10

# rndrd in the once order: every block once per pass, all files dropped at each new pass.
read -r asked dev drops < <(cell pass set rndrd)
eq "pass, rndrd: 40 drops (JSON pass_drops)" "$drops" 40
check "pass, rndrd: /dev/$LOOP read at least the bytes reported (read $dev of $asked)" \
	[ "$dev" -ge $((asked * 97 / 100)) ]

# --- file_service = "roundrobin": fio's order of files and offsets ---
strace -f -qq -e trace=pread64 -e signal=none -o "$TMP/rr.st" "$SBIO" run --script "$TMP/inv.lua" \
	--dir="$D" --fs=roundrobin --inv=once >/dev/null 2>&1
# The first 20 reads: files in turn (10 descriptors), offsets 0 then 32768 for each.
first=$(grep -o 'pread64([0-9]*, .*, 32768, [0-9]*)' "$TMP/rr.st" | head -20 |
	sed -E 's/pread64\(([0-9]+), .*, ([0-9]+)\)$/\1 \2/' | awk '{ fds[$1]++; offs = offs $2 " " } END { print length(fds), offs }')
eq "roundrobin: the first 20 reads go to 10 files, each at 0 then 32768" "$first" \
	"10 0 0 0 0 0 0 0 0 0 0 32768 32768 32768 32768 32768 32768 32768 32768 32768 32768 "

# --- fio, where installed: as many DONTNEED over 5 passes (loops) of the same files ---
if command -v fio >/dev/null; then
	files=$(for i in $(seq 0 9); do printf '%s:' "$D/test_file.$i"; done)
	strace -f -qq -e trace=fadvise64 -o "$TMP/fio.st" fio --name=x --filename="${files%:}" \
		--size=10M --bs=32k --rw=read --ioengine=psync --loops=5 >/dev/null 2>&1
	eq "fio --loops=5 over the same 10 files: as many POSIX_FADV_DONTNEED (strace)" \
		"$(grep -c 'POSIX_FADV_DONTNEED' "$TMP/fio.st")" 50
else
	skip "fio is not installed: its count of drops is not compared"
fi

# --- fio-matrix.lua's read sync cell: per pass ---
M=$MNT/matrix
mkdir -p "$M"
MX=(--dir="$M" --script "$WL/fio-matrix.lua" --size=10M --time=30 --events=1600)
expect_exit 0 "prepare the fio-matrix set" "$SBIO" prepare "${MX[@]}"
expect_exit 0 "fio-matrix runs its 16 cells, 5 passes each" "$SBIO" run "${MX[@]}" -o "$TMP/m.json"
# matrix_cell NAME: the cell's reported read bytes, its device's, its drops at a pass.
matrix_cell() {
	python3 - "$TMP/m.json" "$LOOP" "$1" <<'EOF'
import json, sys
doc, loop, name = json.load(open(sys.argv[1])), sys.argv[2], sys.argv[3]
r = next(p for p in doc["phases"] if p["name"] == name)["jobs"][0]["result"]["result"]
dev = next((d for d in r["devices"] if d["name"] == loop), None)
print(r["op_types"]["read"]["bytes"], dev["bytes_read"] if dev else -1, r["invalidation"]["pass_drops"])
EOF
}
# mmap: the mapping's pages unmapped before the drop, as fio's close at the end of a pass.
for cell in "read sync" "read mmap" "read libaio" "randread sync"; do
	read -r asked dev drops < <(matrix_cell "$cell")
	eq "fio-matrix $cell: 40 drops (5 passes over 10 files)" "$drops" 40
	near "fio-matrix $cell: /dev/$LOOP read what the cell reports ($asked)" "$dev" "$asked" 3
done
