#!/bin/bash
# --verify (sysbench's --validate): every block carries a header and a CRC32C; reads check
# them on every engine; a flipped byte is found, named, and makes the run exit 1; so too for a
# script's read-modify-writes, and a script whose blocks would be shared is refused.
source "$(dirname "$0")/lib.sh"
D=$TMP/set
mkdir -p "$D"
SET="--dir=$D --file-num=2 --file-total-size=8M --file-block-size=4K"
"$SBIO" prepare $SET --verify >/dev/null
check "prepare --verify records verify=1 in the manifest" grep -qx 'verify=1' "$D/sbio.manifest"
first4=$(od -A n -t x1 -N 4 "$D/test_file.0" | tr -d ' ')
eq "every block starts with the header's magic (SBVF)" "$first4" "53425646"

# The last run's figures, from its JSON result (-o "$RESULT"; lib.sh's json_get).
bad() { json_get "$RESULT" result.verify.mismatches; }
checked() { json_get "$RESULT" result.verify.blocks_checked; }
for e in sync libaio io_uring mmap; do
	for m in rndrw seqrewr seqwr; do
		rm -f "$RESULT"
		expect_exit 0 "$e $m --verify: writes stamped, reads checked" \
			"$SBIO" run $SET --file-test-mode=$m --threads=2 --events=3000 --verify \
			--ioengine=$e --iodepth=8 -o "$RESULT"
		eq "$e $m: no bad block" "$(bad)" "0"
	done
	rm -f "$RESULT"
	expect_exit 0 "$e seqrd --verify after the writes" "$SBIO" run $SET --file-test-mode=seqrd \
		--events=2048 --verify --ioengine=$e --iodepth=8 -o "$RESULT"
	eq "$e seqrd: all 2048 blocks checked" "$(checked)" "2048"
	eq "$e seqrd: none bad" "$(bad)" "0"
done
# A queued engine at iodepth 1 has one slot: nothing can overlap (it used to crash there).
for e in libaio io_uring; do
	rm -f "$RESULT"
	expect_exit 0 "$e --iodepth=1 rndrw --verify" "$SBIO" run $SET --file-test-mode=rndrw \
		--threads=2 --events=2000 --verify --ioengine=$e --iodepth=1 -o "$RESULT"
	eq "$e --iodepth=1: no bad block" "$(bad)" "0"
	check "$e --iodepth=1: blocks checked" test "$(checked)" -gt 0
done
rm -f "$RESULT"
expect_exit 0 "--validate is sysbench's name for --verify" "$SBIO" run $SET \
	--file-test-mode=seqrd --events=100 --validate -o "$RESULT"
eq "--validate checks blocks" "$(checked)" "100"

# One flipped byte in the middle of test_file.1's block 24 (offset 98304): every bit of it
# inverted (writing a fixed 0xff left the block intact whenever the byte already was 0xff,
# one run in 256).
b=$(od -An -tu1 -j100000 -N1 "$D/test_file.1" | tr -d ' ')
printf "\\$(printf '%03o' $((b ^ 255)))" | dd of="$D/test_file.1" bs=1 seek=100000 conv=notrunc 2>/dev/null
eq "the byte at offset 100000 changed" "$(od -An -tu1 -j100000 -N1 "$D/test_file.1" | tr -d ' ')" "$((b ^ 255))"
for e in sync libaio io_uring mmap; do
	rm -f "$RESULT"
	expect_exit 1 "$e: a flipped byte makes the run exit 1" "$SBIO" run $SET \
		--file-test-mode=seqrd --events=2048 --verify --ioengine=$e -o "$RESULT"
	eq "$e: exactly one bad block" "$(bad)" "1"
	check "$e: the message names the file and the block's offset" \
		grep -q 'test_file.1: block at offset 98304: checksum mismatch' "$TMP/err"
done
rm -f "$RESULT"
expect_exit 1 "--verify-fatal stops at the first bad block" "$SBIO" run $SET \
	--file-test-mode=seqrd --events=2048 --verify --verify-fatal -o "$RESULT"
n=$(events_of)
check "--verify-fatal: fewer than the 2048 events ran (got $n)" test "$n" -lt 2048

expect_exit 2 "--verify at another block size is refused" "$SBIO" run --dir="$D" \
	--file-test-mode=seqrd --events=10 --verify --file-block-size=8K
stderr_one_line "--verify at another block size: one line"
check "the message names both block sizes" grep -q '8 KiB.*4 KiB' "$TMP/err"
P=$TMP/plain
mkdir -p "$P"
"$SBIO" prepare --dir="$P" --file-num=1 --file-total-size=1M >/dev/null
# A set prepared without it (sysbench's --validate runs there too): the blocks this run
# writes are checked, the others are not.
rm -f "$RESULT"
expect_exit 0 "--verify on a set prepared without it: rndrw runs" "$SBIO" run --dir="$P" \
	--file-num=1 --file-total-size=1M --file-block-size=4K --file-test-mode=rndrw \
	--events=4000 --verify -o "$RESULT"
eq "the JSON says only written blocks are checked" "$(json_get "$RESULT" result.verify.scope)" \
	written
check "blocks it wrote were read back and checked ($(checked))" test "$(checked)" -gt 0
eq "none bad" "$(bad)" 0
check "the report says which blocks were checked" \
	grep -q 'blocks checked (those this run wrote: the set was prepared without --verify)' \
	"$TMP/out"
rm -f "$RESULT"
expect_exit 0 "--verify on a set prepared without it: seqrd checks nothing it did not write" \
	"$SBIO" run --dir="$P" --file-num=1 --file-total-size=1M --file-test-mode=seqrd \
	--events=100 --verify -o "$RESULT"
eq "seqrd: 0 blocks checked" "$(checked)" 0
# A write the device drops (failwrite.so's lose mode: the 3rd pwrite reports success and
# writes nothing) is found when the block is read back. One thread and a fixed seed draw
# the same requests every time; with 20 reads per write the block is read again before it
# is rewritten.
mkdir -p "$P/lost"
"$SBIO" prepare --dir="$P/lost" --file-num=1 --file-total-size=64K >/dev/null
rm -f "$RESULT"
FAILWRITE_MATCH=$(realpath "$P/lost")/test_file FAILWRITE_AFTER=3 FAILWRITE_LOSE=1 \
	LD_PRELOAD="$SBIO_TOOLS/failwrite.so" expect_exit 1 "a lost write on an unverified set: exit 1" \
	"$SBIO" run --dir="$P/lost" --file-num=1 --file-total-size=64K --file-block-size=4K \
	--file-test-mode=rndrw --file-rw-ratio=20 --file-fsync-freq=0 --threads=1 --rand-seed=7 \
	--events=2000 --verify -o "$RESULT"
check "the lost write is found (bad blocks: $(bad))" test "$(bad)" -ge 1
expect_exit 2 "prepare --verify over a set prepared without it is refused" "$SBIO" prepare \
	--dir="$P" --verify

# --- a script's mix of read-modify-writes: each read checked, each write back stamped ---
# One thread, 4 KiB blocks (the set's): a pass over both files in order, then a hot set of
# 20 blocks at depth 8, where a block's next rmw must wait for the write back of the one in
# flight (the overlap rule covers both halves).
VS=$TMP/rmw.lua
cat >"$VS" <<'LUA'
option("engine", "sync", "engine")
fileset { files = 2, size = "8M" }
phase "pass" { time = 0, events = 2048,
  job "j" { mix = { rmw = 1 }, block = "4k", pattern = "seq", engine = options.engine,
            iodepth = 8 } }
phase "hot" { time = 0, events = 4000,
  job "h" { mix = { rmw = 1 }, block = "4k", pattern = "hot:0.01:0.99", engine = options.engine,
            iodepth = 8 } }
LUA
VD=$TMP/rmwset
mkdir -p "$VD"
expect_exit 0 "prepare --verify for a script (4 KiB blocks)" "$SBIO" prepare --script "$VS" \
	--dir="$VD" --verify --file-block-size=4K
vfig() { json_get "$RESULT" "phases.$1.jobs.0.result.result.verify.$2"; }
for e in sync libaio io_uring mmap; do
	rm -f "$RESULT"
	expect_exit 0 "rmw --verify, $e: exit 0" "$SBIO" run --script "$VS" --dir="$VD" --verify \
		--engine=$e -o "$RESULT"
	eq "rmw --verify, $e: every block read checked, none bad" \
		"$(vfig 0 blocks_checked) $(vfig 0 mismatches) $(vfig 1 blocks_checked) $(vfig 1 mismatches)" \
		"2048 0 4000 0"
done
# One flipped byte in test_file.1's block 24 (offset 98304): the rmw reading it finds it, names
# it and exits 1; its write back stamps the block anew, so it is flipped again for each engine.
for e in sync libaio io_uring mmap; do
	b=$(od -An -tu1 -j100000 -N1 "$VD/test_file.1" | tr -d ' ')
	printf "\\$(printf '%03o' $((b ^ 255)))" | dd of="$VD/test_file.1" bs=1 seek=100000 conv=notrunc 2>/dev/null
	rm -f "$RESULT"
	expect_exit 1 "rmw --verify, $e: a flipped byte makes the run exit 1" "$SBIO" run \
		--script "$VS" --dir="$VD" --verify --engine=$e -o "$RESULT"
	eq "rmw --verify, $e: exactly one bad block, in the pass" "$(vfig 0 mismatches)" "1"
	check "rmw --verify, $e: the message names the file and the block's offset" \
		grep -q 'test_file.1: block at offset 98304: checksum mismatch' "$TMP/err"
done
# Where blocks would be shared, --verify is refused before anything runs.
cat >"$TMP/two.lua" <<'LUA'
fileset { files = 2, size = "8M" }
phase "p" { time = 0, events = 100,
  job "a" { mix = { rmw = 1 }, block = "4k" }, job "b" { mix = { read = 1 }, block = "4k" } }
LUA
cat >"$TMP/threads.lua" <<'LUA'
fileset { files = 2, size = "8M" }
phase "q" { time = 0, events = 100, job "a" { mix = { rmw = 1 }, block = "4k", threads = 2 } }
LUA
sum0=$(cat "$VD"/test_file.* | md5sum)
expect_exit 2 "--verify with two jobs in a phase is refused" "$SBIO" run --script "$TMP/two.lua" \
	--dir="$VD" --verify
stderr_one_line "two jobs: one line"
check "two jobs: the message names the phase and why" \
	grep -q '^sbio: --verify: phase "p" has more than one job; ' "$TMP/err"
expect_exit 2 "--verify with a mix of two threads is refused" "$SBIO" run \
	--script "$TMP/threads.lua" --dir="$VD" --verify
check "two threads: the message names the phase and why" \
	grep -q '^sbio: --verify: phase "q" has a mix of many threads; ' "$TMP/err"
eq "the refused runs left the set as it was" "$(cat "$VD"/test_file.* | md5sum)" "$sum0"
