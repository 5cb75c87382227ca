#!/bin/bash
# Faults: a prepare too big for a small tmpfs of this test's own (refused before writing),
# ENOSPC while prepare writes (tests/tools/failwrite.so), real ENOSPC in run on every engine, EIO from pread/pwrite/fsync (libfiu's fiu-run), the engine itself
# failing (libaio's io_getevents, tests/tools/failreap.so), a set that is missing,
# incomplete, short or read-only (exit 2 with what to do), SIGINT/SIGTERM in prepare, run and
# compare, SIGKILL in compare followed by the next sbio command — and after every one of them
# the set is either complete (every file at its size) or marked incomplete, never silently short.
# Everything lives under $TMP: tmpfs and bind mounts and one loop device (ext4 on an image file)
# of its own, unmounted and detached in the trap; the state file and lock in $TMP/state.
# Needs root (mounts, loop device) and fiu-run: those parts skip otherwise.
source "$(dirname "$0")/lib.sh"

export SBIO_STATE_DIR=$TMP/state
MOUNTS=() # mount points to unmount, last first
LOOP=
PIDS=()
f_cleanup() {
	local p i n
	# An sbio still running gets SIGTERM first so that it puts its settings back itself; the
	# restore below covers one that had to be killed.
	for p in "${PIDS[@]}"; do
		kill -TERM "$p" 2>/dev/null || continue
		n=50
		while kill -0 "$p" 2>/dev/null && [ $n -gt 0 ]; do
			sleep 0.1
			n=$((n - 1))
		done
		kill -KILL "$p" 2>/dev/null
		wait "$p" 2>/dev/null
	done
	[ -n "$LOOP" ] && "$SBIO" restore >/dev/null 2>&1
	for ((i = ${#MOUNTS[@]} - 1; i >= 0; i--)); do
		if mountpoint -q "${MOUNTS[i]}" 2>/dev/null; then
			umount "${MOUNTS[i]}" 2>/dev/null || umount -l "${MOUNTS[i]}"
		fi
	done
	[ -n "$LOOP" ] && losetup -d "/dev/$LOOP"
	t_cleanup
}
trap f_cleanup EXIT

# --- helpers -------------------------------------------------------------------------------
# mf DIR KEY: a value from DIR's manifest.
mf() { sed -n "s/^$2=//p" "$1/sbio.manifest" 2>/dev/null; }
listing() { ls -A "$1" 2>/dev/null | sort | tr '\n' ' ' | sed 's/ $//'; }
# set_sound DESC DIR: the set is complete with every file at the manifest's size, or the
# manifest says incomplete — never "complete" over a short or missing file.
set_sound() {
	local d=$2 st name size bad=
	st=$(mf "$d" state)
	if [ "$st" = incomplete ]; then
		ok "$1 (marked incomplete)"
		return
	fi
	if [ "$st" != complete ]; then
		notok "$1 (no usable manifest in $d: state='$st')"
		return
	fi
	while read -r name size; do
		[ "$(stat -c %s "$d/$name" 2>/dev/null)" = "$size" ] || bad="$bad $name($(stat -c %s "$d/$name" 2>/dev/null || echo missing) of $size)"
	done < <(sed -n 's/^file\.[0-9]*=//p' "$d/sbio.manifest")
	if [ -z "$bad" ]; then ok "$1 (complete, every file at its size)"; else
		notok "$1 (state=complete but short or missing:$bad)"
	fi
}
# set_complete DESC DIR: complete, every file at its size.
set_complete() {
	if [ "$(mf "$2" state)" = complete ]; then set_sound "$1" "$2"; else
		notok "$1 (state=$(mf "$2" state), want complete)"
	fi
}
# err_match DESC ERE: a non-note stderr line of the last command matches ERE.
err_match() {
	if grep -v '^sbio: note:' "$TMP/err" | grep -Eq -- "$2"; then ok "$1"; else
		notok "$1 (no stderr line matches /$2/: $(head -c 400 "$TMP/err" | tr '\n' '|'))"
	fi
}
# out_match DESC ERE: a stdout line of the last command matches ERE.
out_match() {
	if grep -Eq -- "$2" "$TMP/out"; then ok "$1"; else
		notok "$1 (no stdout line matches /$2/: $(tail -c 300 "$TMP/out" | tr '\n' '|'))"
	fi
}
# report_printed DESC: the last command's stdout holds the run's report.
report_printed() {
	if grep -q '^General statistics:' "$TMP/out" && grep -q 'total number of events:' "$TMP/out"; then
		ok "$1"
	else
		notok "$1 (stdout has no report: $(tail -c 300 "$TMP/out" | tr '\n' '|'))"
	fi
}
# snapshot DIR: names, sizes, modes, mtimes, ctimes and checksums of everything under DIR.
snapshot() {
	find "$1" -printf '%P %y %s %m %T@ %C@\n' | sort
	(cd "$1" && find . -type f -exec md5sum {} + | sort -k2)
}
# unchanged DESC DIR BEFORE
unchanged() {
	local now
	now=$(snapshot "$2")
	if [ "$now" = "$3" ]; then ok "$1"; else
		notok "$1 (changed: $(diff <(echo "$3") <(echo "$now") | grep '^[<>]' | head -5 | tr '\n' '|'))"
	fi
}
# bg OUT CMD…: CMD in the background (BG), stdout in OUT, stderr in OUT.err.
bg() {
	local out=$1
	shift
	rm -f "$out" "$out.err"
	"$@" >"$out" 2>"$out.err" &
	BG=$!
	PIDS+=("$BG")
}
# wait_for SECONDS CMD…: poll CMD every 10 ms until it succeeds (0) or SECONDS pass (1), or
# BG dies first (1).
wait_for() {
	local n=$(($1 * 100))
	shift
	while [ $n -gt 0 ]; do
		"$@" && return 0
		kill -0 "$BG" 2>/dev/null || { "$@"; return; }
		sleep 0.01
		n=$((n - 1))
	done
	return 1
}
# finish SECONDS: wait for BG, killing it if it outlives SECONDS; RC is its exit status; its
# output is copied to $TMP/out and $TMP/err for the check helpers.
finish() {
	local n=$(($1 * 20))
	while kill -0 "$BG" 2>/dev/null && [ $n -gt 0 ]; do
		sleep 0.05
		n=$((n - 1))
	done
	kill -0 "$BG" 2>/dev/null && kill -KILL "$BG"
	{ wait "$BG"; } 2>/dev/null # bash's own "Bus error"/"Killed" notice is noise here
	RC=$?
}
bg_out() { cp "$1" "$TMP/out" 2>/dev/null; cp "$1.err" "$TMP/err" 2>/dev/null; }
# sig_name CODE: "137 (SIGKILL)" for an exit status above 128.
sig_name() { if [ "$1" -gt 128 ] 2>/dev/null; then echo "$1 (SIG$(kill -l $(($1 - 128))))"; else echo "$1"; fi; }
# mount_tmpfs DIR SIZE
mount_tmpfs() {
	mkdir -p "$1"
	mount -t tmpfs -o "size=$2,mode=0755" sbio-faults "$1" && MOUNTS+=("$1")
}
free_pages() { stat -f -c %a "$1"; }

ROOT=0
need_root && ROOT=1
ENGINES=$("$SBIO" help | sed -n 's/^Engines in this build: //p' | tr -d ',')

# === ENOSPC in prepare ======================================================================
if [ $ROOT = 1 ]; then
	M=$TMP/tmpfs-prep
	if mount_tmpfs "$M" 2M; then
		D=$M/set
		mkdir "$D"
		expect_exit 2 "prepare of 4 x 1 MiB on a 2 MiB tmpfs: refused, exit 2" \
			"$SBIO" prepare --dir="$D" --file-num=4 --file-total-size=4M
		eq "prepare too big: nothing written" "$(listing "$D")" ""
		# The room is checked first, so ENOSPC while writing comes from the third write on
		# (another writer filling the file system meanwhile).
		expect_exit 1 "ENOSPC in prepare (from its third write): exit 1" \
			env LD_PRELOAD="$SBIO_TOOLS/failwrite.so" FAILWRITE_MATCH="$(realpath "$D")/test_file." \
			FAILWRITE_AFTER=3 FAILWRITE_ERRNO=28 \
			"$SBIO" prepare --dir="$D" --file-num=4 --file-total-size=1M
		err_match "ENOSPC in prepare: the message names the file, the call and the offset" \
			"$D/test_file\.[0-9]+: pwrite at offset [0-9]+: No space left on device"
		# The offset named must be where the write failed: the failing file's size after it.
		line=$(grep -Eo 'test_file\.[0-9]+: pwrite at offset [0-9]+' "$TMP/err" | head -1)
		f=${line%%:*}
		off=${line##* }
		eq "ENOSPC in prepare: the offset named is where the write failed ($f's size after it)" \
			"${off:-none}" "$(stat -c %s "$D/$f" 2>/dev/null)"
		eq "ENOSPC in prepare: manifest left state=incomplete" "$(mf "$D" state)" incomplete
		set_sound "ENOSPC in prepare: nothing lost" "$D"
		expect_exit 2 "a run on the set ENOSPC left: exit 2" "$SBIO" run --dir="$D" --file-test-mode=rndrd --time=1
		err_match "a run on the set ENOSPC left: says it is incomplete" "incomplete"
		expect_exit 0 "cleanup of the partial set: exit 0" "$SBIO" cleanup --dir="$D"
		eq "cleanup removes the partial set (files and manifest)" "$(listing "$D")" ""
	else
		notok "mount a 2 MiB tmpfs at $M"
	fi
else
	skip "ENOSPC in prepare: needs root (tmpfs mount)"
fi

# === ENOSPC in run: seqwr on a file system filled after prepare, every engine ===============
# seqwr empties the files before the measured phase, which frees exactly the space the writes
# need again: the file system is filled with a file of this test's own right after prepare
# (leaving a few pages for the manifest), and again right after the truncation, while sbio
# writes slowly (--rate), so the next write of every engine meets a full file system.
# mmap: a write fault on a full tmpfs is SIGBUS; sbio must survive it (report, exit 1).
if [ $ROOT = 1 ]; then
	M=$TMP/tmpfs-run
	if mount_tmpfs "$M" 8M; then
		D=$M/set
		mkdir "$D"
		SET=(--dir="$D" --file-num=4 --file-total-size=4M --file-block-size=4K)
		for eng in sync libaio io_uring mmap; do
			if ! grep -qw "$eng" <<<"$ENGINES"; then
				skip "ENOSPC in run, $eng: not in this build"
				continue
			fi
			rm -f "$M/fill"
			"$SBIO" cleanup --dir="$D" >/dev/null 2>&1
			if ! "$SBIO" prepare "${SET[@]}" --rand-seed=7 >/dev/null 2>"$TMP/err"; then
				notok "ENOSPC in run, $eng: prepare on the tmpfs: $(head -c 300 "$TMP/err")"
				continue
			fi
			head -c $((($(free_pages "$M") - 8) * 4096)) /dev/zero >"$M/fill" 2>/dev/null
			J=$TMP/enospc-$eng.json
			bg "$TMP/run.out" "$SBIO" run "${SET[@]}" --file-test-mode=seqwr --ioengine=$eng \
				--iodepth=4 --rate=100 --time=20 -o "$J"
			# The truncation frees the set's 1024 pages: fill them.
			freed() { [ "$(free_pages "$M")" -gt 512 ]; }
			{
				wait_for 10 freed
				cat /dev/zero >>"$M/fill"
				finish 25
			} 2>/dev/null # cat's ENOSPC is the point; bash's "Bus error" notice is noise
			bg_out "$TMP/run.out"
			eq "ENOSPC in run, $eng: exit 1" "$(sig_name $RC)" 1
			report_printed "ENOSPC in run, $eng: the report is printed"
			# mmap's write is a store into the mapping: no system call, no errno — whatever
			# names the failed write and its offset will do (SIGBUS or ENOSPC).
			what='pwrite at offset [0-9]+: No space left on device'
			[ $eng = mmap ] && what='offset [0-9]+.*(No space left on device|SIGBUS|[Bb]us error)'
			out_match "ENOSPC in run, $eng: the report says the run stopped on the error" \
				"Stopped by an I/O error: .*test_file\.[0-9]+: .*$what"
			err_match "ENOSPC in run, $eng: the message names the file, the call and the offset" \
				"$D/test_file\.[0-9]+: .*$what"
			if [ $eng = mmap ]; then
				check "ENOSPC in run, $eng: the error is counted in the JSON result" \
					grep -Eq '"errors": *\[ *\{' <(tr -d '\n' <"$J" 2>/dev/null)
			else
				check "ENOSPC in run, $eng: the error is counted in the JSON result (errno 28)" \
					grep -Eq '"errno": *28' "$J"
			fi
			set_sound "ENOSPC in run, $eng: nothing lost" "$D"
		done
		rm -f "$M/fill"
	else
		notok "mount an 8 MiB tmpfs at $M"
	fi
else
	skip "ENOSPC in run: needs root (tmpfs mount)"
fi

# === seqwr making its own set on a file system too small for it ===========================
# The run meets ENOSPC; completing the set afterwards cannot succeed: sbio says so once (not
# the run's ENOSPC again at another offset) and claims no bytes it did not write.
if [ $ROOT = 1 ]; then
	M=$TMP/tmpfs-small
	if mount_tmpfs "$M" 2M; then
		mkdir "$M/set"
		for bs in 4K 16K; do
			rm -f "$M"/set/*
			J=$TMP/small-$bs.json
			expect_exit 1 "seqwr on a 2 MiB tmpfs, 30 MiB set, $bs blocks: exit 1" "$SBIO" run \
				--dir="$M/set" --file-test-mode=seqwr --file-num=3 --file-total-size=30M \
				--file-block-size=$bs --time=5 -o "$J"
			eq "$bs: one ENOSPC line (the run's)" "$(grep -c 'No space left on device' "$TMP/err")" \
				"$([ $bs = 4K ] && echo 1 || echo 0)"
			check "$bs: one line says the set cannot be completed and what to do" \
				grep -q "the set cannot be completed after seqwr: .*free some space and run sbio prepare to finish it, or sbio cleanup" "$TMP/err"
			check "$bs: no claim of bytes written to complete it" \
				sh -c "! grep -q 'were written outside the measured time' '$TMP/out'"
			have=$(stat -c %s "$M"/set/test_file.* | paste -sd+ | bc)
			check "$bs: the JSON's completed bytes are not more than the files hold ($have)" \
				test "$(json_get "$J" result.seqwr_completed_bytes)" -le "$have"
			check "$bs: the manifest stays incomplete" grep -qx 'state=incomplete' "$M/set/sbio.manifest"
		done
	else
		notok "mount a 2 MiB tmpfs at $M"
	fi
else
	skip "seqwr on a small tmpfs: needs root (tmpfs mount)"
fi

# === EIO from pread, pwrite, fsync through libfiu (sync engine) =============================
# fiu-run preloads wrappers of libc functions: the sync engine's pread/pwrite/fsync/fdatasync
# and mmap's msync (posix/mm/msync) can be made to fail. libaio and io_uring cannot be reached
# that way: their I/O is submitted and completed by system calls libaio and liburing make
# themselves (io_submit/io_getevents, io_uring_enter), not through libc wrappers, and the
# results come back from the kernel in completion entries — there is no libfiu point for them.
# The engines' own handling of a failed completion is covered by ENOSPC above.
if command -v fiu-run >/dev/null; then
	D=$TMP/eio
	mkdir -p "$D"
	"$SBIO" prepare --dir="$D" --file-num=4 --file-total-size=4M --rand-seed=3 >/dev/null 2>&1
	# eio NAME POINT CALL EXTRA-ARGS…
	eio() {
		local name=$1 point=$2 call=$3
		shift 3
		local J=$TMP/eio-$name.json
		expect_exit 1 "EIO in $name: exit 1" \
			fiu-run -x -c "enable name=$point,failinfo=5" "$SBIO" run --dir="$D" --time=10 -o "$J" "$@"
		report_printed "EIO in $name: the report is printed"
		out_match "EIO in $name: the report says the run stopped on the error" "Stopped by an I/O error: .*$call.*Input/output error"
		if [ "$call" = pread ] || [ "$call" = pwrite ]; then
			err_match "EIO in $name: the message names the file, the call and the offset" \
				"$D/test_file\.[0-9]+: $call at offset [0-9]+: Input/output error"
		else
			err_match "EIO in $name: the message names the file and the call" \
				"$D/test_file\.[0-9]+: $call: Input/output error"
		fi
		check "EIO in $name: the error is counted in the JSON result (errno 5)" grep -Eq '"errno": *5' "$J"
		set_complete "EIO in $name: the set is intact" "$D"
	}
	eio pread posix/io/rw/pread pread --file-test-mode=rndrd
	eio pwrite posix/io/rw/pwrite pwrite --file-test-mode=rndwr --file-fsync-freq=0
	eio fsync posix/io/sync/fsync fsync --file-test-mode=rndwr --file-fsync-freq=4
	# The 4 writes before the first periodic fsync were measured and are reported.
	check "EIO in fsync: the 4 writes before the failed fsync are counted" \
		grep -Eq 'reads, writes, syncs done: +0, 4, 0$' "$TMP/out"
	eio fdatasync posix/io/sync/fdatasync fdatasync --file-test-mode=rndwr --file-fsync-freq=4 \
		--file-fsync-mode=fdatasync
	# --file-fsync-all: the write went through and the sync after it failed; the message says
	# so (the sync engine syncs inside its queue call, for libaio the thread as it reaps).
	for e in sync libaio; do
		grep -qw $e <<<"$ENGINES" || continue
		expect_exit 1 "EIO in the fsync of --file-fsync-all ($e): exit 1" \
			fiu-run -x -c "enable name=posix/io/sync/fsync,failinfo=5" "$SBIO" run --dir="$D" \
			--time=10 --file-test-mode=rndwr --file-fsync-all --ioengine=$e
		err_match "EIO in the fsync of --file-fsync-all ($e): the message blames the fsync, not the write" \
			"$D/test_file\.[0-9]+: fsync after the write at offset [0-9]+: Input/output error"
		set_complete "EIO in the fsync of --file-fsync-all ($e): the set is intact" "$D"
	done
	if grep -qw mmap <<<"$ENGINES"; then
		eio "msync (mmap engine)" posix/mm/msync msync --file-test-mode=rndwr --file-fsync-freq=4 \
			--ioengine=mmap
	fi
	# One failed pwrite in a seqwr (libfiu's onetime): sbio completes the emptied set after the
	# run; the block that failed must be written then too, or the set is marked complete with a
	# hole where data should be.
	D=$TMP/eio-seqwr
	mkdir -p "$D"
	"$SBIO" prepare --dir="$D" --file-num=2 --file-total-size=2M --file-block-size=4K >/dev/null 2>&1
	expect_exit 1 "EIO once in a seqwr pwrite: exit 1" \
		fiu-run -x -c "enable name=posix/io/rw/pwrite,failinfo=5,onetime" "$SBIO" run --dir="$D" \
		--file-test-mode=seqwr --file-block-size=4K --events=10
	set_sound "EIO once in a seqwr pwrite: nothing lost" "$D"
	line=$(grep -Eo 'test_file\.[0-9]+: pwrite at offset [0-9]+' "$TMP/err" | head -1)
	f=${line%%:*}
	off=${line##* }
	if [ -n "$line" ] && [ "$(mf "$D" state)" = complete ]; then
		nz=$(dd if="$D/$f" bs=4096 skip=$((off / 4096)) count=1 2>/dev/null | tr -d '\0' | wc -c)
		check "EIO once in a seqwr pwrite: the set is complete and the block that failed ($f at $off) holds data, not a hole" \
			test "$nz" -gt 0
	fi
else
	skip "EIO: fiu-run not installed (Debian fiu-utils)"
fi

# === The engine itself fails: libaio's io_getevents returns -EIO (tests/tools/failreap.so) ===
# No io is to blame, so the message names the engine and what it was doing, not some file and
# offset; the report is printed and the set is intact.
if ! grep -qw libaio <<<"$ENGINES"; then
	skip "engine failure: libaio is not available here"
elif [ ! -f "$SBIO_TOOLS/failreap.so" ]; then
	notok "engine failure: $SBIO_TOOLS/failreap.so not built (make test builds it)"
else
	D=$TMP/reap
	mkdir -p "$D"
	"$SBIO" prepare --dir="$D" --file-num=2 --file-total-size=4M >/dev/null 2>&1
	expect_exit 1 "libaio's io_getevents fails: exit 1" env LD_PRELOAD="$SBIO_TOOLS/failreap.so" \
		FAILREAP_AFTER=50 "$SBIO" run --dir="$D" --file-test-mode=rndrd --ioengine=libaio \
		--iodepth=8 --time=10
	stderr_one_line "engine failure: one line on stderr"
	err_match "engine failure: the message names the engine and what failed" \
		"^sbio: --ioengine=libaio: waiting for completions: Input/output error$"
	check "engine failure: no file or offset is blamed" bash -c "! grep -q 'test_file' '$TMP/err'"
	report_printed "engine failure: the report is printed"
	set_complete "engine failure: the set is intact" "$D"
fi

# === A set that cannot be used: exit 2, one line saying what to do, nothing touched =========
# refused DESC ADVICE-ERE DIR ARGS…: sbio ARGS… exits 2, one non-note stderr line that matches
# ADVICE-ERE, and DIR is unchanged.
refused() {
	local desc=$1 advice=$2 dir=$3 before
	shift 3
	before=$(snapshot "$dir" 2>/dev/null)
	expect_exit 2 "$desc: exit 2" "$SBIO" "$@"
	stderr_one_line "$desc: one line on stderr"
	err_match "$desc: says what to do" "$advice"
	unchanged "$desc: nothing on disk changed" "$dir" "$before"
}
B=$TMP/states
mkdir -p "$B"
good=$B/good
mkdir -p "$good"
"$SBIO" prepare --dir="$good" --file-num=4 --file-total-size=1M --rand-seed=5 >/dev/null 2>&1
# fresh NAME: a copy of the good set.
fresh() { rm -rf "${B:?}/$1" && cp -a "$good" "$B/$1" && echo "$B/$1"; }

mkdir -p "$B/empty"
refused "run on an unprepared folder" "run sbio prepare" "$B/empty" \
	run --dir="$B/empty" --file-test-mode=rndrd --time=1
d=$(fresh incomplete)
sed -i 's/^state=complete$/state=incomplete/' "$d/sbio.manifest"
refused "run on an incomplete set (state=incomplete)" "sbio prepare again|sbio cleanup" "$d" \
	run --dir="$d" --file-test-mode=rndrd --time=1
d=$(fresh missing)
rm "$d/test_file.2"
refused "run with test_file.2 missing" "test_file\.2.*(sbio prepare|sbio cleanup)" "$d" \
	run --dir="$d" --file-test-mode=rndrd --time=1
d=$(fresh truncated)
truncate -s 100000 "$d/test_file.1"
refused "run with test_file.1 truncated" "test_file\.1.*(sbio prepare|sbio cleanup)" "$d" \
	run --dir="$d" --file-test-mode=rndrd --time=1
refused "seqwr run with test_file.1 truncated" "test_file\.1.*(sbio prepare|sbio cleanup)" "$d" \
	run --dir="$d" --file-test-mode=seqwr --time=1
for cmd in "run --file-test-mode=rndrd --time=1" "prepare --file-num=2 --file-total-size=1M" cleanup; do
	# shellcheck disable=SC2086 # the command and its options are words on purpose
	refused "${cmd%% *} with a missing --dir" "create the folder" "$B" ${cmd} --dir="$B/no-such-folder"
	check "${cmd%% *} with a missing --dir: the folder is not created" test ! -e "$B/no-such-folder"
done

# A read-only folder: a read-only bind mount (root ignores file modes).
if [ $ROOT = 1 ]; then
	RO=$TMP/ro
	ROE=$TMP/ro-empty
	mkdir -p "$RO" "$ROE" "$B/rw-empty"
	if mount --bind "$good" "$RO" && MOUNTS+=("$RO") && mount -o remount,bind,ro "$RO" &&
		mount --bind "$B/rw-empty" "$ROE" && MOUNTS+=("$ROE") && mount -o remount,bind,ro "$ROE"; then
		RW_ADVICE="[Rr]ead-only.*(writable|remount|another --dir|read-write)"
		refused "prepare on a read-only folder holding a complete set" "$RW_ADVICE" "$good" prepare --dir="$RO"
		refused "prepare on an empty read-only folder" "$RW_ADVICE" "$B/rw-empty" \
			prepare --dir="$ROE" --file-num=2 --file-total-size=1M
		refused "rndwr run on a read-only set" "$RW_ADVICE" "$good" \
			run --dir="$RO" --file-test-mode=rndwr --time=1
		refused "seqwr run on a read-only set" "$RW_ADVICE" "$good" \
			run --dir="$RO" --file-test-mode=seqwr --time=1
		refused "seqwr run on an empty read-only folder" "$RW_ADVICE" "$B/rw-empty" \
			run --dir="$ROE" --file-test-mode=seqwr --file-num=2 --file-total-size=1M --time=1
		refused "cleanup of a read-only set" "$RW_ADVICE" "$good" cleanup --dir="$RO"
		# Reading needs no write access: a read-only set is fine for a read test.
		expect_exit 0 "rndrd run on a read-only set works: exit 0" \
			"$SBIO" run --dir="$RO" --file-test-mode=rndrd --events=100
	else
		notok "read-only bind mount of $good at $RO"
	fi
else
	skip "read-only folder: needs root (bind mount)"
fi

# === SIGINT / SIGTERM during prepare ========================================================
# Many small files, each fsynced: a prepare that takes a second or two and writes little.
for sig in INT TERM; do
	D=$TMP/prep-$sig
	mkdir -p "$D"
	bg "$TMP/prep.out" "$SBIO" prepare --dir="$D" --file-num=1500 --file-total-size=6000K
	wait_for 10 test -e "$D/test_file.1"
	kill -$sig "$BG" 2>/dev/null
	finish 20
	bg_out "$TMP/prep.out"
	n=$(find "$D" -name 'test_file.*' | wc -l)
	eq "SIG$sig during prepare: exit 130" "$RC" 130
	check "SIG$sig during prepare: it stopped early ($n of 1500 files)" test "$n" -lt 1500
	eq "SIG$sig during prepare: manifest state=incomplete" "$(mf "$D" state)" incomplete
	err_match "SIG$sig during prepare: says the set is incomplete and what to do" "incomplete.*(sbio prepare|sbio cleanup)"
	set_sound "SIG$sig during prepare: nothing lost" "$D"
done
expect_exit 0 "prepare again after SIGINT finishes the set: exit 0" "$SBIO" prepare --dir="$TMP/prep-INT"
set_complete "prepare again after SIGINT: the set is complete" "$TMP/prep-INT"
expect_exit 0 "cleanup after SIGTERM: exit 0" "$SBIO" cleanup --dir="$TMP/prep-TERM"
eq "cleanup after SIGTERM: removes the partial set" "$(listing "$TMP/prep-TERM")" ""

# === SIGINT / SIGTERM during a run ==========================================================
# A slow seqwr: the files are emptied before the measured phase, so the set is short when the
# signal comes; sbio stops at once and leaves it marked short (what each file lacks), and the
# next run completes it before it starts.
D=$TMP/runsig
mkdir -p "$D"
"$SBIO" prepare --dir="$D" --file-num=4 --file-total-size=4M --rand-seed=9 >/dev/null 2>&1
for sig in INT TERM; do
	bg "$TMP/run.out" "$SBIO" run --dir="$D" --file-test-mode=seqwr --file-block-size=4K --rate=200 --time=30
	if wait_for 10 grep -qs 'Threads started!' "$TMP/run.out"; then
		sleep 0.3
		kill -$sig "$BG"
		finish 20
		bg_out "$TMP/run.out"
		eq "SIG$sig during a seqwr run: exit 130" "$RC" 130
		report_printed "SIG$sig during a seqwr run: the report is printed"
		out_match "SIG$sig during a seqwr run: the report says it was interrupted by SIG$sig" "Interrupted by SIG$sig"
		set_sound "SIG$sig during a seqwr run: nothing lost" "$D"
		eq "SIG$sig during a seqwr run: the set is marked short" \
			"$(mf "$D" state) $(mf "$D" short)" "incomplete seqwr"
		out_match "SIG$sig during a seqwr run: the report says what is left and who writes it" \
			'^seqwr: the run ended before the set was whole again: .* left unwritten'
		expect_exit 0 "SIG$sig during a seqwr run: the next run" "$SBIO" run --dir="$D" \
			--file-test-mode=rndrd --events=10
		out_match "SIG$sig during a seqwr run: the next run completes the set first" \
			'^Completing the set in .*, left short by a seqwr run'
		set_complete "SIG$sig during a seqwr run: the set is complete again" "$D"
	else
		finish 5
		bg_out "$TMP/run.out"
		notok "SIG$sig during a run: the run never started (exit $RC: $(head -c 300 "$TMP/err" | tr '\n' ' '))"
	fi
done

# === compare on a loop device: SIGINT, SIGTERM, SIGKILL =====================================
if [ $ROOT = 1 ] && truncate -s 64M "$TMP/img" && dev=$(losetup -f --show "$TMP/img" 2>"$TMP/err"); then
	LOOP=${dev#/dev/}
	Q=/sys/block/$LOOP/queue
	LM=$TMP/mnt
	mkdir -p "$LM"
	if mkfs.ext4 -q -F "/dev/$LOOP" >"$TMP/err" 2>&1 && mount "/dev/$LOOP" "$LM" 2>>"$TMP/err"; then
		MOUNTS+=("$LM")
		LD=$LM/set
		mkdir -p "$LD"
		"$SBIO" prepare --dir="$LD" --file-num=4 --file-total-size=16M --rand-seed=11 >/dev/null 2>&1
		STATE=$SBIO_STATE_DIR/$LOOP.state
		BASE=$(queue_snap)
		RA0=$(cat "$Q/read_ahead_kb")
		RA=$([ "$RA0" = 512 ] && echo 1024 || echo 512)
		# Two schedulers, F1 and F2: kyber and bfq, or another the device offers where the
		# kernel has no bfq (or no kyber).
		SCH=$(sched_pick 2 kyber bfq mq-deadline)
		read -r F1 F2 <<<"$SCH"
		# shellcheck disable=SC2054 # the commas are sbio's list syntax
		CMP=(compare --dir="$LD" --file-test-mode=seqwr --rate=300 --time=1 --repeat=2
			--schedulers="$F1,$F2" --queue "read_ahead_kb=$RA" --drop-caches=off)
		if [ -z "$F2" ]; then
			skip_kernel "compare signals: $LOOP offers fewer than 2 schedulers ($SCH)"
		else
			for sig in INT TERM; do
				bg "$TMP/cmp.out" "$SBIO" "${CMP[@]}"
				if wait_for 15 grep -qs '^\[2/4\]' "$TMP/cmp.out"; then
					sleep 0.3
					mid="$(cur_sched) $(cat "$Q/read_ahead_kb")"
					kill -$sig "$BG"
					finish 20
					bg_out "$TMP/cmp.out"
					eq "SIG$sig during compare (2nd run): $F2 and read_ahead_kb=$RA were in effect" "$mid" "$F2 $RA"
					eq "SIG$sig during compare: exit 130" "$RC" 130
					out_match "SIG$sig during compare: says it was interrupted after 1 of 4 runs" 'Interrupted after 1 of 4 runs'
					out_match "SIG$sig during compare: prints the partial table (scheduler=$F1, 1/2 runs)" \
						"^scheduler=$F1 +1/2 "
					same_state "SIG$sig during compare: every queue setting restored" "$BASE"
					no_state_file "SIG$sig during compare: no state file left"
					set_sound "SIG$sig during compare: nothing lost" "$LD"
				else
					finish 5
					bg_out "$TMP/cmp.out"
					notok "SIG$sig during compare: the 2nd run never started (exit $RC: $(head -c 300 "$TMP/err" | tr '\n' ' '))"
				fi
				"$SBIO" prepare --dir="$LD" >/dev/null 2>&1
			done

			# SIGKILL: nothing of sbio's runs any more; the next sbio command puts things back.
			# Runs of 30 s: with 1 s runs, a loaded machine could let one end between the check
			# that $F1 is in effect and the kill, and the restore between two runs came first.
			bg "$TMP/cmp.out" "$SBIO" "${CMP[@]/--time=1/--time=30}"
			# In effect for a run, not for compare's up-front try of each setting (applied and
			# put back within milliseconds): still so 0.2 s later.
			tuned() { [ -s "$STATE" ] && [ "$(cur_sched)" = "$F1" ]; }
			tuned_run() { tuned && sleep 0.2 && tuned; }
			if wait_for 15 tuned_run; then
				sleep 0.1
				{
					kill -KILL "$BG"
					finish 10
				} 2>/dev/null # bash's own "Killed" notice is noise here
				eq "SIGKILL during compare: exit 137" "$RC" 137
				eq "SIGKILL during compare: $F1 and read_ahead_kb=$RA still in effect" \
					"$(cur_sched) $(cat "$Q/read_ahead_kb")" "$F1 $RA"
				check "SIGKILL during compare: the state file $STATE is present" test -s "$STATE"
				set_sound "SIGKILL during compare: nothing lost (the seqwr set is marked incomplete or whole)" "$LD"
				expect_exit 0 "sbio help after SIGKILL: exit 0" "$SBIO" help
				same_state "sbio help after SIGKILL: the scheduler and every knob restored" "$BASE"
				no_state_file "sbio help after SIGKILL: the state file is removed"
				expect_exit 0 "prepare after SIGKILL makes the set whole again: exit 0" "$SBIO" prepare --dir="$LD"
				set_complete "prepare after SIGKILL: the set is complete" "$LD"
			else
				finish 5
				bg_out "$TMP/cmp.out"
				notok "SIGKILL during compare: the first run never applied $F1 (exit $RC: $(head -c 300 "$TMP/err" | tr '\n' ' '))"
			fi
		fi
		"$SBIO" restore >/dev/null 2>&1 # whatever happened above, leave the device as found
	else
		notok "mkfs.ext4 and mount of /dev/$LOOP: $(head -c 300 "$TMP/err" | tr '\n' ' ')"
	fi
elif [ $ROOT = 1 ]; then
	skip "compare signals: no loop device can be made: $(head -c 200 "$TMP/err" | tr '\n' ' ')"
else
	skip "compare signals: needs root (loop device, scheduler)"
fi
exit 0
