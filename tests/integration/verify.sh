#!/bin/bash
# --verify (sysbench's --validate): every block carries a header and a CRC32C; reads check
# them on every engine; a flipped byte is found, named, and makes the run exit 1; so too for a
# script's read-modify-writes and for a script's jobs side by side (each thread of a phase
# owns its blocks), and a script whose blocks could be another thread's is refused.
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
# --- a script's jobs side by side: every thread of a phase owns its blocks ---
# Phase "rw": a writer (rndrw: reads and writes) and a reader (a mix reading in order) of one
# thread each: the writer owns the even blocks, the reader the odd ones and reads each of them
# once (its 1024 of the 2048 events). Phase "many": a mix of three threads reading, writing and
# read-modify-writing over zipf.
RW='fileset { files = 2, size = "8M" }
phase "rw" { time = 0, events = 2048,
  job "writer" { mode = "rndrw", block = "4k", engine = options.engine, iodepth = 8 },
  job "reader" { mix = { read = 1 }, block = "4k", pattern = "seq", engine = options.engine,
                 iodepth = 8 } }'
printf 'option("engine", "sync", "engine")\n%s\n' "$RW" >"$TMP/rw.lua"
cat "$TMP/rw.lua" - >"$TMP/jobs.lua" <<'LUA'
phase "many" { time = 0, events = 3000,
  job "m" { mix = { read = 2, write = 1, rmw = 1 }, block = "4k", pattern = "zipf:0.9",
            threads = 3, engine = options.engine, iodepth = 8 } }
LUA
JD=$TMP/jobset
mkdir -p "$JD"
expect_exit 0 "prepare --verify for a script of several jobs" "$SBIO" prepare \
	--script "$TMP/jobs.lua" --dir="$JD" --verify --file-block-size=4K
jfig() { json_get "$RESULT" "phases.$1.jobs.$2.result.result.verify.$3"; }
for e in sync libaio io_uring mmap; do
	rm -f "$RESULT"
	expect_exit 0 "two jobs and a mix of three threads --verify, $e: exit 0" "$SBIO" run \
		--script "$TMP/jobs.lua" --dir="$JD" --verify --engine=$e -o "$RESULT"
	w=$(jfig 0 0 blocks_checked) r=$(jfig 0 1 blocks_checked) m=$(jfig 1 0 blocks_checked)
	check "$e: the writer checked the blocks it read ($w)" test "$w" -gt 0
	eq "$e: the reader checked each of its 1024 blocks" "$r" 1024
	check "$e: the mix of three threads checked blocks ($m)" test "$m" -gt 0
	eq "$e: none bad" "$(jfig 0 0 mismatches) $(jfig 0 1 mismatches) $(jfig 1 0 mismatches)" \
		"0 0 0"
	eq "$e: the phase's total is its jobs' sum" \
		"$(json_get "$RESULT" phases.0.total.result.verify.blocks_checked)" "$((w + r))"
	check "$e: each job's section says what it checked" \
		grep -q "^Verification: $r blocks checked, 0 bad" "$TMP/out"
done
# One flipped byte in test_file.1's block 25 (offset 102400: block 1049 of the set, odd, the
# reader's): the reader finds it on every engine, the run exits 1 naming the job and the block.
b=$(od -An -tu1 -j104000 -N1 "$JD/test_file.1" | tr -d ' ')
printf "\\$(printf '%03o' $((b ^ 255)))" | dd of="$JD/test_file.1" bs=1 seek=104000 conv=notrunc 2>/dev/null
for e in sync libaio io_uring mmap; do
	rm -f "$RESULT"
	expect_exit 1 "two jobs --verify, $e: a flipped byte makes the run exit 1" "$SBIO" run \
		--script "$TMP/rw.lua" --dir="$JD" --verify --engine=$e -o "$RESULT"
	eq "two jobs, $e: the reader found one bad block, the writer none" \
		"$(jfig 0 1 mismatches) $(jfig 0 0 mismatches)" "1 0"
	check "two jobs, $e: the message names the job and the block" grep -q \
		'^sbio: --verify: phase "rw", job "reader": 1 bad block; first: .*test_file.1: block at offset 102400: checksum mismatch' \
		"$TMP/err"
done
# An event job alone in its phase (one thread): its whole-block reads are checked, the flipped
# block found; a request that is not whole blocks fails the run.
cat >"$TMP/event.lua" <<'LUA'
option("skew", 0, "bytes to add to every offset")
fileset { files = 2, size = "8M" }
function event(ctx)
    local per = sbio.files[1] / 4096
    ctx.op = sbio.READ
    local seq = tonumber(ctx.seq)
    ctx.file = math.floor(seq / per) % 2
    ctx.offset = (seq % per) * 4096 + options.skew
    ctx.len = 4096
    return true
end
phase "walk" { time = 0, events = 2048, job "ev" { event = true, block = "4k" } }
LUA
rm -f "$RESULT"
expect_exit 1 "an event job alone in its phase --verify: the flipped byte is found" "$SBIO" \
	run --script "$TMP/event.lua" --dir="$JD" --verify -o "$RESULT"
eq "the event job checked every block, one bad" \
	"$(jfig 0 0 blocks_checked) $(jfig 0 0 mismatches)" "2048 1"
check "the event job's message names it and the block" grep -q \
	'^sbio: --verify: phase "walk", job "ev": 1 bad block; first: .*test_file.1: block at offset 102400' \
	"$TMP/err"
expect_exit 1 "an event job's request across blocks under --verify fails the run" "$SBIO" \
	run --script "$TMP/event.lua" --dir="$JD" --verify --skew=512
check "the message says why" grep -q 'ctx.offset 512 + ctx.len 4096 is not whole blocks of 4 KiB' \
	"$TMP/err"
# Where a block could be another thread's, --verify is refused before anything runs, the
# phase and the job named.
cat >"$TMP/evpair.lua" <<'LUA'
fileset { files = 2, size = "8M" }
function event(ctx) ctx.op = sbio.READ; ctx.len = 4096; return true end
phase "p" { time = 0, events = 100,
  job "a" { mix = { rmw = 1 }, block = "4k" }, job "ev" { event = true, block = "4k" } }
LUA
cat >"$TMP/evthreads.lua" <<'LUA'
fileset { files = 2, size = "8M" }
function event(ctx) ctx.op = sbio.READ; ctx.len = 4096; return true end
phase "q" { time = 0, events = 100, job "ev" { event = true, block = "4k", threads = 2 } }
LUA
cat >"$TMP/sizes.lua" <<'LUA'
fileset { files = 2, size = "8M" }
phase "s" { time = 0, events = 100,
  job "big" { mix = { write = 1 }, block = { ["4k"] = 1, ["16k"] = 1 }, threads = 2 } }
LUA
cat >"$TMP/bsizes.lua" <<'LUA'
fileset { files = 2, size = "8M" }
phase "b" { time = 0, events = 100,
  job "small" { mode = "rndwr", block = "4k" }, job "big" { mode = "rndrw", block = "16k" } }
LUA
cat >"$TMP/seqrnd.lua" <<'LUA'
fileset { files = 2, size = "8M" }
phase "t" { time = 0, events = 100,
  job "seq" { mode = "seqrewr", block = "4k" }, job "rnd" { mix = { read = 1 }, block = "4k" } }
LUA
sum0=$(cat "$JD"/test_file.* | md5sum)
for c in 'evpair p ev event(ctx) chooses its offsets itself' \
	'evthreads q ev event(ctx) chooses its offsets itself' \
	'sizes s big requests of 4 KiB to 16 KiB would cover other threads' \
	'seqrnd t seq it walks per-thread slices of the set while job "rnd"' \
	'bsizes b small its blocks of 4 KiB and job "big"'; do
	set -- $c
	f=$1 ph=$2 job=$3
	shift 3
	expect_exit 2 "--verify refuses $f.lua" "$SBIO" run --script "$TMP/$f.lua" --dir="$JD" --verify
	stderr_one_line "$f.lua: one line"
	check "$f.lua: the message starts with FILE:LINE, names the phase and the job" \
		grep -qE "^sbio: [^ ]*/$f\.lua:[0-9]+: --verify: phase \"$ph\", job \"$job\": " "$TMP/err"
	check "$f.lua: the message says why" grep -qF ": --verify: phase \"$ph\", job \"$job\": $*" "$TMP/err"
done
eq "the refused runs left the set as it was" "$(cat "$JD"/test_file.* | md5sum)" "$sum0"

# --- a write without stamps withdraws the set's promise ---
# A run that writes without --verify leaves blocks that carry no header: the manifest says
# verify=0 from before its first write, so a later --verify run checks only what it writes
# itself and finds nothing wrong on a set nothing corrupted.
P=$TMP/promise
mkdir -p "$P"
PSET="--dir=$P --file-num=2 --file-total-size=8M --file-block-size=4K"
"$SBIO" prepare $PSET --verify >/dev/null
expect_exit 0 "prepare --verify, then a plain rndwr run" "$SBIO" run $PSET --file-test-mode=rndwr \
	--events=3000
check "the plain rndwr run left verify=0 in the manifest" grep -qx 'verify=0' "$P/sbio.manifest"
for m in rndrw seqrd; do
	rm -f "$RESULT"
	expect_exit 0 "then $m --verify finds no bad block" "$SBIO" run $PSET --file-test-mode=$m \
		--events=3000 --verify -o "$RESULT"
	eq "then $m --verify: 0 mismatches" "$(bad)" "0"
done
expect_exit 0 "cleanup" "$SBIO" cleanup --dir="$P"
# A seqwr run without --verify killed in the middle: the promise was gone before it emptied
# the files, so prepare --verify cannot take its unstamped blocks for stamped ones.
"$SBIO" prepare $PSET --verify >/dev/null
"$SBIO" run $PSET --file-test-mode=seqwr --time=60 --rate=100 >/dev/null 2>&1 &
pid=$!
for _ in $(seq 100); do
	grep -qx 'state=incomplete' "$P/sbio.manifest" && break
	sleep 0.1
done
sleep 0.5
{
	kill -KILL "$pid"
	wait "$pid"
} 2>/dev/null # bash's "Killed" notice is the point
check "the killed seqwr run's manifest: incomplete, verify=0" \
	grep -qx 'verify=0' "$P/sbio.manifest"
expect_exit 2 "prepare --verify on the set the killed seqwr left: refused" \
	"$SBIO" prepare $PSET --verify
stderr_one_line "prepare --verify there: one line"
check "its line says the set was prepared without --verify and to clean up" \
	grep -q 'prepared without it; run sbio cleanup first' "$TMP/err"
expect_exit 0 "prepare completes it (without stamps)" "$SBIO" prepare $PSET
rm -f "$RESULT"
expect_exit 0 "then rndrw --verify finds no bad block" "$SBIO" run $PSET --file-test-mode=rndrw \
	--events=3000 --verify -o "$RESULT"
eq "then rndrw --verify: 0 mismatches" "$(bad)" "0"
"$SBIO" cleanup --dir="$P" >/dev/null

# --- prepare --script --verify stamps at the block size of the script's jobs ---
S4=$TMP/s4k.lua
cat >"$S4" <<'LUA'
fileset { files = 2, size = "4M" }
phase "p" { time = 0, events = 2000,
  job "w" { mode = "rndrw", block = "4k", threads = 2 } }
LUA
SD=$TMP/s4k
mkdir -p "$SD"
expect_exit 0 "prepare --script (4 KiB jobs) --verify, no --file-block-size" "$SBIO" prepare \
	--script "$S4" --dir="$SD" --verify
check "the set is stamped at the jobs' 4 KiB" grep -qx 'block_size=4096' "$SD/sbio.manifest"
rm -f "$RESULT"
expect_exit 0 "the script's 4 KiB job runs --verify on it" "$SBIO" run --script "$S4" --dir="$SD" \
	--verify -o "$RESULT"
eq "the 4 KiB job: no bad block" "$(json_get "$RESULT" phases.0.jobs.0.result.result.verify.mismatches)" "0"
expect_exit 2 "prepare --script --verify --file-block-size=16K against 4 KiB jobs: refused" \
	"$SBIO" prepare --script "$S4" --dir="$TMP/s4k-b" --verify --file-block-size=16K
stderr_one_line "--file-block-size against the jobs: one line"
check "its line names both sizes" grep -q 'file-block-size=16 KiB but the jobs of .* use blocks of 4 KiB' "$TMP/err"
cat >"$TMP/s2.lua" <<'LUA'
fileset { files = 2, size = "4M" }
phase "p" { time = 0, events = 100,
  job "small" { mode = "rndrd", block = "4k" },
  job "large" { mode = "rndrd", block = "64k" } }
LUA
mkdir -p "$TMP/s2"
expect_exit 2 "prepare --script --verify with jobs of 4 and 64 KiB blocks: refused" \
	"$SBIO" prepare --script "$TMP/s2.lua" --dir="$TMP/s2" --verify
stderr_one_line "jobs of two block sizes: one line"
check "its line names both jobs and sizes" \
	grep -q 'job "small" uses blocks of 4 KiB and job "large" of 64 KiB' "$TMP/err"
check "nothing was written" test -z "$(ls "$TMP/s2")"

# --- under mpirun: the ranks sharing the set number their threads as one phase's ---
# Two ranks of rw.lua: 4 threads, the readers (threads 1 and 3) own the blocks b % 4 == 1 and
# 3 and read each of them once; block 1049, the flipped one, is rank 0's reader's.
if ! "$SBIO" version | grep -q '(MPI: ' || ! command -v mpirun >/dev/null; then
	skip "no MPI build or no mpirun: the two-rank --verify checks (tests/integration/mpi.sh says why)"
	exit 0
fi
[ -n "${ASAN_OPTIONS:-}" ] && export ASAN_OPTIONS="$ASAN_OPTIONS:detect_leaks=0"
MPI=(timeout -k 5 60 mpirun --allow-run-as-root --oversubscribe)
rm -f "$RESULT"
expect_exit 1 "mpirun -np 2, two jobs --verify: the flipped byte makes the run exit 1" \
	"${MPI[@]}" -np 2 "$SBIO" run --script "$TMP/rw.lua" --dir="$JD" --verify -o "$RESULT"
eq "mpirun -np 2: the readers checked each of their 1024 blocks, one bad; the writers none bad" \
	"$(jfig 0 1 blocks_checked) $(jfig 0 1 mismatches) $(jfig 0 0 mismatches)" "1024 1 0"
check "mpirun -np 2: the message names the job, the rank and the block" grep -q \
	'^sbio: --verify: phase "rw", job "reader": 1 bad block; first: rank 0 .*test_file.1: block at offset 102400' \
	"$TMP/err"
expect_exit 2 "mpirun -np 2: an event job on a set both ranks share is refused" \
	"${MPI[@]}" -np 2 "$SBIO" run --script "$TMP/event.lua" --dir="$JD" --verify
check "mpirun -np 2: the event job's refusal names the phase and the job" \
	grep -q '^sbio: [^ ]*event\.lua:[0-9]*: --verify: phase "walk", job "ev": event(ctx) chooses' "$TMP/err"
