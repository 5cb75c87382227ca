#!/bin/bash
# sbio run on each I/O engine (raw block devices aside):
# sync, libaio, io_uring, mmap and null over seqwr, seqrd, rndrd, rndwr and rndrw, buffered
# and O_DIRECT, 1 and 4 threads, iodepth 1 and 32. What the kernel was given (strace) equals
# the totals of the run's JSON result; the queue depth reached; sysbench's --file-io-mode and
# --file-async-backlog; the data survives a read pass on every engine; O_DIRECT reads reach a
# loop device after a cache drop; a block size O_DIRECT cannot align is refused and works
# buffered; what the report and the messages say of an engine follows its capability flags.
# Small sets (4 x 8 MiB) under $TMP (ext4 here); the loop-device part needs root and detaches
# its device in the trap.
source "$(dirname "$0")/lib.sh"

export SBIO_STATE_DIR=$TMP/state
MNT=$TMP/mnt
en_cleanup() {
	loop_cleanup "$MNT"
	t_cleanup
}
trap en_cleanup EXIT

D=$TMP/set
mkdir -p "$D"
SET=(--dir="$D" --file-num=4 --file-total-size=32M)
FILE_SIZE=8388608
BLOCKS=2048 # 32 MiB / 16 KiB
N=1000      # events per matrix cell

# --- more of a run's figures (lib.sh: sbio_json, events_of, rwf_of, pew_of) ---
qd_max_of() { json_get "$RESULT" result.queue_depth.max; }
faults_of() { json_get "$RESULT" result.cpu.{minor,major}_faults | paste -sd ' '; }

# stat -f names ext4 "ext2/ext3"; findmnt tells them apart
fs="$(stat -f -c %T "$TMP") $(findmnt -n -o FSTYPE --target "$TMP" 2>/dev/null)"
case $fs in
"ext2/ext3 ext4") ok "\$TMP is on ext4 ($fs)" ;;
*) skip "\$TMP is on '$fs', not ext4: O_DIRECT and the counts below are meant for ext4" ;;
esac
expect_exit 0 "prepare 4 x 8 MiB" "$SBIO" prepare "${SET[@]}"
if ! command -v strace >/dev/null; then
	skip "strace is not installed: the kernel-side counts cannot be checked"
	exit 0
fi
# A kernel or seccomp policy may refuse io_uring: sbio says so with exit 2 (no fallback); the
# io_uring checks are then one skip (a failure under CI=true) instead of many failures.
URING=1
"$SBIO" run "${SET[@]}" --ioengine=io_uring --file-test-mode=rndrd --events=10 >"$TMP/out" 2>"$TMP/err"
if [ $? -eq 2 ] && grep -qi 'io_uring' "$TMP/err"; then
	URING=0
	skip "io_uring refused here: $(head -c 200 "$TMP/err" | tr '\n' ' ')"
fi
have() { [ "$1" != io_uring ] || [ "$URING" = 1 ]; }

# --- strace of one run: per-thread files (-ff), so the workers' calls (the measured phase)
# are told apart from the main thread's (a run after a seqwr that left the set short writes
# the rest first with pwrite64 and fsync, whatever the engine). -y names the file of each fd: only calls on test_file.*
# count (not the dynamic loader's pread64 of libc, nor the manifest). io_submit is traced
# without dereferencing its iocb array (long); its return value is the number of iocbs the
# kernel took.
# io_uring_enter's second argument is to_submit, the SQEs handed to the kernel.
# The run's JSON result goes to $RESULT.
# Sets WR WW WF (workers: pread64, pwrite64, fsync+fdatasync on the set), MR MW (main thread:
# pread64, pwrite64 on the set), SUB (sum of io_submit returns, all threads), SQE (sum of
# io_uring_enter to_submit, all threads), MS (msync calls, all threads; sbio msyncs only the
# set's mappings), BMAX and BCALLS (the most requests one io_submit or io_uring_enter handed
# the kernel, and how many calls handed it any).
strace_run() {
	local dir=$TMP/strace.$1 f main
	shift
	rm -rf "$dir" "$RESULT"
	mkdir -p "$dir"
	strace -ff -qq -y -e trace=execve,pread64,pwrite64,fsync,fdatasync,msync,io_submit,io_uring_enter \
		-e verbose=!io_submit -o "$dir/tr" "$SBIO" "$@" -o "$RESULT" >"$TMP/out" 2>"$TMP/err"
	STRACE_RC=$?
	main=$(grep -l '^execve(' "$dir"/tr.*)
	WR=0 WW=0 WF=0 MR=0 MW=0 SUB=0 SQE=0 MS=0 BMAX=0 BCALLS=0
	for f in "$dir"/tr.*; do
		read -r pr pw fs sub sqe ms bmax bcalls < <(awk '
			function batch(n) { if (n > 0) calls++; if (n > mx) mx = n }
			/^pread64\([0-9]+<[^>]*\/test_file\.[0-9]+>/ { pr++ }
			/^pwrite64\([0-9]+<[^>]*\/test_file\.[0-9]+>/ { pw++ }
			/^f(data)?sync\([0-9]+<[^>]*\/test_file\.[0-9]+>/ { fs++ }
			/^io_submit\(/ && match($0, /= [0-9]+$/) { n = substr($0, RSTART + 2) + 0; sub_ += n; batch(n) }
			/^io_uring_enter\(/ { l = $0; sub(/^io_uring_enter\(/, "", l); split(l, a, ", "); sqe += a[2]; batch(a[2] + 0) }
			/^msync\(/ { ms++ }
			END { printf "%d %d %d %d %d %d %d %d\n", pr, pw, fs, sub_, sqe, ms, mx, calls }' "$f")
		SUB=$((SUB + sub)) SQE=$((SQE + sqe)) MS=$((MS + ms)) BCALLS=$((BCALLS + bcalls))
		[ "$bmax" -gt "$BMAX" ] && BMAX=$bmax
		if [ "$f" = "$main" ]; then
			MR=$((MR + pr)) MW=$((MW + pw))
		else
			WR=$((WR + pr)) WW=$((WW + pw)) WF=$((WF + fs))
		fi
	done
}

# --- the matrix ---
# 160 combinations (5 modes x 4 engines x buffered/direct x 1/4 threads x iodepth 1/32) take
# too long; these 26 cells (and one on null) cover:
# - every mode on every engine (the engine's read, write and fsync paths each in every
#   access pattern; rndrw twice per engine, as it has all three op types and periodic fsyncs);
# - for sync, libaio and io_uring every pair of (buffered|direct, 1|4 threads) and, for the
#   queued engines, every pair with iodepth 1|32 (a pairwise design: 6 cells per engine);
# - direct writes with 4 threads and 32 in flight (seqwr), direct deep random reads (rndrd,
#   the experiment's case), the fsync path through io_submit/SQEs (rndrw, periodic + end),
#   --uring-fixed on two io_uring cells, and --file-fsync-all (fsync inside a write's event)
#   on both queued engines;
# - mmap (buffered only) with 1 and 4 threads on every mode; its seqwr goes past the set's
#   2048 blocks so that the next cell completes nothing and "no pread64/pwrite64 at all" holds.
# Cells: engine mode direct(0|1) threads iodepth(- for unqueued engines) [extra option]
CELLS=(
	"sync seqwr 0 1 -"
	"sync seqrd 1 4 -"
	"sync rndrd 0 4 -"
	"sync rndwr 1 1 -"
	"sync rndrw 0 1 -"
	"sync rndrw 1 4 -"
	"libaio seqwr 1 4 32"
	"libaio seqrd 0 1 1"
	"libaio rndrd 1 1 32"
	"libaio rndwr 0 4 32"
	"libaio rndrw 0 1 32"
	"libaio rndrw 1 4 1"
	"libaio rndwr 0 1 32 --file-fsync-all=on"
	"io_uring seqwr 1 4 32"
	"io_uring seqrd 0 1 1"
	"io_uring rndrd 1 1 32 --uring-fixed=on"
	"io_uring rndwr 0 4 32"
	"io_uring rndrw 0 1 32 --uring-fixed=on"
	"io_uring rndrw 1 4 1"
	"io_uring rndwr 0 1 32 --file-fsync-all=on"
	"mmap seqwr 0 1 -"
	"mmap seqrd 0 4 -"
	"mmap rndrd 0 1 -"
	"mmap rndwr 0 4 -"
	"mmap rndrw 0 1 -"
	"mmap rndrw 0 4 -"
	"null rndrw 0 4 -"
)
for cell in "${CELLS[@]}"; do
	read -r eng mode direct th qd extra <<<"$cell"
	have "$eng" || continue
	opt=(--ioengine="$eng" --file-test-mode="$mode" --threads="$th" --rand-seed=11)
	name="$eng $mode ${th}t"
	[ "$qd" != - ] && opt+=(--iodepth="$qd") && name+=" qd$qd"
	[ "$direct" = 1 ] && opt+=(--file-extra-flags=direct) && name+=" direct"
	[ -n "$extra" ] && opt+=("$extra") && name+=" $extra"
	n=$N
	[ "$eng $mode" = "mmap seqwr" ] && n=2500 # past the set's 2048 blocks: nothing left to complete
	strace_run cell run "${SET[@]}" "${opt[@]}" --events=$n
	ev=$(events_of)
	read -r r w f < <(rwf_of)
	read -r p e iw < <(pew_of)
	why=""
	[ "$STRACE_RC" -eq 0 ] || why="exit $STRACE_RC: $(head -c 300 "$TMP/err" | tr '\n' ' ')"
	[ -z "$why" ] && [ "${ev:-x}" != "$n" ] && why="events '$ev', want $n"
	[ -z "$why" ] && [ $((r + w + p)) -ne "$ev" ] && why="reads+writes+periodic fsyncs = $r+$w+$p, events $ev"
	[ -z "$why" ] && [ $((p + e + iw)) -ne "$f" ] && why="fsyncs $f != $p+$e+$iw"
	case $mode in
	seqrd | rndrd) [ -z "$why" ] && [ $((w + f)) -ne 0 ] && why="read-only mode wrote: $w writes, $f fsyncs" ;;
	seqwr | rndwr) [ -z "$why" ] && [ "$r" -ne 0 ] && why="write-only mode read $r times" ;;
	esac
	if [ -n "$why" ]; then
		notok "$name: $why"
		continue
	fi
	ok "$name: exit 0, $ev events = $r reads + $w writes + $p periodic fsyncs"
	tot=$((r + w + f))
	case $eng in
	sync)
		eq "$name: pread64, pwrite64, fsync on the set = reported reads, writes, fsyncs" \
			"$WR $WW $WF" "$r $w $f"
		eq "$name: no io_submit, io_uring_enter or msync" "$SUB $SQE $MS" "0 0 0"
		;;
	libaio)
		# every read, write, periodic and end fsync is an iocb; an fsync inside a write's event
		# (--file-fsync-all) is fsync(2), counted by strace on its own
		eq "$name: sum of io_submit returns ($SUB) + fsync(2) on the set ($WF) = reads+writes+fsyncs" \
			"$((SUB + WF))" "$tot"
		eq "$name: fsync(2) only for fsyncs in writes; no pread64/pwrite64 in the workers" \
			"$WF $WR $WW" "$iw 0 0"
		;;
	io_uring)
		# the same accounting: periodic and end fsyncs are IORING_OP_FSYNC SQEs, an fsync
		# inside a write's event is fsync(2) once that write has completed
		eq "$name: sum of io_uring_enter to_submit ($SQE) + fsync(2) on the set ($WF) = reads+writes+fsyncs" \
			"$((SQE + WF))" "$tot"
		eq "$name: fsync(2) only for fsyncs in writes; no pread64/pwrite64 in the workers" \
			"$WF $WR $WW" "$iw 0 0"
		;;
	mmap)
		eq "$name: no pread64/pwrite64 on the set at all (memcpy through the mapping)" \
			"$((WR + MR)) $((WW + MW))" "0 0"
		eq "$name: msync calls = reported fsyncs ($p periodic + $e at end)" "$MS" "$f"
		read -r mi ma < <(faults_of)
		if [ $((mi + ma)) -gt 0 ] 2>/dev/null; then
			ok "$name: page faults reported ($mi minor, $ma major)"
		else
			notok "$name: page faults reported (result.cpu: '$mi' minor, '$ma' major)"
		fi
		;;
	null)
		eq "$name: nothing on the set reaches the kernel (pread64 pwrite64 fsync io_submit SQEs msync)" \
			"$WR $WW $WF $SUB $SQE $MS" "0 0 0 0 0 0"
		;;
	esac
	if [ "$qd" != - ]; then
		mx=$(qd_max_of)
		if [ "$mx" -ge 1 ] 2>/dev/null && [ "$mx" -le "$qd" ]; then
			ok "$name: queue depth reached reported, max $mx <= iodepth $qd"
		else
			notok "$name: queue depth reached reported, max <= $qd (result.queue_depth.max: '$mx')"
		fi
	fi
done

# --- --uring-sqpoll: the kernel thread submits, so io_uring_enter's to_submit says nothing;
# only exit status and counts ---
if have io_uring; then
	sbio_json run "${SET[@]}" --ioengine=io_uring --uring-sqpoll=on --iodepth=32 --file-test-mode=rndrw \
		--events=$N
	rc=$?
	read -r r w f < <(rwf_of)
	read -r p e iw < <(pew_of)
	eq "io_uring --uring-sqpoll rndrw: exit status, events, reads + writes + periodic fsyncs" \
		"$rc $(events_of) $((r + w + p))" "0 $N $N"
fi

# --- what the report and the messages say of an engine follows its capabilities (engine.h):
# mmap's mappings get the access hint too; libaio's buffered submissions are mostly
# synchronous (a note, not with O_DIRECT); a tree job may name sync only; the tree engine is
# chosen by no name and listed nowhere ---
for eng in sync libaio io_uring mmap null; do
	have "$eng" || continue
	for fl in "" direct; do
		[ "$eng" = mmap ] && [ "$fl" = direct ] && continue
		"$SBIO" run "${SET[@]}" --ioengine=$eng --file-extra-flags=$fl --fadvise=random \
			--file-test-mode=rndrd --events=100 >"$TMP/out" 2>"$TMP/err"
		rc=$?
		hint=$(grep -c '^Access hint: random on every descriptor and mapping$' "$TMP/out")
		note=$(grep -c '^Note: without O_DIRECT libaio runs most requests synchronously inside io_submit' "$TMP/out")
		want="0 0"
		[ "$eng" = mmap ] && want="1 0"
		[ "$eng" = libaio ] && [ -z "$fl" ] && want="0 1"
		eq "$eng ${fl:-buffered} --fadvise=random: exit status, the hint names the mappings, libaio's buffered note" \
			"$rc $hint $note" "0 $want"
	done
done
for eng in libaio mmap null; do
	printf 'fileset { files = 20, dirwidth = 4, size = "4k" }\nphase "p" { time = 1, job "j" { engine = "%s", mix = { stat = 1 } } }\n' \
		"$eng" >"$TMP/tree-$eng.lua"
	expect_exit 2 "a tree job naming engine $eng: exit 2" "$SBIO" run --dir="$TMP" --script="$TMP/tree-$eng.lua"
	check "a tree job naming engine $eng: the message says a tree takes sync" \
		grep -q "job j: engine '$eng': a tree's operations are system calls; accepted: sync$" "$TMP/err"
done
expect_exit 2 "--ioengine=tree: exit 2" "$SBIO" run "${SET[@]}" --ioengine=tree --file-test-mode=rndrd
check "--ioengine=tree: refused as no engine, the five listed" \
	grep -qx "sbio: --ioengine: 'tree' is not valid; accepted: one of sync,libaio,io_uring,mmap,null" "$TMP/err"
check "sbio help lists the five engines, not the tree engine" \
	bash -c "'$SBIO' help | grep -qx 'Engines in this build: sync, libaio, io_uring, mmap, null'"

# --- the queue depth reached: buffered random reads, 1 thread ---
for eng in libaio io_uring; do
	have "$eng" || continue
	for qd in 1 32; do
		sbio_json run "${SET[@]}" --ioengine=$eng --iodepth=$qd --file-test-mode=rndrd --events=2000
		eq "$eng rndrd buffered --iodepth=$qd: exit status, max depth reached" \
			"$? $(qd_max_of)" "0 $qd"
	done
done

# --- --iodepth-batch: how many requests one io_submit / io_uring_enter carries (strace) ---
# Default: with O_DIRECT every request is submitted as it is queued (batch 1); buffered, a
# whole refill at once (batch = iodepth). A given batch is capped at --iodepth.
batch_of() { sed -nE 's/^I\/O engine: [a-z_]+, iodepth [0-9]+, batch ([0-9]+)$/\1/p' "$1"; }
for eng in libaio io_uring; do
	have "$eng" || continue
	B=(run "${SET[@]}" --ioengine=$eng --iodepth=16 --file-test-mode=rndrd --events=2000)
	strace_run "b-$eng" "${B[@]}"
	eq "$eng buffered, default batch: the header says 16, the biggest submit carried 16, all reads submitted" \
		"$(batch_of "$TMP/out") $BMAX $((SUB + SQE))" "16 16 2000"
	strace_run "b4-$eng" "${B[@]}" --iodepth-batch=4
	eq "$eng buffered --iodepth-batch=4: the header says 4, the biggest submit carried 4, all reads submitted" \
		"$(batch_of "$TMP/out") $BMAX $((SUB + SQE))" "4 4 2000"
	strace_run "b1-$eng" "${B[@]}" --iodepth-batch=1
	eq "$eng buffered --iodepth-batch=1: one submitting call per read, 1 each" \
		"$(batch_of "$TMP/out") $BMAX $BCALLS" "1 1 2000"
	strace_run "bd-$eng" "${B[@]}" --file-extra-flags=direct
	eq "$eng O_DIRECT, default batch: one submitting call per read, 1 each, depth 16 still reached" \
		"$(batch_of "$TMP/out") $BMAX $BCALLS $(qd_max_of)" "1 1 2000 16"
	sbio_json "${B[@]}" --iodepth=8 --iodepth-batch=100
	eq "$eng --iodepth=8 --iodepth-batch=100: exit status, capped at 8 (header, JSON)" \
		"$? $(batch_of "$TMP/out") $(json_get "$RESULT" config.iodepth_batch)" "0 8 8"
done

# --- io_uring's ring (strace -X raw: numbers). On a device with no NOWAIT support (zram)
# every request goes to an io-wq worker, which posts its completion in the CQ ring; one
# completed by an interrupt is posted by task work on the submitting thread. SINGLE_ISSUER
# (0x1000, Linux 6.0) | COOP_TASKRUN (0x100) | TASKRUN_FLAG (0x200, 5.19): no interrupt of
# the thread per completion, a flag in the SQ ring when task work waits, and io-wq's
# completions in the CQ ring where a poll finds them. Such a ring is created disabled
# (R_DISABLED, 0x40) by the runner's thread and enabled (IORING_REGISTER_ENABLE_RINGS, 12)
# by the worker thread, its single issuer, before anything else; every submitting
# io_uring_enter also asks for completions (IORING_ENTER_GETEVENTS, 1), or each request
# would cost a second call to reap it. --uring-fixed registers the set's 4 files (2) and one
# 16 KiB buffer per slot (0) from the same thread.
kernel_at_least() { [ "$(printf '%s\n%s\n' "$1" "$(uname -r)" | sort -V | head -1)" = "$1" ]; }
if have io_uring; then
	U=$TMP/uring
	rm -rf "$U"
	mkdir -p "$U"
	strace -ff -qq -X raw -e trace=io_uring_setup,io_uring_register,io_uring_enter -o "$U/tr" \
		"$SBIO" run "${SET[@]}" --ioengine=io_uring --iodepth=8 --uring-fixed=on --file-extra-flags=direct \
		--file-test-mode=rndrd --events=500 >"$TMP/out" 2>"$TMP/err"
	eq "io_uring ring setup under strace: exit status" "$?" 0
	want=0
	if kernel_at_least 6.0; then
		want=0x1340
	elif kernel_at_least 5.19; then
		want=0x300 # COOP_TASKRUN | TASKRUN_FLAG, without SINGLE_ISSUER
	fi
	eq "io_uring: every ring's setup flags (the check's and the worker's)" \
		"$(sed -nE 's/^io_uring_setup\([0-9]+, \{flags=([0-9a-fx]+),.*/\1/p' "$U"/tr.* | sort -u | paste -sd ' ')" "$want"
	worker=$(grep -l '^io_uring_enter(' "$U"/tr.*)
	eq "io_uring: one thread calls io_uring_enter" "$(wc -w <<<"$worker")" 1
	# The worker's register calls before its first io_uring_enter: opcode and count.
	regs=$(awk '/^io_uring_enter\(/ { exit }
		/^io_uring_register\(/ && match($0, /[0-9]+\) += /) { split($0, a, ", "); print a[2] ":" substr($0, RSTART, RLENGTH - 4) + 0 }' \
		"$worker" | paste -sd ' ')
	eq "io_uring: the worker enables its ring, then registers 4 files and 8 buffers, before it submits" \
		"$regs" "$([ "$want" = 0x1340 ] && echo "0xc:0 ")0x2:4 0:8"
	eq "io_uring: every registered buffer is one 16 KiB request" \
		"$(grep -o 'iov_len=[0-9]*' "$worker" | sort | uniq -c | awk '{print $1, $2}')" "8 iov_len=16384"
	# io_uring_enter(fd, to_submit, min_complete, flags, …): submits without GETEVENTS, and
	# the SQEs submitted.
	read -r nogev sqes < <(awk '/^io_uring_enter\(/ { split($0, a, ", "); if (a[2] > 0) { s += a[2]; if (a[4] !~ /^0x[0-9a-f]*[13579bdf]$/) n++ } }
		END { print n + 0, s + 0 }' "$worker")
	eq "io_uring: every submitting io_uring_enter asks for completions (GETEVENTS); 500 SQEs" \
		"$nogev $sqes" "0 500"
	# Buffered, the reads mostly complete inside the submit (the page cache): the ring defers
	# its task work (DEFER_TASKRUN, 0x2000, Linux 6.1) and posts completions without the CQ
	# ring's lock; a kernel before 6.1 gets COOP_TASKRUN | TASKRUN_FLAG.
	strace -f -qq -X raw -e trace=io_uring_setup -o "$U/buf" "$SBIO" run "${SET[@]}" --ioengine=io_uring \
		--iodepth=8 --file-test-mode=rndrd --events=500 >"$TMP/out" 2>"$TMP/err"
	rc=$?
	want=0
	if kernel_at_least 6.1; then
		want=0x3040
	elif kernel_at_least 5.19; then
		want=0x300
	fi
	eq "io_uring buffered: exit status, every ring's setup flags" \
		"$rc $(sed -nE 's/^[0-9]+ +io_uring_setup\([0-9]+, \{flags=([0-9a-fx]+),.*/\1/p' "$U/buf" | sort -u | paste -sd ' ')" "0 $want"
fi

# --- sysbench's names ---
sbio_json run "${SET[@]}" --file-io-mode=async --file-async-backlog=8 --file-test-mode=rndrd \
	--events=2000
eq "--file-io-mode=async --file-async-backlog=8: exit status" "$?" 0
check "--file-io-mode=async: sysbench's line, then the engine is libaio" \
	grep -Pzq '\nUsing asynchronous I/O mode\n(.*\n)*I/O engine: libaio, iodepth 8, batch 8\n' "$TMP/out"
eq "--file-async-backlog=8: max depth reached" "$(qd_max_of)" 8
strace_run async run "${SET[@]}" --file-io-mode=async --file-test-mode=rndrd --events=500
read -r r w f < <(rwf_of)
eq "--file-io-mode=async: the reads go through io_submit ($SUB iocbs, $WR pread64)" "$SUB $WR" "$r 0"
"$SBIO" run "${SET[@]}" --file-io-mode=mmap --file-test-mode=rndrd --events=500 >"$TMP/out" 2>"$TMP/err"
eq "--file-io-mode=mmap: exit status" "$?" 0
check "--file-io-mode=mmap: sysbench's line, then the engine is mmap" \
	grep -Pzq '\nUsing fast mmaped I/O mode\n(.*\n)*I/O engine: mmap\n' "$TMP/out"
expect_exit 2 "--file-io-mode=async with --ioengine=sync: exit 2" \
	"$SBIO" run "${SET[@]}" --file-io-mode=async --ioengine=sync --file-test-mode=rndrd --events=100
stderr_one_line "--file-io-mode=async with --ioengine=sync: one line on stderr"
expect_exit 0 "--file-io-mode=async with --ioengine=libaio (they agree): exit 0" \
	"$SBIO" run "${SET[@]}" --file-io-mode=async --ioengine=libaio --file-test-mode=rndrd --events=100
for how in --ioengine=mmap --file-io-mode=mmap; do
	expect_exit 2 "$how with --file-extra-flags=direct: exit 2" \
		"$SBIO" run "${SET[@]}" $how --file-extra-flags=direct --file-test-mode=rndrd --events=100
	stderr_one_line "$how with direct: one line on stderr"
done

# --- "Threads fairness: execution time" is each thread's wall time in its measured phase, on
# every engine (sysbench's: the time its thread spent in the event loop), never a sum of
# latencies: with 8 requests in flight those add up to about 8 times the run. Each thread's
# busy_s in the JSON is its duration_s, within the run's elapsed time (the first start to the
# last end), and the text's average is within the total time (both printed to 0.1 ms). ---
for how in "--ioengine=sync" "--file-io-mode=async --file-async-backlog=8" \
	"--ioengine=io_uring --iodepth=8" "--file-io-mode=mmap"; do
	case $how in *io_uring*) have io_uring || continue ;; esac
	sbio_json run "${SET[@]}" $how --file-test-mode=rndrd --threads=2 --time=2
	rc=$?
	json_expect "$how --time=2: every thread's busy_s is its duration_s, > 0 and <= elapsed_s (exit $rc)" "$RESULT" '
r = d["result"]
for t in r["threads"]:
    if not (0 < t["busy_s"] <= r["elapsed_s"] and abs(t["busy_s"] - t["duration_s"]) < 1e-9):
        print("thread %d: busy_s %s, duration_s %s, elapsed_s %s" % (t["thread"], t["busy_s"], t["duration_s"], r["elapsed_s"]))'
	read -r tt ex < <(awk '/^ *total time:/ { sub(/s$/, "", $3); t = $3 }
		/^ *execution time \(avg\/stddev\):/ { split($4, a, "/"); e = a[1] } END { print t, e }' "$TMP/out")
	if awk -v t="$tt" -v e="$ex" 'BEGIN { exit !(t > 0 && e > 0 && e <= t + 0.0001) }'; then
		ok "$how --time=2: execution time avg $ex s within total time $tt s"
	else
		notok "$how --time=2: execution time avg '$ex' s, want > 0 and <= total time '$tt' s"
	fi
done

# --- data integrity: a read pass on every engine leaves the set as it was; rndwr keeps sizes ---
I=$TMP/data
mkdir -p "$I"
ISET=(--dir="$I" --file-num=4 --file-total-size=32M)
expect_exit 0 "prepare --file-fill=random --rand-seed=7" "$SBIO" prepare "${ISET[@]}" --file-fill=random --rand-seed=7
(cd "$I" && md5sum test_file.*) >"$TMP/md5.0"
for v in sync libaio io_uring mmap null "sync direct" "libaio direct" "io_uring direct"; do
	read -r eng dio <<<"$v"
	have "$eng" || continue
	opt=(--ioengine="$eng")
	[ -n "${dio:-}" ] && opt+=(--file-extra-flags=direct)
	sbio_json run "${ISET[@]}" "${opt[@]}" --file-test-mode=seqrd --events=$BLOCKS --time=0
	rc=$?
	read -r r w f < <(rwf_of)
	eq "seqrd over the whole set, $v: exit status, reads, writes" "$rc $r $w" "0 $BLOCKS 0"
	check "seqrd over the whole set, $v: files unchanged (md5sum)" \
		bash -c 'cd "$1" && md5sum --quiet -c "$2"' _ "$I" "$TMP/md5.0"
done
for eng in sync libaio io_uring mmap; do
	have "$eng" || continue
	(cd "$I" && md5sum test_file.*) >"$TMP/md5.1"
	"$SBIO" run "${ISET[@]}" --ioengine=$eng --file-test-mode=rndwr --events=500 --rand-seed=8 \
		>"$TMP/out" 2>"$TMP/err"
	eq "rndwr on $eng: exit status" "$?" 0
	sizes=$(for i in 0 1 2 3; do stat -c %s "$I/test_file.$i"; done | sort -u | tr '\n' ' ')
	eq "rndwr on $eng: every file still $FILE_SIZE bytes" "$sizes" "$FILE_SIZE "
	check "rndwr on $eng: the writes reached the files (content changed)" \
		bash -c '! (cd "$1" && md5sum --quiet -c "$2" >/dev/null 2>&1)' _ "$I" "$TMP/md5.1"
done

# --- O_DIRECT alignment on $TMP's own device: 6K is accepted when its logical sector allows ---
src=$(findmnt -n -o SOURCE --target "$TMP" 2>/dev/null)
lbs=$(lsblk -ndo LOG-SEC "$src" 2>/dev/null | tr -d ' ')
if [ -n "$lbs" ] && [ $((6144 % lbs)) -eq 0 ]; then
	expect_exit 0 "6K direct on $TMP ($src, $lbs-byte sectors): accepted" \
		"$SBIO" run "${SET[@]}" --file-block-size=6K --file-extra-flags=direct --file-test-mode=rndrd --events=200
fi

# --- a loop device of our own: ext4 on 4 KiB logical sectors ---
if ! need_root; then
	skip "needs root (loop device, --drop-caches)"
	exit 0
fi
loop_ext4 160M "$MNT" 4096
eq "own loop device /dev/$LOOP: 4096-byte logical sectors" "$(cat "/sys/block/$LOOP/queue/logical_block_size")" 4096
L=$MNT/set
mkdir -p "$L"
LSET=(--dir="$L" --file-num=4 --file-total-size=32M)
expect_exit 0 "prepare on the loop device's ext4" "$SBIO" prepare "${LSET[@]}"

# O_DIRECT random reads after --drop-caches reach the device: its read counters (reads + merged)
# grow by at least the reported reads, in the report's device line and in /sys/block/*/stat
for eng in sync libaio io_uring; do
	have "$eng" || continue
	read -r r0 m0 _ < "/sys/block/$LOOP/stat"
	sbio_json run "${LSET[@]}" --ioengine=$eng --file-extra-flags=direct --drop-caches=on \
		--file-test-mode=rndrd --events=500 --iodepth=8
	rc=$?
	read -r r1 m1 _ < "/sys/block/$LOOP/stat"
	read -r r w f < <(rwf_of)
	eq "direct rndrd on $eng, loop ext4, --drop-caches: exit status, reads" "$rc $r" "0 500"
	read -r dn dr dm < <(json_get "$RESULT" result.devices.0.{name,reads,reads_merged} | paste -sd ' ')
	if [ "$dn" = "$LOOP" ] && [ $((dr + dm)) -ge "$r" ] 2>/dev/null; then
		ok "direct rndrd on $eng: the result's device reads + merged ($dr + $dm) >= reported reads ($r)"
	else
		notok "direct rndrd on $eng: the result's device $LOOP reads + merged >= $r (result.devices.0: '$dn', reads '$dr', merged '$dm')"
	fi
	if [ $((r1 - r0 + m1 - m0)) -ge "$r" ]; then
		ok "direct rndrd on $eng: /sys/block/$LOOP/stat reads + merged grew by $((r1 - r0 + m1 - m0)) >= $r"
	else
		notok "direct rndrd on $eng: /sys/block/$LOOP/stat reads + merged grew by $((r1 - r0 + m1 - m0)), want >= $r"
	fi
done

# --- --file-fsync-all on queued engines, on the loop device's ext4 (a real fsync): each
# write's latency ends with its own fsync (the matrix above counts the fsyncs with strace).
# A batch's writes are fsynced one after another, so their latencies spread from about one
# fsync to as many as the batch holds: the 5th percentile is well below the median. Over 64
# files a batch's writes are to different files, so each fsync writes back its own (over 4,
# most of a batch's fsyncs find their file clean). Measured on a 2-CPU VM, p5/p50: 0.27-0.36
# with libaio, 0.36-0.55 with io_uring; charging every write of a batch the batch's last
# fsync, as sbio once did: 0.82-0.92 (over 4 files, io_uring's went down to 0.77). ---
FSET=(--dir="$MNT/fsync" --file-num=64 --file-total-size=32M)
mkdir -p "$MNT/fsync"
expect_exit 0 "prepare 64 files for --file-fsync-all" "$SBIO" prepare "${FSET[@]}"
for eng in libaio io_uring; do
	have "$eng" || continue
	sbio_json run "${FSET[@]}" --ioengine=$eng --iodepth=16 --file-test-mode=rndwr --file-fsync-all \
		--events=1000
	eq "$eng --file-fsync-all on ext4: exit status" "$?" 0
	spread=$(json_get "$RESULT" result.op_types.write.latency.percentiles_ns.{5,50} |
		awk 'NR == 1 { p5 = $1 } NR == 2 { printf "%.2f", $1 ? p5 / $1 : 0 }')
	awk -v s="$spread" 'BEGIN { exit !(s < 0.7) }' &&
		ok "$eng --file-fsync-all: each write ends with its own fsync (write latency p5/p50 $spread < 0.7)" ||
		notok "$eng --file-fsync-all: write latency p5/p50 is $spread, want < 0.7 (each write charged the batch's last fsync?)"
done

# a block size that is not a multiple of the 4 KiB sector: refused with direct (before any I/O,
# naming the alignment), fine buffered
for eng in sync libaio io_uring; do
	have "$eng" || continue
	expect_exit 2 "--file-block-size=6K direct on $eng, 4 KiB sectors: exit 2" \
		"$SBIO" run "${LSET[@]}" --ioengine=$eng --file-block-size=6K --file-extra-flags=direct \
		--file-test-mode=rndrd --events=100
	stderr_one_line "6K direct on $eng: one line on stderr"
	check "6K direct on $eng: the message names the alignment (4 KiB)" grep -q 'multiple of 4 KiB' "$TMP/err"
done
expect_exit 0 "--file-block-size=8K direct on 4 KiB sectors (a multiple): exit 0" \
	"$SBIO" run "${LSET[@]}" --file-block-size=8K --file-extra-flags=direct --file-test-mode=rndrd --events=100
for bs in 6K 18K 66K; do
	for eng in sync libaio; do
		sbio_json run "${LSET[@]}" --ioengine=$eng --file-block-size=$bs --file-test-mode=rndrw \
			--events=300
		rc=$?
		read -r r w f < <(rwf_of)
		read -r p e iw < <(pew_of)
		eq "--file-block-size=$bs buffered on $eng, 4 KiB sectors: exit status, events" \
			"$rc $((r + w + p))" "0 300"
	done
done
