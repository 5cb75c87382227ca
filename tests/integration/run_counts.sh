#!/bin/bash
# sbio run: fidelity of the counts.
# Every mode with 1, 2 and 8 threads; what a seqwr run leaves short the next run completes;
# the reads, writes and fsyncs
# of the run's result equal the pread64/pwrite64/fsync calls strace sees; --events=N is exact; the
# rndrw ratio; --rand-seed reproduces the offsets; a sysbench command line gives sysbench's
# op mix; the page-cache note (warm buffered reads, O_DIRECT ones) judged by the device
# counters; --rate reached against asked; a read-modify-write on the sync engine makes
# bonnie++'s rewrite's calls (strace: read at the file position, lseek back one block, write),
# changes one byte of its block on every engine, and is one device read and one write under
# O_DIRECT; bonnie-direct's rewrite makes as many of each as bonnie++ 2.00a's.
# Small sets (4 x 8 MiB) under $TMP only.
source "$(dirname "$0")/lib.sh"

D=$TMP/set
mkdir -p "$D"
SET=(--dir="$D" --file-num=4 --file-total-size=32M)
FILE_SIZE=8388608
BLOCK=16384
NFILES=4

# The counts come from each run's JSON result (lib.sh: sbio_json, events_of, rwf_of, pew_of).
completed_of() { json_get "$RESULT" result.seqwr_completed_bytes; }

expect_exit 0 "prepare 4 x 8 MiB" "$SBIO" prepare "${SET[@]}"

# --- every mode with 1, 2 and 8 threads: exit 0, events == reads + writes + periodic fsyncs ---
N=2000
for mode in seqwr seqrewr seqrd rndrd rndwr rndrw; do
	for th in 1 2 8; do
		sbio_json run "${SET[@]}" --file-test-mode=$mode --threads=$th --events=$N
		rc=$?
		ev=$(events_of)
		read -r r w f < <(rwf_of)
		read -r p e iw < <(pew_of)
		why=""
		[ "$rc" -eq 0 ] || why="exit $rc: $(head -c 200 "$TMP/err" | tr '\n' ' ')"
		[ -z "$why" ] && [ "${ev:-x}" != "$N" ] && why="events '$ev', want $N"
		[ -z "$why" ] && [ $((r + w + p)) -ne "$ev" ] &&
			why="reads+writes+periodic fsyncs = $r+$w+$p = $((r + w + p)), events $ev"
		[ -z "$why" ] && [ $((p + e + iw)) -ne "$f" ] && why="fsyncs $f != $p+$e+$iw"
		case $mode in # the op types the mode may produce
		seqrd | rndrd) [ -z "$why" ] && [ $((w + f)) -ne 0 ] && why="read-only mode wrote: $w writes, $f fsyncs" ;;
		seqwr | seqrewr | rndwr) [ -z "$why" ] && [ "$r" -ne 0 ] && why="write-only mode read $r times" ;;
		esac
		if [ -z "$why" ]; then ok "$mode, $th threads: events $ev = $r reads + $w writes + $p periodic fsyncs"; else notok "$mode, $th threads: $why"; fi
	done
done

# --- seqwr ended before the pass was complete: the run ends there, and what it did not
# rewrite is left to the next command. The manifest marks the set short (which file from
# where), the report says what is left and who writes it; the next run writes it before it
# starts, says so, and reads no hole. ---
left_of() { json_get "$RESULT" result.seqwr_left_bytes; }
sbio_json run "${SET[@]}" --file-test-mode=seqwr --threads=2 --events=500
eq "seqwr --events=500: exit status" "$?" 0
read -r r w f < <(rwf_of)
eq "seqwr --events=500: the manifest marks the set short (state, short)" \
	"$(grep -E '^(state|short)=' "$D/sbio.manifest" | paste -sd ' ')" "state=incomplete short=seqwr"
# 500 blocks of 16 KiB: test_file.0 from block 500 on, the other three whole.
eq "seqwr --events=500: the manifest says where each file's unwritten bytes start" \
	"$(grep '^rewrite\.' "$D/sbio.manifest" | paste -sd ' ')" \
	"rewrite.0=$((w * BLOCK)) rewrite.1=0 rewrite.2=0 rewrite.3=0"
eq "seqwr --events=500: left = set - $w writes x 16 KiB; nothing completed after the run" \
	"$(left_of) $(completed_of)" "$((NFILES * FILE_SIZE - w * BLOCK)) 0"
check "seqwr --events=500: the report says what is left and who writes it" \
	grep -q "^seqwr: the run ended before the set was whole again: .* left unwritten (sbio.manifest says so); the next run, or sbio prepare, writes it first$" "$TMP/out"
eq "seqwr --events=500: the files as the run left them (test_file.0 $((w * BLOCK)) bytes, the rest empty)" \
	"$(for i in 0 1 2 3; do stat -c %s "$D/test_file.$i"; done | paste -sd ' ')" "$((w * BLOCK)) 0 0 0"
# The next run (a read of every block) writes the rest first and says so: then no file has a
# hole or a byte missing.
sbio_json run "${SET[@]}" --file-test-mode=seqrd --events=$((NFILES * FILE_SIZE / BLOCK))
eq "the next run (seqrd): exit status" "$?" 0
check "the next run says it completes the set first, and how much" \
	grep -q "^Completing the set in $D, left short by a seqwr run: writing the .* it lacks (not measured)$" "$TMP/out"
eq "after the next run: manifest complete, no short= or rewrite. line" \
	"$(grep -cE '^(short|rewrite\.)' "$D/sbio.manifest") $(grep '^state=' "$D/sbio.manifest")" "0 state=complete"
eq "after the next run: every file at its size, with no hole (SEEK_HOLE at the end)" \
	"$(python3 -c 'import os, sys
for p in sys.argv[1:]:
    fd = os.open(p, os.O_RDONLY)
    print(os.fstat(fd).st_size, os.lseek(fd, 0, os.SEEK_HOLE))' "$D"/test_file.{0,1,2,3} | sort -u)" "$FILE_SIZE $FILE_SIZE"
read -r r w f < <(rwf_of)
eq "the next run read every block of the set" "$r" "$((NFILES * FILE_SIZE / BLOCK))"

# --- the report's counts against the system calls strace sees ---
# strace -ff writes one file per thread, so the worker threads' calls (the measured phase) are
# told apart from the main thread's (seqwr completion: 1 MiB pwrites + one fsync per file,
# and the manifest) without guessing from sizes. Only calls on test_file.* count (-y shows
# the path), which leaves out the dynamic loader's pread64 of libc and the manifest's fsyncs.
# Sets: WR WW WF = worker pread64, pwrite64, fsync+fdatasync; MR MW MWB MF = main thread
# pread64, pwrite64, pwrite64 bytes, fsync; MWMAX = largest main-thread pwrite64. The run's
# JSON result goes to $RESULT.
strace_run() {
	local dir=$TMP/strace.$1 f main
	shift
	rm -rf "$dir" "$RESULT"
	mkdir -p "$dir"
	strace -ff -qq -y -e trace=execve,pread64,pwrite64,read,write,lseek,fsync,fdatasync -o "$dir/tr" \
		"$SBIO" "$@" -o "$RESULT" >"$TMP/out" 2>"$TMP/err"
	STRACE_RC=$?
	main=$(grep -l '^execve(' "$dir"/tr.*)
	WR=0 WW=0 WF=0 MR=0 MW=0 MWB=0 MF=0 MWMAX=0
	for f in "$dir"/tr.*; do
		read -r pr pw pwb pwmax fs < <(awk '
			/^pread64\([0-9]+<[^>]*\/test_file\.[0-9]+>/ { pr++ }
			/^pwrite64\([0-9]+<[^>]*\/test_file\.[0-9]+>/ { pw++; n = $NF + 0; pwb += n; if (n > mx) mx = n }
			/^f(data)?sync\([0-9]+<[^>]*\/test_file\.[0-9]+>/ { fs++ }
			END { printf "%d %d %d %d %d\n", pr, pw, pwb, mx, fs }' "$f")
		if [ "$f" = "$main" ]; then
			MR=$pr MW=$pw MWB=$pwb MWMAX=$pwmax MF=$fs
		else
			WR=$((WR + pr)) WW=$((WW + pw)) WF=$((WF + fs))
		fi
	done
}

# rndrw, 2 threads: every call is in the measured phase (periodic and end fsyncs are both fsyncs).
strace_run rndrw run "${SET[@]}" --file-test-mode=rndrw --threads=2 --events=1000
eq "strace rndrw: exit status" "$STRACE_RC" 0
read -r r w f < <(rwf_of)
read -r p e iw < <(pew_of)
eq "strace rndrw: reported reads = pread64 calls" "$r" "$WR"
eq "strace rndrw: reported writes = pwrite64 calls" "$w" "$WW"
eq "strace rndrw: reported fsyncs ($p periodic + $e at end) = fsync calls" "$f" "$WF"
eq "strace rndrw: no I/O on the set outside the worker threads (pread, pwrite, fsync)" "$MR $MW $MF" "0 0 0"
[ "$e" -eq $((2 * NFILES)) ] && ok "strace rndrw: end fsyncs = 2 threads x $NFILES files" ||
	notok "strace rndrw: end fsyncs = 2 threads x $NFILES files (got $e, want $((2 * NFILES)))"

# seqwr, 2 threads, --events=1000 (about 970 of the set's 2048 blocks): the workers' calls are
# the report's, and nothing is written after them; the next run writes the rest in its main
# thread before its workers start (1 MiB pwrites, one fsync per file it wrote).
strace_run seqwr run "${SET[@]}" --file-test-mode=seqwr --threads=2 --events=1000
eq "strace seqwr: exit status" "$STRACE_RC" 0
read -r r w f < <(rwf_of)
read -r p e iw < <(pew_of)
eq "strace seqwr: reported writes = the workers' pwrite64 calls" "$w" "$WW"
eq "strace seqwr: reported fsyncs ($p periodic + $e at end) = the workers' fsync calls" "$f" "$WF"
eq "strace seqwr: reported reads = pread64 calls (0)" "$r $((WR + MR))" "0 0"
eq "strace seqwr: nothing written on the set after the run (main thread: pwrite64, fsync)" "$MW $MF" "0 0"
want=$((NFILES * FILE_SIZE - w * BLOCK))
eq "strace seqwr: left = set - reported writes ($want bytes)" "$(json_get "$RESULT" result.seqwr_left_bytes)" "$want"
touched=$((NFILES - w * BLOCK / FILE_SIZE))
strace_run after run "${SET[@]}" --file-test-mode=rndrd --events=100
read -r r w f < <(rwf_of)
eq "strace, the run after: exit status; reads = the workers' pread64; the workers write nothing" \
	"$STRACE_RC $r $WW $WF" "0 $WR 0 0"
eq "strace, the run after: its main thread writes the set - the seqwr's writes ($want bytes) first" "$MWB" "$want"
[ "$MWMAX" -le 1048576 ] && ok "strace, the run after: completion writes in requests of at most 1 MiB ($MW pwrites)" ||
	notok "strace, the run after: completion writes in requests of at most 1 MiB (largest $MWMAX)"
eq "strace, the run after: one fsync for each file it completed" "$MF" "$touched"

# seqwr whose pass completes within the run (--events larger than the set's 2048 blocks):
# nothing is completed afterwards, so every call on the set is the report's.
strace_run seqwr_full run "${SET[@]}" --file-test-mode=seqwr --threads=2 --events=2500
read -r r w f < <(rwf_of)
eq "strace seqwr (full pass): writes = pwrite64 calls, fsyncs = fsync calls, nothing completed after" \
	"$w $f $MW $MF $(completed_of)" "$WW $WF 0 0 0"
grep -q '^seqwr: .*outside the measured time' "$TMP/out" &&
	notok "strace seqwr (full pass): the report claims a completion that did not happen" ||
	ok "strace seqwr (full pass): the report claims no completion"

# --- --events=N is exact (3 threads: N not a multiple of the thread count) ---
for n in 1000 997; do
	for mode in rndrw seqrd; do
		sbio_json run "${SET[@]}" --file-test-mode=$mode --threads=3 --events=$n
		read -r r w f < <(rwf_of)
		read -r p e iw < <(pew_of)
		eq "--events=$n, $mode, 3 threads: events and reads+writes+periodic fsyncs" \
			"$(events_of) $((r + w + p))" "$n $n"
	done
done

# --- rndrw's read/write ratio within 1% ---
for ratio in 1.5 3; do
	opt=()
	[ "$ratio" != 1.5 ] && opt=("--file-rw-ratio=$ratio")
	sbio_json run "${SET[@]}" --file-test-mode=rndrw --threads=2 --events=20000 "${opt[@]}"
	read -r r w f < <(rwf_of)
	near "rndrw ${opt[*]:-(default)}: reads/writes = $r/$w within 1% of $ratio" \
		"$(awk -v r="$r" -v w="$w" 'BEGIN { print (w ? r / w : 0) }')" "$ratio" 1
done

# --- --rand-seed reproduces the offsets ---
offsets() { # seed → the worker's pread64 "file offset" sequence in $TMP/off.$1
	strace -f -qq -y -e trace=pread64 -o "$TMP/seed.tr" "$SBIO" run "${SET[@]}" \
		--file-test-mode=rndrd --threads=1 --events=200 --rand-seed="$1" >"$TMP/out" 2>"$TMP/err"
	sed -nE 's/^[0-9]+ +pread64\([0-9]+<[^>]*\/(test_file\.[0-9]+)>, .*, ([0-9]+)\) += .*/\1 \2/p' \
		"$TMP/seed.tr" >"$TMP/off.$1"
}
offsets 42
cp "$TMP/off.42" "$TMP/off.42a"
offsets 42
offsets 43
eq "--rand-seed=42: 200 reads traced" "$(wc -l <"$TMP/off.42")" 200
check "--rand-seed=42 twice: the same 200 offsets in the same order" cmp -s "$TMP/off.42a" "$TMP/off.42"
differ() { ! cmp -s "$1" "$2"; }
check "--rand-seed=43: offsets differ from --rand-seed=42" differ "$TMP/off.42" "$TMP/off.43"
check "--rand-seed=43: the report prints the seed" grep -q '^Random seed: 43 ' "$TMP/out"

# --- a sysbench command line gives sysbench's op mix ---
# Measured once with sysbench 1.0.20 on this machine (ext4, 2 CPUs), in a folder of its own:
#   sysbench fileio --threads=16 --file-test-mode=rndrw --file-num=16 --file-total-size=64M prepare
#   sysbench fileio --threads=16 --file-test-mode=rndrw --file-num=16 --file-total-size=64M --events=20000 run
# reads/s : writes/s : fsyncs/s over four runs (the same time divides all three):
#   56428.27:37617.03:16401.22  50534.39:33687.96:14688.13  56303.23:37533.67:16364.88
#   59557.63:39703.17:17310.79  → 51.1% : 34.1% : 14.8%
# and under strace -f -c: 10343 pread64, 6907 pwrite64, 3008 fsync (51.1% : 34.1% : 14.8%;
# 3008 = 2752 periodic + 256 at the end, 16 threads x 16 files: sysbench's fsyncs/s includes
# the end fsyncs, so sbio's total fsyncs is compared).
SB_READ=51.1 SB_WRITE=34.1 SB_FSYNC=14.8
S=$TMP/sysbench-line
mkdir -p "$S"
SBLINE=(--threads=16 --file-test-mode=rndrw --file-num=16 --file-total-size=64M)
(cd "$S" && "$SBIO" "${SBLINE[@]}" prepare) >"$TMP/out" 2>"$TMP/err"
eq "sysbench command line: prepare (16 files, 64M)" "$?" 0
(cd "$S" && "$SBIO" "${SBLINE[@]}" --events=20000 run -o "$RESULT") >"$TMP/out" 2>"$TMP/err"
eq "sysbench command line: run exits 0" "$?" 0
read -r r w f < <(rwf_of)
tot=$((r + w + f))
for x in "reads $r $SB_READ" "writes $w $SB_WRITE" "fsyncs $f $SB_FSYNC"; do
	set -- $x # name, count (and sysbench %): split on purpose
	pct=$(awk -v n="$2" -v t="$tot" 'BEGIN { printf "%.2f", t ? 100 * n / t : 0 }')
	if awk -v a="$pct" -v b="$3" 'BEGIN { d = a - b; exit !(d <= 2 && d >= -2) }'; then
		ok "sysbench command line: $1 are $pct% of operations (sysbench: $3% ± 2 points)"
	else
		notok "sysbench command line: $1 are $pct% of operations (sysbench: $3% ± 2 points; $r:$w:$f)"
	fi
done

# --- --rate: the rate reached against the one asked, a shortfall of more than 5% noted ---
# rate_line: "REACHED ASKED PCT" from the report's Rate: line.
rate_line() { sed -nE 's/^Rate: ([0-9.]+) ops\/s reached of the ([0-9]+) ops\/s asked \(([0-9.]+)%\)$/\1 \2 \3/p' "$TMP/out"; }
sbio_json run "${SET[@]}" --file-test-mode=rndrd --threads=2 --time=1 --rate=200
read -r got asked pct < <(rate_line)
eq "--rate=200, rndrd: the Rate: line gives the rate asked" "${asked:-none}" 200
near "--rate=200, rndrd: the rate reached is the JSON's events / elapsed_s" "${got:-0}" \
	"$(awk -v e="$(events_of)" -v s="$(json_get "$RESULT" result.elapsed_s)" 'BEGIN { print e / s }')" 0.1
near "--rate=200, rndrd: reached within 5%" "${got:-0}" 200 5
check "--rate=200, rndrd: no shortfall noted" bash -c "! grep -q '^Note: the rate fell' '$TMP/out'"
# O_DSYNC writes through the sync engine cannot reach a million a second on one thread.
sbio_json run "${SET[@]}" --file-test-mode=rndwr --threads=1 --time=1 --rate=1000000 \
	--ioengine=sync --file-extra-flags=dsync
read -r got asked pct < <(rate_line)
eq "--rate=1000000, O_DSYNC rndwr: the Rate: line gives the rate asked" "${asked:-none}" 1000000
check "--rate=1000000, O_DSYNC rndwr: the shortfall is noted, by how much" grep -qE \
	"^Note: the rate fell $(awk -v p="${pct:-0}" 'BEGIN { printf "%.1f", 100 - p }' | sed 's/\./\\./')% short of its target: " "$TMP/out"

# --- read-modify-write: one read and one write per event, at the same offset ---
# A script's mix of rmw only, over a set of its own: one file of 256 blocks of 16 KiB, each
# read, changed and written back once, in order.
WL=$(cd "$(dirname "$0")/../.." && pwd)/workloads
RMW=$TMP/rmw.lua
cat >"$RMW" <<'LUA'
option("engine", "sync", "engine")
option("flags", "", "open flags")
fileset { files = 1, size = "4M" }
phase "rmw" { time = 0, events = 256,
  job "j" { mix = { rmw = 1 }, block = "16k", pattern = "seq", engine = options.engine,
            iodepth = 4, flags = options.flags } }
LUA
RD=$TMP/rmwset
mkdir -p "$RD"
expect_exit 0 "prepare the rmw script's set (4 MiB)" "$SBIO" prepare --script "$RMW" --dir="$RD"
# rmw_of: "RMW-OPS EVENTS" of the last script run's one job.
rmw_of() {
	json_get "$RESULT" phases.0.jobs.0.result.result.op_types.rmw.ops \
		phases.0.jobs.0.result.result.events | paste -sd ' '
}
strace_run rmw run --script "$RMW" --dir="$RD"
eq "strace rmw: exit status" "$STRACE_RC" 0
eq "strace rmw: rmw ops and events" "$(rmw_of)" "256 256"
# calls_of NAME: "PREAD64 PWRITE64 READ LSEEK WRITE FSYNC" on the set's files, all traces of
# strace_run NAME together.
calls_of() {
	cat "$TMP"/strace."$1"/tr.* | awk '
		/^[a-z0-9]+\([0-9]+<[^>]*\/test_file\.[0-9]+>/ { c[substr($0, 1, index($0, "(") - 1)]++ }
		END { printf "%d %d %d %d %d %d\n", c["pread64"], c["pwrite64"], c["read"], c["lseek"],
		      c["write"], c["fsync"] }'
}
# bonnie++ 2.00a's rewrite, per chunk: read(2) at the file position, lseek(2) back one chunk
# (SEEK_CUR), write(2); the descriptor starts at 0, so no lseek before the first read.
eq "strace rmw: no pread64 or pwrite64; read calls = lseek calls = write calls = events; no fsync (a mix ends without one)" \
	"$(calls_of rmw)" "0 0 256 256 256 0"
# In the worker's own trace each read is followed by an lseek back over it to the block's
# offset and the write of the same length, and the next read is the next block.
pairs=$(cat "$TMP"/strace.rmw/tr.* | awk '
	/^(read|lseek|write)\([0-9]+<[^>]*\/test_file\.0>/ {
		call = substr($0, 1, index($0, "(") - 1)
		if (call == "read") { if (st != "") bad++; st = "r"; if ($NF + 0 != 16384) bad++ }
		else if (call == "lseek") {
			if (st != "r" || $(NF - 3) != "-16384," || $(NF - 2) != "SEEK_CUR)" || $NF + 0 != k * 16384) bad++
			st = "l"
		} else { if (st != "l" || $NF + 0 != 16384) bad++; st = ""; k++ }
	}
	END { printf "%d %d\n", k, bad }')
eq "strace rmw: 256 read/lseek-back/write triples, each block in place, the blocks in order" "$pairs" "256 0"

# changed_bytes BEFORE AFTER: "DIFFERING-BYTES BAD" — a read-modify-write of each 16 KiB block
# k changes exactly its byte k, by one (bonnie++'s rewrite); any other difference is BAD.
changed_bytes() {
	cmp -l "$1" "$2" | awk -v bs=16384 '
		function oct(s, v, i) { v = 0; for (i = 1; i <= length(s); i++) v = v * 8 + substr(s, i, 1); return v }
		{ p = $1 - 1; k = int(p / bs); n++; if (p != k * bs + k % bs || (oct($2) + 1) % 256 != oct($3)) bad++ }
		END { printf "%d %d\n", n, bad }'
}
for e in sync libaio io_uring mmap; do
	cp "$RD/test_file.0" "$TMP/before"
	sbio_json run --script "$RMW" --dir="$RD" --engine=$e
	eq "rmw, $e: exit status, rmw ops and events" "$? $(rmw_of)" "0 256 256"
	eq "rmw, $e: the file differs in one byte per block, byte k of block k, incremented" \
		"$(changed_bytes "$TMP/before" "$RD/test_file.0")" "256 0"
done

# bonnie-direct's rewrite cell: the worker of that phase (the one trace with reads and
# writes) makes bonnie++ 2.00a's rewrite's calls, one read, lseek and write per chunk, as many
# as the cell's events, and then one fsync (bonnie++'s close).
BD=$TMP/bonnie
mkdir -p "$BD"
BARGS=(--script "$WL/bonnie-direct.lua" --dir="$BD" --size=4M --sizes=16k --direct-write-only=on
	--seeks=100 --seek-procs=2 --seed=1)
expect_exit 0 "prepare bonnie-direct (4 MiB)" "$SBIO" prepare "${BARGS[@]}"
strace_run bonnie run "${BARGS[@]}"
eq "strace bonnie-direct: exit status" "$STRACE_RC" 0
rw=$(for f in "$TMP"/strace.bonnie/tr.*; do
	awk '/^(read|lseek|write|pread64|pwrite64|fsync)\([0-9]+<[^>]*\/test_file\.0>/ { c[substr($0, 1, index($0, "(") - 1)]++ }
		END { if (c["read"] && c["write"]) printf "%d %d %d %d %d %d\n", c["read"], c["lseek"], c["write"], c["pread64"], c["pwrite64"], c["fsync"] }' "$f"
done)
cell=$(json_get "$RESULT" phases.1.name phases.1.jobs.0.result.result.op_types.rmw.ops \
	phases.1.jobs.0.result.result.events | paste -sd ' ')
eq "bonnie-direct: the rewrite cell's rmw ops and events (4 MiB / 16 KiB)" "$cell" "rewrite 16k 256 256"
eq "strace bonnie-direct: one thread makes read, lseek, write per chunk (256 each), no pread64/pwrite64, then fsyncs once" \
	"$rw" "256 256 256 0 0 1"
eq "bonnie-direct: the rewrite's end fsync is reported" \
	"$(json_get "$RESULT" phases.1.jobs.0.result.result.op_types.fsync.end)" 1
check "bonnie-direct: the rewrite job's line says 'fsync at end'" \
	grep -q '^--- Job rewrite (1 thread, sync, fsync at end) ---$' "$TMP/out"
# bonnie-direct's seeks cell: bonnie++ -s 4:16k:100:2 -z 1's seek test, its 100 tickets
# (glibc's rand() after srand(1)) dealt to 2 threads: per ticket a pread64 of the chunk (the
# ticket modulo 256 chunks), and for the 8 tickets that are multiples of 10 a pwrite64 of the
# same chunk right after it; each thread fsyncs at its end and thread 0 once first (bonnie++'s
# parent's close). The chunks read, in ticket order, are the ones bonnie++ -z 1 seeks to.
# The seeks cell's workers: the traces with pread64 and an fsync (the read cell's worker
# fsyncs nothing), thread 0 first (its two fsyncs to thread 1's one).
sk=$(for f in "$TMP"/strace.bonnie/tr.*; do
	grep -q '^pread64([0-9]*<[^>]*/test_file\.0>' "$f" &&
		echo "$(grep -c '^fsync([0-9]*<[^>]*/test_file\.0>' "$f") $f"
done | awk '$1 > 0' | sort -k1,1nr | cut -d' ' -f2-)
seeks=$(for f in $sk; do
	awk '/^(pread64|pwrite64|fsync)\([0-9]+<[^>]*\/test_file\.0>/ { c[substr($0, 1, index($0, "(") - 1)]++ }
		END { printf "%d %d %d\n", c["pread64"], c["pwrite64"], c["fsync"] }' "$f"
done | awk '{ r += $1; w += $2; f += $3; n++ } END { printf "%d %d %d %d\n", n, r, w, f }')
eq "strace bonnie-direct: the seeks cell's 2 threads: 100 pread64, 8 pwrite64, 3 fsync" "$seeks" "2 100 8 3"
# Thread t's k-th read is ticket t + 2k: interleaved, they are the tickets in order.
got=$(for f in $sk; do
	awk '/^pread64\([0-9]+<[^>]*\/test_file\.0>/ { print $(NF - 2) + 0 }' "$f" | paste -sd ' '
done | python3 -c 'import sys
rows = [[int(v) // 16384 for v in l.split()] for l in sys.stdin if l.strip()]
out, i = [], 0
while any(i < len(r) for r in rows):
    out += [r[i] for r in rows if i < len(r)]
    i += 1
print(" ".join(map(str, out[:12])))')
want=$(python3 -c 'import ctypes
c = ctypes.CDLL(None); c.srand(1)
print(" ".join(str(c.rand() % 256) for _ in range(12)))')
eq "strace bonnie-direct: the seeks read glibc rand()'s chunks after srand(1), as bonnie++ -z 1" "$got" "$want"

# --- reads the page cache served are said to be so; O_DIRECT's are not ---
# Each run is judged by its own device counters (the result's devices[0], from
# /sys/block/DEV/stat): the note, and the JSON's flag, appear exactly when the device read
# less than 1% of the bytes read. As root the set is on a loop device of the test's own, whose
# counters no other process's reads reach; otherwise on $TMP's device. A buffered read of a
# set just read finds it cached; another process dropping the caches meanwhile can spoil one
# try, so up to three are made. (Last in the file: loop_ext4 ends the script when no loop
# device can be made.)
PCSET=("${SET[@]}")
if need_root; then
	trap 'loop_cleanup "$TMP/mnt"; t_cleanup' EXIT
	loop_ext4 128M "$TMP/mnt"
	mkdir -p "$TMP/mnt/set"
	PCSET=(--dir="$TMP/mnt/set" --file-num=4 --file-total-size=32M)
	expect_exit 0 "prepare 4 x 8 MiB on ext4 over /dev/$LOOP" "$SBIO" prepare "${PCSET[@]}"
fi
# cache_note: "NOTE FLAG DEVICE-BYTES READ-BYTES" of the last run.
cache_note() {
	local n=0
	grep -q '^Note: the reads came from the page cache: ' "$TMP/out" && n=1
	echo "$n $(json_get "$RESULT" result.reads_from_page_cache result.devices.0.bytes_read result.op_types.read.bytes | paste -sd ' ')"
}
sbio_json run "${PCSET[@]}" --file-test-mode=seqrd --threads=1 --events=2048 # the whole set, read
if [ "$(json_get "$RESULT" 'result.devices.#')" = 0 ]; then
	skip "no block device under the set (tmpfs?): no device counters to judge the page cache by"
else
	for try in 1 2 3; do
		sbio_json run "${PCSET[@]}" --file-test-mode=rndrd --threads=2 --time=1
		read -r note flag dev rd < <(cache_note)
		[ "$dev" -lt $((rd / 100)) ] && break
	done
	eq "warm buffered rndrd: the device read under 1% ($dev of $rd bytes, try $try)" \
		"$([ "$dev" -lt $((rd / 100)) ] && echo yes)" yes
	eq "warm buffered rndrd: the page-cache note and the JSON flag" "$note $flag" "1 true"
	check "warm buffered rndrd: the note says how to measure the device" grep -q \
		'^Note: the reads came from the page cache: .* To measure the device: --file-extra-flags=direct, --drop-caches, or a set larger than the RAM (' \
		"$TMP/out"
	sbio_json run "${PCSET[@]}" --file-test-mode=rndrd --threads=2 --time=1 --file-extra-flags=direct
	read -r note flag dev rd < <(cache_note)
	eq "O_DIRECT rndrd: the device read at least what the run read ($dev of $rd bytes)" \
		"$([ "$rd" -gt 0 ] && [ "$dev" -ge "$rd" ] && echo yes)" yes
	eq "O_DIRECT rndrd: no page-cache note, the JSON flag false" "$note $flag" "0 false"
	# sbio's own storage I/O (/proc/self/io) beside the device's: an O_DIRECT read and write
	# each cause exactly the bytes the run reports, whatever else the device did.
	eq "O_DIRECT rndrd: sbio's own storage reads equal the bytes it read" \
		"$(json_get "$RESULT" result.process_io.read_bytes)" "$rd"
	check "O_DIRECT rndrd: the report names sbio's own storage I/O" \
		grep -q '^Storage I/O of sbio itself over the run: read .*(/proc/self/io; the device lines count every process)' "$TMP/out"
	sbio_json run "${PCSET[@]}" --file-test-mode=rndwr --threads=2 --time=1 \
		--file-extra-flags=direct --file-fsync-freq=0
	eq "O_DIRECT rndwr: sbio's own storage writes equal the bytes it wrote" \
		"$(json_get "$RESULT" result.process_io.write_bytes)" \
		"$(json_get "$RESULT" result.op_types.write.bytes)"
	eq "O_DIRECT rndwr: and it read nothing" "$(json_get "$RESULT" result.process_io.read_bytes)" 0
fi

# --- read-modify-write with O_DIRECT, by the device's own counters ---
# On the test's loop device (no other process reads there; lazytime: no timestamp is written
# back during the run), each engine that can do O_DIRECT: sbio's own storage I/O
# (/proc/self/io) reads and writes each event's block once; the device reads those blocks,
# 32 sectors each, and writes them (a journal commit of the file system may add a few
# sectors); requests: one read and one write per event, each counted once whether the block
# layer merged it into a neighbour's (the _merged counters) or not, one the file system split
# where the file's extents break (this small ext4 has 1 KiB blocks) twice: up to 8 more.
if ! need_root; then
	skip "needs root (a loop device whose counters only this test moves)"
elif [ -n "$LOOP" ]; then
	# noinit_itable: ext4's background zeroing of inode tables writes to the device too.
	mount -o remount,lazytime,noinit_itable "$TMP/mnt"
	RL=$TMP/mnt/rmw
	mkdir -p "$RL"
	expect_exit 0 "prepare the rmw script's set on /dev/$LOOP" "$SBIO" prepare --script "$RMW" --dir="$RL"
	sync
	j=phases.0.jobs.0.result.result
	for e in sync libaio io_uring; do
		sbio_json run --script "$RMW" --dir="$RL" --engine=$e --flags=direct
		read -r name r rm w wm sr sw < <(json_get "$RESULT" $j.devices.0.{name,reads,reads_merged,writes,writes_merged,sectors_read,sectors_written} | paste -sd ' ')
		eq "rmw O_DIRECT, $e: sbio's own bytes read and written, rmw ops, events; device $name's sectors read" \
			"$(json_get "$RESULT" $j.process_io.{read_bytes,write_bytes} | paste -sd ' ') $(rmw_of) $name $sr" \
			"4194304 4194304 256 256 $LOOP 8192"
		check "rmw O_DIRECT, $e: the device wrote the 8192 sectors ($sw), one read and one write request per event ($((r + rm)) and $((w + wm)) for 256)" \
			test "$sw" -ge 8192 -a "$sw" -le 8256 -a $((r + rm)) -ge 256 -a $((r + rm)) -le 264 \
			-a $((w + wm)) -ge 256 -a $((w + wm)) -le 264
	done
fi
